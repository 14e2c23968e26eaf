"""The example records replay to their expected results, in-process and through the CLI.

Also the CLI's error contract of game-record.md: exit 1, nothing on standard output,
one line on standard error beginning `event N:` or `header:`.
"""
import json
import os
import subprocess
import sys

import pytest

from companion.cli import main
from companion.rules.record import fold_record
from companion.rules.replay import replay_json

from tests.helpers import FIXTURES, RECORDS

EACH_RECORD = pytest.mark.parametrize("path", RECORDS, ids=lambda path: path.stem)


def expected_path(path):
    return path.with_name(path.name.removesuffix(".json") + ".expected.json")


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def exactly(text):
    """JSON text parsed with its keys kept in order, so that equal means the same JSON."""
    return json.loads(text, object_pairs_hook=list)


def check_prints_expected(result, expected_path):
    """Exit 0, nothing on stderr, and stdout exactly the expected JSON: the same JSON,
    keys and cards in the same order, written the same way (the file's final newline
    aside: print adds its own)."""
    status, out, err = result
    expected = expected_path.read_text(encoding="utf-8")
    assert (status, err) == (0, "")
    assert exactly(out) == exactly(expected)
    assert out == expected.rstrip("\n") + "\n"


def replay(capsys, *args):
    """Run `templari-companion replay ARGS`: (exit status, stdout, stderr)."""
    status = main(["replay", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def write_record(tmp_path, record):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_every_record_has_its_expected_result():
    assert RECORDS and all(expected_path(path).exists() for path in RECORDS)


@EACH_RECORD
def test_record_replays_in_process(path):
    assert replay_json(fold_record(load(path))) == load(expected_path(path))


@EACH_RECORD
def test_cli_replay_json_prints_exactly_the_expected_json(path, capsys):
    check_prints_expected(replay(capsys, path, "--json"), expected_path(path))


@EACH_RECORD
def test_cli_summary_shows_round_pot_start_player_coins_and_points(path, capsys):
    """The readable summary: round, pot, start player, and each player's coins and points."""
    status, out, err = replay(capsys, path)
    expected = load(expected_path(path))
    assert (status, err) == (0, "")
    lines = out.splitlines()
    rounds = expected["rounds_played"]
    assert lines[0] == ("Game over: all 15 rounds played" if expected["finished"]
                        else f"Round {rounds + 1} of 15 ({rounds} played)")
    assert lines[1] == f"Pot: {expected['pot']}    Start player: {expected['start_player']}"
    for player in expected["players"]:
        assert any(line.startswith(f"{player['name']}: {counted(player['coins'], 'coin')}, "
                                   f"{counted(player['points'], 'point')} ") for line in lines)


def counted(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def test_cli_summary_says_1_coin(tmp_path, capsys):
    """One coin is "1 coin" (a game of 1 start coin, not yet begun: all tie for the coin
    bonus, R10)."""
    record = {**load(FIXTURES / "full-game-1.json"), "start_coins": 1, "events": []}
    status, out, _ = replay(capsys, write_record(tmp_path, record))
    assert status == 0 and "Anna: 1 coin, 2 points (0 for cards + 2 coin bonus)" in out


def test_cli_output_read_in_part_ends_without_a_traceback(tmp_path):
    """`templari-companion replay --json GAME | head -1`: the reader stops, the command
    ends quietly (status 1, nothing on stderr)."""
    read, written = os.pipe()
    os.close(read)  # the reader gone before a word is written (head, once it has its line)
    command = subprocess.run([sys.executable, "-m", "companion.cli", "replay", "--json",
                              str(FIXTURES / "full-game-1.json")], stdout=written,
                             stderr=subprocess.PIPE, timeout=30)
    os.close(written)
    assert (command.returncode, command.stderr) == (1, b"")


def tamper(name, change):
    """A fixture record with `change(record)` applied."""
    record = load(FIXTURES / name)
    change(record)
    return record


def set_price(index, price):
    return lambda record: record["events"][index].update(price=price)


ILLEGAL = [
    pytest.param(tamper("remainder-carries-over.json", set_price(3, 99)),
                 "event 3: Bert holds 13 coins: a bid of 99 is more than that (R5)",
                 id="price-above-coins"),
    pytest.param(tamper("full-game-2.json", lambda record: record["events"].insert(5, {"type": "raise"})),
                 "event 5: unknown event type 'raise'", id="unknown-event-type"),
    pytest.param(tamper("full-game-1.json", lambda record: record["players"].pop()),
                 "header: Templari is for 3 to 5 players, not 2 (R1)", id="two-players"),
    pytest.param(tamper("full-game-3.json", lambda record: record.update(format="templari-game/2")),
                 "header: the format must be 'templari-game/1'", id="wrong-format"),
]


@pytest.mark.parametrize(("record", "message"), ILLEGAL)
def test_cli_refuses_an_illegal_record_with_one_line(record, message, tmp_path, capsys):
    assert replay(capsys, write_record(tmp_path, record), "--json") == (1, "", message + "\n")


def check_one_line_error(result, start):
    """Exit 1, nothing on stdout, one stderr line beginning `start`, no traceback."""
    status, out, err = result
    assert (status, out) == (1, "")
    assert err.startswith(start) and err.endswith("\n") and err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_reports_a_missing_file_in_one_line(tmp_path, capsys):
    missing = tmp_path / "nowhere.json"
    check_one_line_error(replay(capsys, missing), f"error: cannot read {missing}: ")


@pytest.mark.parametrize("data", [b"{", b"", b"[1, 2,]", b'{"format": "\xff"}'],
                         ids=["open-brace", "empty", "trailing-comma", "not-utf8"])
def test_cli_reports_malformed_json_in_one_line(data, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    check_one_line_error(replay(capsys, path), f"error: {path} is not valid JSON: ")


def test_R1_a_name_with_a_line_break_is_refused_on_one_line(tmp_path, capsys):
    record = tamper("remainder-carries-over.json", set_price(3, 99))
    record["players"][1] = record["events"][3]["winner"] = "Be\nrt"
    check_one_line_error(replay(capsys, write_record(tmp_path, record)),
                         "header: the name 'Be\\nrt' contains a line break")


def test_cli_reads_a_record_saved_with_a_byte_order_mark(tmp_path, capsys):
    """Some editors start a UTF-8 file with a BOM: it is still the same record."""
    source = RECORDS[0]
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    check_prints_expected(replay(capsys, path, "--json"), expected_path(source))
