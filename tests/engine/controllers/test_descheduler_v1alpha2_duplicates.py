"""RemoveDuplicates, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/removeduplicates/removeduplicates_test.go: TestFindDuplicatePods (all 14
cases) and TestRemoveDuplicatesUniformly (all 11 cases)."""

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


def node(name, apply=None):
    return build_test_node(name, 2000, 3000, 10, apply)


def pod_for_node(name, node_name, apply=None):
    return build_test_pod(name, 100, 0, node_name, apply)


def rs_pod(name, namespace, apply=None):
    """buildTestPodWithRSOwnerRefWithNamespaceForNode1."""
    def ns(pod):
        pod["metadata"]["namespace"] = namespace
    return pod_for_node(name, "n1", chain(set_rs_owner_ref, ns, apply))


def image(value):
    def apply(pod):
        pod["spec"]["containers"][0]["image"] = value
    return apply


def extra_container(name, value):
    def apply(pod):
        pod["spec"]["containers"].append({"name": name, "image": value})
    return apply


def pod_with_image(name, value):
    """buildTestPodWithImage: a second container with the image."""
    return pod_for_node(name, "n1", chain(set_rs_owner_ref, extra_container(value, value)))


def taint_gpu(n):
    n["spec"]["taints"] = [{"key": "hardware", "value": "gpu", "effect": "NoSchedule"}]


def labels(**kv):
    def apply(n):
        n["metadata"]["labels"] = dict(kv)
    return apply


def unschedulable(n):
    n["spec"] = {"unschedulable": True}


def node_selector(**kv):
    def apply(pod):
        pod["spec"]["nodeSelector"] = dict(kv)
    return apply


def namespace(ns):
    def apply(pod):
        pod["metadata"]["namespace"] = ns
    return apply


def dev3():
    return [rs_pod("p1", "dev"), rs_pod("p2", "dev"), rs_pod("p3", "dev")]


def in_test3():
    return [rs_pod("p8", "test"), rs_pod("p9", "test"), rs_pod("p10", "test")]


def protected():
    return [pod_for_node("p4", "n1", set_ds_owner_ref),
            pod_for_node("p5", "n1", chain(set_normal_owner_ref, set_host_path_empty_dir_volume_source)),
            pod_for_node("p6", "n1", set_mirror_pod_annotation),
            pod_for_node("p7", "n1", chain(namespace("kube-system"), lambda p: set_pod_priority(p, SYSTEM_CRITICAL_PRIORITY)))]


WEST = node_selector(datacenter="west")
FIND = [
    ("Three pods in the `dev` Namespace, bound to same ReplicaSet. 1 should be evicted.", dev3(), [node("n1"), node("n2")], 1, None, False),
    ("Three pods in the `dev` Namespace, bound to same ReplicaSet, but ReplicaSet kind is excluded. 0 should be evicted.",
     dev3(), [node("n1"), node("n2")], 0, ["ReplicaSet"], False),
    ("Three Pods in the `test` Namespace, bound to same ReplicaSet. 1 should be evicted.", in_test3(), [node("n1"), node("n2")], 1, None, False),
    ("Three Pods in the `dev` Namespace, three Pods in the `test` Namespace. Bound to ReplicaSet with same name. 4 should be evicted.",
     dev3() + in_test3(), [node("n1"), node("n2")], 2, None, False),
    ("Pods are: part of DaemonSet, with local storage, mirror pod annotation, critical pod annotation - none should be evicted.",
     protected(), [node("n1"), node("n2")], 0, None, False),
    ("Test all Pods: 4 should be evicted.", dev3() + protected() + in_test3(), [node("n1"), node("n2")], 2, None, False),
    ("Pods with the same owner but different images should not be evicted",
     [rs_pod("p11", "different-images", image("foo")), rs_pod("p12", "different-images", image("bar"))], [node("n1"), node("n2")], 0, None, False),
    ("Pods with multiple containers should not match themselves",
     [rs_pod("p13", "different-images", extra_container("foo", "foo"))], [node("n1"), node("n2")], 0, None, False),
    ("Pods with matching ownerrefs and at not all matching image should not trigger an eviction",
     [rs_pod("p11", "different-images", image("foo")), rs_pod("p13", "different-images", extra_container("foo", "foo"))],
     [node("n1"), node("n2")], 0, None, False),
    ("Three pods in the `dev` Namespace, bound to same ReplicaSet. Only node available has a taint, and nodeFit set to true. 0 should be evicted.",
     dev3(), [node("n1"), node("n3", taint_gpu)], 0, None, True),
    ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet, all with a nodeSelector. Only node available has an incorrect node label, and nodeFit set to true. 0 should be evicted.",
     [rs_pod("p15", "node-fit", WEST), rs_pod("NOT1", "node-fit", WEST), rs_pod("NOT2", "node-fit", WEST)],
     [node("n1"), node("n4", labels(datacenter="east"))], 0, None, True),
    ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available is not schedulable, and nodeFit set to true. 0 should be evicted.",
     dev3(), [node("n1"), node("n5", unschedulable)], 0, None, True),
    ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available does not have enough CPU, and nodeFit set to true. 0 should be evicted.",
     dev3() + [build_test_pod("CPU-eater", 150, 150, "n6", namespace("test"))], [node("n1"), build_test_node("n6", 200, 200, 10)], 0, None, True),
    ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available has enough CPU, and nodeFit set to true. 1 should be evicted.",
     dev3() + [build_test_pod("CPU-saver", 100, 150, "n6", namespace("test"))], [node("n1"), build_test_node("n6", 200, 200, 10)], 1, None, True),
]


