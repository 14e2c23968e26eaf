"""The README's set-up commands: each one line, in a virtual environment of its own making
(so a Python that refuses pip outside one, PEP 668, runs them), with the versions tested
(constraints.txt); the server's installs only what is missing, so that it starts again
with no internet; the same for Windows in PowerShell; and CI runs the test command exactly
as written there.

The README is a front door of at most 150 lines: every page of docs/ is one link away from
it, in its "Read more" list, every relative link of the README and of docs/ leads to a
file (and to a heading of it, for a link with #), and each dependency says why it is
there."""
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.real_http import RealClient, started, stop
from tests.web_helpers import text

ROOT = Path(__file__).resolve().parents[1]
WINDOWS_BIN = ".\\.venv\\Scripts\\"  # where a Windows virtual environment keeps its commands
INSTALL = "python3 -m venv .venv && .venv/bin/python -m pip install -q -c constraints.txt "
SERVER = ".venv/bin/templari-companion"


def commands() -> list[str]:
    """The indented command lines of the README's 'Two commands' section, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^    (\S.*)$", section, re.M)


def test_both_commands_make_and_use_a_virtual_environment_with_the_versions_tested():
    serve, test = commands()[:2]
    # The server's installs (not editable) only when the virtual environment has no server.
    assert serve == f"test -x {SERVER} || {{ {INSTALL}.; }} && {SERVER}"
    assert test == INSTALL + "-e '.[test]' && .venv/bin/python -m pytest"
    assert (ROOT / "constraints.txt").exists()


def test_termux_runs_the_linux_command_with_python_for_python3():
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "the Linux command above with `python` for `python3`" in readme
    assert commands()[0].count("python3") == 1  # the Python that makes the environment


def powershell(line: str) -> str:
    """The sh command `line` in Windows PowerShell 5.1, which has neither `&&` nor `||`:
    each step runs if the one before succeeded (`if ($?) { ... }`); `test -x COMMAND ||
    { ...; }` is `if (-not (Test-Path COMMAND.exe)) { ... }`, after which `$?` is the
    install's success, or true (Test-Path's) when there was nothing to install; paths are
    written with backslashes from the current folder."""
    guarded = re.fullmatch(r"test -x (\S+) \|\| \{ (.+); \} && (.+)", line)
    if guarded:
        command, install, then = guarded.groups()
        return (f"if (-not (Test-Path {command.replace('.venv/bin/', WINDOWS_BIN)}.exe)) "
                f"{{ {powershell(install)} }}; if ($?) {{ {powershell(then)} }}")
    steps = [step.strip().replace(".venv/bin/", WINDOWS_BIN) for step in line.split("&&")]
    return "; ".join([steps[0].replace("python3", "py")]
                     + ["if ($?) { " + step + " }" for step in steps[1:]])


def test_the_windows_commands_are_the_same_in_powershell():
    posix, windows = commands()[:2], commands()[2:4]
    for unix, power in zip(posix, windows):
        assert "&&" not in power and "||" not in power
        assert power.count("{") == power.count("}")
        assert power == powershell(unix)


def test_ci_runs_the_readme_test_command_as_written():
    test = commands()[1]
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in lines


DEBIAN_PYTHON = Path("/usr/bin/python3")  # Debian's: refuses pip outside a venv (PEP 668)
# pip with no index, no links to wheels, no cache and no configuration file (this
# machine's names folders of wheels): as at a table with no internet, it installs nothing.
NO_INDEX = {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_EXTRA_INDEX_URL": "",
            "PIP_FIND_LINKS": "", "PIP_NO_INDEX": "1", "PIP_NO_CACHE_DIR": "1",
            "PIP_CONFIG_FILE": os.devnull}


def fresh_clone(folder: Path) -> Path:
    """A copy of the files a clone of this checkout would have, its changes committed:
    those git tracks or would track (not ignored), as they are now."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in listed:
        if name and (ROOT / name).is_file():  # not a file deleted and not yet committed
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


