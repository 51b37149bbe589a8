"""Serving a room (`make run HOST=0.0.0.0`): the allowed hosts, trusted origins and the
training join link follow the address the server listens on. The room's machine is played
by a second loopback address, 127.0.0.2 (CLUSTERUI_ADDRESSES): the tests never send
anything to the machine's LAN address."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest
import segno
from django.test import override_settings
from django.urls import reverse

from clusterui import hosts
from scheduling.store import services
from scheduling.training import sessions as training

ROOM = "127.0.0.2"


# --- which hosts, from the listening address ------------------------------------------------------


def test_a_wildcard_serves_the_machines_addresses_and_one_address_serves_itself():
    room = hosts.serving("0.0.0.0", 8000, {hosts.ADDRESSES_ENV: f"{ROOM}, 127.0.0.9"})
    assert room == {
        "hosts": [ROOM, "127.0.0.9"],
        "origins": [f"http://{ROOM}:8000", f"https://{ROOM}:8000", "http://127.0.0.9:8000", "https://127.0.0.9:8000"],
        "join_host": ROOM,
    }
    assert hosts.serving("::", 8080, {hosts.ADDRESSES_ENV: "fd00::5"})["hosts"] == ["[fd00::5]"]
    assert hosts.serving("127.0.0.5", 9000, {})["join_host"] == "127.0.0.5"
    # The default (loopback) adds nothing: the join link is the one the browser used.
    assert hosts.serving("127.0.0.1", 8000, {}) == {"hosts": [], "origins": [], "join_host": None}


def test_the_machines_addresses_leave_out_loopback_and_link_local_and_put_private_ones_first(monkeypatch):
    monkeypatch.setattr(hosts, "_interface_addresses", lambda: ["127.0.0.1", "169.254.3.4", "145.1.2.3", "10.1.2.3", "10.1.2.3"])
    assert hosts.machine_addresses({}) == ["10.1.2.3", "145.1.2.3"]
    # Found without sending anything: every address is one of the machine's interfaces.
    monkeypatch.undo()
    assert all(not a.startswith("127.") for a in hosts.machine_addresses({}))


def test_serve_on_adds_to_the_settings_and_keeps_what_was_allowed(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "clusterui.example.com"]
    settings.CSRF_TRUSTED_ORIGINS = []
    hosts.serve_on("0.0.0.0", 8000, {hosts.ADDRESSES_ENV: ROOM})
    assert settings.ALLOWED_HOSTS == ["127.0.0.1", "clusterui.example.com", ROOM]
    assert settings.CSRF_TRUSTED_ORIGINS == [f"http://{ROOM}:8000", f"https://{ROOM}:8000"]
    assert settings.JOIN_HOST == ROOM


# --- the session page ---------------------------------------------------------------------------


def _svg_path(svg: str) -> str:
    """The dark modules' path (the last one: a light background may come first)."""
    return re.findall(r'<path[^>]* d="([^"]+)"', svg)[-1]


@pytest.mark.django_db
def test_the_session_page_links_and_encodes_the_rooms_address(editor_client, editor):
    cluster = services.create_cluster("room")
    session = training.start_session(cluster, editor)
    url = reverse("training-console", args=[session.code])
    link = f"http://{ROOM}:8000/training/join/{session.code}"
    with override_settings(JOIN_HOST=ROOM, ALLOWED_HOSTS=["127.0.0.1", ROOM]):
        page = editor_client.get(url, HTTP_HOST="127.0.0.1:8000").content.decode()
    assert f'data-join-url>{link}</a>' in page
    # The QR code is the link's: the same modules segno draws for it.
    svg = re.search(r"<svg.*?</svg>", page, re.S).group(0)
    assert _svg_path(svg) == _svg_path(segno.make(link, error="m").svg_inline(scale=5))
    # Not serving the room: the address the instructor's browser used.
    page = editor_client.get(url, HTTP_HOST="127.0.0.1:8000").content.decode()
    assert f"data-join-url>http://127.0.0.1:8000/training/join/{session.code}</a>" in page


# --- the real server on 0.0.0.0, joined through the room's address ------------------------------------


class Browser:
    """One person's cookies, on urllib."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, url: str) -> tuple[int, str, str]:
        try:
            with self.opener.open(url, timeout=15) as r:
                return r.status, r.geturl(), r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, url, exc.read().decode(errors="replace")

    def post(self, url: str, form: dict, origin: str, form_page: str = "") -> tuple[int, str, str]:
        """Post as the form on `form_page` (default: `url`) would, with its CSRF token."""
        _, _, page = self.get(form_page or url)
        request = urllib.request.Request(
            url, data=urllib.parse.urlencode({**form, "csrfmiddlewaretoken": csrf_token(page)}).encode(),
            headers={"Origin": origin, "Referer": url},
        )
        try:
            with self.opener.open(request, timeout=30) as r:
                return r.status, r.geturl(), r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, url, exc.read().decode(errors="replace")

    def cookie_header(self, host: str) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar if c.domain.lstrip(".") in (host, host + ".local"))


def csrf_token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


@pytest.fixture(scope="module")
def room_server(tmp_path_factory):
    from tests.browser.conftest import start_live_server

    process, server = start_live_server(tmp_path_factory.mktemp("room"), host="0.0.0.0", extra_env={hosts.ADDRESSES_ENV: ROOM})
    yield server
    process.terminate()
    process.wait(timeout=20)


def test_an_attendee_joins_through_the_rooms_address_and_its_socket_is_accepted(room_server):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    server = room_server
    port = server.url.rsplit(":", 1)[1]
    room = f"http://{ROOM}:{port}"

    teacher = Browser()
    status, _, _ = teacher.post(f"{server.url}/login/", {"username": server.username, "password": server.password}, server.url)
    assert status == 200
    status, console_url, page = teacher.post(f"{server.url}/clusters/{server.demo_pk}/training/start", {}, server.url,
                                               form_page=server.board())
    assert status == 200 and "/training/" in console_url
    code = re.search(r'data-code="([A-Z2-9]{8})"', page).group(1)
    link = re.search(r'data-join-url>([^<]+)</a>', page).group(1)
    assert link == f"{room}/training/join/{code}"
    assert "<svg" in page

    phone = Browser()
    status, _, page = phone.get(link)
    assert status == 200 and f'value="{code}"' in page
    status, board_url, page = phone.post(link, {"code": code, "name": "Ana"}, room)
    assert status == 200 and board_url.startswith(f"{room}/clusters/"), page[:300]
    assert 'id="training-bar"' in page

    # The websocket origin check accepts the room's address.
    with connect(f"ws://{ROOM}:{port}/ws/training/{code}/", origin=room, open_timeout=10,
                 additional_headers={"Cookie": phone.cookie_header(ROOM)}) as ws:
        assert 'id="training-view"' in ws.recv(timeout=10)
    with connect(f"ws://{ROOM}:{port}/ws/clusters/{server.demo_pk}/", origin=room, open_timeout=10) as ws:
        ws.send("{}")
        assert "error" in ws.recv(timeout=10)

    # An address the server was not told about is refused, over HTTP and for the socket's origin.
    stranger = "127.0.0.3"
    assert Browser().get(f"http://{stranger}:{port}/")[0] == 400
    with pytest.raises(InvalidStatus):
        with connect(f"ws://{ROOM}:{port}/ws/clusters/{server.demo_pk}/", origin=f"http://{stranger}:{port}", open_timeout=10):
            pass
