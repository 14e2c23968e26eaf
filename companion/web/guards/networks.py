"""Who is asking: a device, where its session says which (the random CSRF token every form
of a browser sends back), else its network: an IPv4 address, or the first
`--ipv6-prefix` bits of an IPv6 address (64 by default: a home's, a café's or a phone's
network, which one attacker holds whole); behind `--proxy`, the address the proxy
forwards (guards/proxy.py). Game starts, game codes and operator's keys, which anyone
may try, are counted for a network; the changes of a device for that device, under a
ceiling for its network (guards/pace.py)."""
import ipaddress
from functools import lru_cache

from flask import request, session

from .limits import limits
from .security import CSRF_FIELD


@lru_cache(maxsize=4096)  # asked at every change
def network(address: str, prefix: int) -> str:
    """The network of `address`: an IPv4 address itself (an IPv4-mapped IPv6 address as
    IPv4), an IPv6 address its first `prefix` bits ('2001:db8:1:2::/64'); what is no
    address, as it is."""
    try:
        found = ipaddress.ip_address(address)
    except ValueError:
        return address
    if found.version == 6 and found.ipv4_mapped:
        found = found.ipv4_mapped
    if found.version == 4:
        return str(found)
    return str(ipaddress.ip_network((found, prefix), strict=False))


def asking_network() -> str:
    """The network the request comes from."""
    return network(request.remote_addr or "", limits().ipv6_prefix)


def asking_device() -> str:
    """The device the request comes from: its session ('session:' and its CSRF token),
    else its network ('network:' and the network)."""
    token = session.get(CSRF_FIELD)
    return f"session:{token}" if isinstance(token, str) else f"network:{asking_network()}"
