"""RemovePodsViolatingInterPodAntiAffinity, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/removepodsviolatinginterpodantiaffinity/pod_antiaffinity_test.go
TestPodAntiAffinity (all 12 cases); RemovePodsViolatingNodeAffinity, from
removepodsviolatingnodeaffinity/node_affinity_test.go TestRemovePodsViolatingNodeAffinity (all 22 cases)."""

from __future__ import annotations

import pytest

from .descheduler_v1alpha2_builders import (
    SYSTEM_CRITICAL_PRIORITY,
    build_test_node,
    build_test_pod,
    chain,
    run_plugin,
    set_normal_owner_ref,
    set_pod_priority,
)


def main_region(n):
    n["metadata"]["labels"] = {"region": "main-region"}


def node(name, apply=None):
    return build_test_node(name, 2000, 3000, 10, apply)


NODE1 = node("n1", main_region)


def anti_affinity(key, value):
    """test.SetPodAntiAffinity: required, topologyKey region."""
    def apply(pod):
        pod["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}, "topologyKey": "region"}]}}
    return apply


def labels(**kv):
    def apply(pod):
        pod["metadata"]["labels"] = dict(kv)
    return apply


def prio(value):
    return lambda pod: set_pod_priority(pod, value)


def pod1(name, apply=None):
    return build_test_pod(name, 100, 0, "n1", apply)


def with_anti_affinity(name):
    return pod1(name, chain(set_normal_owner_ref, anti_affinity("foo", "bar")))


def p2():
    return pod1("p2", chain(set_normal_owner_ref, labels(foo="bar")))


def non_evictable():
    return pod1("non-evict", chain(prio(SYSTEM_CRITICAL_PRIORITY), labels(foo="bar")))


def four():
    return [with_anti_affinity("p1"), p2(), with_anti_affinity("p3"), with_anti_affinity("p4")]


def west(pod):
    pod["spec"]["nodeSelector"] = {"datacenter": "west"}


def terminating(pod):
    pod["metadata"]["deletionTimestamp"] = 0


CASES = [
    ("Maximum pods to evict - 0", four(), [NODE1], {}, False, 3),
    ("Maximum pods to evict - 3", four(), [NODE1], {"max_per_node": 3}, False, 3),
    ("Maximum pods to evict (maxPodsToEvictPerNamespace=3) - 3", four(), [NODE1], {"max_per_namespace": 3}, False, 3),
    ("Maximum pods to evict (maxNoOfPodsToEvictTotal)", four(), [NODE1], {"max_per_namespace": 3, "max_total": 1}, False, 1),
    ("Evict only 1 pod after sorting",
     [pod1("p5", chain(set_normal_owner_ref, labels(foo="bar"), anti_affinity("foo1", "bar1"), prio(100))),
      pod1("p6", chain(set_normal_owner_ref, labels(foo="bar"), anti_affinity("foo1", "bar1"), prio(50))),
      pod1("p7", chain(set_normal_owner_ref, labels(foo1="bar1"), anti_affinity("foo", "bar"), prio(0)))], [NODE1], {}, False, 1),
    ("Evicts pod that conflicts with critical pod (but does not evict critical pod)", [with_anti_affinity("p1"), non_evictable()],
     [NODE1], {"max_per_node": 1}, False, 1),
    ("Evicts pod that conflicts with critical pod (but does not evict critical pod) (2)", [with_anti_affinity("p1"), non_evictable()],
     [NODE1], {"max_per_node": 1}, False, 1),
    ("Won't evict pods because node selectors don't match available nodes", [pod1("p8", west), non_evictable()],
     [NODE1, node("n2", lambda n: n["metadata"].__setitem__("labels", {"datacenter": "east"}))], {"max_per_node": 1}, True, 0),
    ("Won't evict pods because only other node is not schedulable", [pod1("p8", west), non_evictable()],
     [NODE1, node("n3", lambda n: n.__setitem__("spec", {"unschedulable": True}))], {"max_per_node": 1}, True, 0),
    ("No pod to evicted since all pod terminating",
     [pod1("p9", chain(set_normal_owner_ref, anti_affinity("foo", "bar"), terminating)),
      pod1("p10", chain(set_normal_owner_ref, anti_affinity("foo", "bar"), terminating))], [NODE1], {}, False, 0),
    ("Won't evict pods because only other node doesn't have enough resources", four(),
     [NODE1, build_test_node("n4", 2, 2, 1)], {"max_per_node": 3}, True, 0),
    ("Evict pod violating anti-affinity among different node (all pods have anti-affinity)",
     [with_anti_affinity("p1"), build_test_pod("p11", 100, 0, "n5", chain(set_normal_owner_ref, labels(foo="bar")))],
     [NODE1, build_test_node("n5", 200, 3000, 10, main_region)], {}, False, 1),
]


@pytest.mark.parametrize("description,pods,nodes,limits,node_fit,expected", CASES, ids=[c[0][:80] for c in CASES])
def test_pod_anti_affinity(description, pods, nodes, limits, node_fit, expected):
    evicted = run_plugin("RemovePodsViolatingInterPodAntiAffinity", nodes, pods, {}, evictor={"nodeFit": node_fit}, **limits)
    assert len(evicted) == expected


def test_the_lowest_priority_pod_goes_first():
    """"Evict only 1 pod after sorting": p7 (priority 0) is evicted, which frees p5 and p6."""
    pods = CASES[4][1]
    assert run_plugin("RemovePodsViolatingInterPodAntiAffinity", [NODE1], pods) == ["p7"]


# --- RemovePodsViolatingNodeAffinity: node_affinity_test.go TestRemovePodsViolatingNodeAffinity (all 22 cases) ---------

REQ, PREF, INVALID = ("requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution",
                      "requiredDuringSchedulingRequiredDuringExecution")
DESIRED = {"kubernetes.io/desiredNode": "yes"}


def desired(n):
    n["metadata"]["labels"].update(DESIRED)


def unschedulable_with_labels():
    def apply(n):
        desired(n)
        n["spec"]["unschedulable"] = True
    return node("unschedulableNodeWithLabels", apply)


WITH_LABELS = node("nodeWithLabels", desired)
WITHOUT_LABELS = node("nodeWithoutLabels")
TERM = {"matchExpressions": [{"key": "kubernetes.io/desiredNode", "operator": "In", "values": ["yes"]}]}


def add_pods_to_node(node_name, deletion, affinity_type):
    """addPodsToNode: podWithNodeAffinity, pod1, pod2 (owner Pod)."""
    def common(pod):
        set_normal_owner_ref(pod)
        if deletion is not None:
            pod["metadata"]["deletionTimestamp"] = deletion

    def with_affinity(pod):
        na: dict = {}
        if affinity_type == REQ:
            na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [TERM]}
        elif affinity_type == PREF:
            na["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": 10, "preference": TERM}]
        pod["spec"]["affinity"] = {"nodeAffinity": na}
        common(pod)
    return [build_test_pod("podWithNodeAffinity", 100, 0, node_name, with_affinity),
            build_test_pod("pod1", 100, 0, node_name, common), build_test_pod("pod2", 100, 0, node_name, common)]