@pytest.mark.parametrize("description,pods,nodes,expected,exclude,node_fit", FIND, ids=[c[0][:70] for c in FIND])
def test_find_duplicate_pods(description, pods, nodes, expected, exclude, node_fit):
    args = {"excludeOwnerKinds": exclude} if exclude else {}
    assert len(run_plugin("RemoveDuplicates", nodes, pods, args, evictor={"nodeFit": node_fit})) == expected


def rs2(pod):
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "apiVersion": "v1", "name": "replicaset-2"}]


def two_rs(pod):
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "apiVersion": "v1", "name": "replicaset-1"},
                                          {"kind": "ReplicaSet", "apiVersion": "v1", "name": "replicaset-2"}]


def no_schedule_tolerations(key, value):
    def apply(pod):
        set_rs_owner_ref(pod)
        pod["spec"]["tolerations"] = [{"key": key, "value": value, "operator": "Equal", "effect": "NoSchedule"}]
    return apply


def master_taint(n):
    n["spec"]["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]


def master_label(n):
    n["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] = ""


def worker_label(n):
    n["metadata"]["labels"]["node-role.kubernetes.io/worker"] = "k1"
    n["metadata"]["labels"]["node-role.kubernetes.io/worker"] = "k2"


def not_master(key):
    def apply(pod):
        set_rs_owner_ref(pod)
        pod["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "node-role.kubernetes.io/control-plane", "operator": "DoesNotExist"},
                                  {"key": key, "operator": "DoesNotExist"}]}]}}}
    return apply


def worker_selector(value):
    def apply(pod):
        set_rs_owner_ref(pod)
        pod["spec"].setdefault("nodeSelector", {})["node-role.kubernetes.io/worker"] = value
    return apply


def spread(owner, layout):
    """Pods named p<i> on the given nodes, each made by `owner` (a function of the index)."""
    return [pod_for_node(name, node_name, owner(i)) for i, (name, node_name) in enumerate(layout)]


NINE = [(f"p{i}", n) for i, n in zip(range(1, 10), ["n1"] * 5 + ["n2"] * 3 + ["n3"])]
NINE_TWO = [(f"p{i}", n) for i, n in zip(range(11, 20), ["n1"] * 5 + ["n2"] * 3 + ["n3"])]
WORKERS = [(f"p{i}", n) for i, n in zip(range(1, 10), ["worker1"] * 5 + ["worker2"] * 3 + ["worker3"])]
N123 = [node("n1"), node("n2"), node("n3")]
KEYS = ["1", "2"]


def alternate(make):
    return lambda i: make(f"k{KEYS[i % 2]}", f"v{KEYS[i % 2]}") if make is no_schedule_tolerations else make(f"k{KEYS[i % 2]}")


UNIFORMLY = [
    ("Evict pods uniformly", spread(lambda i: set_rs_owner_ref, NINE), N123, 2),
    ("Evict pods uniformly with one node left out", spread(lambda i: set_rs_owner_ref, NINE), [node("n1"), node("n2")], 1),
    ("Evict pods uniformly with two replica sets", spread(lambda i: two_rs, NINE_TWO), N123, 4),
    ("Evict pods uniformly with two owner references",
     spread(lambda i: set_rs_owner_ref, NINE_TWO)
     + spread(lambda i: rs2, [(f"p{i}", n) for i, n in zip(range(21, 30), ["n1"] + ["n2"] * 3 + ["n3"] * 5)]), N123, 4),
    ("Evict pods with number of pods less than nodes", spread(lambda i: set_rs_owner_ref, [("p1", "n1"), ("p2", "n1")]), N123, 1),
    ("Evict pods with number of pods less than nodes, but ignore different pods with the same ownerref",
     [pod_with_image("p1", "foo"), pod_with_image("p2", "bar"), pod_with_image("p3", "baz"), pod_with_image("p4", "foo")], N123, 1),
    ("Evict pods with a single pod with three nodes", spread(lambda i: set_rs_owner_ref, [("p1", "n1")]), N123, 0),
    ("Evict pods uniformly respecting taints", spread(alternate(no_schedule_tolerations), WORKERS),
     [node("worker1"), node("worker2"), node("worker3"), node("master1", master_taint), node("master2", master_taint),
      node("master3", master_taint)], 2),
    ("Evict pods uniformly respecting RequiredDuringSchedulingIgnoredDuringExecution node affinity", spread(alternate(not_master), WORKERS),
     [node("worker1"), node("worker2"), node("worker3"), node("master1", master_label), node("master2", master_label),
      node("master3", master_label)], 2),
    ("Evict pods uniformly respecting node selector", spread(alternate(worker_selector), WORKERS),
     [node("worker1", worker_label), node("worker2", worker_label), node("worker3", worker_label), node("master1"), node("master2"),
      node("master3")], 2),
    ("Evict pods uniformly respecting node selector with zero target nodes", spread(alternate(worker_selector), WORKERS),
     [node("worker1"), node("worker2"), node("worker3"), node("master1"), node("master2"), node("master3")], 0),
]


@pytest.mark.parametrize("description,pods,nodes,expected", UNIFORMLY, ids=[c[0][:70] for c in UNIFORMLY])
def test_remove_duplicates_uniformly(description, pods, nodes, expected):
    assert len(run_plugin("RemoveDuplicates", nodes, pods)) == expected