def test_the_serve_command_installs_once_then_starts_with_no_index_nor_cache(tmp_path):
    """Run twice in a fresh clone, with Debian's `python3` first on the PATH: the first
    start installs (not editable) and serves, from its own folder's templates and files;
    the second, with pip's index and cache out of reach, serves again."""
    if not list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED")):
        pytest.skip("no Python marked externally managed (PEP 668) on this machine")
    clone = fresh_clone(tmp_path / "clone")
    environment = {**os.environ, "PATH": f"{DEBIAN_PYTHON.parent}:/bin"}
    environment.pop("VIRTUAL_ENV", None)
    for start in (environment, {**environment, **NO_INDEX}):
        process, local, _ = started(["sh", "-c", commands()[0]], cwd=clone, env=start,
                                    timeout=600)
        try:
            client = RealClient(local)
            assert "New game" in text(client.get("/"))
            assert client.get("/rules").status_code == 200
        finally:
            stop(process)
    assert (clone / SERVER).exists()


# --- the front door and the pages behind it ----------------------------------------------

README_LINES = 150
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")  # [text](target) and ![alt](target)


def section(path: Path, heading: str) -> str:
    """The text under `heading` (a `## ` heading) of the Markdown file at `path`, up to the
    next heading of the same level."""
    text = path.read_text(encoding="utf-8")
    assert f"\n## {heading}\n" in text, f"{path.name} has no section '{heading}'"
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def without_blocks(text: str) -> str:
    """Markdown without its blocks of code (indented, or fenced with ```)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not line.startswith("    "):
            kept.append(line)
    return "\n".join(kept)


def links(path: Path) -> list[str]:
    """The targets of a Markdown file's links and images (none in its code)."""
    prose = re.sub(r"`[^`\n]*`", "", without_blocks(path.read_text(encoding="utf-8")))
    return LINK.findall(prose)


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them: lower case, every
    character but letters, digits, spaces, hyphens and underscores dropped (the backticks
    of code, not the code), spaces made hyphens; a repeated one numbered (-1, -2...)."""
    made, seen = set(), {}
    text = without_blocks(path.read_text(encoding="utf-8"))
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
        anchor = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        made.add(anchor if count == 0 else f"{anchor}-{count}")
    return made


@pytest.mark.parametrize("title, expected", [
    ("## Two commands", "two-commands"),
    ("## Checking before the first phone: --check", "checking-before-the-first-phone---check"),
    ("## The host's device and other host devices", "the-hosts-device-and-other-host-devices"),
    ("## The café", "the-café"),
    ("## Checking a record: `replay`", "checking-a-record-replay"),
    ("## What is still to come, and the game's story",
     "what-is-still-to-come-and-the-games-story"),
])
def test_anchors_are_made_as_github_makes_them(tmp_path, title, expected):
    page = tmp_path / "page.md"
    code = "    ## not a heading: code\n\n```\n# nor this\n```\n"
    page.write_text(f"# Page\n\n{title}\n\n{code}", encoding="utf-8")
    assert anchors(page) == {"page", expected}


def test_the_readme_is_a_front_door_of_at_most_150_lines():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines"


def test_every_docs_page_is_one_link_away_in_the_readme_s_read_more_list():
    listed = {target.split("#")[0] for target in LINK.findall(section(ROOT / "README.md",
                                                                        "Read more"))}
    pages = {f"docs/{page.name}" for page in DOCS.glob("*.md")}
    assert pages and pages <= listed, f"not in the README's 'Read more': {pages - listed}"


def test_every_relative_link_leads_to_a_file_and_its_heading():
    broken = []
    for page in PAGES:
        for target in links(page):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:...
                continue
            where, _, anchor = target.partition("#")
            linked = (page.parent / where).resolve() if where else page
            if not linked.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_each_dependency_says_why_it_is_there_one_link_from_the_readme():
    """The standards ask the README to say why each dependency was added: a line each in
    its list, and the reasons at length in docs/development.md, linked as such."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.match(r"[A-Za-z0-9_.-]+", requirement).group()
             for requirement in project["dependencies"]]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[Why each dependency](docs/development.md#dependencies)" in readme
    in_readme, at_length = section(ROOT / "README.md", "Dependencies").lower(), section(
        DOCS / "development.md", "Dependencies").lower()
    assert [name for name in names if name.lower() not in in_readme] == []
    assert [name for name in names if name.lower() not in at_length] == []
    for tool in project["optional-dependencies"]["test"]:
        assert re.match(r"[A-Za-z0-9_.-]+", tool).group().lower() in at_length
