"""Distributed mode: a room of pages connecting at the same moment. 200 sockets open at once
on the RedisChannelLayer as settings builds it for REDIS_URL: every one joins its group and
stays open (redis-py's asyncio pool refused past 100 connections, MaxConnectionsError, and
those sockets were closed with 1013), and every one receives the next push."""

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

SOCKETS = 200


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def settings_layer(redis_url):
    with override_settings(CHANNEL_LAYERS={"default": redis_channel_layer(redis_url, prefix="clusterui-pool-test")}):
        channel_layers.backends.clear()
        yield get_channel_layer()
        channel_layers.backends.clear()


async def test_two_hundred_sockets_connecting_at_once_all_stay_and_get_the_push(settings_layer):
    cluster = await database_sync_to_async(services.create_cluster)("room")
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    comms = [WebsocketCommunicator(application, f"/ws/clusters/{cluster.pk}/", headers=headers) for _ in range(SOCKETS)]
    results = await asyncio.gather(*(comm.connect(timeout=30) for comm in comms))
    assert all(connected for connected, _ in results)
    closed = 0
    for comm in comms:
        if not await comm.receive_nothing(timeout=0.01):
            closed += (await comm.output_queue.get()).get("type") == "websocket.close"
    assert closed == 0, f"{closed} of {SOCKETS} sockets were closed"
    await settings_layer.group_send(broadcast.group_name(cluster.pk), {"type": "cluster.update", "html": '<b id="all">1</b>'})
    received = await asyncio.gather(*(comm.receive_from(timeout=20) for comm in comms), return_exceptions=True)
    assert [r for r in received if r != '<b id="all">1</b>'] == []
    await asyncio.gather(*(comm.disconnect() for comm in comms))
