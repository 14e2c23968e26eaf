"""Starting the table server: waitress on the local network, never Flask's debug server."""
import socket

from waitress import serve as waitress_serve

from .qr import qr_text
from .web import create_app


def lan_address() -> str | None:
    """This machine's address on the local network, as phones would reach it."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return None
    addresses = [info[4][0] for info in infos if not info[4][0].startswith("127.")]
    return addresses[0] if addresses else None


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
