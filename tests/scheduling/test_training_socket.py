"""The training session socket: attendees who joined receive the session's partials (what
the instructor shows, the question as they see it, the end of the session), swapped by id
out of band; the instructor receives who follows and the room's tally; it takes nothing
back (read-only); strangers are refused."""

import json
import re

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


def _fragments(html: str) -> dict[str, str]:
    """The pushed fragments by id: every top-level element carries hx-swap-oob."""
    found = dict(re.findall(r'<(?:div|span|section) id="([\w-]+)"[^>]*hx-swap-oob="true"[^>]*>(.*?)(?=<(?:div|span|section) id="[\w-]+"[^>]*hx-swap-oob|\Z)',
                            html, re.S))
    assert found, html
    return found


async def _receive(socket) -> dict[str, str]:
    return _fragments(await socket.receive_from(timeout=5))


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
    current = await _receive(socket)  # the page is brought up to date on connecting
    assert set(current) == {"training-view", "training-question"}
    assert await database_sync_to_async(lambda: Attendee.objects.get().connections)() == 1

    await socket.send_to(text_data=json.dumps({"action": "step-600"}))
    assert json.loads(await socket.receive_from(timeout=5)) == {
        "error": "read-only: attendees follow the instructor and cannot change anything"
    }
    after = await database_sync_to_async(Cluster.objects.get)(pk=cluster.pk)
    assert (after.now, after.revision) == (0.0, revision)

    await database_sync_to_async(training.set_view)(session, f"/clusters/{cluster.pk}/", f"/clusters/{cluster.pk}/nodes/node2/")
    html = await socket.receive_from(timeout=5)
    assert set(_fragments(html)) == {"training-view"}
    assert f'data-url="/clusters/{cluster.pk}/" data-panel="/clusters/{cluster.pk}/nodes/node2/"' in html
    await database_sync_to_async(training.close_session)(session)
    html = await socket.receive_from(timeout=5)
    assert set(_fragments(html)) == {"training-bar"} and "the session has ended" in html and "data-ended" in html
    await socket.disconnect()
    assert await database_sync_to_async(lambda: Attendee.objects.get().connections)() == 0


async def test_a_page_of_a_closed_session_is_told_it_has_ended(editor):
    _, session, cookie = await database_sync_to_async(_setup)(editor)
    await database_sync_to_async(training.close_session)(session)
    socket = _socket(session.code, cookie)
    assert (await socket.connect())[0]
    assert "the session has ended" in (await _receive(socket))["training-bar"]
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
    current = await _receive(instructor)
    assert set(current) == {"training-presence", "training-question-instructor"}
    assert "<strong data-connected-count>0</strong> following" in current["training-presence"]
    attendee = _socket(session.code, cookie)
    assert (await attendee.connect())[0]
    presence = (await _receive(instructor))["training-presence"]
    assert "<strong data-connected-count>1</strong> following" in presence and 'data-attendee="Ana"' in presence
    await attendee.disconnect()
    assert "<strong data-connected-count>0</strong> following" in (await _receive(instructor))["training-presence"]
    await instructor.disconnect()


def _ask_and_answer(session):
    question = training.ask_about_next_step(session)
    training.answer(question, Attendee.objects.get(name="Ana"), question.correct)
    return question


async def test_a_question_reaches_each_page_as_its_reader_sees_it(editor):
    cluster, session, cookie = await database_sync_to_async(_setup)(editor)
    instructor = _socket(session.code)
    instructor.scope["user"] = editor
    assert (await instructor.connect())[0]
    await _receive(instructor)
    attendee = _socket(session.code, cookie)
    assert (await attendee.connect())[0]
    await _receive(attendee)
    await _receive(instructor)  # Ana follows

    question = await database_sync_to_async(_ask_and_answer)(session)
    asked = await _receive(attendee)
    assert set(asked) == {"training-question"} and question.text in asked["training-question"]
    assert 'name="choice"' in asked["training-question"]  # the attendee's form
    assert question.text in (await _receive(instructor))["training-question-instructor"]
    tally = (await _receive(instructor))["training-question-instructor"]  # Ana's answer came in
    assert "<span data-answered>1</span> answered: Ana" in tally

    await database_sync_to_async(training.reveal)(question)
    assert "You were right." in (await _receive(attendee))["training-question"]
    assert "✓ the answer" in (await _receive(instructor))["training-question-instructor"]
    await attendee.disconnect()
    await instructor.disconnect()
