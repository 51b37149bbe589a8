"""A change of any size reaches every open page: daphne refuses to send a websocket message
over 1 MiB (autobahn's PayloadExceededError: the page silently goes stale), so a large push
goes out as several messages of whole fragments, and a fragment too large on its own as a
"refresh this section" partial the page answers by fetching the section."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from clusterui.layers import redis_channel_layer
from scheduling.live import broadcast
from scheduling.store import services

DAPHNE_LIMIT = 1024 * 1024  # daphne's websocket_max_message_size default
NODES, PODS = 500, 10_000


def _ids(html: str) -> list[str]:
    return [e[e.index('id="') + 4:].split('"', 1)[0] for e in broadcast.top_level_elements(html)]


def test_a_large_push_is_split_between_fragments_and_an_oversized_one_becomes_a_refresh():
    cards = "".join(f'<article id="node-n{i}" hx-swap-oob="true"><p>{"x" * 300}</p><br><img src="a"/></article>\n' for i in range(100))
    huge = '<section id="pending" data-src="/p" hx-swap-oob="true"><textarea>a <b & </div></textarea>' + "<li>p</li>" * 2000 + "</section>"
    html = '<div id="cluster-summary" hx-swap-oob="true">10000 pods</div>' + cards + huge
    messages = broadcast.socket_messages(html, limit=4096)
    assert all(len(m.encode()) <= 4096 for m in messages) and len(messages) > 5
    # Every fragment arrives whole and in order; the one too big stands in as its refresh partial.
    assert [i for m in messages for i in _ids(m)] == ["cluster-summary", *(f"node-n{i}" for i in range(100)), "pending"]
    assert "".join(messages).endswith('<section id="pending" data-refresh hx-swap-oob="true"></section>')
    assert "".join(messages).count("<article") == 100
    # Small pushes are left as they are.
    assert broadcast.socket_messages(html) == [html]


def test_html_that_does_not_nest_is_sent_whole_rather_than_cut():
    broken = "<div id='a'>" + "x" * 5000
    assert broadcast.socket_messages(broken, limit=1000) == [broken]


def _cluster_docs() -> str:
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"worker-{i:03d}", "labels": {"zone": f"z{i % 3}"}},
              "status": {"capacity": {"cpu": "64", "memory": "256Gi", "pods": "250"}}} for i in range(NODES)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes})


def _pod_docs() -> str:
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"web-{j:05d}", "namespace": "default", "labels": {"app": "web"}},
             "spec": {"nodeName": f"worker-{j % NODES:03d}",
                      "containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "10m"}}}]}}
            for j in range(PODS)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": pods})


@pytest.fixture(params=["memory", "redis"])
def channel_layer(request):
    if request.param == "memory":
        layer = {"BACKEND": "clusterui.layers.ThreadSafeInMemoryChannelLayer"}  # embedded mode's
    else:
        # as the app configures it (clusterui.layers: a read timeout above channels_redis' blocking pop)
        layer = redis_channel_layer(request.getfixturevalue("redis_url"), prefix="clusterui-big-push")
    # 10,000 pods: above the default per-cluster pod limit (CLUSTER_MAX_PODS), raised here as a
    # user importing such a cluster raises it
    with override_settings(CHANNEL_LAYERS={"default": layer}, CLUSTER_MAX_PODS=20000, CLUSTER_MAX_OBJECTS=30000):
        from channels import layers as channel_layers

        channel_layers.channel_layers.backends.clear()
        yield request.param
        channel_layers.channel_layers.backends.clear()


@pytest.mark.django_db(transaction=True)
async def test_importing_10000_pods_reaches_every_watcher_in_messages_daphne_can_send(channel_layer):
    from clusterui.asgi import application

    try:
        cluster = await database_sync_to_async(services.import_new_cluster)("big-push", _cluster_docs(), "nodes.json")
        await database_sync_to_async(broadcast.flush)(30)
        watchers = []
        for _ in range(3):
            comm = WebsocketCommunicator(application, f"/ws/clusters/{cluster.pk}/",
                                         headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")])
            assert (await comm.connect())[0]
            watchers.append(comm)

        await database_sync_to_async(services.import_documents)(cluster, _pod_docs(), "pods.json")
        assert await database_sync_to_async(broadcast.flush)(120)

        received = []
        for comm in watchers:
            messages = []
            while not any('id="pending"' in m for m in messages):  # the queue comes after the cards
                messages.append(await comm.receive_from(timeout=60))
            while not await comm.receive_nothing(timeout=2):
                messages.append(await comm.receive_from(timeout=60))
            received.append(messages)
            await comm.disconnect()
        assert received[0] == received[1] == received[2]  # every watcher, the same
        messages = received[0]
        assert len(messages) > 1
        assert max(len(m.encode()) for m in messages) <= broadcast.MAX_MESSAGE_BYTES < DAPHNE_LIMIT
        html = "".join(messages)
        ids = [i for m in messages for i in _ids(m)]
        # The summary counts the new pods; every node's card and tile came (whole, or as a refresh).
        summary = html[html.index('id="cluster-summary"'):html.index("</section>")]
        assert f'<li data-kind="Pod">Pod: {PODS}</li>' in summary
        assert {f"node-worker-{i:03d}" for i in range(NODES)} <= set(ids)
        assert "pending" in ids
        cards = [e for m in messages for e in broadcast.top_level_elements(m) if e.startswith('<article id="node-')]
        assert sum("data-refresh" in e for e in cards) == 0  # a node's card fits a message by far
        per_node = f'<span class="bar-value">{PODS // NODES} / 250</span>'  # the pods bar of each card
        assert len(cards) == NODES and all(per_node in e for e in cards)
    finally:
        from django.db import connections

        await database_sync_to_async(connections.close_all)()
