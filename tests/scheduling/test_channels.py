"""Websockets: a change is pushed through the real RedisChannelLayer to the page's socket;
viewers receive but cannot send changes."""

import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from clusterui.asgi import application
from scheduling.live import broadcast
from scheduling.store import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def _communicator(cluster_id: int, user=None) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, f"/ws/clusters/{cluster_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")])
    if user is not None:
        comm.scope["user"] = user  # what AuthMiddlewareStack would resolve from the session
    return comm


@pytest.fixture(autouse=True)
async def close_thread_connections():
    """database_sync_to_async runs in one worker thread; close its connection afterwards so
    the test database can be dropped."""
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def redis_layer(redis_url):
    layers = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [redis_url], "prefix": "clusterui-test"}}}
    with override_settings(CHANNEL_LAYERS=layers):
        from channels import layers as channel_layers

        channel_layers.channel_layers.backends.clear()
        yield get_channel_layer()
        channel_layers.channel_layers.backends.clear()


async def test_a_group_send_through_redis_reaches_the_socket(redis_layer):
    from channels_redis.core import RedisChannelLayer

    assert isinstance(redis_layer, RedisChannelLayer)
    cluster = await database_sync_to_async(services.create_cluster)("live")
    comm = _communicator(cluster.pk)
    connected, _ = await comm.connect()
    assert connected
    await redis_layer.group_send(broadcast.group_name(cluster.pk), {"type": "cluster.update", "html": '<div id="x">hi</div>'})
    assert await comm.receive_from(timeout=5) == '<div id="x">hi</div>'
    await comm.disconnect()


async def test_a_write_pushes_the_rendered_summary(redis_layer):
    cluster = await database_sync_to_async(services.create_cluster)("pushed")
    comm = _communicator(cluster.pk)
    assert (await comm.connect())[0]
    await database_sync_to_async(services.import_documents)(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    html = await comm.receive_from(timeout=5)
    assert 'id="cluster-summary"' in html and 'hx-swap-oob="true"' in html
    assert 'data-kind="Node">Node: 1<' in html
    await comm.disconnect()


async def test_a_viewer_receives_but_cannot_send_changes(redis_layer, viewer):
    cluster = await database_sync_to_async(services.create_cluster)("watched")
    comm = _communicator(cluster.pk, user=viewer)
    assert (await comm.connect())[0]
    await comm.send_to(text_data=json.dumps({"taint": "k=v:NoExecute", "node": "n1"}))
    reply = json.loads(await comm.receive_from(timeout=5))
    assert reply == {"error": "read-only: you are not allowed to change this cluster"}
    await database_sync_to_async(services.import_documents)(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    assert 'id="cluster-summary"' in await comm.receive_from(timeout=5)
    await comm.disconnect()


async def test_a_socket_from_another_origin_is_refused():
    cluster = await database_sync_to_async(services.create_cluster)("origin")
    comm = WebsocketCommunicator(application, f"/ws/clusters/{cluster.pk}/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()


async def test_a_socket_for_a_missing_cluster_is_closed():
    comm = _communicator(999999)
    connected, code = await comm.connect()
    assert not connected
    await comm.disconnect()
