"""The training session socket: attendees who joined receive what the instructor shows and
the end of the session; it takes nothing back (read-only); strangers are refused."""

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from clusterui.asgi import application
from scheduling.store import services
from scheduling.training import sessions as training
from scheduling.models import Attendee, Cluster

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


def _socket(code: str, cookie: str = "") -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    if cookie:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/training/{code}/", headers=headers)


def _setup(editor):
    cluster = services.load_scenario("toleration-seconds")
    session = training.start_session(cluster, editor)
    browser = Client()
    browser.post("/training/join", {"code": session.code, "name": "Ana"})
    return Cluster.objects.get(pk=cluster.pk), session, browser.cookies[settings.SESSION_COOKIE_NAME].value


async def test_an_attendee_follows_and_cannot_change_anything_over_the_socket(editor):
    cluster, session, cookie = await database_sync_to_async(_setup)(editor)
    revision = cluster.revision
    socket = _socket(session.code, cookie)
    connected, _ = await socket.connect()
    assert connected
    assert await database_sync_to_async(lambda: Attendee.objects.get().connections)() == 1

    await socket.send_to(text_data=json.dumps({"action": "step-600"}))
    assert json.loads(await socket.receive_from(timeout=5)) == {
        "error": "read-only: attendees follow the instructor and cannot change anything"
    }
    after = await database_sync_to_async(Cluster.objects.get)(pk=cluster.pk)
    assert (after.now, after.revision) == (0.0, revision)

    await database_sync_to_async(training.set_view)(session, f"/clusters/{cluster.pk}/", f"/clusters/{cluster.pk}/nodes/node2/")
    assert json.loads(await socket.receive_from(timeout=5)) == {
        "follow": {"url": f"/clusters/{cluster.pk}/", "panel": f"/clusters/{cluster.pk}/nodes/node2/"}
    }
    await database_sync_to_async(training.close_session)(session)
    assert json.loads(await socket.receive_from(timeout=5)) == {"closed": True}
    await socket.disconnect()
    assert await database_sync_to_async(lambda: Attendee.objects.get().connections)() == 0


async def test_a_page_of_a_closed_session_is_told_it_has_ended(editor):
    _, session, cookie = await database_sync_to_async(_setup)(editor)
    await database_sync_to_async(training.close_session)(session)
    socket = _socket(session.code, cookie)
    assert (await socket.connect())[0]
    assert json.loads(await socket.receive_from(timeout=5)) == {"closed": True}
    assert (await socket.receive_output(timeout=5))["type"] == "websocket.close"
    await socket.disconnect()


async def test_a_stranger_without_joining_is_refused(editor):
    _, session, _ = await database_sync_to_async(_setup)(editor)
    socket = _socket(session.code)
    connected, code = await socket.connect()
    assert not connected and code == 4403
    await socket.disconnect()  # a communicator left open hangs the event loop's shutdown


async def test_the_instructor_hears_who_connects(editor):
    cluster, session, cookie = await database_sync_to_async(_setup)(editor)
    instructor = _socket(session.code)
    instructor.scope["user"] = editor
    assert (await instructor.connect())[0]
    attendee = _socket(session.code, cookie)
    assert (await attendee.connect())[0]
    assert json.loads(await instructor.receive_from(timeout=5)) == {"refetch": ["presence"]}
    await attendee.disconnect()
    assert json.loads(await instructor.receive_from(timeout=5)) == {"refetch": ["presence"]}
    await instructor.disconnect()
