"""The node page's `oc adm taint` field behaves as `oc adm taint nodes ...`: the words name the
nodes (or --all, or -l selects them) and the taint changes, a whole command works too, and
the preview shows what changes on every selected node; words naming no node apply to the
panel's node. Apply writes every previewed node or none."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scheduling.store import services
from scheduling.models import Node
from tests.scheduling.pages import apply_form, preview

SPEC = [{"key": "k", "value": "v", "effect": "NoSchedule"}]


def targets(body: str) -> list[str]:
    return re.findall(r'data-target="([^"]+)"', body)


def zone(demo, value):
    return [f"node/{n.name}" for n in Node.objects.filter(cluster=demo).order_by("pk") if n.metadata["labels"].get("zone") == value]


@pytest.mark.parametrize("typed, expected", [
    ("k=v:NoSchedule", lambda demo: ["node/node5"]),
    ("node1 k=v:NoSchedule", lambda demo: ["node/node1"]),
    ("node1 node2 k=v:NoSchedule", lambda demo: ["node/node1", "node/node2"]),
    ("oc adm taint nodes node1 node2 k=v:NoSchedule", lambda demo: ["node/node1", "node/node2"]),
    ("--all k=v:NoSchedule", lambda demo: [f"node/{n.name}" for n in Node.objects.filter(cluster=demo).order_by("pk")]),
    ("-l zone=us-east-1a k=v:NoSchedule", lambda demo: zone(demo, "us-east-1a")),
    ("--selector=zone=us-east-1b k=v:NoSchedule", lambda demo: zone(demo, "us-east-1b")),
])
def test_the_words_choose_the_nodes_as_oc_does(editor_client, demo, typed, expected):
    response = preview(editor_client, demo, "node5", op="taint-oc", taint=typed)
    body = response.content.decode()
    assert "cannot be made" not in body, body
    assert targets(body) == expected(demo)
    assert not any(SPEC[0] in (n.spec.get("taints") or ()) for n in Node.objects.filter(cluster=demo))  # nothing written


def test_a_node_that_does_not_exist_gets_ocs_message(editor_client, demo):
    body = preview(editor_client, demo, "node5", op="taint-oc", taint="nodeX k=v:NoSchedule").content.decode()
    assert 'Error from server (NotFound): nodes &quot;nodeX&quot; not found' in body


def test_a_selector_matching_nothing_says_so(editor_client, demo):
    body = preview(editor_client, demo, "node5", op="taint-oc", taint="-l zone=nowhere k=v:NoSchedule").content.decode()
    assert "This change cannot be made" in body and targets(body) == []


def test_only_oc_adm_taint_runs_in_this_field(editor_client, demo):
    body = preview(editor_client, demo, "node5", op="taint-oc", taint="oc delete node node1").content.decode()
    assert "this field runs `oc adm taint`" in body


def test_apply_writes_every_previewed_node(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node5", op="taint-oc", taint="node1 node2 k=v:NoSchedule").content.decode())
    assert form["versions"] and form["verbs"] == "tainted,tainted"
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "node/node1 tainted<br>node/node2 tainted" in body
    assert SPEC[0] in Node.objects.get(cluster=demo, name="node1").spec["taints"]
    assert Node.objects.get(cluster=demo, name="node2").spec["taints"] == SPEC
    assert SPEC[0] not in Node.objects.get(cluster=demo, name="node5").spec["taints"]


def test_apply_of_several_nodes_taints_the_one_that_moved_on_at_its_latest_version(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node5", op="taint-oc", taint="node1 node2 k=v:NoSchedule").content.decode())
    node2 = Node.objects.get(cluster=demo, name="node2")
    doc = node2.document
    doc["metadata"].setdefault("labels", {})["moved"] = "on"
    services.replace_object(demo, doc)
    body = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true").content.decode()
    assert "node/node1 tainted<br>node/node2 tainted" in body
    assert SPEC[0] in Node.objects.get(cluster=demo, name="node1").spec["taints"]
    node2 = Node.objects.get(cluster=demo, name="node2")
    assert node2.spec["taints"] == SPEC and node2.metadata["labels"]["moved"] == "on"


def test_apply_of_several_nodes_writes_none_when_one_moved_on_and_the_edit_cannot_be_reapplied(editor_client, demo):
    form = apply_form(preview(editor_client, demo, "node5", op="taint-oc", taint="node1 node2 k=v:NoSchedule").content.decode())
    form.pop("base")
    node2 = Node.objects.get(cluster=demo, name="node2")
    doc = node2.document
    doc["metadata"].setdefault("labels", {})["moved"] = "on"
    services.replace_object(demo, doc)
    body = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true").content.decode()
    assert "Not applied: someone changed this object since the preview." in body
    assert SPEC[0] not in Node.objects.get(cluster=demo, name="node1").spec["taints"]