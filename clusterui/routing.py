from django.urls import path

from scheduling import consumers

websocket_urlpatterns = [
    path("ws/clusters/<int:cluster_id>/", consumers.ClusterConsumer.as_asgi()),
]
