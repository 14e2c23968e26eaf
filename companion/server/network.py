"""Where phones reach this machine: every address of its network interfaces that another
device could open, best first, each with a word saying what it is; the default port.

The best is a local network's (Wi-Fi, Ethernet, a hotspot this device shares), the one the
default route leaves from first; a VPN's, a virtual machine's or container's bridge, and a
phone's mobile data (its operator's network) come after, since phones on the table's Wi-Fi
can seldom open them. Nothing is sent to find them: the interfaces are read (ifaddr, which
asks the system: getifaddrs, or GetAdaptersAddresses on Windows), and the default route's
address is the one a UDP socket would send from (connecting it sends nothing).
"""
import ipaddress
import re
import socket
from dataclasses import dataclass

from companion.rules.phrase import N_

# The port the server listens on unless told: free on stock macOS (AirPlay Receiver takes
# 5000 and 7000), Windows and Linux laptops.
DEFAULT_PORT = 8421
ROUTE_PROBE = "192.0.2.1"  # a documentation address (RFC 5737): only routed, never sent to
# What an interface is, by its name (Linux, macOS and Android names; Windows' connection
# names, which ifaddr gives as the address's name), in the order of how likely a phone on
# the table's Wi-Fi can open its address. The first kind that matches is the interface's.
KINDS = (
    (N_("VPN"), r"^(tun|tap|wg|ppp|utun|ipsec|zt|tailscale)|vpn|wireguard|tailscale|zerotier"
            r"|openvpn|anyconnect|fortinet|globalprotect|tap-windows"),
    (N_("virtual"), r"^(docker|br-|veth|virbr|vboxnet|vmnet|lxc|lxd|cni|podman|flannel|kube"
                r"|vnic|bridge\d)|virtual|vethernet|hyper-v|vmware|virtualbox|wsl"),
    (N_("mobile data"), r"^(rmnet|ccmni|pdp|wwan|clat)"),
    (N_("hotspot"), r"^(ap\d|swlan|softap)"),
    (N_("Wi-Fi"), r"^wl|wi-?fi|wireless|wlan|802\.11"),
    (N_("Ethernet"), r"^(eth|en[ops]|enx)|ethernet"),
)
BEHIND = (N_("VPN"), N_("virtual"), N_("mobile data"))  # offered after the local network's addresses
SHARED = ipaddress.ip_network("100.64.0.0/10")  # shared address space (RFC 6598): a VPN's
# such as Tailscale's, on an interface whose name says nothing


@dataclass(frozen=True)
class Address:
    """One address of this machine, with what it is ("Wi-Fi", "VPN"... or its interface's
    name when the name says nothing)."""

    ip: str
    label: str

    @property
    def rank(self) -> int:
        return BEHIND.index(self.label) + 1 if self.label in BEHIND else 0


def kind(name: str, ip: str = "") -> str:
    """What the interface called `name` (holding `ip`) is: by its name, else by its
    address (a private one is a local network's, one of SHARED a VPN's), else its name."""
    for word, pattern in KINDS:
        if re.search(pattern, name, re.I):
            return word
    address = ipaddress.ip_address(ip.split("%")[0]) if ip else None
    if address is not None and address.version == 4 and address in SHARED:
        return N_("VPN")
    if address is not None and address.is_private:
        return N_("local network")
    return name


def phone_addresses(version: int = 4) -> list[Address]:
    """Every address of this machine's interfaces (IPv4, or IPv6 with `version` 6) that
    another device could open, best first (see the module's docstring)."""
    routed = routed_address(version)
    found = _interface_addresses(version)
    if routed and routed not in {address.ip for address in found}:
        found.insert(0, Address(routed, N_("network")))
    order = {address: index for index, address in enumerate(found)}
    return sorted(found, key=lambda address: (address.rank, address.ip != routed,
                                              order[address]))


def label_of(ip: str) -> str:
    """What the interface holding `ip` is ("Wi-Fi"...), or "" if none of them holds it."""
    version = ipaddress.ip_address(ip).version
    for address in _interface_addresses(version):
        if address.ip == ip:
            return address.label
    return ""


def _interface_addresses(version: int) -> list[Address]:
    """The addresses of every interface that another device could open, in the system's
    order (none where the system will not tell: then only the routed one is known)."""
    try:
        import ifaddr
        adapters = ifaddr.get_adapters()
    except Exception:  # noqa: BLE001 (ctypes on an unusual system: fall back to the route)
        return []
    found = []
    for adapter in adapters:
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            if reachable(text) and ipaddress.ip_address(text).version == version:
                found.append(Address(text, kind(ip.nice_name or adapter.name, text)))
    return list(dict.fromkeys(found))


def reachable(ip: str) -> bool:
    """Whether another device could open `ip`: not loopback, link-local, multicast or
    unspecified."""
    try:
        address = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return False
    return not (address.is_loopback or address.is_link_local or address.is_multicast
                or address.is_unspecified)


def routed_address(version: int = 4) -> str | None:
    """The local address the system would send from to the wider network (the default
    route's), or None where there is no route: connecting a UDP socket sends no packet."""
    family, probe_address = ((socket.AF_INET, ROUTE_PROBE) if version == 4
                             else (socket.AF_INET6, "2001:db8::1"))
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((probe_address, 9))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return address if reachable(address) else None


def url(address: str, port: int) -> str:
    """http://ADDRESS:PORT, an IPv6 address in brackets (its zone, if any, escaped)."""
    if ":" in address:
        address = "[" + address.replace("%", "%25") + "]"
    return f"http://{address}:{port}"
