"""The addresses phones are shown: every interface's, the local network's first (the
default route's first among them), a VPN's, a virtual bridge's and mobile data's after."""
import pytest

from companion.server import network
from companion.server.network import Address


@pytest.mark.parametrize(("name", "kind"), [
    ("wlan0", "Wi-Fi"), ("wlp2s0", "Wi-Fi"), ("Wi-Fi", "Wi-Fi"), ("WLAN", "Wi-Fi"),
    ("eth0", "Ethernet"), ("enp3s0", "Ethernet"), ("Ethernet 2", "Ethernet"),
    ("tun0", "VPN"), ("wg0", "VPN"), ("utun3", "VPN"), ("Tailscale", "VPN"),
    ("OpenVPN TAP-Windows6", "VPN"),
    ("docker0", "virtual"), ("br-5f2a", "virtual"), ("vEthernet (WSL)", "virtual"),
    ("VirtualBox Host-Only Network", "virtual"), ("vboxnet0", "virtual"),
    ("rmnet_data0", "mobile data"), ("ap0", "hotspot"), ("swlan0", "hotspot"),
    ("en0", "en0"),  # macOS: Wi-Fi on a MacBook, Ethernet on an iMac: its name says so
])
def test_an_interface_is_told_by_its_name(name, kind):
    assert network.kind(name) == kind


@pytest.mark.parametrize(("name", "ip", "kind"), [
    ("vs4", "192.168.1.5", "local network"), ("en0", "10.0.0.3", "local network"),
    ("vs4", "fd00::2", "local network"), ("ts0x", "100.101.7.8", "VPN"),
    ("vs4", "8.8.8.8", "vs4"),  # a public address on a name that says nothing: the name
    ("wlan0", "100.101.7.8", "Wi-Fi"),  # the name first
])
def test_an_interface_whose_name_says_nothing_is_told_by_its_address(name, ip, kind):
    assert network.kind(name, ip) == kind


def test_the_default_routes_address_comes_first_of_the_local_networks(monkeypatch):
    monkeypatch.setattr(network, "_interface_addresses", lambda version: [
        Address("172.17.0.1", "virtual"), Address("192.168.56.1", "Ethernet"),
        Address("10.8.0.2", "VPN"), Address("192.168.1.20", "Wi-Fi")])
    monkeypatch.setattr(network, "routed_address", lambda version: "192.168.1.20")
    assert [address.ip for address in network.phone_addresses()] == [
        "192.168.1.20", "192.168.56.1", "10.8.0.2", "172.17.0.1"]


def test_a_vpn_that_takes_the_default_route_is_not_what_phones_are_shown(monkeypatch):
    """A laptop on a full-tunnel VPN: phones on the Wi-Fi cannot open the VPN's address."""
    monkeypatch.setattr(network, "_interface_addresses", lambda version: [
        Address("10.8.0.2", "VPN"), Address("192.168.1.20", "Wi-Fi")])
    monkeypatch.setattr(network, "routed_address", lambda version: "10.8.0.2")
    assert network.phone_addresses()[0] == Address("192.168.1.20", "Wi-Fi")


def test_a_phone_sharing_its_hotspot_with_mobile_data_shows_the_hotspot(monkeypatch):
    """Termux on a phone: the default route is the operator's network (mobile data)."""
    monkeypatch.setattr(network, "_interface_addresses", lambda version: [
        Address("10.120.4.7", "mobile data"), Address("192.168.43.1", "hotspot")])
    monkeypatch.setattr(network, "routed_address", lambda version: "10.120.4.7")
    assert network.phone_addresses()[0] == Address("192.168.43.1", "hotspot")


def test_without_the_interfaces_the_routed_address_is_offered(monkeypatch):
    """Where the system will not tell its interfaces, the default route's address."""
    monkeypatch.setattr(network, "_interface_addresses", lambda version: [])
    monkeypatch.setattr(network, "routed_address", lambda version: "192.168.1.20")
    assert network.phone_addresses() == [Address("192.168.1.20", "network")]


@pytest.mark.parametrize(("ip", "reachable"), [
    ("192.168.1.20", True), ("10.8.0.2", True), ("fd00::7", True),
    ("127.0.0.1", False), ("::1", False), ("169.254.3.4", False), ("fe80::1%eth0", False),
    ("224.0.0.1", False), ("0.0.0.0", False), ("not an address", False),
])
def test_only_addresses_another_device_could_open_are_offered(ip, reachable):
    assert network.reachable(ip) is reachable


def test_an_ipv6_address_is_written_in_brackets():
    assert network.url("fd00::7", 8421) == "http://[fd00::7]:8421"
    assert network.url("192.168.1.20", 8421) == "http://192.168.1.20:8421"
