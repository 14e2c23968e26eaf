"""The `templari-companion` command."""
import argparse
import ipaddress
import json
import os
import re
import socket
import sys

from companion.rules.record import fold_record, loads
from companion.rules.refusal import Refusal
from companion.rules.replay import replay_json, replay_text
from companion.server.network import DEFAULT_PORT
from companion.web.guards.limits import Limits
from companion.web.screens.host import STARTS_PER_NETWORK
from companion.web.streams import HELD

LIMITS = Limits()  # the defaults


def main(argv=None) -> int:
    """Entry point of the console script. What it prints is UTF-8 wherever it goes: the
    QR code's blocks and the players' names fit no Windows code page of a redirected
    output."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):  # (none under pythonw)
            stream.reconfigure(encoding="utf-8")
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # the reader stopped reading (`... | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (the exit's flush)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="templari-companion",
                                     description="The bookkeeper for a table of Templari.")
    parser.add_argument("--host", default="0.0.0.0", type=_listened,
                        help="address to listen on (all by default); this device stays the "
                             "host at http://127.0.0.1:PORT whatever it is")
    parser.add_argument("--port", type=_port, default=None,
                        help=f"port ({DEFAULT_PORT} by default, or the next free one; "
                             "0: any free port)")
    parser.add_argument("--data-dir", default="templari-data", type=_folder,
                        help="where games are kept (created on first start)")
    parser.add_argument("--database", metavar="URL",
                        help="keep the games in PostgreSQL at this postgresql:// URL instead "
                             "of the data directory (pip install '.[postgres]')")
    parser.add_argument("--proxy", metavar="ADDRESS", type=_proxy,
                        help="the address of a reverse proxy in front of this server: its "
                             "X-Forwarded-For and X-Forwarded-Proto are believed, from it only")
    parser.add_argument("--hosted", action="store_true",
                        help="a server on the internet, not on a table: no device is the "
                             "server's own (loopback included); any device may start games "
                             "(a few an hour from one network), each hosted by the device "
                             "that started it")
    parser.add_argument("--keep-days", type=_days, default=30, metavar="DAYS",
                        help="with --hosted: days a game is kept after its last change "
                             "(30 by default); its record can be exported until then")
    parser.add_argument("--ipv6-prefix", type=_prefix, default=LIMITS.ipv6_prefix,
                        metavar="BITS",
                        help="leading bits of an IPv6 address that are one network "
                             f"({LIMITS.ipv6_prefix} by default): the devices of one network "
                             "share the limits of game starts, game codes and operator's "
                             "keys, and a ceiling of changes (an IPv4 address is one network)")
    parser.add_argument("--starts-per-hour", type=_count_of, default=LIMITS.starts_per_hour,
                        metavar="N",
                        help=f"with --hosted: games all devices may start in an hour "
                             f"({LIMITS.starts_per_hour} by default; {STARTS_PER_NETWORK} from "
                             "one network)")
    parser.add_argument("--max-games", type=_count_of, default=LIMITS.max_games, metavar="N",
                        help=f"with --hosted: games kept at most ({LIMITS.max_games} by "
                             "default); past it no game is started, the games under way "
                             "play on")
    parser.add_argument("--max-megabytes", type=_count_of, default=LIMITS.max_megabytes,
                        metavar="MB",
                        help=f"with --hosted: megabytes the games may take in the database "
                             f"({LIMITS.max_megabytes} by default); past it no game is "
                             "started, the games under way play on")
    parser.add_argument("--name", action="append", default=[], metavar="NAME", dest="names",
                        type=_host_name,
                        help="a name or address phones may use to reach this server, e.g. "
                             "mylaptop.local (may be given more than once: the first is the "
                             "one phones are shown)")
    parser.add_argument("--check", action="store_const", const=_check, dest="run",
                        help="check, before the first phone tries: the addresses phones may "
                             "use, the port, the data directory, and whether this machine "
                             "reaches itself through each address; then stop")
    parser.add_argument("--new-operator-key", action="store_const", const=_new_key,
                        dest="run", help="print a new random key for the operator of a hosted "
                                         "server (TEMPLARI_OPERATOR_KEY), then stop")
    parser.add_argument("--processes", type=_count, default=1, metavar="N",
                        help="server processes sharing the games (1 by default; more for a "
                             "club night's many tables on a machine with several cores)")
    parser.add_argument("--screens", type=_screens, default=HELD, metavar="N",
                        help=f"screens each process keeps told of their game's changes at "
                             f"once, a thread each ({HELD} by default: a few tables); "
                             "a screen past them follows its game every 30 s")
    parser.set_defaults(run=_serve)
    commands = parser.add_subparsers(title="commands",
                                     description="without a command, the table server starts")
    replay = commands.add_parser("replay", help="check a game record and print the game as it stands")
    replay.add_argument("file", help="a templari-game/1 JSON record")
    replay.add_argument("--json", action="store_true", help="print JSON instead of a summary")
    replay.set_defaults(run=_replay)
    return parser


def _serve(args) -> int:
    """Imported here so that `replay` does not load the web stack. A port, an address, a
    data directory or a database that cannot be used stops the start with one line saying
    why."""
    from companion.server.serve import CannotListen, serve
    from companion.store.sql import StorageFault
    from companion.web.screens.operator import weak_key

    if args.hosted and weak_key():
        print(f"error: {weak_key()}", file=sys.stderr)
        return 1
    try:
        serve(args.host, args.port, args.data_dir, names=args.names, processes=args.processes,
              database=args.database, proxy=args.proxy, hosted=args.hosted,
              keep_days=args.keep_days, screens=args.screens,
              chosen=Limits(args.ipv6_prefix, args.starts_per_hour, args.max_games,
                            args.max_megabytes))
    except (CannotListen, StorageFault) as fault:
        print(f"error: {fault}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl+C: the server stops, as asked
        pass
    return 0


def _check(args) -> int:
    """The report of `--check`, printed; 0 if the server would start, 1 if not."""
    from .check import report

    said = report(args.host, args.port, args.data_dir, args.names, args.database)
    print(said.text)
    return 0 if said.starts else 1


def _new_key(args) -> int:
    """A new operator's key, printed."""
    from companion.web.screens.operator import new_key

    print(new_key())
    return 0


