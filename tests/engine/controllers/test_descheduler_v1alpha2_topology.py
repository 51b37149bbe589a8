"""RemovePodsViolatingTopologySpreadConstraint, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/removepodsviolatingtopologyspreadconstraint/topologyspreadconstraint_test.go
TestTopologySpreadConstraint: its first 19 cases (of 38), in order, with upstream's
createTestPods (pods pod-0, pod-1, ... in namespace ns1, 100m cpu, a ReplicaSet owner)."""

from __future__ import annotations

import pytest

from .descheduler_v1alpha2_builders import build_test_node, build_test_pod, run_plugin

FOO = {"foo": "bar"}


def tsc(max_skew=1, key="zone", when="DoNotSchedule", **extra):
    return [{"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when, "labelSelector": {"matchLabels": FOO}, **extra}]


def group(count, node, labels=FOO, constraints=None, node_selector=None, affinity=None, no_owners=False, tolerations=None,
          deletion=None):
    return dict(count=count, node=node, labels=labels, constraints=constraints, node_selector=node_selector,
                affinity=affinity, no_owners=no_owners, tolerations=tolerations, deletion=deletion)


def create_test_pods(groups) -> list[dict]:
    """createTestPods."""
    pods, n = [], 0
    for g in groups:
        for _ in range(g["count"]):
            def apply(p, g=g):
                p["metadata"]["labels"] = dict(g["labels"] or {})
                p["metadata"]["namespace"] = "ns1"
                if not g["no_owners"]:
                    p["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "apiVersion": "v1", "name": "replicaset-1"}]
                if g["constraints"]:
                    p["spec"]["topologySpreadConstraints"] = g["constraints"]
                if g["node_selector"] is not None:
                    p["spec"]["nodeSelector"] = g["node_selector"]
                if g["affinity"] is not None:
                    p["spec"]["affinity"] = g["affinity"]
                if g["tolerations"] is not None:
                    p["spec"]["tolerations"] = g["tolerations"]
                if g["deletion"] is not None:
                    p["metadata"]["deletionTimestamp"] = g["deletion"]
            pods.append(build_test_pod(f"pod-{n}", 100, 0, g["node"], apply))
            n += 1
    return pods


def node(name, millicpu=2000, **labels):
    def apply(n):
        n["metadata"]["labels"].update(labels)
    return build_test_node(name, millicpu, 3000, 10, apply)


def tainted(name, **labels):
    doc = node(name, **labels)
    doc["spec"]["taints"] = [{"key": "hardware", "value": "gpu", "effect": "NoSchedule"}]
    return doc


AB = [node("n1", zone="zoneA"), node("n2", zone="zoneB")]
LIN_WIN = [node("n1", node="linNodeA", os="linux"), node("n2", node="linNodeB", os="linux"), node("n3", node="linNodeC", os="linux"),
           node("n4", node="winNodeA", os="windows"), node("n5", node="winNodeB", os="windows"), node("n6", node="winNodeC", os="windows")]
WIN = {"os": "windows"}
NODE_TSC = tsc(key="node")

CASES = [
    ("2 domains, sizes [2,1], maxSkew=1, move 0 pods", AB,
     [group(1, "n1", constraints=tsc()), group(1, "n1"), group(1, "n2")], {}, False, 0),
    ("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2]", AB,
     [group(1, "n1", constraints=tsc()), group(2, "n1"), group(1, "n2")], {}, False, 1),
    ("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (both constraints)", AB,
     [group(1, "n1", constraints=tsc(when="ScheduleAnyway")), group(2, "n1"), group(1, "n2")],
     {"constraints": ["DoNotSchedule", "ScheduleAnyway"]}, False, 1),
    ("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (soft constraints)", AB,
     [group(1, "n1", constraints=tsc(when="ScheduleAnyway")), group(2, "n1"), group(1, "n2")],
     {"constraints": ["DoNotSchedule", "ScheduleAnyway"]}, False, 1),
    ("2 domains, sizes [3,1], maxSkew=1, no pods eligible, move 0 pods", AB,
     [group(1, "n1", constraints=tsc(), no_owners=True), group(2, "n1", no_owners=True), group(1, "n2", no_owners=True)], {}, False, 0),
    ("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2], exclude kube-system namespace", AB,
     [group(1, "n1", constraints=tsc()), group(2, "n1"), group(1, "n2")], {"namespaces": {"exclude": ["kube-system"]}}, True, 1),
    ("2 domains, sizes [5,2], maxSkew=1, move 1 pod to achieve [4,3]", AB,
     [group(1, "n1", constraints=tsc()), group(4, "n1"), group(2, "n2")], {}, False, 1),
    ("2 domains, sizes [4,0], maxSkew=1, move 2 pods to achieve [2,2]", AB,
     [group(1, "n1", constraints=tsc()), group(3, "n1")], {}, False, 2),
    ("2 domains, sizes [4,0], maxSkew=1, only move 1 pod since pods with nodeSelector and nodeAffinity aren't evicted", AB,
     [group(1, "n1", constraints=tsc(), node_selector={"zone": "zoneA"}), group(1, "n1", constraints=tsc(), node_selector={"zone": "zoneA"}),
      group(1, "n1", constraints=tsc(), affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "foo", "values": ["bar"], "operator": "In"}]}]}}}),
      group(1, "n1", constraints=tsc())], {}, True, 1),
    ("6 domains, sizes [0,0,0,3,3,2], maxSkew=1, No pod is evicted since topology is balanced", LIN_WIN,
     [group(3, "n4", constraints=NODE_TSC, node_selector=WIN), group(3, "n5", constraints=NODE_TSC, node_selector=WIN),
      group(2, "n6", constraints=NODE_TSC, node_selector=WIN)], {}, False, 0),
    ("7 domains, sizes [0,0,0,3,3,2], maxSkew=1, two pods are evicted and moved to new node added",
     LIN_WIN + [node("n7", node="winNodeD", os="windows")],
     [group(3, "n4", constraints=NODE_TSC, node_selector=WIN), group(3, "n5", constraints=NODE_TSC, node_selector=WIN),
      group(2, "n6", constraints=NODE_TSC, node_selector=WIN)], {}, False, 2),
    ("6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 1 pod is evicted from node 4", LIN_WIN,
     [group(4, "n4", constraints=NODE_TSC, node_selector=WIN), group(3, "n5", constraints=NODE_TSC, node_selector=WIN),
      group(1, "n6", constraints=NODE_TSC, node_selector=WIN)], {}, False, 1),
    ("6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 0 pod is evicted as pods of node:winNodeA can only be scheduled on this node and nodeFit is true",
     LIN_WIN,
     [group(4, "n4", constraints=NODE_TSC, node_selector={"node": "winNodeA"}), group(3, "n5", constraints=NODE_TSC, node_selector=WIN),
      group(1, "n6", constraints=NODE_TSC, node_selector=WIN)], {}, True, 0),
    ("2 domains, sizes [4,0], maxSkew=1, move 2 pods since selector matches multiple nodes",
     [node("n1", zone="zoneA", region="boston"), node("n2", zone="zoneB", region="boston")],
     [group(1, "n1", constraints=tsc(), node_selector={"region": "boston"}), group(1, "n1", node_selector={"region": "boston"}),
      group(1, "n1", node_selector={"region": "boston"}), group(1, "n1", node_selector={"region": "boston"})], {}, False, 2),
    ("3 domains, sizes [0, 1, 100], maxSkew=1, move 66 pods to get [34, 33, 34]",
     [node("n1", zone="zoneA"), node("n2", zone="zoneB"), node("n3", zone="zoneC")],
     [group(1, "n2", constraints=tsc()), group(100, "n3")], {}, False, 66),
    ("4 domains, sizes [0, 1, 3, 5], should move 3 to get [2, 2, 3, 2]",
     [node("n1", zone="zoneA"), node("n2", zone="zoneB"), node("n3", zone="zoneC"), node("n4", zone="zoneD")],
     [group(1, "n2", constraints=tsc()), group(3, "n3"), group(5, "n4")], {}, False, 3),
    ("2 domains size [2 6], maxSkew=2, should move 1 to get [3 5]", AB,
     [group(1, "n1", constraints=tsc(max_skew=2)), group(1, "n1"), group(6, "n2")], {}, False, 1),
    ("2 domains size [2 6], maxSkew=2, can't move any because of node taints", [tainted("n1", zone="zoneA"), node("n2", zone="zoneB")],
     [group(1, "n1", constraints=tsc(max_skew=2)), group(1, "n1"), group(6, "n2")], {}, True, 0),
    ("2 domains size [2 6], maxSkew=2, can't move any because node1 does not have enough CPU",
     [node("n1", 200, zone="zoneA"), node("n2", zone="zoneB")],
     [group(1, "n1", constraints=tsc(max_skew=2)), group(1, "n1"), group(6, "n2")], {}, True, 0),
]


@pytest.mark.parametrize("name,nodes,groups,args,node_fit,expected", CASES, ids=[c[0][:80] for c in CASES])
def test_topology_spread_constraint(name, nodes, groups, args, node_fit, expected):
    evicted = run_plugin("RemovePodsViolatingTopologySpreadConstraint", nodes, create_test_pods(groups),
                         {"constraints": ["DoNotSchedule"], "topologyBalanceNodeFit": True, **args}, evictor={"nodeFit": node_fit})
    assert len(evicted) == expected
