"""Starting the table server: waitress on all interfaces, the address and a QR code printed."""
import pytest

from companion import cli, serve


@pytest.fixture
def started(monkeypatch, tmp_path):
    """Run `templari-companion` with waitress replaced by a recorder."""
    calls = []
    monkeypatch.setattr(serve, "waitress_serve", lambda app, **options: calls.append(options))
    monkeypatch.setattr(serve, "lan_address", lambda: "192.168.1.5")

    def start(*args):
        assert cli.main([*args, "--data-dir", str(tmp_path / "data")]) == 0
        return calls[-1]
    return start


def test_default_start_listens_on_all_interfaces_port_5000_and_prints_a_qr_code(started, capsys):
    options = started()
    out = capsys.readouterr().out
    assert (options["host"], options["port"]) == ("0.0.0.0", 5000)
    assert "Phones on the same network open http://192.168.1.5:5000" in out
    assert out.count("█") > 50  # the QR code, drawn in the terminal


def test_host_port_and_data_dir_options(started, tmp_path):
    options = started("--host", "127.0.0.1", "--port", "8123")
    assert (options["host"], options["port"]) == ("127.0.0.1", 8123)
    assert (tmp_path / "data" / "companion.sqlite3").exists()
