"""A laptop with two interfaces, as the tests make one: a network namespace of their own
(the laptop) with a Wi-Fi (a veth pair to a second namespace, the phone's) and a VPN that
takes the default route (a veth pair of its own), addresses from 198.18.0.0/15. The real
server runs in the laptop's namespace; its host is a client on that namespace's loopback,
the phone a client in the phone's namespace. Nothing leaves these namespaces.

Phones are shown the Wi-Fi's address, not the VPN's (the default route's); the host shows
the VPN's in one tap and the phone sees it; `--check` says which address the QR code
carries and whether this machine reaches itself through each.
"""
import os
import shutil
import subprocess
import sys

import pytest

from companion.web.render.qr import qr_svg
from tests.browser_helpers import _ip, _undo
from tests.netns import inside
from tests.real_http import RealClient, started, stop
from tests.web_helpers import new_game, submit, text

WIFI, VPN = "198.18.254.1", "198.18.253.1"  # the laptop's ends
PHONE = "198.18.254.2"  # the phone, on the laptop's Wi-Fi
UNREACHABLE = "198.18.252.9"  # a name given with --name that no interface holds


@pytest.fixture(scope="module")
def laptop():
    """The two namespaces, named after this process; deleted at the end whatever happens."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root: run the tests as root (CI does)")
    if shutil.which("ip") is None:
        pytest.skip("network namespaces need iproute2's `ip`: apt-get install iproute2")
    pid = os.getpid() % 100000
    names = {"laptop": f"tl-{pid}", "phone": f"tp-{pid}"}
    wifi, wifi_peer, vpn, vpn_peer = f"wlan{pid}", f"wlp{pid}p", f"tun{pid}", f"tun{pid}p"
    made = []
    try:
        for namespace in names.values():
            _ip("netns", "add", namespace)
            made.append(("netns", "delete", namespace))
            _ip("-n", namespace, "link", "set", "lo", "up")
        laptop, phone = names["laptop"], names["phone"]
        _ip("link", "add", wifi, "netns", laptop, "type", "veth", "peer", "name", wifi_peer,
            "netns", phone)
        _ip("link", "add", vpn, "netns", laptop, "type", "veth", "peer", "name", vpn_peer,
            "netns", laptop)
        for namespace, device, address in ((laptop, wifi, f"{WIFI}/30"),
                                           (phone, wifi_peer, f"{PHONE}/30"),
                                           (laptop, vpn, f"{VPN}/30"), (laptop, vpn_peer, None)):
            if address:
                _ip("-n", namespace, "addr", "add", address, "dev", device)
            _ip("-n", namespace, "link", "set", device, "up")
        _ip("-n", laptop, "route", "add", "default", "dev", vpn)  # a full-tunnel VPN
    except RuntimeError as error:
        _undo(made)
        pytest.skip(f"cannot make the namespaces: {error}")
    try:
        yield names
    finally:
        _undo(made)


def command(laptop, *args) -> list[str]:
    return ["ip", "netns", "exec", laptop["laptop"], sys.executable, "-m", "companion.cli",
            *args]


@pytest.fixture(scope="module")
def served(laptop, tmp_path_factory):
    """The server as started on the laptop: no --host, no --port (the default one)."""
    data = tmp_path_factory.mktemp("two-networks")
    process, local, lines = started(command(laptop, "--data-dir", str(data / "data")),
                                    cwd=data)
    try:
        yield process, local, "".join(lines)
    finally:
        stop(process)


def test_phones_are_shown_the_wifi_address_not_the_vpns(laptop, served):
    """The VPN has the default route, but phones on the Wi-Fi cannot open its address."""
    process, local, out = served
    port = local.rsplit(":", 1)[1]
    assert local == f"http://127.0.0.1:{port}"
    assert f"Phones on the same network open http://{WIFI}:{port} (or scan):" in out
    assert f"This machine's other addresses: http://{VPN}:{port} (VPN)." in out


def test_the_host_shows_another_address_in_one_tap_and_the_phone_follows(laptop, served):
    _, local, _ = served
    port = local.rsplit(":", 1)[1]
    wifi_url, vpn_url = f"http://{WIFI}:{port}", f"http://{VPN}:{port}"

    def host_starts_a_game_and_shows_the_wifi():
        host = RealClient(local)
        token = new_game(host)
        answer = submit(host, f"/g/{token}", "phone-address", address=wifi_url)
        return token, answer.status_code, text(host.get(f"/g/{token}"))
    token, status, page = inside(laptop["laptop"], host_starts_a_game_and_shows_the_wifi)
    assert status == 303 and f"No camera? Open {wifi_url} " in page  # as it was

    def phone_opens_the_game():
        phone = RealClient(wifi_url)
        return (phone.get(f"/g/{token}/join").status_code, text(phone.get(f"/g/{token}")),
                phone.get(f"/g/{token}/qr.svg").data)
    status, page, qr = inside(laptop["phone"], phone_opens_the_game)
    assert status == 200 and f"No camera? Open {wifi_url} " in page
    assert "Show another address" not in page  # a phone is no host
    assert qr == qr_svg(f"{wifi_url}/g/{token}/join")

    def host_shows_the_vpn():
        host = RealClient(local)
        return submit(host, f"/g/{token}", "phone-address", address=vpn_url).status_code
    assert inside(laptop["laptop"], host_shows_the_vpn) == 303
    status, page, qr = inside(laptop["phone"], phone_opens_the_game)
    assert f"No camera? Open {vpn_url} " in page and qr == qr_svg(f"{vpn_url}/g/{token}/join")


def test_the_check_tells_the_addresses_the_port_and_what_this_machine_reaches(laptop, served,
                                                                            tmp_path):
    """With the server running, and a --name that no interface holds (shown first)."""
    _, local, _ = served
    busy = local.rsplit(":", 1)[1]
    result = subprocess.run(command(laptop, "--check", "--data-dir", str(tmp_path / "data"),
                                    "--name", UNREACHABLE), capture_output=True, text=True,
                            timeout=60)
    out = result.stdout
    assert result.returncode == 0, result.stderr
    # the server has it, and the check knows it for this app
    assert f"- Port: port {busy} is taken by a Templari Companion server already running" in out
    assert f"- The QR code carries http://{UNREACHABLE}:{busy}." in out
    assert (f"- The host's table screen offers the others in one tap: http://{WIFI}:{busy} "
            f"(Wi-Fi), http://{VPN}:{busy} (VPN).") in out
    assert f"- Games will be kept in {tmp_path / 'data'} (made at the first start)." in out
    assert f"- This machine reaches itself at http://{WIFI}:{busy}." in out
    assert f"- This machine reaches itself at http://{VPN}:{busy}." in out
    assert (f"- This machine does not reach itself at http://{UNREACHABLE}:{busy}: a firewall "
            "may block it") in out
    assert not (tmp_path / "data").exists()  # the check changes nothing
