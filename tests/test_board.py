"""The cluster board: node cards, pod chips, the pending queue, filters kept in the URL, the
what-if apply with its compare-and-swap, the clock, what is pushed to open pages, and who
may change what."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings
from django.urls import reverse

from scheduling import board, broadcast, services
from scheduling.broadcast import Change
from scheduling.models import Cluster, Node, Pod

DEMO = Path(__file__).resolve().parent.parent / "scheduling" / "demo" / "demo-cluster.yaml"
FRONTEND_ON_NODE2 = "shop/frontend-6d4f8b9c7d-4xk2p"


@pytest.fixture
def demo(db):
    return services.import_new_cluster("demo", DEMO.read_text(), DEMO.name)


def page(client, cluster, **params) -> str:
    response = client.get(reverse("cluster-detail", args=[cluster.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def card_html(body: str, name: str) -> str:
    start = body.index(f'<article id="node-{name}"')
    return body[start:body.index("</article>", start)]


def set_doc(cluster, kind, name, change, namespace=""):
    obj = services.get_object(cluster, kind, name, namespace)
    doc = obj.document
    change(doc)
    services.replace_object(cluster, doc)


# --- the board -----------------------------------------------------------------------------------


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
    services.apply_documents(demo, __import__("scheduling.kube", fromlist=["x"]).check_documents(docs))
    node6 = card_html(page(client, demo), "node6")
    assert node6.count('data-pod="') == board.CHIPS_PER_NODE
    assert "+6 more" in node6


def test_the_pending_queue_shows_the_failedscheduling_summary(client, demo):
    message = "0/9 nodes are available: 9 Insufficient cpu."
    set_doc(demo, "Pod", "batch-huge", lambda d: d["status"].update(conditions=[
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}]), "default")
    body = page(client, demo)
    pending = body[body.index('<section id="pending"'):body.index('<section id="board"')]
    assert message in pending
    # no condition yet: computed on demand with the engine
    assert ("0/9 nodes are available: 1 node(s) had taints that the pod didn&#x27;t tolerate, "
            "8 node(s) didn&#x27;t match node selector.") in pending
    assert "the scheduler would place it on</span> node3" in pending
    # each pending pod is a chip with its id, in queue order
    assert pending.index("pod-default-new-pod-key1") < pending.index("pod-default-batch-huge")


def test_user_text_is_escaped_everywhere(client, demo):
    evil = "<script>alert(1)</script>"
    set_doc(demo, "Pod", "batch-huge", lambda d: d["status"].update(conditions=[
        {"type": "PodScheduled", "status": "False", "message": evil}]), "default")
    body = page(client, demo, q=evil, label='"><b>')
    assert evil not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert '"><b>' not in body


# --- filters in the URL ------------------------------------------------------------------------------


def test_filters_come_from_the_url_and_hide_what_does_not_match(client, demo):
    body = page(client, demo, ns="shop", label="disktype=ssd", group="role", color="owner", big="1")
    assert 'class="board-page big">' in body
    assert 'class="live color-owner"' in body
    assert re.findall(r'<section class="group" data-group="([^"]*)"', body) == ["master", "worker"]
    assert '<option selected>shop</option>' in body
    assert 'value="disktype=ssd"' in body
    # every node keeps an element (so pushed updates always have a target), hidden if filtered out
    assert '<article id="node-node2" data-node="node2"' in body and "data-filtered hidden" in card_html(body, "node2")
    assert "data-filtered" in card_html(body, "node3") and "hidden" not in card_html(body, "node3").split(">")[0]


def test_search_by_name_keeps_the_nodes_with_a_matching_pod(client, demo):
    body = page(client, demo, q="running-on")
    assert "hidden" not in card_html(body, "node1").split(">")[0]
    assert "hidden" in card_html(body, "node2").split(">")[0]
    pending = body[body.index('<section id="pending"'):body.index('<section id="board"')]
    assert "No pending pods match the filter" in pending


def test_a_namespace_filter_shows_only_that_namespaces_pods(client, demo):
    body = page(client, demo, ns="default")
    assert "data-pod=\"shop/" not in card_html(body, "node2")
    assert "1 other pod hidden by the filter" in card_html(body, "node2")


def test_a_bad_label_selector_is_reported(client, demo):
    assert "Node labels: unable to parse requirement" in page(client, demo, label="a in b")


@pytest.mark.parametrize(
    "text, labels, expected",
    [
        pytest.param("zone=a", {"zone": "a"}, True, id="equality"),
        pytest.param("zone!=a", {"zone": "b"}, True, id="inequality"),
        pytest.param("!dedicated", {"dedicated": "x"}, False, id="does not exist"),
        pytest.param("zone in (a, b),disk", {"zone": "b", "disk": ""}, True, id="set and existence"),
        pytest.param("zone notin (a)", {"zone": "a"}, False, id="notin"),
    ],
)
def test_label_selectors_read_like_kubectl(text, labels, expected):
    assert all(r.matches(labels) for r in board.parse_selector(text)) is expected


def test_the_sections_can_be_refetched_with_the_viewers_filters(client, demo):
    card = client.get(reverse("node-card", args=[demo.pk, "node2"]), {"ns": "default"}).content.decode()
    assert card.lstrip().startswith('<article id="node-node2"') and "data-filtered" in card
    assert client.get(reverse("node-card", args=[demo.pk, "nope"])).status_code == 404
    live = client.get(reverse("cluster-detail", args=[demo.pk]), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live")
    assert live.content.decode().lstrip().startswith('<div id="live"')


# --- the what-if editor: preview and apply --------------------------------------------------------------


def preview(client, cluster, node, **data):
    return client.post(reverse("node-preview", args=[cluster.pk, node]), data, HTTP_HX_REQUEST="true")


def apply_form(preview_html: str) -> dict:
    fields = dict(re.findall(r'<input type="hidden" name="(document|resource_version|verb)" value="([^"]*)"', preview_html))
    import html

    return {k: html.unescape(v) for k, v in fields.items()}


def test_a_taint_preview_lists_the_evicted_pods_and_changes_nothing(editor_client, demo):
    before = Node.objects.get(cluster=demo, name="node2").resource_version
    response = preview(editor_client, demo, "node2", op="taint-add", key="key1", value="value1", effect="NoExecute")
    body = response.content.decode()
    assert response.status_code == 200
    assert re.findall(r'data-evicted="([^"]+)"', body) == [FRONTEND_ON_NODE2]
    assert Node.objects.get(cluster=demo, name="node2").resource_version == before
    assert "taints" not in Node.objects.get(cluster=demo, name="node2").spec


def test_the_oc_taint_field_takes_ocs_forms_and_messages(editor_client, demo):
    ok = preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExecute")
    assert re.findall(r'data-evicted="([^"]+)"', ok.content.decode()) == [FRONTEND_ON_NODE2]
    bad = preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExcute")
    assert bad.status_code == 200  # htmx swaps the message in; a plain post gets 422
    assert "error: invalid taint effect: NoExcute, unsupported taint effect" in bad.content.decode()
    missing = preview(editor_client, demo, "node1", op="taint-oc", taint="dedicated:NoSchedule-")
    assert 'error: taint &quot;dedicated:NoSchedule&quot; not found' in missing.content.decode()
    removal = preview(editor_client, demo, "node1", op="taint-oc", taint="key2-")
    body = removal.content.decode()
    assert removal.status_code == 200
    # default/new-pod-key1 tolerates key1 and is pinned to node1: it would start there
    assert re.findall(r'data-scheduled="([^"]+)"', body) == ["default/new-pod-key1"]


def test_apply_commits_the_previewed_document(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExecute").content.decode())
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "node/node2 tainted" in response.content.decode()
    assert Node.objects.get(cluster=demo, name="node2").spec["taints"] == [{"key": "key1", "value": "value1", "effect": "NoExecute"}]


def test_a_concurrent_edit_makes_apply_fail_with_a_conflict_and_write_nothing(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node2", op="taint-add", key="a", value="b", effect="NoSchedule").content.decode())
    set_doc(demo, "Node", "node2", lambda d: d["metadata"]["labels"].update(team="x"))  # someone else
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form)
    body = response.content.decode()
    assert response.status_code == 409
    assert "someone changed this object since the preview" in body
    assert 'Operation cannot be fulfilled on nodes &quot;node2&quot;: the object has been modified' in body
    stored = Node.objects.get(cluster=demo, name="node2")
    assert "taints" not in stored.spec and stored.metadata["labels"]["team"] == "x"


def test_an_invalid_edit_is_explained_and_not_previewed(editor_client, demo):
    response = editor_client.post(reverse("node-preview", args=[demo.pk, "node2"]), {"op": "label-set", "key": "bad key!", "value": "v"})
    assert response.status_code == 422
    assert "metadata.labels: Invalid value: &quot;bad key!&quot;" in response.content.decode()


def test_a_pod_toleration_preview_and_a_controller_template_preview(editor_client, demo):
    url = reverse("pod-preview", args=[demo.pk, "default", "new-pod-key1"])
    body = editor_client.post(url, {"op": "toleration-add", "key": "key2", "operator": "Equal", "value": "value2",
                                    "effect": "NoSchedule"}, HTTP_HX_REQUEST="true").content.decode()
    assert re.findall(r'data-scheduled="([^"]+)"', body) == ["default/new-pod-key1"]
    url = reverse("controller-preview", args=[demo.pk, "Deployment", "shop", "frontend"])
    body = editor_client.post(url, {"op": "selector-set", "key": "disktype", "value": "nvme"}, HTTP_HX_REQUEST="true").content.decode()
    assert re.findall(r'data-unplaceable="([^"]+)"', body) == ["shop/frontend-new-1", "shop/frontend-new-2", "shop/frontend-new-3"]


# --- who may change what ----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_a_viewer_cannot_apply_or_move_the_clock(client, viewer, demo, who):
    if who == "viewer":
        client.force_login(viewer)
    node = Node.objects.get(cluster=demo, name="node2")
    doc = node.document
    doc["spec"] = {"taints": [{"key": "k", "effect": "NoExecute"}]}
    response = client.post(reverse("apply-edit", args=[demo.pk]),
                           {"document": json.dumps(doc), "resource_version": node.resource_version, "verb": "tainted"})
    assert response.status_code == 403
    assert client.post(reverse("clock-action", args=[demo.pk]), {"action": "step-60"}).status_code == 403
    assert client.post(reverse("policy-action", args=[demo.pk]), {"action": "save", "text": ""}).status_code == 403
    node.refresh_from_db()
    demo.refresh_from_db()
    assert "taints" not in node.spec and node.resource_version == Node.objects.get(pk=node.pk).resource_version
    assert demo.now == 0


def test_a_viewer_may_preview_but_is_not_offered_apply(viewer_client, demo):
    body = preview(viewer_client, demo, "node2", op="taint-add", key="k", value="", effect="NoExecute").content.decode()
    assert 'data-evicted="' in body
    assert "Log in as an editor" in body and ">Apply</button>" not in body


def test_the_board_offers_clock_controls_to_editors_only(client, editor_client, demo):
    assert 'aria-label="clock controls"' in page(editor_client, demo)
    assert 'aria-label="clock controls"' not in page(Client(), demo)


def test_every_post_needs_a_csrf_token(editor, demo):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(reverse("clock-action", args=[demo.pk]), {"action": "step-60"}).status_code == 403
    assert client.post(reverse("node-preview", args=[demo.pk, "node2"]), {"op": "cordon"}).status_code == 403


def test_the_clock_steps_plays_and_pauses(editor_client, demo):
    response = editor_client.post(reverse("clock-action", args=[demo.pk]), {"action": "step-600"}, HTTP_HX_REQUEST="true")
    assert '<strong class="clock-time" role="timer" data-now="600">0:10:00</strong>' in response.content.decode()
    editor_client.post(reverse("clock-action", args=[demo.pk]), {"action": "play", "speed": "600"})
    demo.refresh_from_db()
    assert not demo.paused and demo.speed == 600
    editor_client.post(reverse("clock-action", args=[demo.pk]), {"action": "pause"})
    demo.refresh_from_db()
    assert demo.paused


# --- what is pushed ------------------------------------------------------------------------------------------


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
    layers = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
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


def test_affinity_forms_preview_where_the_pod_would_go(editor_client, demo):
    url = reverse("pod-preview", args=[demo.pk, "default", "ssd-cache"])
    body = editor_client.post(url, {"op": "node-affinity-add", "key": "zone", "operator": "In", "values": "us-east-1a"},
                              HTTP_HX_REQUEST="true").content.decode()
    assert "require node label zone In us-east-1a" in body
    # node3, the only ssd node, is in us-east-1b: the pod that would have gone there no longer can
    assert re.findall(r'data-unscheduled="([^"]+)"', body) == ["default/ssd-cache"]
    body = editor_client.post(url, {"op": "pod-affinity-add", "kind": "affinity", "key": "app", "value": "frontend",
                                    "topology_key": "kubernetes.io/hostname"}, HTTP_HX_REQUEST="true").content.decode()
    assert "podAffinity" in body  # the diff
    assert re.findall(r'data-unscheduled="([^"]+)"', body) == ["default/ssd-cache"]  # no frontend pod on node3


def test_apply_refuses_what_is_not_a_stored_kind(editor_client, demo):
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), {
        "document": json.dumps({"kind": "Policy", "apiVersion": "v1", "metadata": {"name": "x"}}),
        "resource_version": 1, "verb": "replaced"})
    assert response.status_code == 422 and 'no matches for kind &quot;Policy&quot;' in response.content.decode()


def test_the_confirmation_after_apply_only_shows_what_oc_would_print(client, demo):
    url = reverse("node-detail", args=[demo.pk, "node2"])
    assert "node/node2 tainted" in client.get(url, {"applied": "node/node2 tainted"}).content.decode()
    assert "Call 555" not in client.get(url, {"applied": "Call 555 to fix your cluster"}).content.decode()
