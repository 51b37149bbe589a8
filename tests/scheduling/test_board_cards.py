"""The cluster board's node cards: grouped by zone, taints coloured by effect, request bars,
pod chips (some shown, the rest aggregated), status badges, and every user text escaped."""

from __future__ import annotations

import re



from scheduling.pages import board
from scheduling.store import services
from tests.scheduling.pages import FRONTEND_ON_NODE2, card_html, page, set_doc


def test_nodes_are_cards_grouped_by_zone_with_taints_coloured_by_effect(client, demo):
    body = page(client, demo)
    groups = re.findall(r'<section class="group" data-group="([^"]*)"', body)
    assert groups == ["us-east-1a", "us-east-1b", "us-east-1c"]
    node1 = card_html(body, "node1")
    assert 'data-node="node1"' in node1
    assert '<li class="taint noschedule" data-taint="key1=value1:NoSchedule">' in node1
    assert '<li class="taint noexecute" data-taint="key1=value1:NoExecute">' in node1
    assert '<li class="taint prefer"' in card_html(body, "node3")
    assert '<span class="roles" title="roles">worker</span>' in node1
    assert '<span class="badge ready">Ready</span>' in node1


def test_a_card_shows_request_bars_and_its_pods_as_chips(client, demo):
    node2 = card_html(page(client, demo), "node2")
    assert '<span class="bar-value">0.25 / 3.5</span>' in node2  # cpu cores
    assert '<span class="bar-value">256Mi / 16Gi</span>' in node2
    assert '<span class="bar-value">1 / 250</span>' in node2
    assert f'id="pod-shop-frontend-6d4f8b9c7d-4xk2p" data-pod="{FRONTEND_ON_NODE2}"' in node2


def test_cordoned_not_ready_and_pressure_are_badges_and_terminating_pods_are_marked(client, demo):
    def break_node(doc):
        doc.setdefault("spec", {})["unschedulable"] = True
        for c in doc["status"]["conditions"]:
            c["status"] = {"Ready": "False", "MemoryPressure": "True"}.get(c["type"], c["status"])

    set_doc(demo, "Node", "node4", break_node)
    set_doc(demo, "Pod", "frontend-6d4f8b9c7d-9mzqt", lambda d: d["metadata"].update(deletionTimestamp=30), "shop")
    node4 = card_html(page(client, demo), "node4")
    assert 'class="node notready cordoned"' in node4
    assert '<span class="badge notready">NotReady,SchedulingDisabled</span>' in node4
    assert '<span class="badge pressure">MemoryPressure</span>' in node4
    assert 'class="pod c' in node4 and ' terminating" id="pod-shop-frontend-6d4f8b9c7d-9mzqt"' in node4
    assert "Terminating" in node4


def test_a_busy_node_shows_some_chips_and_aggregates_the_rest(client, demo):
    docs = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"filler-{i:02d}", "namespace": "default"},
         "spec": {"nodeName": "node6", "containers": [{"name": "c", "image": "x"}]}}
        for i in range(board.CHIPS_PER_NODE + 5)
    ]
    services.apply_documents(demo, __import__("scheduling.store.kube", fromlist=["x"]).check_documents(docs))
    node6 = card_html(page(client, demo), "node6")
    assert node6.count('data-pod="') == board.CHIPS_PER_NODE
    assert "+6 more" in node6


def test_user_text_is_escaped_everywhere(client, demo):
    evil = "<script>alert(1)</script>"
    set_doc(demo, "Pod", "batch-huge", lambda d: d["status"].update(conditions=[
        {"type": "PodScheduled", "status": "False", "message": evil}]), "default")
    body = page(client, demo, q=evil, label='"><b>')
    assert evil not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert '"><b>' not in body
