"""`templari-companion --check`: before the first phone tries, in words: the addresses
phones may use and the one the QR code carries, whether the port is free, the data
directory's state (or the PostgreSQL database's), and whether this machine reaches itself
through each address.

Nothing is changed: the data directory is only read (never made), and the port is only
listened on for the moment of the check when it is free. It says whether the server
would start (the command's exit status).
"""
import os
import socket
import sqlite3
from contextlib import closing, suppress
from pathlib import Path
from typing import NamedTuple

from companion.server.network import DEFAULT_PORT
from companion.server.serve import CannotListen, bind, is_loopback, listen_on, offers
from companion.store.sql import StorageFault, shown
from companion.store.sqlite import DATABASE, check_files

REACH_TIMEOUT = 2.0  # seconds to wait for this machine's own answer through an address


class Checked(NamedTuple):
    """The check's words, a line each, and whether the server would start."""
    text: str
    starts: bool


def report(host: str, port: int | None, data_dir: str, names=(),
           database: str | None = None) -> Checked:
    """The check's words, and whether the server would start: not if its data cannot be
    used, nor if the port asked for (`port` not None) is taken (the default one moves)."""
    asked, port = port, DEFAULT_PORT if port is None else port
    lines = [f"Templari Companion check, port {port}:"]
    try:
        sockets = bind(listen_on(host), port)
    except CannotListen as why:
        sockets, listening = [], False
        lines.append(f"- Port: {why}.")
    else:
        listening = True
        if port:
            lines.append(f"- Port {port} is free.")
        else:  # (the addresses below are checked on the port this check was given)
            port = sockets[0].getsockname()[1]
            lines.append(f"- Port 0: the server will take any free port and print it (this "
                         f"check was given {port}).")
    try:
        offered = offers(host, port, names)
        lines += _addresses(offered, is_loopback(host))
        kept, usable = _database(database) if database else _data(Path(data_dir))
        lines.append(kept)
        lines += _reached(offered, listening)
    finally:
        for sock in sockets:
            sock.close()
    return Checked("\n".join(lines), usable and (listening or asked is None))


def _addresses(offered, loopback: bool) -> list[str]:
    if loopback:
        return ["- Phones cannot reach this server: it listens only on this device (start "
                "without --host to let them)."]
    if not offered:
        return ["- Phones cannot reach this server: no network address was found (join a "
                "Wi-Fi network or share this device's hotspot)."]
    lines = [f"- The QR code carries {offered[0][0]}{_what(offered[0][1])}."]
    if len(offered) > 1:
        lines.append("- The host's table screen offers the others in one tap: "
                     + ", ".join(url + _what(label) for url, label in offered[1:]) + ".")
    return lines


def _what(label: str) -> str:
    return f" ({label})" if label else ""


def _data(directory: Path) -> tuple[str, bool]:
    """The data directory's state, read without changing it, and whether it can be used."""
    database = directory / DATABASE
    where = directory.resolve()
    if not directory.exists():
        parent = next(folder for folder in where.parents if folder.exists())
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            return (f"- {where} cannot be made ({parent} cannot be written): start with "
                    "another --data-dir."), False
        return f"- Games will be kept in {where} (made at the first start).", True
    if not directory.is_dir():
        return (f"- {where} is a file, not a directory: start with another "
                "--data-dir."), False
    if not os.access(directory, os.W_OK):
        return f"- {where} cannot be written: start with another --data-dir.", False
    if not database.exists():
        return f"- Games will be kept in {where} (no game yet).", True
    try:
        check_files(database)
    except StorageFault as fault:
        return f"- The server will not start: {fault}.", False
    try:
        with closing(sqlite3.connect(database.resolve().as_uri() + "?mode=ro", uri=True,
                                     timeout=1)) as db:
            count = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error as error:
        return (f"- {database.resolve()} cannot be read ({error}): the server will say "
                "more."), False
    return f"- Games are kept in {where}: {count} game{'s' if count != 1 else ''}.", True


def _database(url: str) -> tuple[str, bool]:
    """Whether the PostgreSQL database can be reached, and how many games it holds (read
    only: its tables are made at the first start)."""
    try:
        import psycopg
    except ImportError:
        return ("- The server will not start: --database needs psycopg (pip install "
                "'.[postgres]')."), False
    try:
        with psycopg.connect(url, connect_timeout=REACH_TIMEOUT) as db:
            made = db.execute("SELECT to_regclass('games')").fetchone()[0] is not None
            count = db.execute("SELECT COUNT(*) FROM games").fetchone()[0] if made else 0
    except psycopg.Error as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return (f"- The server will not start: the database {shown(url)} cannot be used "
                f"({first})."), False
    return f"- Games are kept in {shown(url)}: {count} game{'s' if count != 1 else ''}.", True


def _reached(offered, listening: bool) -> list[str]:
    """Whether this machine reaches itself through each address phones may use (a
    firewall of this machine may block it; another device may still be blocked when this
    one is not, by the Wi-Fi keeping devices apart)."""
    if not offered:
        return []
    lines = []
    for url, _ in offered:
        address = url.split("//", 1)[1].rsplit(":", 1)
        reached = _connects(address[0].strip("[]"), int(address[1]))
        lines.append(f"- This machine {'reaches' if reached else 'does not reach'} itself "
                     f"at {url}" + ("." if reached else
                                    ": a firewall may block it (allow Python on private "
                                    "networks)."))
    if not listening:
        lines.append("  (The port is taken: this tells whether what listens there answers.)")
    lines.append("- A phone may still fail where this machine succeeds: a guest or café "
                 "Wi-Fi may keep devices apart (then use a phone's hotspot).")
    return lines


def _connects(host: str, port: int) -> bool:
    """Whether a TCP connection to `host`:`port` is accepted in time."""
    with suppress(OSError):
        with socket.create_connection((host, port), timeout=REACH_TIMEOUT):
            return True
    return False

