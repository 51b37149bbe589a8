"""What is pushed to open pages after a commit: the fragments each change re-renders (out of
band, by id), and a viewer's socket receiving an editor's change without being able to send."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings
from django.urls import reverse

from scheduling.live import broadcast
from scheduling.store import services
from scheduling.store.changes import Change
from scheduling.models import Node
from tests.scheduling.pages import DEMO, apply_form, preview


def test_a_node_change_pushes_its_card_out_of_band(demo):
    html = broadcast.render_changes(demo.pk, [Change("Node", "node2", nodes=("node2",))])
    card = html[html.index('<article id="node-node2"'):]
    assert 'hx-swap-oob="true"' in card.split(">")[0]
    assert 'id="cluster-summary"' in html and 'id="pending"' in html
    assert 'id="clock"' not in html  # the clock did not change


def test_a_pod_move_pushes_both_cards_and_the_pending_queue(demo):
    html = broadcast.render_changes(demo.pk, [Change("Pod", "p", "default", nodes=("node2", "node4"))])
    assert '<article id="node-node2"' in html and '<article id="node-node4"' in html and 'id="pending"' in html


def test_a_deleted_node_is_removed_from_open_pages(demo):
    services.delete_object(demo, "Node", "node3")
    html = broadcast.render_changes(demo.pk, [Change("Node", "node3", nodes=("node3",))])
    assert '<div id="node-node3" hx-swap-oob="delete"></div>' in html


def test_a_clock_change_pushes_the_clock_and_the_events(demo):
    html = broadcast.render_changes(demo.pk, [Change("Cluster")])
    assert '<section id="clock"' in html and '<section id="events"' in html


@pytest.mark.django_db(transaction=True)
async def test_a_viewers_socket_receives_an_editors_taint_but_cannot_send(viewer, editor):
    layers = {"default": {"BACKEND": "clusterui.layers.ThreadSafeInMemoryChannelLayer"}}  # as embedded mode: pushes leave from the delivery thread
    with override_settings(CHANNEL_LAYERS=layers):
        from channels import layers as channel_layers

        channel_layers.channel_layers.backends.clear()
        try:
            from clusterui.asgi import application

            cluster = await database_sync_to_async(services.import_new_cluster)("live", DEMO.read_text(), DEMO.name)
            comm = WebsocketCommunicator(application, f"/ws/clusters/{cluster.pk}/",
                                         headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")])
            comm.scope["user"] = viewer
            assert (await comm.connect())[0]
            await comm.send_to(text_data=json.dumps({"taint": "k=v:NoExecute"}))
            assert json.loads(await comm.receive_from(timeout=5)) == {"error": "read-only: you are not allowed to change this cluster"}

            def editor_applies():
                client = Client(HTTP_HOST="localhost")
                client.force_login(editor)
                form = apply_form(preview(client, cluster, "node2", op="taint-oc", taint="key1=value1:NoExecute").content.decode())
                assert client.post(reverse("apply-edit", args=[cluster.pk]), form).status_code == 200

            await database_sync_to_async(editor_applies)()
            html = await comm.receive_from(timeout=5)
            assert '<article id="node-node2"' in html and 'data-taint="key1=value1:NoExecute"' in html
            assert (await database_sync_to_async(lambda: Node.objects.get(cluster=cluster, name="node2").spec)())["taints"]
            await comm.disconnect()
        finally:
            channel_layers.channel_layers.backends.clear()
            from django.db import connections

            await database_sync_to_async(connections.close_all)()
