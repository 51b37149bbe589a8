"""Websocket routes. Any other path is refused with close code 4404 (the handshake is
answered 403), not left to URLRouter's "No route found" error, which daphne turns into a 500."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path, re_path

from scheduling import consumers

NOT_FOUND_CLOSE_CODE = 4404


class UnknownPath(AsyncWebsocketConsumer):
    async def connect(self):
        await self.close(code=NOT_FOUND_CLOSE_CODE)


websocket_urlpatterns = [
    path("ws/clusters/<int:cluster_id>/", consumers.ClusterConsumer.as_asgi()),
    path("ws/training/<str:code>/", consumers.TrainingConsumer.as_asgi()),
    re_path(r"", UnknownPath.as_asgi()),
]
