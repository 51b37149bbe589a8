"""LowNodeUtilization, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/nodeutilization/lownodeutilization_test.go: TestLowNodeUtilization's
cases on requested resources (15 of its 18; the three on extended resources are left out:
the simulator's nodes have no extended resources; the "with metrics enabled" variants need a
metrics server) and TestLowNodeUtilizationWithTaints (all 4); HighNodeUtilization from highnodeutilization_test.go (11 + 3 cases, below)."""

from __future__ import annotations

import pytest

from .descheduler_v1alpha2_builders import (
    SYSTEM_CRITICAL_PRIORITY,
    build_test_node,
    build_test_pod,
    chain,
    run_plugin,
    set_ds_owner_ref,
    set_host_path_empty_dir_volume_source,
    set_mirror_pod_annotation,
    set_normal_owner_ref,
    set_pod_priority,
    set_rs_owner_ref,
)

LOW_PRIORITY, HIGH_PRIORITY = 100, 10000


def unschedulable(n):
    n["spec"]["unschedulable"] = True


def east(n):
    n["metadata"]["labels"] = {"datacenter": "east"}


def ns(value):
    def apply(pod):
        pod["metadata"]["namespace"] = value
    return apply


def prio(value):
    return lambda pod: set_pod_priority(pod, value)


def best_effort(pod):
    pod["spec"]["containers"][0]["resources"] = {}


def west_selector(pod):
    pod["spec"]["nodeSelector"] = {"datacenter": "west"}


