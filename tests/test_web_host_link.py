"""The host key stays with the server's own device (issue 26, item 2): a granted device
never sees it in any page or answer; only the server's own device shows, renews and hands
out the host link and revokes grants; and a revoked device cannot come back with a link
it kept."""
import re

import pytest

from tests.web_helpers import csrf_headers, make_app, new_game, phone_client, submit, text

ONLY_OWNER = "Only the server's own device can do this: it alone shows the host link"
# A GET route's URL arguments, as the app's pages make them (the key: the host link's).
ARGUMENTS = {"token": "{token}", "number": "0", "what": "delete", "code": "fr",
             "filename": "app.css", "version": "0", "key": "{key}"}


def key_of(app) -> str:
    return app.config["STORE"].secret("host_key")


def open_link(client, key):
    """The device opens the host link `key` and accepts: a grant of its own."""
    return submit(client, f"/host/{key}", f"/host/{key}", label="Eva's tablet")


@pytest.fixture
def server(tmp_path):
    """The server's own device with a game, and a tablet it granted host rights:
    (app, owner, tablet, token)."""
    app = make_app(tmp_path / "data")
    owner, tablet = app.test_client(), phone_client(app, "192.168.1.30")
    token = new_game(owner)
    assert open_link(tablet, key_of(app)).status_code == 303
    assert "Your games" in text(tablet.get("/"))
    return app, owner, tablet, token


def get_urls(app, token) -> list[str]:
    """Every page a device may open, from the app's URL map."""
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" in rule.methods:
            values = {name: ARGUMENTS[name].format(token=token, key=key_of(app))
                      for name in rule.arguments}
            urls.append(re.sub(r"<(?:[^<>:]+:)?([^<>]+)>", lambda part: values[part[1]],
                               rule.rule))
    return urls


def test_a_granted_device_never_sees_the_host_key(server):
    app, owner, tablet, token = server
    submit(owner, f"/g/{token}", "action-reveal", cards=["0:0", "1:5"])
    keys = {key_of(app)}
    answers = [tablet.get(url) for url in get_urls(app, token)]
    answers += [tablet.post(url, headers=csrf_headers(tablet))
                for url in ("/host-link/renew", "/grants/1/revoke", f"/host/{key_of(app)}")]
    keys.add(key_of(app))  # the same, unless the tablet renewed it
    assert {answer.status_code for answer in answers} <= {200, 204, 302, 303, 403, 404}
    for answer, key in [(answer, key) for answer in answers for key in keys]:
        assert key not in answer.get_data(as_text=True), answer.request.path
        assert key not in str(answer.headers), answer.request.path
    assert key_of(app) in owner.get("/").get_data(as_text=True)  # the owner's page shows it


def test_a_granted_device_opening_the_host_link_again_goes_to_the_host_page(server):
    app, _, tablet, _ = server
    shown = tablet.get(f"/host/{key_of(app)}")
    assert shown.status_code == 302 and shown.headers["Location"] == "/"
    assert open_link(phone_client(app, "192.168.1.31"), key_of(app)).status_code == 303
    grants = app.config["STORE"].grants()
    tablet.post(f"/host/{key_of(app)}", data={"label": "again"}, headers=csrf_headers(tablet))
    assert app.config["STORE"].grants() == grants  # no second grant


@pytest.mark.parametrize("url", ["/host-link/renew", "/grants/{grant}/revoke"])
def test_only_the_server_s_own_device_renews_the_link_and_revokes(server, url):
    app, owner, tablet, _ = server
    store = app.config["STORE"]
    assert open_link(phone_client(app, "192.168.1.31"), key_of(app)).status_code == 303
    before = (key_of(app), store.grants())
    other = store.grants()[1].id
    response = tablet.post(url.format(grant=other), headers=csrf_headers(tablet))
    assert response.status_code == 403 and ONLY_OWNER in text(response)
    assert (key_of(app), store.grants()) == before
    page = text(tablet.get("/"))
    assert "Revoke" not in page and "Renew the host link" not in page
    assert "This device is a host by a grant of the server's own device" in page
    assert "Revoke Eva's tablet" in text(owner.get("/"))


def test_revoking_a_grant_that_is_not_there_changes_nothing(server):
    """No such grant: 404, and the host link stays (a review found it renewed)."""
    app, owner, _, _ = server
    key = key_of(app)
    assert owner.post("/grants/424242/revoke", headers=csrf_headers(owner)).status_code == 404
    assert key_of(app) == key


def test_a_revoked_device_cannot_become_host_again_with_the_link_it_kept(server):
    app, owner, tablet, _ = server
    kept = key_of(app)
    assert submit(owner, "/", "revoke").status_code == 303
    assert "Scan the QR code" in text(tablet.get("/"))
    assert tablet.get(f"/host/{kept}").status_code == 404
    assert tablet.post(f"/host/{kept}", data={"label": "back"},
                       headers=csrf_headers(tablet)).status_code == 404
    assert "Scan the QR code" in text(tablet.get("/"))
    assert app.config["STORE"].grants() == []
    renewed = key_of(app)
    assert renewed != kept and app.config["HOST_KEY"] == renewed  # as the owner's page shows
    assert f"/host/{renewed}" in text(owner.get("/"))
    stranger = phone_client(app, "192.168.1.50")
    assert open_link(stranger, renewed).status_code == 303
    assert "Your games" in text(stranger.get("/"))


def test_revoking_one_device_leaves_the_others_granted(server):
    app, owner, tablet, _ = server
    laptop = phone_client(app, "192.168.1.31")
    assert open_link(laptop, key_of(app)).status_code == 303
    assert submit(owner, "/", "revoke").status_code == 303  # the first: Eva's tablet
    assert "Scan the QR code" in text(tablet.get("/"))
    assert "Your games" in text(laptop.get("/"))


def test_the_terminal_s_host_link_works_as_printed_at_start(tmp_path):
    """serve.py prints {address}/host/{app.config["HOST_KEY"]}."""
    app = make_app(tmp_path / "data")
    printed = app.config["HOST_KEY"]
    tablet = phone_client(app, "192.168.1.30")
    assert "Make this device a host" in text(tablet.get(f"/host/{printed}"))
    assert open_link(tablet, printed).status_code == 303
    assert "Your games" in text(tablet.get("/"))
