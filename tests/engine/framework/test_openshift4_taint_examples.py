"""The taints and tolerations examples of the OpenShift 4 documentation, played on an
OpenShift 4.18 cluster (the framework scheduler, today's messages)."""

from __future__ import annotations

from pathlib import Path

from scheduling.engine.simulate import EXTRA_KINDS, simulate
from scheduling.store.kube import load_documents
from tests.engine.framework.test_simulate_framework import CV_418, by_pod, node, pod


def timeline(*steps) -> dict:
    return {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "doc"}, "steps": list(steps)}


TOLERATIONS = [
    {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoSchedule"},
    {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute"},
]
TAINTS = [{"key": "key1", "value": "value1", "effect": "NoSchedule"},
          {"key": "key1", "value": "value1", "effect": "NoExecute"},
          {"key": "key2", "value": "value2", "effect": "NoSchedule"}]


def test_multiple_taints_the_pod_cannot_be_scheduled_on_node1():
    out = simulate([CV_418, node("node1", taints=TAINTS), pod("p", tolerations=TOLERATIONS)])
    p = by_pod(out)["default/p"]
    assert p["node"] is None
    assert p["filters"]["node1"] == {"fits": False, "reasons": ["node(s) had untolerated taint(s)"],
                                     "plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable"}
    assert p["message"] == ("0/1 nodes are available: 1 node(s) had untolerated taint(s). "
                            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def test_multiple_taints_a_running_pod_keeps_running_when_the_taints_are_added():
    steps = [{"at": 10, "run": "oc adm taint nodes node1 key1=value1:NoSchedule"},
             {"at": 10, "run": "oc adm taint nodes node1 key1=value1:NoExecute"},
             {"at": 10, "run": "oc adm taint nodes node1 key2=value2:NoSchedule"}]
    out = simulate([CV_418, node("node1"), pod("p", tolerations=TOLERATIONS), timeline(*steps)], until=600)
    p = by_pod(out)["default/p"]
    assert (p["node"], p["phase"]) == ("node1", "Running")


def test_toleration_seconds_keeps_the_pod_bound_for_that_long():
    toleration = [{"key": "key1", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 3600}]
    out = simulate([CV_418, node("node1"), node("node2", taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
                    pod("p", tolerations=toleration),
                    timeline({"at": 0, "run": "oc adm taint nodes node1 key1=value1:NoExecute"})], until=4000)
    evictions = [e for e in out["events"] if e["reason"] == "TaintManagerEviction" and e["object"] == "Pod/default/p"]
    assert evictions and evictions[0]["time"] == 3600.0


def test_tolerating_every_taint_with_exists_and_no_key():
    out = simulate([CV_418, node("node1", taints=TAINTS), pod("p", tolerations=[{"operator": "Exists"}])])
    assert by_pod(out)["default/p"]["node"] == "node1"


def test_a_prefer_no_schedule_taint_is_avoided_when_another_node_fits():
    out = simulate([CV_418, node("ssd", taints=[{"key": "disktype", "value": "ssd", "effect": "PreferNoSchedule"}]),
                    node("plain"), pod("p")])
    p = by_pod(out)["default/p"]
    assert p["node"] == "plain"
    assert p["scores"]["plain"]["TaintToleration"] == 100 and p["scores"]["ssd"]["TaintToleration"] == 0


def test_removing_a_taint_lets_the_pending_pod_in():
    out = simulate([CV_418, node("node1", taints=[{"key": "key1", "value": "value1", "effect": "NoSchedule"}]), pod("p"),
                    timeline({"at": 30, "run": "oc adm taint nodes node1 key1-"})], until=60)
    assert by_pod(out)["default/p"]["node"] == "node1"


def test_the_multiple_taints_example_on_the_openshift4_demo():
    """On the shipped OpenShift 4 demo: taint one worker as the documentation does; a pod
    tolerating the first two taints runs elsewhere, and the explanation names the plugin."""
    demo = Path(__file__).resolve().parents[3] / "scheduling" / "demo" / "openshift4-cluster.yaml"
    docs = load_documents(demo.read_text(), extra_kinds=EXTRA_KINDS)
    worker = "ip-10-0-24-17.ec2.internal"
    steps = [{"at": 0, "run": f"oc adm taint nodes {worker} key1=value1:NoSchedule"},
             {"at": 0, "run": f"oc adm taint nodes {worker} key1=value1:NoExecute"},
             {"at": 0, "run": f"oc adm taint nodes {worker} key2=value2:NoSchedule"},
             {"at": 10, "apply": pod("doc-pod", tolerations=TOLERATIONS, nodeSelector={"kubernetes.io/hostname": "ip-10-0-24-17"})}]
    out = simulate([*docs, timeline(*steps)], until=20)
    p = by_pod(out)["default/doc-pod"]
    assert p["node"] is None
    assert p["filters"][worker]["plugin"] == "TaintToleration"
    assert "node(s) had untolerated taint(s)" in p["message"]