def west_affinity(pod):
    pod["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "datacenter", "operator": "In", "values": ["west"]}]}]}}}


LOCAL_MIRROR = chain(set_normal_owner_ref, set_host_path_empty_dir_volume_source, set_mirror_pod_annotation)
CRITICAL = chain(ns("kube-system"), prio(SYSTEM_CRITICAL_PRIORITY))
CRITICAL_OWNED = chain(set_normal_owner_ref, ns("kube-system"), prio(SYSTEM_CRITICAL_PRIORITY))


def nodes3(n1_pods=9):
    return [build_test_node("n1", 4000, 3000, n1_pods), build_test_node("n2", 4000, 3000, 10),
            build_test_node("n3", 4000, 3000, 10, unschedulable)]


def pod(name, node="n1", apply=None, cpu=400, mem=0):
    return build_test_pod(name, cpu, mem, node, apply)


def rs_pods(names, **kw):
    return [pod(n, apply=set_rs_owner_ref, **kw) for n in names]


def tail(critical=CRITICAL, p9=True, mem=0):
    out = [pod("p6", apply=set_ds_owner_ref, mem=mem), pod("p7", apply=LOCAL_MIRROR, mem=mem), pod("p8", apply=critical, mem=mem)]
    if p9:
        out.append(pod("p9", "n2", set_rs_owner_ref, mem=3000 if mem else 0))
    return out


CPU_PODS = ({"cpu": 30, "pods": 30}, {"cpu": 50, "pods": 50})
DEVIATION = ({"cpu": 5, "pods": 5}, {"cpu": 5, "pods": 5})
N2_EAST = [build_test_node("n1", 4000, 3000, 9), build_test_node("n2", 4000, 3000, 10, east)]

CASES = [
    ("no evictable pods", CPU_PODS, nodes3(),
     [pod(f"p{i}", apply=set_ds_owner_ref) for i in range(1, 5)] + [pod("p5", apply=LOCAL_MIRROR), pod("p6", apply=CRITICAL),
                                                                    pod("p9", "n2", set_rs_owner_ref)], {}, 0),
    ("without priorities", CPU_PODS, nodes3(), rs_pods(["p1", "p2", "p3", "p4", "p5"]) + tail(), {}, 4),
    ("without priorities, but excluding namespaces", CPU_PODS, nodes3(),
     [pod(f"p{i}", apply=chain(set_normal_owner_ref, ns("namespace1"))) for i in range(1, 6)] + tail(),
     {"evictableNamespaces": {"exclude": ["namespace1"]}}, 0),
    ("without priorities, but include only default namespace", CPU_PODS, nodes3(),
     rs_pods(["p1", "p2"]) + [pod("p3", apply=ns("namespace3")), pod("p4", apply=ns("namespace4")), pod("p5", apply=ns("namespace5"))]
     + tail(CRITICAL_OWNED), {"evictableNamespaces": {"include": ["default"]}}, 2),
    ("without priorities stop when cpu capacity is depleted", CPU_PODS, nodes3(), rs_pods(["p1", "p2", "p3", "p4", "p5"]) + tail(CRITICAL_OWNED), {}, 4),
    ("with priorities", CPU_PODS, nodes3(),
     [pod(f"p{i}", apply=chain(set_rs_owner_ref, prio(HIGH_PRIORITY))) for i in range(1, 5)]
     + [pod("p5", apply=chain(set_rs_owner_ref, prio(LOW_PRIORITY))), pod("p6", apply=chain(set_ds_owner_ref, prio(HIGH_PRIORITY))),
        pod("p7", apply=chain(LOCAL_MIRROR, prio(LOW_PRIORITY))), pod("p8", apply=CRITICAL_OWNED), pod("p9", "n2", set_rs_owner_ref)], {}, 4),
    ("without priorities evicting best-effort pods only", CPU_PODS, nodes3(),
     [pod(n, apply=chain(set_rs_owner_ref, best_effort)) for n in ("p1", "p2")] + rs_pods(["p3"])
     + [pod(n, apply=chain(set_rs_owner_ref, best_effort)) for n in ("p4", "p5")] + tail(CRITICAL_OWNED), {}, 4),
    ("without priorities, but only other node is unschedulable", CPU_PODS,
     [build_test_node("n1", 4000, 3000, 9), build_test_node("n2", 4000, 3000, 10, unschedulable)],
     rs_pods(["p1", "p2", "p3", "p4", "p5"]) + tail(CRITICAL_OWNED, p9=False), {}, 0),
    ("without priorities, but only other node doesn't match pod node selector for p4 and p5", CPU_PODS, N2_EAST,
     rs_pods(["p1", "p2", "p3"]) + [pod("p4", apply=chain(set_normal_owner_ref, west_selector)),
                                    pod("p5", apply=chain(set_normal_owner_ref, west_selector))] + tail(CRITICAL_OWNED, p9=False), {}, 3),
    ("without priorities, but only other node doesn't match pod node affinity for p4 and p5", CPU_PODS, N2_EAST,
     rs_pods(["p1", "p2", "p3"]) + [pod("p4", apply=chain(set_normal_owner_ref, west_affinity)),
                                    pod("p5", apply=chain(set_normal_owner_ref, west_affinity))]
     + tail(CRITICAL_OWNED, p9=False) + [pod("p9", "n2", set_rs_owner_ref, cpu=0)], {}, 3),
    ("deviation thresholds", DEVIATION, nodes3(), rs_pods(["p1", "p2", "p3", "p4", "p5"]) + tail(CRITICAL_OWNED),
     {"useDeviationThresholds": True}, 2),
    ("deviation thresholds and overevicting memory", DEVIATION,
     [build_test_node("n1", 4000, 3000, 10), build_test_node("n2", 4000, 3000, 10), build_test_node("n3", 4000, 3000, 10, unschedulable)],
     rs_pods(["p1", "p2", "p3", "p4", "p5"], mem=375) + tail(CRITICAL_OWNED, mem=375), {"useDeviationThresholds": True}, 0),
    ("without priorities different evictions for requested and actual resources", CPU_PODS, N2_EAST,
     rs_pods(["p1", "p2", "p3"]) + [pod("p4", apply=chain(set_normal_owner_ref, west_affinity)),
                                    pod("p5", apply=chain(set_normal_owner_ref, west_affinity))]
     + tail(CRITICAL_OWNED, p9=False) + [pod("p9", "n2", set_rs_owner_ref, cpu=0)], {}, 3),
    ("without priorities with node eviction limit", CPU_PODS, nodes3(), rs_pods(["p1", "p2", "p3", "p4", "p5"]) + tail(),
     {"evictionLimits": {"node": 2}}, 2),
]


@pytest.mark.parametrize("name,thresholds,nodes,pods,extra,expected", CASES, ids=[c[0][:70] for c in CASES])
def test_low_node_utilization(name, thresholds, nodes, pods, extra, expected):
    args = {"thresholds": thresholds[0], "targetThresholds": thresholds[1], **extra}
    assert len(run_plugin("LowNodeUtilization", nodes, pods, args, evictor={"nodeFit": True})) == expected


def test_best_effort_pods_are_the_ones_evicted():
    """"without priorities evicting best-effort pods only": evictedPods p1, p2, p4, p5."""
    t, tt = CPU_PODS
    pods = ([pod(n, apply=chain(set_rs_owner_ref, best_effort)) for n in ("p1", "p2")] + rs_pods(["p3"])
            + [pod(n, apply=chain(set_rs_owner_ref, best_effort)) for n in ("p4", "p5")] + tail(CRITICAL_OWNED))
    evicted = run_plugin("LowNodeUtilization", nodes3(), pods, {"thresholds": t, "targetThresholds": tt}, evictor={"nodeFit": True})
    assert sorted(evicted) == ["p1", "p2", "p4", "p5"]


N1 = build_test_node("n1", 2000, 3000, 10)
N2 = build_test_node("n2", 1000, 3000, 10)
N3 = build_test_node("n3", 1000, 3000, 10)
N3_TAINTED = build_test_node("n3", 1000, 3000, 10, lambda n: n["spec"].__setitem__(
    "taints", [{"key": "key", "value": "value", "effect": "NoSchedule"}]))


def tolerating(pod_):
    set_rs_owner_ref(pod_)
    pod_["spec"]["tolerations"] = [{"key": "key", "value": "value"}]


def n1_pods(count):
    return [build_test_pod(f"pod_{i}_n1", 200, 0, "n1", set_rs_owner_ref) for i in range(1, count + 1)]


TAINTS = [
    ("No taints", [N1, N2, N3], n1_pods(8) + [build_test_pod("pod_9_n2", 200, 0, "n2", set_rs_owner_ref)], None, 1),
    ("No pod tolerates node taint", [N1, N3_TAINTED], n1_pods(8) + [build_test_pod("pod_9_n3", 200, 0, "n3", set_rs_owner_ref)], None, 0),
    ("Pod which tolerates node taint", [N1, N3_TAINTED],
     n1_pods(7) + [build_test_pod("tolerate_pod", 200, 0, "n1", tolerating), build_test_pod("pod_9_n3", 200, 0, "n3", set_rs_owner_ref)], None, 1),
    ("Pod which tolerates node taint, set maxPodsToEvictTotal(0), should not be expelled", [N1, N3_TAINTED],
     n1_pods(7) + [build_test_pod("tolerate_pod", 200, 0, "n1", tolerating), build_test_pod("pod_9_n3", 200, 0, "n3", set_rs_owner_ref)], 0, 0),
]


@pytest.mark.parametrize("name,nodes,pods,total,expected", TAINTS, ids=[c[0] for c in TAINTS])
def test_low_node_utilization_with_taints(name, nodes, pods, total, expected):
    # upstream passes the expected count as the per-node limit
    evicted = run_plugin("LowNodeUtilization", nodes, pods, {"thresholds": {"pods": 20}, "targetThresholds": {"pods": 70}},
                         evictor={"nodeFit": True}, max_per_node=expected, max_total=total)
    assert len(evicted) == expected
    if name == "Pod which tolerates node taint":
        assert evicted == ["tolerate_pod"]


# --- HighNodeUtilization: highnodeutilization_test.go TestHighNodeUtilization (the 11 cases on requested resources;
# the three with extended resources are left out) and TestHighNodeUtilizationWithTaints (all 3) --------------------

WEST = {"datacenter": "west"}


def west_nodes(n):
    n["metadata"]["labels"] = dict(WEST)


def selector_west(p):
    p["spec"]["nodeSelector"] = dict(WEST)


def rs(name, node_, cpu=400, mem=0, apply=None):
    return build_test_pod(name, cpu, mem, node_, chain(set_rs_owner_ref, apply))


HIGH = [
    ("no node below threshold usage", {"cpu": 20, "pods": 20},
     [build_test_node(n, 4000, 3000, 10) for n in ("n1", "n2", "n3")],
     [rs(f"p{i}", n) for i, n in zip(range(1, 10), ["n1"] * 3 + ["n2"] * 3 + ["n3"] * 3)], 0, None),
    ("no evictable pods", {"cpu": 40, "pods": 40},
     [build_test_node("n1", 4000, 3000, 9), build_test_node("n2", 4000, 3000, 10), build_test_node("n3", 4000, 3000, 10)],
     [pod("p1", "n1", LOCAL_MIRROR), pod("p2", "n1", CRITICAL_OWNED), pod("p3", "n2", set_ds_owner_ref), pod("p4", "n2", set_ds_owner_ref)]
     + [rs(f"p{i}", "n3") for i in range(5, 9)], 0, None),
    ("no node to schedule evicted pods", {"cpu": 20, "pods": 20},
     [build_test_node("n1", 4000, 3000, 10), build_test_node("n2", 4000, 3000, 10), build_test_node("n3", 4000, 3000, 10, unschedulable)],
     [rs("p1", "n1"), rs("p2", "n2"), rs("p3", "n3"), rs("p4", "n3"), rs("p5", "n3")], 0, None),
    ("without priorities", {"cpu": 30, "pods": 30},
     [build_test_node("n1", 4000, 3000, 10), build_test_node("n2", 4000, 3000, 10), build_test_node("n3", 4000, 3000, 10, unschedulable)],
     [rs("p1", "n1"), pod("p2", "n1", CRITICAL_OWNED)] + [rs(f"p{i}", "n2") for i in range(3, 7)] + [rs("p7", "n3")], 2, ["p1", "p7"]),
    ("without priorities stop when resource capacity is depleted", {"cpu": 30, "pods": 30},
     [build_test_node("n1", 2000, 3000, 10), build_test_node("n2", 2000, 3000, 10), build_test_node("n3", 2000, 3000, 10, unschedulable)],
     [rs("p1", "n1")] + [rs(f"p{i}", "n2") for i in range(2, 6)] + [rs("p6", "n3")], 1, None),
    ("with priorities", {"cpu": 30},
     [build_test_node("n1", 4000, 3000, 10), build_test_node("n2", 2000, 3000, 10), build_test_node("n3", 2000, 3000, 10, unschedulable)],
     [rs("p1", "n1", apply=prio(LOW_PRIORITY)), rs("p2", "n1", apply=prio(HIGH_PRIORITY))] + [rs(f"p{i}", "n2") for i in range(5, 9)]
     + [pod("p9", "n3", set_ds_owner_ref)], 1, ["p1"]),
    ("without priorities evicting best-effort pods only", {"cpu": 30},
     [build_test_node("n1", 3000, 3000, 10), build_test_node("n2", 3000, 3000, 5), build_test_node("n3", 3000, 3000, 10, unschedulable)],
     [rs("p1", "n1", cpu=0, apply=best_effort), rs("p2", "n1")] + [rs(f"p{i}", "n2") for i in range(3, 7)], 1, ["p1"]),
    ("Other node match pod node selector", {"cpu": 30, "pods": 30},
     [build_test_node("n1", 4000, 3000, 9, west_nodes), build_test_node("n2", 4000, 3000, 10)],
     [rs("p1", "n1"), rs("p2", "n1"), rs("p3", "n1"), pod("p4", "n1", set_ds_owner_ref), rs("p5", "n2", apply=selector_west)], 1, None),
    ("Other node does not match pod node selector", {"cpu": 30, "pods": 30},
     [build_test_node("n1", 4000, 3000, 9), build_test_node("n2", 4000, 3000, 10)],
     [rs("p1", "n1"), rs("p2", "n1"), rs("p3", "n1"), pod("p4", "n1", set_ds_owner_ref), rs("p5", "n2", apply=selector_west)], 0, None),
    ("Other node does not have enough Memory", {"cpu": 30, "pods": 30},
     [build_test_node("n1", 4000, 200, 9), build_test_node("n2", 4000, 3000, 10)],
     [rs("p1", "n1", mem=50), rs("p2", "n1", mem=50), rs("p3", "n1", mem=50), pod("p4", "n1", set_ds_owner_ref, mem=50),
      rs("p5", "n2", mem=100)], 0, None),
    ("Other node does not have enough Memory (2)", {"cpu": 30, "pods": 30},
     [build_test_node("n1", 4000, 200, 9), build_test_node("n2", 4000, 3000, 10)],
     [rs("p1", "n1", mem=50), rs("p2", "n1", mem=50), rs("p3", "n1", mem=50), pod("p4", "n1", set_ds_owner_ref, mem=50),
      rs("p5", "n2", mem=100)], 0, None),
]


@pytest.mark.parametrize("name,thresholds,nodes,pods,expected,names", HIGH, ids=[c[0] for c in HIGH])
def test_high_node_utilization(name, thresholds, nodes, pods, expected, names):
    evicted = run_plugin("HighNodeUtilization", nodes, pods, {"thresholds": thresholds}, evictor={"nodeFit": True})
    assert len(evicted) == expected
    if names is not None:
        assert sorted(evicted) == sorted(names)


H1, H2, H3 = (build_test_node(n, 1000, 3000, 10) for n in ("n1", "n2", "n3"))
H3_TAINTED = build_test_node("n3", 1000, 3000, 10, lambda n: n["spec"].__setitem__(
    "taints", [{"key": "key", "value": "value", "effect": "NoSchedule"}]))
HIGH_TAINTS = [
    ("No taints", [H1, H2, H3], [rs(f"pod_{i}_n1", "n1", cpu=200) for i in (1, 2, 3)] + [rs("pod_4_n2", "n2", cpu=200)], 1),
    ("No pod tolerates node taint", [H1, H3_TAINTED], [rs("pod_1_n1", "n1", cpu=200), rs("pod_2_n3", "n3", cpu=200)], 0),
    ("Pod which tolerates node taint", [H1, H3_TAINTED],
     [rs("pod_1_n1", "n1", cpu=100), build_test_pod("tolerate_pod", 200, 0, "n1", tolerating), rs("pod_9_n3", "n3", cpu=500)], 1),
]


@pytest.mark.parametrize("name,nodes,pods,expected", HIGH_TAINTS, ids=[c[0] for c in HIGH_TAINTS])
def test_high_node_utilization_with_taints(name, nodes, pods, expected):
    # upstream passes the expected count as the per-node limit
    evicted = run_plugin("HighNodeUtilization", nodes, pods, {"thresholds": {"cpu": 40}}, max_per_node=expected)
    assert len(evicted) == expected


def test_only_thresholding_resources_eviction_mode():
    """HighNodeUtilizationArgs.evictionModes OnlyThresholdingResources: a pod that requests
    none of the thresholds' resources stays (withResourceRequestForAny)."""
    nodes = [build_test_node("n1", 4000, 3000, 10), build_test_node("n2", 4000, 3000, 10)]
    pods = [rs("p1", "n1", cpu=0, apply=best_effort), rs("p2", "n1", cpu=100)] + [rs(f"p{i}", "n2", cpu=1000) for i in range(3, 6)]
    args = {"thresholds": {"cpu": 30}}
    assert sorted(run_plugin("HighNodeUtilization", nodes, pods, args)) == ["p1", "p2"]
    assert run_plugin("HighNodeUtilization", nodes, pods, {**args, "evictionModes": ["OnlyThresholdingResources"]}) == ["p2"]
