"""The overview: above OVERVIEW_THRESHOLD nodes the board shows one small tile per node,
coloured by its state (Ready, NotReady, cordoned, tainted, under pressure), with its pod
count; a tile opens the node's card (its chips) on demand; `view=cards|overview` toggles;
pushes carry the changed tiles."""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse

from scheduling.pages import board
from scheduling.live import broadcast
from scheduling.store import services
from scheduling.store.changes import Change
from scheduling.models import Node, Pod
from tests.scheduling.pages import page


def _node(cluster, name, *, ready="True", unschedulable=False, taints=(), pressure=False, zone="a"):
    status = {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
              "conditions": [{"type": "Ready", "status": ready}, {"type": "MemoryPressure", "status": "True" if pressure else "False"}]}
    spec = {}
    if unschedulable:
        spec["unschedulable"] = True
    if taints:
        spec["taints"] = list(taints)
    return Node(cluster=cluster, name=name, uid=str(uuid.uuid4()), resource_version=1,
                metadata={"name": name, "labels": {"zone": zone, "kubernetes.io/hostname": name}}, spec=spec, status=status)


def _pod(cluster, name, node, ns="default"):
    return Pod(cluster=cluster, namespace=ns, name=name, uid=str(uuid.uuid4()), resource_version=1,
               metadata={"name": name, "namespace": ns}, spec={"containers": [{"name": "c", "image": "i"}], "nodeName": node},
               status={"phase": "Running"}, node_name=node, phase="Running")


@pytest.fixture
def big(db):
    cluster = services.create_cluster("big")
    nodes = [_node(cluster, f"n{i:03d}", zone="ab"[i % 2]) for i in range(board.OVERVIEW_THRESHOLD + 1)]
    nodes[1] = _node(cluster, "n001", ready="False", zone="b")
    nodes[2] = _node(cluster, "n002", unschedulable=True)
    nodes[3] = _node(cluster, "n003", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}], zone="b")
    nodes[4] = _node(cluster, "n004", pressure=True)
    nodes[5] = _node(cluster, "n005", taints=[{"key": "soft", "effect": "PreferNoSchedule"}], zone="b")
    Node.objects.bulk_create(nodes)
    Pod.objects.bulk_create([_pod(cluster, f"p{j}", "n000", ns="team-a" if j % 2 else "team-b") for j in range(4)])
    return cluster


def tiles(body: str) -> dict[str, str]:
    """node name -> tile state, in page order."""
    return {name: state for state, name in re.findall(r'<a class="tile s-([a-z]+)" id="tile-([^"]+)"', body)}


def test_above_the_threshold_the_board_opens_as_tiles_coloured_by_state(client, big):
    body = page(client, big)
    shown = tiles(body)
    assert len(shown) == board.OVERVIEW_THRESHOLD + 1
    assert [shown[f"n00{i}"] for i in range(6)] == ["ready", "notready", "cordoned", "tainted", "pressure", "ready"]
    assert '<article id="node-' not in body  # no card, no chip is rendered
    assert 'title="n000 · Ready · 4 pods"' in body and 'title="n003 · Ready · 0 pods · k=v:NoSchedule"' in body
    assert 'title="n002 · Ready,SchedulingDisabled · 0 pods"' in body
    assert re.search(r'<li data-state="ready">.*?Ready <strong>147</strong></li>', body)
    assert re.search(r'<li data-state="notready">.*?NotReady <strong>1</strong></li>', body)


def test_a_tile_opens_the_nodes_card_with_its_pods(client, big):
    body = page(client, big)
    url = re.search(r'id="tile-n000" data-tile="n000" data-labels="[0-9a-f]+" href="([^"]+)" hx-get="\1" hx-target="#tile-detail"', body).group(1)
    card = client.get(url).content.decode()
    assert '<article id="node-n000"' in card and card.count('data-pod="') == 4


@pytest.mark.parametrize("params, expected", [
    ({"view": "cards"}, "cards"),
    ({}, "overview"),
    ({"view": "overview"}, "overview"),
])
def test_the_toggle_chooses_the_view(client, big, params, expected):
    body = page(client, big, **params)
    assert ('data-view="overview"' in body) == (expected == "overview")
    assert ('<article id="node-n000"' in body) == (expected == "cards")


def test_a_small_cluster_shows_cards_unless_asked_for_the_overview(client, demo):
    assert 'data-view="overview"' not in page(client, demo)
    body = page(client, demo, view="overview")
    assert 'data-view="overview"' in body and 'id="tile-node1"' in body
    assert '<a href="?view=cards" data-view-link>show node cards</a>' in body


def test_filters_hide_tiles_without_matching_pods(client, big):
    body = page(client, big, ns="team-a")
    tags = re.findall(r'<a class="tile [^"]+" id="tile-([^"]+)"[^>]*>', body)
    hidden = re.findall(r'<a class="tile [^"]+" id="tile-([^"]+)"[^>]* hidden>', body)
    assert len(tags) == 151 and set(tags) - set(hidden) == {"n000"}
    assert "Overview: 1 of 151 nodes" in body


def test_a_push_carries_the_changed_tile(big):
    html = broadcast.render_changes(big.pk, [Change("Node", "n003", nodes=("n003",))])
    assert re.search(r'<a hx-swap-oob="true" class="tile s-tainted" id="tile-n003"', html)
    assert '<article id="node-n003"' in html  # the card too, for a page that opened the tile


def _legend(html: str) -> dict[str, int]:
    meta = html[html.index('<div id="overview-meta"'):]
    meta = meta[:meta.index("</ul>")]
    return {state: int(n) for state, n in re.findall(r'<li data-state="([a-z]+)">.*?<strong>(\d+)</strong></li>', meta)}


def test_a_push_carries_the_overviews_counts_and_legend(client, big):
    html = broadcast.render_changes(big.pk, [Change("Pod", "p0", "team-b", nodes=("n000",))])
    assert 'hx-swap-oob="true"' in html[html.index('<div id="overview-meta"'):].split(">", 1)[0]
    assert _legend(html) == {"notready": 1, "cordoned": 1, "pressure": 1, "tainted": 1, "ready": 147}
    # A node is tainted NoExecute and a pod is added: the next push counts them.
    doc = services.get_object(big, "Node", "n000").document
    doc.setdefault("spec", {})["taints"] = [{"key": "k", "value": "v", "effect": "NoExecute"}]
    services.replace_object(big, doc)
    services.create_object(big, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late", "namespace": "default"},
                                 "spec": {"containers": [{"name": "c", "image": "i"}]}})
    html = broadcast.render_changes(big.pk, [Change("Node", "n000", nodes=("n000",)), Change("Pod", "late", "default")])
    assert _legend(html) == {"notready": 1, "cordoned": 1, "pressure": 1, "tainted": 2, "ready": 146}
    assert f"{board.OVERVIEW_THRESHOLD + 1} nodes, 5 pods" in html
    assert _legend(html) == _legend(page(client, big))  # what a fresh load shows


def test_a_filtered_overview_refetches_its_counts_with_its_filters(client, big):
    body = page(client, big, ns="team-a")
    assert re.search(r'<div id="overview-meta" data-src="([^"]+)" data-filtered>', body)
    meta = client.get(reverse("overview-meta", args=[big.pk]), {"ns": "team-a"}).content.decode()
    assert f"Overview: 1 of {board.OVERVIEW_THRESHOLD + 1} nodes, 4 pods" in " ".join(meta.split())
    assert "data-filtered" in meta and 'hx-swap-oob' not in meta
