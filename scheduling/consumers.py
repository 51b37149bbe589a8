"""The websockets of the pages: a cluster page's relays the HTML rendered by
live/broadcast.py; a training session's relays the partials of training/broadcast.py.

Neither fails noisily on what the network does: a push to a socket that closed meanwhile
is dropped (a viewer who left is not an error), and a socket that cannot join its group
because the channel layer's broker is down is accepted and closed at once with 1013 Try
Again Later, so the page reconnects (and resyncs) when the broker is back, instead of the
handshake failing with HTTP 500; an open socket whose broker goes away is closed the same
way, with a line in the log instead of daphne's traceback (BrokerTolerantConsumer)."""

import json
import logging

from autobahn.exception import Disconnected
from redis.exceptions import RedisError

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from scheduling.live.broadcast import group_name
from .models import Attendee, Cluster, TrainingSession
from scheduling.store.permissions import can_edit
from scheduling.training.sessions import attendee_connected
from scheduling.training import fragments as training_fragments
from scheduling.training.broadcast import attendee_group, instructor_group, session_group

logger = logging.getLogger(__name__)

TRY_AGAIN_LATER = 1013  # RFC 6455 close code: the server cannot take the socket now
BROKER_ERRORS = (RedisError, OSError)  # the channel layer's broker unreachable


async def relay(consumer: AsyncWebsocketConsumer, text: str) -> None:
    """Send `text` on the consumer's socket; a socket that closed meanwhile is dropped quietly."""
    try:
        await consumer.send(text_data=text)
    except Disconnected:
        pass  # the viewer left between the push and the send


async def join_groups(consumer: AsyncWebsocketConsumer, groups: list[str]) -> bool:
    """group_add for each group; False (the socket accepted and closed with 1013, a line
    in the log, no traceback) when the broker cannot be reached."""
    try:
        for group in groups:
            await consumer.channel_layer.group_add(group, consumer.channel_name)
    except BROKER_ERRORS as exc:
        logger.warning("websocket %s: the channel layer is unavailable (%s); closed with %s",
                       consumer.scope.get("path", ""), type(exc).__name__, TRY_AGAIN_LATER)
        await consumer.accept()
        await consumer.close(code=TRY_AGAIN_LATER)
        return False
    return True


class BrokerTolerantConsumer(AsyncWebsocketConsumer):
    """A socket whose channel layer's broker goes away while it is open (the consumer's
    receive loop raises): one line in the log, no traceback, and the socket closed with
    1013 Try Again Later, so the page reconnects (and resyncs) once the broker is back."""

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        except BROKER_ERRORS as exc:
            logger.warning("websocket %s: the channel layer went away (%s); closed with %s",
                           scope.get("path", ""), type(exc).__name__, TRY_AGAIN_LATER)
            try:
                await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
            except Exception:  # the socket is already gone: nothing to tell
                pass


class ClusterConsumer(BrokerTolerantConsumer):
    async def connect(self):
        self.cluster_id = self.scope["url_route"]["kwargs"]["cluster_id"]
        if not await self._cluster_exists():
            await self.close(code=4404)
            return
        self.can_edit = await database_sync_to_async(can_edit)(self.scope.get("user"))
        if not await join_groups(self, [group_name(self.cluster_id)]):
            return
        self.group = group_name(self.cluster_id)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except BROKER_ERRORS:
                pass  # the broker forgets the membership with its expiry

    async def receive(self, text_data=None, bytes_data=None):
        # Changes go through HTTP (CSRF-checked views); the socket carries nothing back yet.
        # Viewers are told so explicitly, editors too until the socket accepts commands.
        reason = "read-only: you are not allowed to change this cluster" if not self.can_edit else (
            "changes are made through the page's forms, not the socket"
        )
        await self.send(text_data=json.dumps({"error": reason}))

    async def cluster_update(self, event):
        await relay(self, event["html"])

    @database_sync_to_async
    def _cluster_exists(self) -> bool:
        return Cluster.objects.filter(pk=self.cluster_id).exists()


class TrainingConsumer(BrokerTolerantConsumer):
    """The socket of a page in a training session (the htmx ws extension of its training
    bar): relays the session's partials pushed by training.broadcast, and on connecting
    sends the current ones for this page's role, so a page that (re)connects is up to date
    without asking. The instructor (an editor) also gets the instructor's fragments; an
    attendee is whoever joined with the code in this browser session, and gets the question
    as they see it. Read-only: the socket takes nothing back."""

    async def connect(self):
        self.code = self.scope["url_route"]["kwargs"]["code"]
        found = await self._role()
        if found is None:
            await self.close(code=4403)
            return
        self.session_id, self.role, self.attendee_id = found
        if self.role == "ended":  # a page that was in the session: it is told, not refused
            await self.accept()
            await self.send(text_data=await self._current())
            await self.close(code=4410)
            return
        groups = [session_group(self.session_id)]
        if self.role == "instructor":
            groups.append(instructor_group(self.session_id))
        else:
            groups.append(attendee_group(self.session_id, self.attendee_id))
        if not await join_groups(self, groups):
            return
        self.groups_joined = groups
        await self.accept()
        await self.send(text_data=await self._current())
        if self.attendee_id is not None:
            await database_sync_to_async(attendee_connected)(self.attendee_id, +1)

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", ()):
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except BROKER_ERRORS:
                pass
        if getattr(self, "attendee_id", None) is not None:
            await database_sync_to_async(attendee_connected)(self.attendee_id, -1)

    async def receive(self, text_data=None, bytes_data=None):
        reason = "read-only: attendees follow the instructor and cannot change anything" if self.role == "attendee" else (
            "changes are made through the page's forms, not the socket"
        )
        await self.send(text_data=json.dumps({"error": reason}))

    async def training_message(self, event):
        await relay(self, event["text"])

    @database_sync_to_async
    def _current(self) -> str:
        """The session's partials as this page should show them now."""
        session = TrainingSession.objects.get(pk=self.session_id)
        if self.role == "ended":
            return training_fragments.closed(session)
        if self.role == "instructor":
            return training_fragments.presence(session) + training_fragments.question_for_instructor(session)
        attendee = Attendee.objects.get(pk=self.attendee_id)
        return training_fragments.view(session) + training_fragments.question_for_attendee(session, attendee)

    @database_sync_to_async
    def _role(self):
        """(session id, "instructor" | "attendee" | "ended", attendee id or None), or None:
        no access. "ended": the session was closed and this browser took part in it."""
        session = TrainingSession.objects.filter(code=self.code).first()
        if session is None:
            return None
        attendee_id = ((self.scope.get("session") or {}).get("training") or {}).get(session.code)
        if attendee_id and not Attendee.objects.filter(pk=attendee_id, session=session).exists():
            attendee_id = None
        editor = can_edit(self.scope.get("user"))
        if not (editor or attendee_id):
            return None
        if not session.is_open:
            return session.pk, "ended", None
        return (session.pk, "instructor", None) if editor else (session.pk, "attendee", attendee_id)
