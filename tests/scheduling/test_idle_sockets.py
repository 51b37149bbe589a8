"""Distributed mode keeps idle websockets: 100 sockets on the real RedisChannelLayer, idle
for a minute, all still connected and all receive the next push."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from clusterui.asgi import application
from clusterui.layers import redis_channel_layer
from scheduling.live import broadcast
from scheduling.store import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

SOCKETS = 100
IDLE_SECONDS = 65  # past several of redis-py's 5 s default read timeouts


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def settings_layer(redis_url):
    """The layer exactly as settings builds it for REDIS_URL."""
    with override_settings(CHANNEL_LAYERS={"default": redis_channel_layer(redis_url, prefix="clusterui-idle-test")}):
        channel_layers.backends.clear()
        yield get_channel_layer()
        channel_layers.backends.clear()


async def test_a_hundred_idle_sockets_survive_a_minute_and_get_the_next_push(settings_layer):
    cluster = await database_sync_to_async(services.create_cluster)("idle")
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    comms = [WebsocketCommunicator(application, f"/ws/clusters/{cluster.pk}/", headers=headers) for _ in range(SOCKETS)]
    for comm in comms:
        connected, _ = await comm.connect()
        assert connected

    await asyncio.sleep(IDLE_SECONDS)

    closed = 0
    for comm in comms:
        if not await comm.receive_nothing(timeout=0.01):
            message = await comm.output_queue.get()
            closed += message.get("type") == "websocket.close"
    assert closed == 0, f"{closed} of {SOCKETS} idle sockets were closed"
    await settings_layer.group_send(broadcast.group_name(cluster.pk), {"type": "cluster.update", "html": '<b id="ping">1</b>'})
    received = await asyncio.gather(*(comm.receive_from(timeout=10) for comm in comms), return_exceptions=True)
    missed = [r for r in received if r != '<b id="ping">1</b>']
    assert not missed, f"{len(missed)} of {SOCKETS} sockets missed the push: {missed[:3]}"
    for comm in comms:
        await comm.disconnect()
