"""Join codes cannot be guessed: long codes, and a client naming codes that lead nowhere
(or a flood of joins on one code) is answered 429 Too Many Requests with Retry-After."""

from __future__ import annotations

import math
import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from scheduling.store import services
from scheduling.training import limits
from scheduling.training import sessions as training
from scheduling.models import Attendee, TrainingSession

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counters():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def session(editor):
    cluster = services.create_cluster("room", seed=1)
    return training.start_session(cluster, editor)


def guess(i: int) -> str:
    return "".join(training.CODE_ALPHABET[(i >> (5 * k)) % 32] for k in range(training.CODE_LENGTH))


def test_a_thousand_guesses_are_stopped_with_429_and_retry_after(session):
    client = Client(REMOTE_ADDR="203.0.113.9")
    statuses = []
    for i in range(1000):
        code = guess(i)
        if code == session.code:
            continue
        response = client.post(reverse("training-join"), {"code": code, "name": f"guesser {i}"})
        statuses.append(response.status_code)
        if response.status_code == 429:
            retry = int(response["Retry-After"])
            assert 1 <= retry <= limits.CLIENT_WINDOW
            assert f"too many attempts: try again in {retry} seconds" in response.content.decode()
    assert statuses.count(422) == limits.CLIENT_FAILURES  # "no open training session has this code"
    assert statuses.count(429) == len(statuses) - limits.CLIENT_FAILURES
    # even the right code is refused to this client until its window ends
    refused = client.post(reverse("training-join"), {"code": session.code, "name": "lucky"})
    assert refused.status_code == 429 and not Attendee.objects.filter(session=session).exists()
    # every page that takes a code answers the same to it
    for name in ("training-qr", "training-ended", "training-question"):
        answer = client.get(reverse(name, args=[guess(5000)]))
        assert answer.status_code == 429 and int(answer["Retry-After"]) >= 1
    # another client joins at once
    other = Client(REMOTE_ADDR="198.51.100.7")
    assert other.post(reverse("training-join"), {"code": session.code, "name": "Ada"}).status_code == 302


def test_guessing_is_futile():
    space = len(training.CODE_ALPHABET) ** training.CODE_LENGTH
    assert training.CODE_LENGTH == 8 and space > 10 ** 12
    guesses_per_second = limits.CLIENT_FAILURES / limits.CLIENT_WINDOW
    years_for_one_session = space / 2 / guesses_per_second / (365 * 24 * 3600)
    assert years_for_one_session > 10_000


def test_the_qr_code_of_a_guessed_code_counts_as_a_miss(session):
    client = Client(REMOTE_ADDR="203.0.113.10")
    codes = [guess(i) for i in range(limits.CLIENT_FAILURES + 1) if guess(i) != session.code]
    answers = [client.get(reverse("training-qr", args=[code])).status_code for code in codes[:limits.CLIENT_FAILURES + 1]]
    assert answers[:limits.CLIENT_FAILURES] == [404] * limits.CLIENT_FAILURES and answers[-1] == 429


def test_a_flood_of_joins_on_one_code_is_limited(session, monkeypatch):
    monkeypatch.setattr(limits, "CODE_ATTEMPTS", 5)
    statuses = [Client(REMOTE_ADDR=f"192.0.2.{i}").post(reverse("training-join"), {"code": session.code, "name": f"p{i}"}).status_code
                for i in range(7)]
    assert statuses == [302] * 5 + [429] * 2


def test_a_code_is_shown_in_two_halves(editor_client, session):
    body = editor_client.get(reverse("training-console", args=[session.code])).content.decode()
    assert f"{session.code[:4]} {session.code[4:]}" in body
