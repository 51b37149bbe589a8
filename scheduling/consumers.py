"""The websocket of an open cluster page. It only relays HTML rendered by broadcast.py."""

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from .broadcast import group_name
from .permissions import can_edit


class ClusterConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.cluster_id = self.scope["url_route"]["kwargs"]["cluster_id"]
        if not await self._cluster_exists():
            await self.close(code=4404)
            return
        self.group = group_name(self.cluster_id)
        self.can_edit = await database_sync_to_async(can_edit)(self.scope.get("user"))
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        # Changes go through HTTP (CSRF-checked views); the socket carries nothing back yet.
        # Viewers are told so explicitly, editors too until the socket accepts commands.
        reason = "read-only: you are not allowed to change this cluster" if not self.can_edit else (
            "changes are made through the page's forms, not the socket"
        )
        await self.send(text_data=json.dumps({"error": reason}))

    async def cluster_update(self, event):
        await self.send(text_data=event["html"])

    @database_sync_to_async
    def _cluster_exists(self) -> bool:
        from .models import Cluster

        return Cluster.objects.filter(pk=self.cluster_id).exists()
