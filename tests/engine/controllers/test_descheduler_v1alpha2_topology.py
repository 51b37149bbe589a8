"""RemovePodsViolatingTopologySpreadConstraint, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/removepodsviolatingtopologyspreadconstraint/topologyspreadconstraint_test.go
TestTopologySpreadConstraint: all 38 cases, in order, with upstream's
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


# --- cases 20 to 38 of TestTopologySpreadConstraint ----------------------------------------------------------------

HOST_ZONE = [node(f"n{i}", **{"topology.kubernetes.io/zone": z, "kubernetes.io/hostname": f"n{i}"})
             for i, z in zip(range(1, 7), ["zoneA"] * 3 + ["zoneB"] * 3)]
WHOAMI = {"app": "whoami"}
WHOAMI_TSC = [{"labelSelector": {"matchLabels": WHOAMI}, "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
               "whenUnsatisfiable": "ScheduleAnyway"},
              {"labelSelector": {"matchLabels": WHOAMI}, "maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
               "whenUnsatisfiable": "DoNotSchedule"}]
ABC = [node("n1", zone="zoneA"), node("n2", zone="zoneB"), node("n3", zone="zoneC")]
TAINT_TEST = {"key": "taint-test", "value": "test", "effect": "NoSchedule"}


def ab_tainted(effect="NoSchedule"):
    n2 = node("n2", zone="zoneB")
    n2["spec"]["taints"] = [{**TAINT_TEST, "effect": effect}]
    return [node("n1", zone="zoneA"), n2]


def label_filter(values, op="In"):
    return {"labelSelector": {"matchExpressions": [{"key": "foo", "operator": op, "values": values}]}}


HASH = "pod-template-hash"
HASH_TSC = tsc(matchLabelKeys=[HASH])
SMALL_A = [build_test_node("n1", 250, 2000, 9, lambda n: n["metadata"]["labels"].update(zone="zoneA")),
           build_test_node("n2", 1000, 2000, 9, lambda n: n["metadata"]["labels"].update(zone="zoneB")),
           build_test_node("n3", 1000, 2000, 9, lambda n: n["metadata"]["labels"].update(zone="zoneC"))]


def zoned(name, millicpu, zone):
    return build_test_node(name, millicpu, 2000, 9, lambda n: n["metadata"]["labels"].update(zone=zone))


MORE = [
    ("Multiple constraints (6 nodes/2 zones, 4 pods)", HOST_ZONE,
     [group(1, f"n{i}", labels=WHOAMI, constraints=WHOAMI_TSC) for i in range(1, 5)],
     {"constraints": ["DoNotSchedule", "ScheduleAnyway"]}, False, 1, None),
    ("3 domains size [8 7 0], maxSkew=1, should move 5 to get [5 5 5]", ABC,
     [group(8, "n1", constraints=tsc()), group(7, "n2", constraints=tsc())], {}, False, 5, ["pod-5", "pod-6", "pod-7", "pod-8", "pod-9"]),
    ("3 domains size [5 5 5], maxSkew=1, should move 0 to retain [5 5 5]", ABC,
     [group(5, "n1", constraints=tsc()), group(5, "n2", constraints=tsc()), group(5, "n3", constraints=tsc())], {}, False, 0, None),
    ("2 domains, sizes [2,0], maxSkew=1, move 1 pod since pod tolerates the node with taint", ab_tainted(),
     [group(1, "n1", constraints=tsc(), tolerations=[{**TAINT_TEST, "operator": "Equal"}]), group(1, "n1", node_selector={"zone": "zoneA"})],
     {}, False, 1, ["pod-0"]),
    ("2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node", ab_tainted(),
     [group(1, "n1", constraints=tsc()), group(1, "n1", node_selector={"zone": "zoneA"})], {}, False, 0, None),
    ("2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node, and NodeFit is enabled", ab_tainted(),
     [group(1, "n1", constraints=tsc()), group(1, "n1", node_selector={"zone": "zoneA"})], {}, True, 0, None),
    ("2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with PreferNoSchedule Taint", ab_tainted("PreferNoSchedule"),
     [group(1, "n1", constraints=tsc()), group(1, "n1", node_selector={"zone": "zoneA"})], {}, False, 1, ["pod-0"]),
    ("2 domains, sizes [2,0], maxSkew=1, move 0 pod for node with unmatched label filtering", AB,
     [group(1, "n1", constraints=tsc()), group(1, "n1")], label_filter(["baz"]), False, 0, None),
    ("2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering", AB,
     [group(1, "n1", constraints=tsc()), group(1, "n1")], label_filter(["bar"]), False, 1, ["pod-1"]),
    ("2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering (NotIn op)", AB,
     [group(1, "n1", constraints=tsc()), group(1, "n1")], label_filter(["baz"], "NotIn"), False, 1, ["pod-1"]),
    ("2 domains, sizes [2,0], maxSkew=1, move 1 pods given matchLabelKeys on same replicaset", AB,
     [group(1, "n1", labels={**FOO, HASH: "foo"}, constraints=HASH_TSC), group(1, "n1", labels={**FOO, HASH: "foo"}, constraints=HASH_TSC)],
     label_filter(["baz"], "NotIn"), False, 1, ["pod-1"]),
    ("2 domains, sizes [2,0], maxSkew=1, move 0 pods given matchLabelKeys on two different replicasets", AB,
     [group(1, "n1", labels={**FOO, HASH: "foo"}, constraints=HASH_TSC), group(1, "n1", labels={**FOO, HASH: "bar"}, constraints=HASH_TSC)],
     label_filter(["baz"], "NotIn"), False, 0, None),
    ("2 domains, sizes [4,2], maxSkew=1, 2 pods in termination; nothing should be moved", AB,
     [group(2, "n1", constraints=tsc()), group(2, "n1", constraints=tsc(), deletion=0), group(2, "n2", constraints=tsc())],
     label_filter(["bar"]), False, 0, None),
    ("3 domains, sizes [2,3,4], maxSkew=1, NodeFit is enabled, and not enough cpu on zoneA; nothing should be moved", SMALL_A,
     [group(2, "n1", constraints=tsc()), group(3, "n2", constraints=tsc()), group(4, "n3", constraints=tsc())], {}, True, 0, None),
    ("3 domains, sizes [2,3,4], maxSkew=1, args.NodeFit is false, and not enough cpu on zoneA; 1 should be moved to force scale-up", SMALL_A,
     [group(2, "n1", constraints=tsc()), group(3, "n2", constraints=tsc()), group(4, "n3", constraints=tsc())],
     {"topologyBalanceNodeFit": False}, True, 1, None),
    ("3 domains, sizes [[1,0], [1,1], [2,1]], maxSkew=1, NodeFit is enabled, and not enough cpu on ZoneA; nothing should be moved",
     [zoned("A1", 150, "zoneA"), zoned("B1", 1000, "zoneB"), zoned("C1", 1000, "zoneC"), zoned("A2", 50, "zoneA"), zoned("B2", 1000, "zoneB"),
      zoned("C2", 1000, "zoneC")],
     [group(1, "A1", constraints=tsc()), group(1, "B1", constraints=tsc()), group(1, "B2", constraints=tsc()), group(2, "C1", constraints=tsc()),
      group(1, "C2", constraints=tsc())], {}, True, 0, None),
    ("2 domains, sizes [[1,4], [2,1]], maxSkew=1, NodeFit is enabled; should move 1",
     [zoned("A1", 1000, "zoneA"), zoned("A2", 1000, "zoneA"), zoned("B1", 1000, "zoneB"), zoned("B2", 1000, "zoneB")],
     [group(1, "A1", constraints=tsc()), group(4, "A2", constraints=tsc()), group(2, "B1", constraints=tsc()), group(1, "B2", constraints=tsc())],
     {}, True, 1, ["pod-4"]),
]


def tainted_node(name, labels, taints):
    doc = node(name, **labels)
    doc["spec"]["taints"] = taints
    return doc


SERVICE = {"app.kubernetes.io/name": "service"}
SERVICE_TSC = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": SERVICE}}]
APP_SERVICE = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "app_service", "operator": "Exists"}]}]}}}
ARCH = "kubernetes.io/arch"
IGNORE_AFFINITY = tsc(nodeAffinityPolicy="Ignore")
MORE += [
    ("2 domains, sizes [3, 1], maxSkew=1, Tainted nodes; nothing should be moved",
     [tainted_node("controlplane1", {"zone": "zoneA", "kubernetes.io/hostname": "cp-1"},
                   [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/controlplane", "value": "true"},
                    {"effect": "NoSchedule", "key": "node-role.kubernetes.io/etcd", "value": "true"}]),
      tainted_node("infraservices1", {"zone": "zoneA", "infra_service": "true", "kubernetes.io/hostname": "infra-1"},
                   [{"effect": "NoSchedule", "key": "infra_service"}]),
      node("app1", zone="zoneA", app_service="true", **{"kubernetes.io/hostname": "app-1"}),
      node("app2", zone="zoneB", app_service="true", **{"kubernetes.io/hostname": "app-2"})],
     [group(2, "app1", labels=SERVICE, constraints=SERVICE_TSC, affinity=APP_SERVICE),
      group(2, "app2", labels=SERVICE, constraints=SERVICE_TSC, affinity=APP_SERVICE)], {}, True, 0, None),
    ("3 domains, sizes [2, 1, 0] with selectors, maxSkew=1, nodeTaintsPolicy=Ignore, should move 1 for [1, 1, 1]",
     [build_test_node(n, 1000, 2000, 9, lambda d, z=z: d["metadata"]["labels"].update({"zone": z, ARCH: "arm64"}))
      for n, z in (("A1", "zoneA"), ("B1", "zoneB"), ("C1", "zoneC"))],
     [group(1, "A1", constraints=IGNORE_AFFINITY, node_selector={ARCH: "arm64"}),
      group(1, "A1", constraints=IGNORE_AFFINITY, node_selector={"zone": "zoneA", ARCH: "arm64"}),
      group(1, "B1", constraints=IGNORE_AFFINITY, node_selector={ARCH: "arm64"})], {}, False, 1, ["pod-0"]),
]


@pytest.mark.parametrize("name,nodes,groups,args,node_fit,expected,names", MORE, ids=[c[0][:80] for c in MORE])
def test_topology_spread_constraint_more(name, nodes, groups, args, node_fit, expected, names):
    evicted = run_plugin("RemovePodsViolatingTopologySpreadConstraint", nodes, create_test_pods(groups),
                         {"constraints": ["DoNotSchedule"], "topologyBalanceNodeFit": True, **args}, evictor={"nodeFit": node_fit})
    assert len(evicted) == expected
    if names is not None:
        assert sorted(evicted) == sorted(names)
