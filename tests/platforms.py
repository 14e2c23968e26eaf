"""Run `templari-companion` as it would run on another host platform: this Python with what
that platform's Python lacks removed before anything else is imported.

    python tests/platforms.py windows [templari-companion's arguments]
    python tests/platforms.py macos [...]

Windows' Python has no epoll, no poll() nor its POLL* constants, no resource, fcntl,
termios, pwd or grp module, and no fork; macOS's has no epoll. A module removed here
cannot be imported (ImportError, as there), a name removed is gone from its module.
"""
import os
import select
import sys

MISSING = {
    "windows": {
        "modules": ("resource", "fcntl", "termios", "pwd", "grp"),
        "names": {select: [name for name in dir(select) if name.startswith(("epoll", "poll",
                                                                            "POLL", "EPOLL",
                                                                            "devpoll"))],
                  os: ["fork", "forkpty", "wait3", "wait4"]},
    },
    "macos": {
        "modules": (),
        "names": {select: [name for name in dir(select) if name.startswith(("epoll", "EPOLL"))]},
    },
}


def become(platform: str) -> None:
    """Take away what `platform`'s Python lacks."""
    missing = MISSING[platform]
    for module in missing["modules"]:
        sys.modules[module] = None  # `import module` now raises ImportError
    for module, names in missing["names"].items():
        for name in names:
            if hasattr(module, name):
                delattr(module, name)


if __name__ == "__main__":
    become(sys.argv[1])
    from companion.cli import main
    sys.exit(main(sys.argv[2:]))
