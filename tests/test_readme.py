"""The README's set-up commands: each one line, in a virtual environment of its own making
(so a Python that refuses pip outside one, PEP 668, runs them), with the versions tested
(constraints.txt); the same for Windows in PowerShell; and CI runs the test command
exactly as written there."""
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.real_http import RealClient, started, stop
from tests.web_helpers import text

ROOT = Path(__file__).resolve().parents[1]
WINDOWS_BIN = ".\\.venv\\Scripts\\"  # where a Windows virtual environment keeps its commands


def commands() -> list[str]:
    """The indented command lines of the README's 'Two commands' section, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^    (\S.*)$", section, re.M)


def test_both_commands_make_and_use_a_virtual_environment_with_the_versions_tested():
    serve, test = commands()[:2]
    for command in (serve, test):
        assert command.startswith("python3 -m venv .venv && .venv/bin/python -m pip install "
                                  "-q -c constraints.txt ")
    assert serve.endswith(" . && .venv/bin/templari-companion")  # installed, not editable
    assert test.endswith(" -e '.[test]' && .venv/bin/python -m pytest")
    assert (ROOT / "constraints.txt").exists()


def test_the_windows_commands_are_the_same_in_powershell():
    """Windows PowerShell 5.1 has no `&&`: each step runs if the one before succeeded
    (`if ($?) { ... }`); paths are written with backslashes from the current folder."""
    posix, windows = commands()[:2], commands()[2:4]
    for unix, power in zip(posix, windows):
        assert "&&" not in power and power.count("{") == power.count("}")
        steps = [step.strip().replace(".venv/bin/", WINDOWS_BIN) for step in unix.split("&&")]
        expected = "; ".join([steps[0].replace("python3", "py")]
                             + ["if ($?) { " + step + " }" for step in steps[1:]])
        assert power == expected


def test_ci_runs_the_readme_test_command_as_written():
    test = commands()[1]
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in lines


DEBIAN_PYTHON = Path("/usr/bin/python3")  # Debian's: refuses pip outside a venv (PEP 668)


def test_the_serve_command_works_as_written_with_a_python_that_refuses_pip(tmp_path):
    """Run in a copy of the checkout, with Debian's `python3` first on the PATH: it
    installs (not editable) and serves, from its own folder's templates and files."""
    if not list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED")):
        pytest.skip("no Python marked externally managed (PEP 668) on this machine")
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "*.egg-info", "build", ".hypothesis", "artifacts"))
    environment = {**os.environ, "PATH": f"{DEBIAN_PYTHON.parent}:/bin"}
    environment.pop("VIRTUAL_ENV", None)
    process, local, _ = started(["bash", "-c", commands()[0]], cwd=copy, env=environment,
                                timeout=600)
    try:
        client = RealClient(local)
        assert "New game" in text(client.get("/"))
        assert client.get("/rules").status_code == 200
    finally:
        stop(process)
    assert (copy / ".venv" / "bin" / "templari-companion").exists()
