"""Every host a table has: the real server started in a Python with what Windows' or macOS'
Python lacks removed (tests/platforms.py), and a whole game played through it over HTTP.

Windows' Python has no epoll nor poll(), no resource, fcntl or fork; macOS's no epoll:
every page, poll, stream and action answers as on Linux.
"""
import html
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from companion.web.streams import RETRY
from tests.real_http import RealClient, started, stop
from tests.served import Listener
from tests.web_helpers import FIRST_SALE, GAME, new_game, play, text

PLATFORMS = Path(__file__).with_name("platforms.py")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(params=["windows", "macos"])
def platform_server(request, tmp_path):
    """The server as `templari-companion --host 127.0.0.1 --port 0` starts it on that
    platform, with a fresh data directory; (process, address to open on this device)."""
    process, local, _ = started([sys.executable, str(PLATFORMS), request.param,
                                 "--host", "127.0.0.1", "--port", "0",
                                 "--data-dir", str(tmp_path / "data")], cwd=tmp_path)
    yield process, local
    out = stop(process)
    assert "Traceback" not in out, out


def live_stamp(page) -> str:
    """The stamp the table page's live part polls with (`v=`), in a page or its text."""
    text = page if isinstance(page, str) else page.text
    return re.search(r'hx-get="[^"]*/live\?v=(\d+)"', html.unescape(text)).group(1)


def test_a_whole_game_is_played_through_the_server_as_windows_and_macos_run_it(
        platform_server):
    process, local = platform_server
    host = RealClient(local)
    assert "New game" in text(host.get("/"))  # the host's page
    token = new_game(host)
    table = host.get(f"/g/{token}")
    assert table.status_code == 200
    seen = live_stamp(table)
    assert host.get(f"/g/{token}/live?v={seen}").status_code == 204  # nothing new
    address = urlsplit(local)
    streaming = Listener((address.hostname, address.port), f"/g/{token}/live/events?v={seen}")
    assert streaming.status == 200 and streaming.chunk() == RETRY
    play(host, token, GAME[:2])  # a reveal and a sale (R8)
    assert streaming.event()[0] != seen  # told at the first change
    streaming.close()
    assert host.get(f"/g/{token}/live?v={seen}").status_code == 200  # news: the sale
    assert all(words in text(host.get(f"/g/{token}")) for words in FIRST_SALE)
    play(host, token, GAME[2:])
    assert "Final score" in text(host.get(f"/g/{token}/score"))


@pytest.mark.parametrize("platform", ["windows", "macos"])
def test_every_module_imports_without_what_the_platform_lacks(platform):
    """Nothing platform-only at import time: every module of the package imports."""
    code = ("import sys; sys.path.insert(0, 'tests'); import platforms; "
            f"platforms.become({platform!r}); import importlib, pkgutil, companion; "
            "[importlib.import_module(m.name) for m in "
            "pkgutil.walk_packages(companion.__path__, 'companion.')]; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.stdout.strip() == "ok", result.stderr
