"""The `templari-companion` command."""
import argparse
import json
import os
import sys

from .record import fold_record, loads
from .refusal import Refusal
from .replay import replay_json, replay_text


def main(argv=None) -> int:
    """Entry point of the console script."""
    args = _parser().parse_args(argv)
    return args.run(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="templari-companion",
                                     description="The bookkeeper for a table of Templari.")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (all by default)")
    parser.add_argument("--port", type=int, default=5000, help="port (5000 by default)")
    parser.add_argument("--data-dir", default="templari-data",
                        help="where games are kept (created on first start)")
    parser.add_argument("--name", action="append", default=[], metavar="NAME", dest="names",
                        help="a host name phones may use to reach this server, e.g. "
                             "mylaptop.local (may be given more than once)")
    parser.add_argument("--processes", type=_count, default=1, metavar="N",
                        help="server processes sharing the games (1 by default; more for a "
                             "club night's many tables on a machine with several cores)")
    parser.set_defaults(run=_serve)
    commands = parser.add_subparsers(title="commands",
                                     description="without a command, the table server starts")
    replay = commands.add_parser("replay", help="check a game record and print the game as it stands")
    replay.add_argument("file", help="a templari-game/1 JSON record")
    replay.add_argument("--json", action="store_true", help="print JSON instead of a summary")
    replay.set_defaults(run=_replay)
    return parser


def _serve(args) -> int:
    """Imported here so that `replay` does not load the web stack. A data directory or
    database that cannot be used stops the start with one line saying why."""
    from .serve import serve
    from .store import StorageFault

    try:
        serve(args.host, args.port, args.data_dir, names=args.names, processes=args.processes)
    except StorageFault as fault:
        print(f"error: {fault}", file=sys.stderr)
        return 1
    return 0


def _count(text: str) -> int:
    """A number of processes: 1 to 64, more than one only where processes can fork."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= count <= 64:
        raise argparse.ArgumentTypeError("from 1 to 64")
    if count > 1 and not hasattr(os, "fork"):
        raise argparse.ArgumentTypeError("only 1 on this system (it cannot fork processes)")
    return count


def _replay(args) -> int:
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8")
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
        print(f"{refusal.where}: {refusal.message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(replay_json(state), indent=1, ensure_ascii=False))
    else:
        print(replay_text(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
