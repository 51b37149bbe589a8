"""Push what changed in a training session to its pages, after commit, as the session's
named partials (fragments.py) with `hx-swap-oob`: the htmx ws extension of the page's
training bar swaps each one by its id, as the cluster page swaps the board's fragments.

Channel-layer groups: everyone in the session (`training.<id>`), the instructor's pages
(`training.<id>.instructor`) and each attendee's pages (`training.<id>.attendee.<aid>`:
the question as that attendee sees it, with their own answer). Each fragment is rendered
once per audience and relayed as it is by consumers.TrainingConsumer:
  follow    -> #training-view to everyone (attendees who follow go to that page and panel)
  question  -> #training-question-instructor to the instructor, #training-question to each
               attendee (asked, revealed or applied)
  answers   -> #training-question-instructor to the instructor (the room's forms are not
               disturbed while they answer)
  presence  -> #training-presence to the instructor
  closed    -> #training-bar, the ended bar, to everyone (the pages leave the session)
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from scheduling.models import Attendee, TrainingSession
from scheduling.training import fragments

logger = logging.getLogger(__name__)


def session_group(session_id: int) -> str:
    return f"training.{session_id}"


def instructor_group(session_id: int) -> str:
    return f"training.{session_id}.instructor"


def attendee_group(session_id: int, attendee_id: int) -> str:
    return f"training.{session_id}.attendee.{attendee_id}"


def after_commit(session_id: int, *, follow: dict | None = None, presence: bool = False, question: bool = False,
                 answers: bool = False, closed: bool = False) -> None:
    """Push the fragments once the surrounding transaction commits (at once outside one).
    `question`: asked, revealed or applied (every page); `answers`: an answer came in (the
    instructor's pages only)."""
    transaction.on_commit(
        lambda: push(session_id, follow=follow is not None, presence=presence, question=question, answers=answers,
                     closed=closed)
    )


def push(session_id: int, *, follow=False, presence=False, question=False, answers=False, closed=False) -> None:
    """Render the fragments that changed from the committed session and send them."""
    session = TrainingSession.objects.filter(pk=session_id).first()
    if session is None:
        return
    try:
        if follow:
            send(session_group(session_id), fragments.view(session))
        if question or answers:
            send(instructor_group(session_id), fragments.question_for_instructor(session))
        if question:
            for attendee in Attendee.objects.filter(session=session):
                send(attendee_group(session_id, attendee.pk), fragments.question_for_attendee(session, attendee))
        if presence:
            send(instructor_group(session_id), fragments.presence(session))
        if closed:
            send(session_group(session_id), fragments.closed(session))
    except Exception:  # a rendering bug must never break a write that already committed
        logger.exception("rendering the fragments of training session %s failed", session_id)


def send(group: str, html: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "training.message", "text": html})
    except Exception:  # a broken channel layer must never break a write that already committed
        logger.exception("push to %s failed", group)
