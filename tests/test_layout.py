"""The house keeps its plan (issue 28): the folders are the architecture, and imports may
only go down it.

- companion/rules/: the pure rules core. It imports the standard library and itself, and
  of the standard library nothing that does I/O, networking, processes or threads.
- companion/store/: rules and the store.
- companion/web/: rules, the store and the web; never the server process.
- companion/server/, cli.py, check.py: the process on top, anything.

Every import is read from the source (those inside functions too), as import-linter's
contracts do; each contract is also shown to fail on a module that breaks it."""
import ast
import shutil
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"
# What the rules core may not use of the standard library: files, the network, processes,
# threads, the clock's sleeping and SQL.
NOT_PURE = {"os", "io", "pathlib", "shutil", "tempfile", "glob", "socket", "ssl", "select",
            "selectors", "asyncio", "http", "urllib", "email", "threading", "_thread",
            "multiprocessing", "concurrent", "subprocess", "signal", "sqlite3", "time",
            "logging", "sys"}
# What each wing may import of the package, besides itself.
ALLOWED = {
    "companion.rules": set(),
    "companion.store": {"companion.rules"},
    "companion.web": {"companion.rules", "companion.store"},
}


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every module `path` imports, absolute, with its line: relative imports resolved,
    `from package import module` counted as the module."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def wing(module: str) -> str | None:
    """The wing a module of the package belongs to; None for the process on top."""
    return next((name for name in ALLOWED if module == name or module.startswith(name + ".")),
                None)


def broken(root: Path) -> list[str]:
    """What breaks the contracts in the package at `root`: 'module:line imports name'."""
    found = []
    for path in sorted(root.rglob("*.py")):
        here = wing(module_name(path, root))
        if here is None:
            continue
        for line, imported in imports(path, root):
            top = imported.split(".")[0]
            if top == "companion":
                ok = any(imported == w or imported.startswith(w + ".")
                         for w in (here, *ALLOWED[here]))
            elif here == "companion.rules":
                ok = top in sys.stdlib_module_names and top not in NOT_PURE or top == "__future__"
            else:
                ok = True
            if not ok:
                found.append(f"{module_name(path, root)}:{line} imports {imported}")
    return found


def test_each_wing_imports_only_what_is_below_it():
    assert broken(PACKAGE) == []


def test_the_contracts_see_every_module_of_every_wing():
    """No wing is empty, so no contract passes for want of modules to check."""
    for name in ALLOWED:
        folder = PACKAGE.joinpath(*name.split(".")[1:])
        assert len(list(folder.glob("*.py"))) > 3, name


@pytest.fixture
def copy(tmp_path) -> Path:
    """A copy of the package to break."""
    target = tmp_path / "companion"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__", "*.po"))
    return target


@pytest.mark.parametrize("line, broken_import", [
    ("from companion.web.render.views import players", "companion.web.render.views.players"),
    ("from ..store.games import load", "companion.store.games.load"),
    ("from companion.server import serve", "companion.server.serve"),
    ("import threading", "threading"),
    ("import socket", "socket"),
    ("from sqlite3 import connect", "sqlite3.connect"),
    ("import flask", "flask"),
])
def test_a_rules_module_that_imports_the_shell_or_io_is_named(copy, line, broken_import):
    state = copy / "rules" / "state.py"
    state.write_text(state.read_text(encoding="utf-8") + f"\n\ndef late():\n    {line}\n",
                     encoding="utf-8")
    lines = len(state.read_text(encoding="utf-8").splitlines())
    assert broken(copy) == [f"companion.rules.state:{lines} imports {broken_import}"]


@pytest.mark.parametrize("module, line, broken_import", [
    ("store/games.py", "from companion.web import create_app", "companion.web.create_app"),
    ("store/sqlite.py", "from ..server.network import url", "companion.server.network.url"),
    ("web/changes.py", "from companion.server import serve", "companion.server.serve"),
    ("web/render/views.py", "from companion import cli", "companion.cli"),
])
def test_a_store_or_web_module_that_imports_above_it_is_named(copy, module, line,
                                                              broken_import):
    path = copy / module
    path.write_text(f"{line}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    name = "companion." + module.removesuffix(".py").replace("/", ".")
    assert broken(copy) == [f"{name}:1 imports {broken_import}"]
