"""The app as a player installs it, not run from the checkout: the wheel `python -m build`
makes (an sdist, then the wheel from it, with the tests' own setuptools), and `pip install
.`, each installed in a fresh
virtual environment outside the checkout and started from an empty folder. Every page,
the static files and the French are there, and the server writes nothing into the
installed package or the checkout (the catalogs are compiled in memory).

Building and installing download packages: where PyPI cannot be reached the test skips,
saying so.
"""
import html
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from companion.web.streams import RETRY
from tests.real_http import RealClient, started, stop
from tests.served import Listener
from tests.web_helpers import FIRST_SALE, GAME, body, join, new_game, play, text

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints.txt"
INDEX = "https://pypi.org/simple/pip/"
BIN = "Scripts" if os.name == "nt" else "bin"
ASSETS = re.compile(r'(?:href|src)="(/(?:static|vendor)/[^"]+)"')
FRENCH_PAYMENT = "Anna paie 3 : Bert reçoit 1, Claus reçoit 1"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A copy of the checkout (outside it), and the wheel built from that copy."""
    base = tmp_path_factory.mktemp("install")
    copy = copy_of_checkout(base / "checkout")
    step(sys.executable, "-m", "build", "--no-isolation", "--outdir", base / "dist", copy)
    wheel, = (base / "dist").glob("*.whl")
    return copy, wheel


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """A fresh virtual environment with the wheel and its dependencies, at the versions
    of constraints.txt (installed by the tests' own pip: the environment needs none)."""
    path = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True)
    pip(path, "-c", CONSTRAINTS, built[1])
    return path


@pytest.mark.parametrize("source", ["wheel", "checkout"])
def test_an_installed_server_serves_a_game_in_english_and_french(source, built, venv, tmp_path):
    """Installed from the wheel, and with `pip install .` (not editable) from the copy."""
    pip(venv, "--force-reinstall", "--no-deps", built[1] if source == "wheel" else built[0])
    package = installed_package(venv, tmp_path)
    before = files(package), compiled_catalogs(ROOT)
    process, base, _ = started(
        [venv / BIN / "templari-companion", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", tmp_path / "data"],
        cwd=tmp_path, env={name: value for name, value in os.environ.items()
                           if name != "PYTHONPATH"})
    try:
        plays_a_short_game(base)
    finally:
        stop(process)
    assert (files(package), compiled_catalogs(ROOT)) == before
    assert compiled_catalogs(package) == set()


def plays_a_short_game(base: str) -> None:
    """The host's device opens every kind of page and plays the first lot, in English, and
    its table screen's stream shows it; French browsers see it in French."""
    host = RealClient(base)
    home = host.get("/")
    assert home.status_code == 200 and "New game" in text(home)
    assets = {html.unescape(url) for url in ASSETS.findall(body(home))}
    assert all(any(name in url for url in assets) for name in ("app.css", "app.js", "htmx"))
    for url in assets:
        assert host.get(url).status_code == 200, url
    token = new_game(host)
    join(host, token, "Bert")
    play(host, token, GAME[:2])
    for path in (f"/g/{token}", f"/g/{token}/me"):  # the table and a player's phone page
        page = host.get(path)
        assert page.status_code == 200 and all(words in text(page) for words in FIRST_SALE)
    address = urlsplit(base)
    screen = Listener((address.hostname, address.port), f"/g/{token}/live/events?v=0")
    assert screen.status == 200 and screen.chunk() == RETRY  # the stream, caught up at once
    stamp, _ = screen.event()
    screen.close()
    part = host.get(f"/g/{token}/live?v=0", headers={"HX-Request": "true"})
    assert f'data-stamp="{stamp}"' in part.text and all(words in text(part) for words in FIRST_SALE)
    assert host.get("/rules").status_code == 200
    assert "Nouvelle partie" in text(RealClient(base, headers={"Accept-Language": "fr"}).get("/"))
    french = RealClient(base)
    assert french.get(f"/lang/fr?next=/g/{token}").status_code == 303  # the switch: a cookie
    assert FRENCH_PAYMENT in text(french.get(f"/g/{token}"))


def copy_of_checkout(target: Path) -> Path:
    """The checkout's files as a clone of it has them, with the changes not yet committed
    (no virtual environment, no build output)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # not a file deleted and not yet committed
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def pip(venv: Path, *arguments) -> None:
    """`pip install` into `venv`, by this environment's pip."""
    step(sys.executable, "-m", "pip", "--python", venv / BIN / "python", "install", "-q",
         *arguments)


def step(*command) -> None:
    """Run a step of building or installing. One that fails skips the test where PyPI
    cannot be reached (nothing could be downloaded), and fails it anywhere else."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode == 0:
        return
    try:
        urllib.request.urlopen(INDEX, timeout=10).close()
    except OSError:
        pytest.skip("PyPI cannot be reached: the package cannot be built and installed here")
    pytest.fail(f"{' '.join(map(str, command))} failed:\n{done.stdout}{done.stderr}")


def installed_package(venv: Path, outside: Path) -> Path:
    """The folder of the package the environment imports, checked to hold the templates
    and the static files the app uses."""
    shown = subprocess.run(
        [venv / BIN / "python", "-c", "from companion import web; "
         "print(web.PACKAGE, web.resources('templates'), web.resources('static'), sep='\\n')"],
        cwd=outside, capture_output=True, text=True, check=True).stdout.splitlines()
    package = Path(shown[0])
    assert package.is_relative_to(venv.resolve()) and shown[1:] == [
        str(package / "templates"), str(package / "static")]
    return package


def files(folder: Path) -> dict[Path, int]:
    """Every file under `folder`, with when it was last written."""
    return {path: path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()}


def compiled_catalogs(top: Path) -> set[Path]:
    """The compiled catalogs (.mo files) under `top`, less its virtual environment and git."""
    found = set()
    for folder, subfolders, names in os.walk(top):
        subfolders[:] = [name for name in subfolders if name not in (".venv", ".git")]
        found.update(Path(folder, name) for name in names if name.endswith(".mo"))
    return found
