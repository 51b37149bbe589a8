"""Tell the pages of a training session what changed, after commit.

Two channel-layer groups per session: everyone in it (`training.<id>`) and the instructor's
pages (`training.<id>.instructor`). Messages are small JSON signals the session socket
relays as they are (consumers.TrainingConsumer):
  {"follow": {"url": ..., "panel": ...}}   what the instructor shows now (attendees follow)
  {"refetch": ["question", ...]}          fragments to fetch again, each page with its own
                                           cookie (an attendee sees their own answer)
  {"closed": true}                        the session has ended
"""

from __future__ import annotations

import json
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def session_group(session_id: int) -> str:
    return f"training.{session_id}"


def instructor_group(session_id: int) -> str:
    return f"training.{session_id}.instructor"


def after_commit(session_id: int, *, follow: dict | None = None, presence: bool = False, question: bool = False,
                 answers: bool = False, closed: bool = False) -> None:
    """Send the signals once the surrounding transaction commits (at once outside one).
    `question`: asked, revealed or applied (every page); `answers`: an answer came in (the
    instructor's pages only: the room's forms are not disturbed while they answer)."""
    transaction.on_commit(
        lambda: push(session_id, follow=follow, presence=presence, question=question, answers=answers, closed=closed)
    )


def push(session_id: int, *, follow=None, presence=False, question=False, answers=False, closed=False) -> None:
    if follow is not None:
        send(session_group(session_id), {"follow": follow})
    if question:
        send(session_group(session_id), {"refetch": ["question"]})
    elif answers:
        send(instructor_group(session_id), {"refetch": ["question"]})
    if presence:
        send(instructor_group(session_id), {"refetch": ["presence"]})
    if closed:
        send(session_group(session_id), {"closed": True})


def send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "training.message", "text": json.dumps(message)})
    except Exception:  # a broken channel layer must never break a write that already committed
        logger.exception("push to %s failed", group)
