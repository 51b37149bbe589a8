"""The pages' sockets under what the network does: a broker that cannot be reached when a
socket connects closes it cleanly with 1013 (the page reconnects and resyncs), and a push
to a socket that closed meanwhile is dropped without a traceback."""

from __future__ import annotations

import logging

import pytest
from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from clusterui.asgi import application
from scheduling.consumers import TRY_AGAIN_LATER, ClusterConsumer, TrainingConsumer
from scheduling.store import services

pytestmark = pytest.mark.django_db(transaction=True)


class BrokerDown(InMemoryChannelLayer):
    async def group_add(self, group, channel):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def broker_down():
    layers = {"default": {"BACKEND": f"{__name__}.BrokerDown"}}
    with override_settings(CHANNEL_LAYERS=layers):
        from channels import layers as channel_layers

        channel_layers.channel_layers.backends.clear()
        yield
        channel_layers.channel_layers.backends.clear()


async def test_a_socket_that_cannot_join_its_group_is_closed_with_1013(broker_down, caplog):
    caplog.set_level(logging.WARNING)
    cluster = await database_sync_to_async(services.create_cluster)("outage")
    comm = WebsocketCommunicator(application, f"/ws/clusters/{cluster.pk}/",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")])
    connected, _ = await comm.connect()
    assert connected  # not an HTTP 500 on the handshake
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": TRY_AGAIN_LATER}
    assert not [r for r in caplog.records if r.exc_info]
    assert any("the channel layer is unavailable (ConnectionError); closed with 1013" in r.getMessage() for r in caplog.records)
    await comm.wait()


@pytest.mark.parametrize("consumer_class, handler, event", [
    (ClusterConsumer, "cluster_update", {"html": "<div id='x'></div>"}),
    (TrainingConsumer, "training_message", {"text": "<div id='x'></div>"}),
])
async def test_a_push_to_a_socket_that_closed_is_dropped_quietly(consumer_class, handler, event):
    consumer = consumer_class()

    async def closed(*args, **kwargs):
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.send = closed
    await getattr(consumer, handler)(event)  # no exception
