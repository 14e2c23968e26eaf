"""The README's two set-up commands: each one line, in a virtual environment of its own
making (so a Python that refuses pip outside one, PEP 668, runs them), and CI runs the
test command exactly as written there."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands() -> list[str]:
    """The indented command lines of the README's 'Two commands' section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^    (\S.*)$", section, re.M)


def test_both_commands_make_and_use_a_virtual_environment():
    serve, test = commands()
    for command in (serve, test):
        assert command.startswith("python3 -m venv .venv && .venv/bin/python -m pip install")
    assert serve.endswith("&& .venv/bin/templari-companion")
    assert test.endswith("&& .venv/bin/python -m pytest")


def test_ci_runs_the_readme_test_command_as_written():
    test = commands()[1]
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in lines
