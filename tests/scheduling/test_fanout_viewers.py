"""One render per change batch, whatever the number of viewers: with 25 sockets open on a
cluster, a write renders each pushed section once and every socket receives that one
message; a burst of writes made while a render is under way goes out as one more message
in which each section appears once (not one message per write)."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from scheduling.live import broadcast
from scheduling.pages.views.fragments import FRAGMENTS
from scheduling.store import services
from tests.scheduling.pages import DEMO

pytestmark = pytest.mark.django_db(transaction=True)

VIEWERS = 25
HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


@pytest.fixture(autouse=True)
def embedded_layer():
    """The embedded mode's layer (pushes leave from the delivery thread)."""
    layers = {"default": {"BACKEND": "clusterui.layers.ThreadSafeInMemoryChannelLayer"}}
    with override_settings(CHANNEL_LAYERS=layers):
        from channels import layers as channel_layers

        channel_layers.channel_layers.backends.clear()
        yield
        channel_layers.channel_layers.backends.clear()


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def renders(monkeypatch):
    """How many times each section was rendered; `gate` (set by default) holds a render."""
    counts: Counter = Counter()
    gate, started = threading.Event(), threading.Event()
    gate.set()
    for name, render in list(FRAGMENTS.items()):
        def counted(*args, _name=name, _render=render):
            started.set()
            gate.wait(10)
            counts[_name] += 1
            return _render(*args)
        monkeypatch.setitem(FRAGMENTS, name, counted)
    yield counts, gate, started
    gate.set()


def taint(cluster, node: str, key: str) -> None:
    doc = services.get_object(cluster, "Node", node).document
    doc.setdefault("spec", {}).setdefault("taints", []).append({"key": key, "value": "v", "effect": "PreferNoSchedule"})
    services.replace_object(cluster, doc)


async def connect_viewers(cluster_id: int) -> list[WebsocketCommunicator]:
    from clusterui.asgi import application

    comms = [WebsocketCommunicator(application, f"/ws/clusters/{cluster_id}/", headers=HEADERS) for _ in range(VIEWERS)]
    for comm in comms:
        assert (await comm.connect())[0]
    return comms


async def received(comm: WebsocketCommunicator) -> list[str]:
    messages = []
    while not await comm.receive_nothing(timeout=0.3):
        messages.append(await comm.receive_from())
    return messages


async def test_a_write_renders_each_section_once_for_every_viewer(renders):
    counts, _, _ = renders
    cluster = await database_sync_to_async(services.import_new_cluster)("fanout-viewers", DEMO.read_text(), DEMO.name)
    await asyncio.to_thread(broadcast.flush)
    comms = await connect_viewers(cluster.pk)
    counts.clear()

    await database_sync_to_async(taint)(cluster, "node2", "once")
    assert await asyncio.to_thread(broadcast.flush)
    pushed = [n for n in ("cluster-summary", "node-cards", "pending", "overview-meta") if counts[n]]
    assert pushed == ["cluster-summary", "node-cards", "pending", "overview-meta"]
    assert all(counts[n] == 1 for n in pushed), counts  # not once per viewer
    for comm in comms:
        messages = await received(comm)
        assert len(messages) == 1 and 'data-taint="once=v:PreferNoSchedule"' in messages[0]
        await comm.disconnect()


async def test_a_burst_during_a_render_goes_out_as_one_message_per_section(renders):
    counts, gate, started = renders
    cluster = await database_sync_to_async(services.import_new_cluster)("fanout-burst", DEMO.read_text(), DEMO.name)
    await asyncio.to_thread(broadcast.flush)
    comms = await connect_viewers(cluster.pk)
    counts.clear()
    gate.clear()
    started.clear()

    await database_sync_to_async(taint)(cluster, "node1", "first")
    assert await asyncio.to_thread(started.wait, 10)  # the delivery thread is rendering the first write
    for i in range(8):  # eight more writes while it renders
        await database_sync_to_async(taint)(cluster, ("node2", "node3", "node4")[i % 3], f"burst{i}")
    gate.set()
    assert await asyncio.to_thread(broadcast.flush)

    assert counts["cluster-summary"] == 2, counts  # the first write, then the whole burst
    for comm in comms:
        messages = await received(comm)
        assert len(messages) == 2
        burst = messages[1]
        assert burst.count('id="cluster-summary"') == 1 and burst.count('id="pending"') == 1
        for node in ("node2", "node3", "node4"):
            assert burst.count(f'<article id="node-{node}"') == 1
        assert all(f'data-taint="burst{i}=v:PreferNoSchedule"' in burst for i in range(8))
        await comm.disconnect()