def _listened(text: str) -> str:
    """The address to listen on as the system writes it (0 is 0.0.0.0, 127.1 is 127.0.0.1,
    ::0 is ::), so that the server knows it for what it is; a name as it is."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if re.fullmatch(r"[0-9.]+", text):
        try:
            return socket.inet_ntoa(socket.inet_aton(text))
        except OSError:
            pass
    return text


def _proxy(text: str) -> str:
    """The proxy's address as the server sees a peer's (the only one whose forwarded
    headers are believed), else argparse's one-line error."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an address: the proxy's, as 127.0.0.1") from None


def _folder(text: str) -> str:
    """A data directory's path, not an empty one."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a folder is needed, e.g. templari-data")
    return text


# A host name (labels of letters, digits and inner hyphens, joined by dots) or an IPv4
# address: what a phone types into its browser after http://, nothing more.
_HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*")


def _host_name(text: str) -> str:
    """`text` as a name phones may use, else argparse's one-line error."""
    if len(text) > 253 or not _HOST_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a name of this machine: a name such as mylaptop.local, with "
            "no http:// nor port")
    return text


def _whole(text: str, low: int, high: int) -> int:
    """`text` as a whole number from `low` to `high`, else argparse's one-line error."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not low <= number <= high:
        raise argparse.ArgumentTypeError(f"from {low} to {high}")
    return number


def _port(text: str) -> int:
    """A port number: 0 (any free one) to 65535."""
    return _whole(text, 0, 65535)


def _days(text: str) -> int:
    """A number of days: 1 to 3,650."""
    return _whole(text, 1, 3650)


def _count(text: str) -> int:
    """A number of processes: 1 to 64, more than one only where processes can fork."""
    count = _whole(text, 1, 64)
    if count > 1 and not hasattr(os, "fork"):
        raise argparse.ArgumentTypeError("only 1 on this system (it cannot fork processes)")
    return count


def _prefix(text: str) -> int:
    """An IPv6 prefix length: 16 to 128 bits."""
    return _whole(text, 16, 128)


def _count_of(text: str) -> int:
    """A bound of a hosted server: 1 to 10,000,000."""
    return _whole(text, 1, 10_000_000)


def _screens(text: str) -> int:
    """A number of screens: 1 to 5,000."""
    return _whole(text, 1, 5000)


def _one_line(text: str) -> str:
    """`text` on one line: a line break or another control character a record's names may
    hold (a family's: a record names them as it likes) written as its escape, `\\n`."""
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode()
                   for char in text)


def _replay(args) -> int:
    try:
        with open(args.file, encoding="utf-8-sig") as handle:
            record = loads(handle.read())
    except OSError as error:
        print(f"error: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    except (ValueError, RecursionError) as error:
        print(f"error: {args.file} is not valid JSON: {error}", file=sys.stderr)
        return 1
    try:
        state = fold_record(record)
    except Refusal as refusal:
        print(_one_line(f"{refusal.where}: {refusal.message}"), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(replay_json(state), indent=1, ensure_ascii=False))
    else:
        print(replay_text(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
