"""The update progress page is live without polling: a committed write of the update's
objects makes the broadcast push the page's live fragment, rendered once, through the real
RedisChannelLayer to every open socket of the cluster; the page's template polls nothing."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from django.urls import reverse

from clusterui.asgi import application
from scheduling.live import broadcast
from scheduling.store import clock, reconcile, services
from updates import services as update_services
from tests.updates.clusters import ONE_WORKER

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

CLUSTER = ONE_WORKER


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    from django.db import connections

    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def redis_layer(redis_url):
    layers = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                          "CONFIG": {"hosts": [redis_url], "prefix": "clusterui-test-updates"}}}
    with override_settings(CHANNEL_LAYERS=layers):
        from channels import layers as channel_layers

        channel_layers.channel_layers.backends.clear()
        yield get_channel_layer()
        channel_layers.channel_layers.backends.clear()


def _communicator(cluster_id: int) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, f"/ws/clusters/{cluster_id}/",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")])


def _update_cluster(name: str):
    cluster = services.import_new_cluster(name, CLUSTER, "cluster.yaml")
    reconcile.reconcile(cluster.pk, force=True)  # the CVO and the MCO create the operators and the pools
    broadcast.flush()
    return cluster


async def _receive_until(comm: WebsocketCommunicator, wanted: str, timeout: float = 10.0) -> tuple[str, list[str]]:
    """The first pushed message containing `wanted`, and every message received before it."""
    seen: list[str] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        html = await comm.receive_from(timeout=max(deadline - loop.time(), 0.1))
        if wanted in html:
            return html, seen
        seen.append(html)


async def test_pausing_a_pool_pushes_the_progress_fragment_to_the_open_page(redis_layer):
    cluster = await database_sync_to_async(_update_cluster)("live-update")
    comm = _communicator(cluster.pk)
    try:
        assert (await comm.connect())[0]
        await database_sync_to_async(update_services.set_pool_paused)(cluster, "worker", True)
        html, _ = await _receive_until(comm, 'id="progress-live"')
        assert '<div id="progress-live" data-src="%s" hx-swap-oob="true">' % reverse("update-progress", args=[cluster.pk]) in html
        assert "maxUnavailable 1 · paused" in html  # the worker pool, as the write left it
        assert 'form="pool-resume" name="pool" value="worker"' in html  # the editor button, shown by the page to editors
        assert "csrfmiddlewaretoken" not in html  # one render for every viewer: no form, no token
        assert 'id="cluster-summary"' in html  # pushed with the rest of the cluster's fragments
    finally:
        await comm.disconnect()


def _start_update(cluster) -> None:
    update_services.request_update(cluster, "4.14.58")
    cluster.refresh_from_db()
    clock.step(cluster, 60)
    reconcile.reconcile(cluster.pk, force=True)  # the worker's job: the CVO takes the request


async def test_the_controllers_writes_reach_the_page_through_the_push(redis_layer):
    cluster = await database_sync_to_async(_update_cluster)("live-controllers")
    comm = _communicator(cluster.pk)
    try:
        assert (await comm.connect())[0]
        await database_sync_to_async(_start_update)(cluster)
        html, _ = await _receive_until(comm, "Updating to 4.14.58")
        assert 'id="progress-live"' in html and '<p id="cv-progressing">Working towards 4.14.58: ' in html
    finally:
        await comm.disconnect()


async def test_a_cluster_without_a_clusterversion_gets_no_progress_fragment(redis_layer):
    cluster = await database_sync_to_async(services.create_cluster)("plain")
    comm = _communicator(cluster.pk)
    try:
        assert (await comm.connect())[0]
        await database_sync_to_async(services.import_documents)(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
        html, _ = await _receive_until(comm, 'id="cluster-summary"')
        assert 'id="progress-live"' not in html
    finally:
        await comm.disconnect()


def test_the_progress_page_polls_nothing_and_follows_the_socket(client, db):
    cluster = _update_cluster("page")
    body = client.get(reverse("update-progress", args=[cluster.pk])).content.decode()
    assert 'hx-trigger="every' not in body and "setInterval" not in body
    assert f'hx-ext="ws,live" ws-connect="/ws/clusters/{cluster.pk}/"' in body
    assert '<script src="/static/js/updates.js" defer></script>' in body
