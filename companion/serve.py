"""Starting the table server: waitress on the local network, never Flask's debug server."""
import socket

from waitress import serve as waitress_serve

from .qr import qr_text
from .web import create_app


ROUTE_PROBE = "192.0.2.1"  # a documentation address (RFC 5737): only routed, never sent to


def lan_address() -> str | None:
    """This machine's address on the local network, as phones would reach it."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    addresses = [info[4][0] for info in infos if not info[4][0].startswith("127.")]
    return addresses[0] if addresses else _routed_address()


def _routed_address() -> str | None:
    """The local address the system would send from: connecting UDP sends no packet."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((ROUTE_PROBE, 9))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith(("127.", "0.")) else address


def serve(host: str, port: int, data_dir: str) -> None:
    """Print where to connect, with a QR code, then serve until stopped."""
    address = lan_address() if host in ("0.0.0.0", "") else host
    lan_url = f"http://{address}:{port}" if address else None
    app = create_app(data_dir, lan_url=lan_url)
    print(f"Templari Companion: games are kept in {data_dir}")
    print(f"On this device, open http://127.0.0.1:{port}")
    if lan_url:
        print(f"Phones on the same network open {lan_url} (or scan):")
        print(qr_text(lan_url))
        print(f"To host from another device, open {lan_url}/host/{app.config['HOST_KEY']}")
    else:
        print("No local network address was found: phones cannot reach this server yet.")
    waitress_serve(app, host=host, port=port, threads=8)
