"""Every object the API server creates carries metadata.creationTimestamp: `simulate
--objects` shows the input's objects created at t=0 when given without one (a time given
is kept), the objects the controllers create at the second they create them, and the
engine's `oc create -f` stamps every kind it creates, not only pods."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.simulate import simulate
from scheduling.engine.store import Store

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "namespace": "default", "creationTimestamp": None},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
GIVEN = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "creationTimestamp": "2025-12-31T23:00:00Z"}}
SCALE_LATER = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
               "steps": [{"at": 120, "run": "oc scale deployment web --replicas=2"}]}


def created() -> dict[tuple[str, str], str]:
    out = simulate([NODE, DEPLOYMENT, GIVEN, SCALE_LATER], until=180, objects=True, explain="none")
    return {(o["kind"], o["metadata"]["name"].rsplit("-", 1)[0] if o["kind"] == "Pod" else o["kind"]):
            o["metadata"].get("creationTimestamp") for o in out["objects"]}


@pytest.mark.parametrize(
    "kind, name, timestamp",
    [
        pytest.param("Node", "Node", "2026-01-01T00:00:00Z", id="an input object without one: t=0"),
        pytest.param("Deployment", "Deployment", "2026-01-01T00:00:00Z", id="an input object with creationTimestamp null: t=0"),
        pytest.param("Namespace", "Namespace", "2025-12-31T23:00:00Z", id="an input object with one keeps it"),
        pytest.param("ReplicaSet", "ReplicaSet", "2026-01-01T00:00:00Z", id="the deployment controller's ReplicaSet"),
    ],
)
def test_simulate_objects_show_when_each_object_was_created(kind, name, timestamp):
    assert created()[(kind, name)] == timestamp


def test_pods_a_controller_creates_later_carry_that_time():
    out = simulate([NODE, DEPLOYMENT, SCALE_LATER], until=180, objects=True, explain="none")
    assert sorted(o["metadata"]["creationTimestamp"] for o in out["objects"] if o["kind"] == "Pod") == [
        "2026-01-01T00:00:00Z", "2026-01-01T00:02:00Z"]


def test_the_callers_documents_are_left_as_given():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}}
    simulate([node], objects=True, explain="none")
    assert node == {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}}


@pytest.mark.parametrize("doc", [
    pytest.param({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, id="a namespace"),
    pytest.param({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node2", "creationTimestamp": None}}, id="a node"),
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}, id="a pod"),
])
def test_oc_create_stamps_every_kind_it_creates(doc):
    result = oc.run(Store([NODE]), "oc create -f x.yaml", 300, files={"x.yaml": [doc]})
    assert result.exit_code == 0, result.stderr
    [action] = result.actions
    assert action.doc["metadata"]["creationTimestamp"] == 300
