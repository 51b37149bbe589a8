"""TaintToleration, translated from upstream's taint_toleration_test.go (v1.35):
TestTaintTolerationScore, TestTaintTolerationFilter and TestTaintTolerationFilterWithFeatureGate
(the cases with the alpha comparison operators enabled are left out: the gate is off)."""

import pytest

from scheduling.engine.framework.interface import CycleState, OK, UNRESOLVABLE, Status
from scheduling.engine.framework.plugins.taint_toleration import TaintToleration
from tests.engine.framework.plugin_builders import handle, info, node, pod, scores


def taint(key, value, effect):
    return {"key": key, "value": value, "effect": effect}


def tol(key, value="", effect="", operator=""):
    return {k: v for k, v in (("key", key), ("value", value), ("effect", effect), ("operator", operator)) if v}


PNS, NS = "PreferNoSchedule", "NoSchedule"

SCORE_CASES = [
    ("node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
     [tol("foo", "bar", PNS, "Equal")],
     {"nodeA": [taint("foo", "bar", PNS)], "nodeB": [taint("foo", "blah", PNS)]},
     {"nodeA": 100, "nodeB": 0}),
    ("the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
     [tol("cpu-type", "arm64", PNS, "Equal"), tol("disk-type", "ssd", PNS, "Equal")],
     {"nodeA": [], "nodeB": [taint("cpu-type", "arm64", PNS)],
      "nodeC": [taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS)]},
     {"nodeA": 100, "nodeB": 100, "nodeC": 100}),
    ("the more intolerable taints a node has, the lower score it gets.",
     [tol("foo", "bar", PNS, "Equal")],
     {"nodeA": [], "nodeB": [taint("cpu-type", "arm64", PNS)],
      "nodeC": [taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS)]},
     {"nodeA": 100, "nodeB": 50, "nodeC": 0}),
    ("only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
     [tol("cpu-type", "arm64", NS, "Equal"), tol("disk-type", "ssd", NS, "Equal")],
     {"nodeA": [], "nodeB": [taint("cpu-type", "arm64", NS)],
      "nodeC": [taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS)]},
     {"nodeA": 100, "nodeB": 100, "nodeC": 0}),
    ("Default behaviour No taints and tolerations, lands on node with no taints",
     [],
     {"nodeA": [], "nodeB": [taint("cpu-type", "arm64", PNS)]},
     {"nodeA": 100, "nodeB": 0}),
]


@pytest.mark.parametrize("name,tolerations,taints,expected", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_score(name, tolerations, taints, expected):
    infos = [info(node(n, taints=t)) for n, t in taints.items()]
    plugin = TaintToleration({}, handle(infos))
    assert scores(plugin, pod("pod1", tolerations=tolerations), infos) == expected


UNTOLERATED = Status(UNRESOLVABLE, ("node(s) had untolerated taint(s)",))

FILTER_CASES = [
    ("A pod having no tolerations can't be scheduled onto a node with nonempty taints",
     [], [taint("dedicated", "user1", NS)], UNTOLERATED),
    ("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     [tol("dedicated", "user1", NS)], [taint("dedicated", "user1", NS)], OK),
    ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
     [tol("dedicated", "user2", NS, "Equal")], [taint("dedicated", "user1", NS)], UNTOLERATED),
    ("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
     [tol("foo", "", NS, "Exists")], [taint("foo", "bar", NS)], OK),
    ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
     [tol("dedicated", "user2", NS, "Equal"), tol("foo", "", NS, "Exists")],
     [taint("dedicated", "user2", NS), taint("foo", "bar", NS)], OK),
    ("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, "
     "can't be scheduled onto the node",
     [tol("foo", "bar", PNS, "Equal")], [taint("foo", "bar", NS)], UNTOLERATED),
    ("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, "
     "and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
     [tol("foo", "bar", "", "Equal")], [taint("foo", "bar", NS)], OK),
    ("The pod has a toleration that key and value don't match the taint on the node, "
     "but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [tol("dedicated", "user2", NS, "Equal")], [taint("dedicated", "user1", PNS)], OK),
    ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [], [taint("dedicated", "user1", PNS)], OK),
    # TestTaintTolerationFilterWithFeatureGate, gate disabled (the default)
    ("Pod with Gt toleration cannot be scheduled when feature gate is disabled",
     [tol("node.kubernetes.io/sla", "750", NS, "Gt")], [taint("node.kubernetes.io/sla", "950", NS)], UNTOLERATED),
    ("Pod with Lt toleration cannot be scheduled when feature gate is disabled",
     [tol("node.kubernetes.io/sla", "950", NS, "Lt")], [taint("node.kubernetes.io/sla", "800", NS)], UNTOLERATED),
    ("Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored",
     [tol("dedicated", "user1", NS, "Equal"), tol("node.kubernetes.io/sla", "750", NS, "Gt")],
     [taint("dedicated", "user1", NS)], OK),
    ("Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled",
     [tol("dedicated", "user1", NS, "Equal"), tol("node.kubernetes.io/sla", "750", NS, "Gt")],
     [taint("dedicated", "user1", NS), taint("node.kubernetes.io/sla", "950", NS)], UNTOLERATED),
]


@pytest.mark.parametrize("name,tolerations,taints,want", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_filter(name, tolerations, taints, want):
    plugin = TaintToleration({}, handle())
    got = plugin.filter(CycleState(), pod("pod1", tolerations=tolerations), info(node("nodeA", taints=taints)))
    assert (got.code, got.reasons) == (want.code, want.reasons)


def test_events():
    assert TaintToleration.events == {"Node/Add", "Node/UpdateNodeTaint", "Pod/UpdatePodToleration"}
