"""The machine pages are live through the broadcast: a committed change of a Machine pushes
the machine pages' fragments (the machines board, each MachineSet's board, each Machine's
deletion flow), rendered once for every viewer, out of band over the cluster's channel group."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scheduling.live import broadcast
from scheduling.store import reconcile, services
from scheduling.models import KIND_MODELS

pytestmark = pytest.mark.django_db(transaction=True)

NS = "openshift-machine-api"
VICTIM = "ci-7xk2p-worker-us-east-1a-4bk7q"


@pytest.fixture
def sent(monkeypatch):
    messages: list[tuple[str, str]] = []

    class Layer:
        async def group_send(self, group, message):
            messages.append((group, message["html"]))

    broadcast.flush()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: Layer())
    return messages


def test_a_change_of_a_machine_pushes_the_machine_fragments_to_the_clusters_group(editor_client, sent):
    cluster = services.load_scenario("machine-deletion-hooks")
    reconcile.reconcile(cluster.pk)
    assert broadcast.flush()
    sent.clear()
    response = editor_client.post(reverse("machine-hooks", args=[cluster.pk, NS, VICTIM]),
                                  {"op": "add", "point": "preDrain", "hook": "Pushed", "owner": "me"})
    assert response.status_code in (200, 302)
    assert broadcast.flush()
    pushed = [html for group, html in sent if group == broadcast.group_name(cluster.pk) and "machines-board" in html]
    assert pushed, sent
    html = pushed[-1]
    assert '<div id="machines-board" data-catch-up data-src="%s" hx-swap-oob="true">' % reverse("machines", args=[cluster.pk]) in html
    assert f'<div id="machine-flow-{NS}-{VICTIM}" data-catch-up' in html and 'data-hook="Pushed"' in html
    for ms in KIND_MODELS["MachineSet"].objects.filter(cluster=cluster):
        assert f'id="machineset-board-{ms.namespace}-{ms.name}"' in html
    # one render for every viewer: no form posts from the fragment with a token of its own
    assert "csrfmiddlewaretoken" not in html
    assert 'form="hook-remove-preDrain" name="hook" value="Pushed" class="editor-control"' in html


def test_a_cluster_without_machines_gets_no_machine_fragments(sent):
    cluster = services.create_cluster("plain")
    services.import_documents(cluster, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    assert broadcast.flush()
    assert any('id="cluster-summary"' in html for _, html in sent)
    assert not any("machines-board" in html for _, html in sent)
