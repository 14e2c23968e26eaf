"""What the server uses of waitress beyond its documented API (`create_server` with its
options, `run`): the classes and attributes behind the loop of its own (loop.py), the
keep-alive 204s, the polls held in the loop (channel.py) and the streams (streams.py).

pyproject.toml bounds waitress to the versions tested (constraints.txt has the one CI
ran). A version without one of these names is told in one line at start, naming it, and
the server then runs waitress as documented, with waitress's own loop: slower for a café,
the same for a table.
"""
import dis
import importlib
from importlib.metadata import version

# module: {class or function: attributes used}. An attribute counts as there if the class
# has it, or if a method of the class or of one of its bases sets it.
USED = {
    "waitress.server": {
        "BaseWSGIServer": ("channel_class", "add_task", "adj", "next_channel_cleanup",
                           "asyncore", "accepting", "readable", "writable", "maintenance",
                           "active_channels", "trigger", "task_dispatcher", "_fileno",
                           "application", "pull_trigger"),
    },
    "waitress.channel": {
        "HTTPChannel": ("task_class", "requests", "request", "connected", "server",
                        "total_outbufs_len", "write_soon", "send_continue",
                        "sent_continue", "readable", "writable", "accepting", "addr",
                        "will_close", "del_channel", "requests_lock", "handle_read",
                        "close_when_flushed", "service", "adj", "_map", "_fileno",
                        "received", "last_activity", "handle_write", "outbuf_lock",
                        "current_outbuf_count", "socket"),
        "ClientDisconnected": (),
    },
    "waitress.task": {"WSGITask": ("set_close_on_finish", "get_environment", "version",
                                   "has_body", "request", "finish", "write", "wrote_header",
                                   "environ", "status", "close_on_finish"),
                      "ThreadedTaskDispatcher": ("lock", "queue", "queue_cv", "add_task")},
    "waitress.parser": {
        "HTTPRequestParser": ("error", "version", "expect_continue", "headers_finished",
                              "headers", "command", "path", "query", "url_scheme", "close"),
    },
    "waitress.wasyncore": {"readwrite": ()},
    "waitress.trigger": {"trigger": ("pull_trigger",)},
    "waitress.utilities": {"build_http_date": ()},
}


def missing() -> list[str]:
    """The names of USED that this waitress lacks, dotted (empty when it has them all)."""
    gone = []
    for module_name, names in USED.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            gone.append(module_name)
            continue
        for name, attributes in names.items():
            owner = getattr(module, name, None)
            if owner is None:
                gone.append(f"{module_name}.{name}")
                continue
            gone += [f"{module_name}.{name}.{attribute}" for attribute in attributes
                     if not _has(owner, attribute)]
    return gone


def _has(cls, attribute: str) -> bool:
    """Whether instances of `cls` have `attribute`: on the class, or set by one of its
    methods or its bases' (an attribute store in their code)."""
    return hasattr(cls, attribute) or any(
        instruction.opname == "STORE_ATTR" and instruction.argval == attribute
        for klass in cls.__mro__ for method in vars(klass).values()
        if hasattr(method, "__code__") for instruction in dis.get_instructions(method))


def fallback_line(gone: list[str]) -> str:
    """The one line said at start when waitress lacks something the server uses."""
    more = f" (and {len(gone) - 1} more)" if len(gone) > 1 else ""
    return (f"note: waitress {version('waitress')} has no {gone[0]}{more}: serving with "
            "waitress's own loop (constraints.txt names the version tested)")
