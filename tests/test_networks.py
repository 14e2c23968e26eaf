"""Who is asking (issue 41): a network is an IPv4 address or the first `--ipv6-prefix` bits
of an IPv6 one, and the operator's numbers on the command line (their defaults in
`--help`) reach every app the server makes."""
import pytest

from companion import cli
from companion.server import serve
from companion.web.guards.limits import LIMITS, Limits
from companion.web.guards.networks import network
from companion.web.screens.host import CODES_PER_HOUR
from tests.web_helpers import make_app, phone_client, submit


@pytest.mark.parametrize("address, prefix, seen", [
    ("203.0.113.7", 64, "203.0.113.7"),
    ("::ffff:203.0.113.7", 64, "203.0.113.7"),  # IPv4 through an IPv6 socket
    ("2001:db8:7:1:a:b:c:d", 64, "2001:db8:7:1::/64"),
    ("2001:db8:7:1::99", 64, "2001:db8:7:1::/64"),
    ("2001:db8:7:1:a:b:c:d", 48, "2001:db8:7::/48"),
    ("2001:db8:7:1:a:b:c:d", 128, "2001:db8:7:1:a:b:c:d/128"),
    ("fe80::1%eth0", 64, "fe80::/64"),
    ("not an address", 64, "not an address"),
])
def test_a_network_is_an_ipv4_address_or_an_ipv6_prefix(address, prefix, seen):
    assert network(address, prefix) == seen


def test_with_a_shorter_prefix_the_devices_of_a_48_are_one_network(tmp_path):
    """--ipv6-prefix 48: two /64s of one /48 type game codes from one count."""
    app = make_app(tmp_path / "data")
    app.config[LIMITS] = Limits(ipv6_prefix=48)
    answers = [submit(phone_client(app, f"2001:db8:7:{number % 2 + 1}::{number + 1:x}"), "/",
                      "game-code", code="AAA-AAAA").status_code
               for number in range(CODES_PER_HOUR + 1)]
    assert answers == [404] * CODES_PER_HOUR + [429]
    assert submit(phone_client(app, "2001:db8:8::1"), "/", "game-code",
                  code="AAA-AAAA").status_code == 404


def test_the_command_line_s_numbers_reach_the_app_and_their_defaults_are_in_its_help(
        tmp_path, monkeypatch, capsys):
    made = []
    monkeypatch.setattr(serve, "serve", lambda *args, chosen, **options: made.append(
        make_app(tmp_path / "data", chosen=chosen)))
    assert cli.main(["--hosted", "--ipv6-prefix", "56", "--starts-per-hour", "50",
                     "--max-games", "500", "--max-megabytes", "300"]) == 0
    assert made[0].config[LIMITS] == Limits(56, 50, 500, 300)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    for default in ("(64 by default)", "(200 by default; 20 from one network)",
                    "(10000 by default)", "(2000 by default)"):
        assert default in said
    for wrong in (["--max-games", "0"], ["--ipv6-prefix", "129"]):
        with pytest.raises(SystemExit):
            cli.main(wrong)