BOTH = [WITHOUT_LABELS, WITH_LABELS]
NODE_AFFINITY = [
    ("Invalid Affinity type, should not evict any pods", INVALID, "nodeWithoutLabels", None, BOTH, {}, False, 0),
    ("Pod is correctly scheduled on node, no eviction expected [required affinity]", REQ, "nodeWithLabels", None, [WITH_LABELS], {}, False, 0),
    ("Pod is correctly scheduled on node, no eviction expected [preferred affinity]", PREF, "nodeWithLabels", None, [WITH_LABELS], {}, False, 0),
    ("Pod is scheduled on node without matching labels, another schedulable node available, should be evicted", REQ,
     "nodeWithoutLabels", None, BOTH, {}, False, 1),
    ("Pod is scheduled on node without matching labels, another schedulable node available with better fit, should be evicted", PREF,
     "nodeWithoutLabels", None, BOTH, {}, False, 1),
    *[(f"Pod is scheduled on node without matching labels, another schedulable node available, maxPodsToEvictPerNode set to {n}, "
       f"should {'be evicted' if n else 'be not evicted'} [{kind} affinity]", t, "nodeWithoutLabels", None, BOTH, {"max_per_node": n}, False, n)
      for n in (1, 0) for t, kind in ((REQ, "required"), (PREF, "preferred"))],
    *[(f"Pod is scheduled on node without matching labels, another schedulable node available, maxPodsToEvictPerNode set to 1, "
       f"no pod evicted since pod terminting [{kind} affinity]", t, "nodeWithoutLabels", 0, BOTH, {"max_per_node": 1}, False, 0)
      for t, kind in ((REQ, "required"), (PREF, "preferred"))],
    ("Pod is scheduled on node without matching labels, another schedulable node available, maxNoOfPodsToEvictPerNamespace set to 1, "
     "should be evicted [required affinity]", REQ, "nodeWithoutLabels", None, BOTH, {"max_per_namespace": 1}, False, 1),
    ("Pod is scheduled on node without matching labels, another schedulable node available, maxNoOfPodsToEvictTotal set to 0, "
     "should not be evicted [required affinity]", REQ, "nodeWithoutLabels", None, BOTH, {"max_per_namespace": 1, "max_total": 0}, False, 0),
    ("Pod is scheduled on node without matching labels, another schedulable node available, maxNoOfPodsToEvictPerNamespace set to 1, "
     "should be evicted [preferred affinity]", PREF, "nodeWithoutLabels", None, BOTH, {"max_per_namespace": 1}, False, 1),
    *[(f"Pod is scheduled on node without matching labels, another schedulable node available, maxNoOfPodsToEvictPerNamespace set to 0, "
       f"should not be evicted [{kind} affinity]", t, "nodeWithoutLabels", None, BOTH, {"max_per_namespace": 0}, False, 0)
      for t, kind in ((REQ, "required"), (PREF, "preferred"))],
    *[(f"Pod is scheduled on node without matching labels, another schedulable node available, maxNoOfPodsToEvictPerNamespace set to 1, "
       f"no pod evicted since pod terminting [{kind} affinity]", t, "nodeWithoutLabels", 0, BOTH, {"max_per_namespace": 1}, False, 0)
      for t, kind in ((REQ, "required"), (PREF, "preferred"))],
    *[(f"Pod is scheduled on node without matching labels, but no node where pod fits is available, should not evict [{kind} affinity]",
       t, "nodeWithoutLabels", None, [WITHOUT_LABELS, unschedulable_with_labels()], {}, True, 0)
      for t, kind in ((REQ, "required"), (PREF, "preferred"))],
    *[(f"Pod is scheduled on node without matching labels, and unschedulable node where pod could fit is available, should not evict "
       f"[{kind} affinity]", t, "nodeWithoutLabels", None, [WITH_LABELS, unschedulable_with_labels()], {"max_per_node": 1}, True, 0)
      for t, kind in ((REQ, "required"), (PREF, "preferred"))],
]


@pytest.mark.parametrize("description,affinity_type,node_name,deletion,nodes,limits,node_fit,expected", NODE_AFFINITY,
                         ids=[c[0][-90:] for c in NODE_AFFINITY])
def test_remove_pods_violating_node_affinity(description, affinity_type, node_name, deletion, nodes, limits, node_fit, expected):
    evicted = run_plugin("RemovePodsViolatingNodeAffinity", nodes, add_pods_to_node(node_name, deletion, affinity_type),
                         {"nodeAffinityType": [affinity_type]}, evictor={"nodeFit": node_fit}, **limits)
    assert len(evicted) == expected
    if expected:
        assert evicted == ["podWithNodeAffinity"]
