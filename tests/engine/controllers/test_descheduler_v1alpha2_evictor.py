"""The DefaultEvictor, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/defaultevictor/defaultevictor_test.go: TestDefaultEvictorPreEvictionFilter
(all 10 cases) and TestDefaultEvictorFilter (all 46 cases): Filter / PreEvictionFilter of the
first pod, with the evictor's args."""

from __future__ import annotations

import pytest

from scheduling.engine.api.objects import Node
from scheduling.engine.controllers.descheduler_v1alpha2.evictor import Cycle, PodRef
from scheduling.engine.controllers.descheduler_v1alpha2.policy import Profile
from scheduling.engine.store import Store

from .descheduler_v1alpha2_builders import (
    SYSTEM_CRITICAL_PRIORITY,
    build_test_node,
    build_test_pod,
    chain,
    set_host_path_empty_dir_volume_source,
    set_mirror_pod_annotation,
    set_normal_owner_ref,
    set_pod_priority,
    set_rs_owner_ref,
)

NOW = 1_000_000.0
EVICT = "descheduler.alpha.kubernetes.io/evict"
SOFT_NO_EVICTION = "descheduler.alpha.kubernetes.io/prefer-no-eviction"


def node(name, apply=None):
    return build_test_node(name, 1000, 2000, 13, apply)


def pod(name, node_name="node1", apply=None, cpu=400, mem=0):
    return build_test_pod(name, cpu, mem, node_name, apply)


def evictor_for(docs, args):
    store = Store(docs)
    nodes = [Node.from_doc(d) for d in docs if d["kind"] == "Node"]
    cycle = Cycle(store, NOW, nodes)
    cycle.use_profile(Profile("test", {"DefaultEvictor": args}, {}))
    return cycle.evictor


def ref_of(doc):
    from scheduling.engine.api.objects import Pod
    return PodRef(doc, Pod.from_doc(doc))


# --- PreEvictionFilter ------------------------------------------------------------------------------------

EAST = {"datacenter": "east"}


def gpu_taint(n):
    n["spec"]["taints"] = [{"key": "hardware", "value": "gpu", "effect": "NoSchedule"}]


def east(n):
    n["metadata"]["labels"] = dict(EAST)


def selector(value):
    def apply(p):
        p["spec"]["nodeSelector"] = {"datacenter": value}
    return apply


def tolerate_gpu(p):
    p["spec"]["tolerations"] = [{"key": "hardware", "value": "gpu", "effect": "NoSchedule"}]


def labels(**kv):
    def apply(p):
        p["metadata"]["labels"] = dict(kv)
    return apply


def in_namespace(ns):
    def apply(p):
        p["metadata"]["namespace"] = ns
    return apply


def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}}


NS_SELECTOR = {"matchLabels": {"kubernetes.io/metadata.name": "test"}}
PRE = [
    ("Pod with no tolerations running on normal node, all other nodes tainted",
     [pod("p1", apply=set_normal_owner_ref), node("node2", gpu_taint), node("node3", gpu_taint)], {"nodeFit": True}, False),
    ("Pod with correct tolerations running on normal node, all other nodes tainted",
     [pod("p1", apply=chain(set_normal_owner_ref, tolerate_gpu)), node("node2", gpu_taint), node("node3", gpu_taint)], {"nodeFit": True}, True),
    ("Pod with incorrect node selector", [pod("p1", apply=chain(set_normal_owner_ref, selector("fail"))), node("node2", east), node("node3", east)],
     {"nodeFit": True}, False),
    ("Pod with correct node selector", [pod("p1", apply=chain(set_normal_owner_ref, selector("east"))), node("node2", east), node("node3", east)],
     {"nodeFit": True}, True),
    ("Pod with correct node selector, but only available node doesn't have enough CPU",
     [pod("p1", apply=chain(set_normal_owner_ref, selector("east")), cpu=12, mem=8),
      build_test_node("node2-TEST", 10, 16, 10, east), build_test_node("node3-TEST", 10, 16, 10, east)], {"nodeFit": True}, False),
    ("Pod with correct node selector, and one node has enough memory",
     [pod("p1", apply=chain(set_normal_owner_ref, selector("east")), cpu=12, mem=8),
      pod("node2-pod-10GB-mem", "node2", labels(test="true"), cpu=20, mem=10), pod("node3-pod-10GB-mem", "node3", labels(test="true"), cpu=20, mem=10),
      build_test_node("node2", 100, 16, 10, east), build_test_node("node3", 100, 20, 10, east)], {"nodeFit": True}, True),
    ("Pod with correct node selector, but both nodes don't have enough memory",
     [pod("p1", apply=chain(set_normal_owner_ref, selector("east")), cpu=12, mem=8),
      pod("node2-pod-10GB-mem", "node2", labels(test="true"), cpu=10, mem=10), pod("node3-pod-10GB-mem", "node3", labels(test="true"), cpu=10, mem=10),
      build_test_node("node2", 100, 16, 10, east), build_test_node("node3", 100, 16, 10, east)], {"nodeFit": True}, False),
    ("Pod with incorrect node selector, but nodefit false, should still be evicted",
     [pod("p1", apply=chain(set_normal_owner_ref, selector("fail"))), node("node2", east), node("node3", east)], {}, True),
    ("Pod with namespace matched namespace selector, should be evicted",
     [pod("p1", apply=chain(in_namespace("test"), set_normal_owner_ref, selector("east"))), node("node2", east), node("node3", east),
      namespace("default"), namespace("test")], {"nodeFit": True, "namespaceLabelSelector": NS_SELECTOR}, True),
    ("Pod with namespace does not matched namespace selector, should not be evicted",
     [pod("p1", apply=chain(set_normal_owner_ref, selector("fail"))), node("node2", east), node("node3", east),
      namespace("default"), namespace("test")], {"nodeFit": True, "namespaceLabelSelector": NS_SELECTOR}, False),
]


@pytest.mark.parametrize("description,docs,args,result", PRE, ids=[c[0][:80] for c in PRE])
def test_default_evictor_pre_eviction_filter(description, docs, args, result):
    # upstream's fake cluster holds only the listed nodes: node1 (the pod's) is not among them
    assert evictor_for(docs, args).pre_eviction_filter(ref_of(docs[0])) is result


# --- Filter ------------------------------------------------------------------------------------------------------


def annotate(**kv):
    def apply(p):
        p["metadata"].setdefault("annotations", {}).update(kv)
    return apply


def failed(p):
    p["status"]["phase"] = "Failed"


def prio(value):
    return lambda p: set_pod_priority(p, value)


def pvc_foo(p):
    p["spec"]["volumes"] = [{"name": "pvc", "persistentVolumeClaim": {"claimName": "foo"}}]


def ds_owner(p):
    p["metadata"]["ownerReferences"] = [{"kind": "DaemonSet", "apiVersion": "v1"}]


def ss_owner(p):
    p["metadata"]["ownerReferences"] = [{"kind": "StatefulSet", "apiVersion": "v1"}]


def owner_uid(uid):
    def apply(p):
        set_normal_owner_ref(p)
        p["metadata"]["ownerReferences"][0]["uid"] = uid
    return apply


def two_owners(p):
    """Two owner references (the first with a UID): the minReplicas check does not apply."""
    p["metadata"]["ownerReferences"] = [{"kind": "Pod", "apiVersion": "v1", "uid": "owner-uid"}, {"kind": "Pod", "apiVersion": "v1"}]


def started(minutes_ago):
    def apply(p):
        p["status"]["startTime"] = NOW - minutes_ago * 60
    return apply


def pvc(name, storage_class):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"namespace": "default", "name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class, "resources": {"requests": {"storage": "1Gi"}}}}


PDB = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"namespace": "default", "name": "pdb1"},
       "spec": {"selector": {"matchLabels": {"app": "foo"}}, "maxUnavailable": 1}}
EVICT_ANN = annotate(**{EVICT: "true"})
LOW, HIGH = 800, 900
N1 = node("node1")


def protected_sc(*names):
    return {"config": {"PodsWithPVC": {"protectedStorageClasses": [{"name": n} for n in names]}}}


FILTER = [
    ("Failed pod eviction with no ownerRefs", [pod("bare_pod_failed", apply=failed)], {}, False),
    ("Normal pod eviction with no ownerRefs and evictFailedBarePods enabled", [pod("bare_pod")], {"evictFailedBarePods": True}, False),
    ("Failed pod eviction with no ownerRefs (evictFailedBarePods)", [pod("bare_pod_failed_but_can_be_evicted", apply=failed)],
     {"evictFailedBarePods": True}, True),
    ("Normal pod eviction with normal ownerRefs", [pod("p1", apply=set_normal_owner_ref)], {}, True),
    ("Normal pod eviction with normal ownerRefs and evict annotation", [pod("p2", apply=chain(EVICT_ANN, set_normal_owner_ref))], {}, True),
    ("Normal pod eviction with normal ownerRefs and prefer-no-eviction annotation (preference)",
     [pod("p2", apply=chain(annotate(**{SOFT_NO_EVICTION: ""}), set_normal_owner_ref))], {}, True),
    ("Normal pod eviction with normal ownerRefs and prefer-no-eviction annotation (mandatory)",
     [pod("p2", apply=chain(annotate(**{SOFT_NO_EVICTION: ""}), set_normal_owner_ref))], {"noEvictionPolicy": "Mandatory"}, False),
    ("Normal pod eviction with replicaSet ownerRefs", [pod("p3", apply=set_normal_owner_ref)], {}, True),
    ("Normal pod eviction with replicaSet ownerRefs and evict annotation", [pod("p4", apply=chain(EVICT_ANN, set_rs_owner_ref))], {}, True),
    ("Normal pod eviction with statefulSet ownerRefs", [pod("p18", apply=set_normal_owner_ref)], {}, True),
    ("Normal pod eviction with statefulSet ownerRefs and evict annotation", [pod("p19", apply=chain(EVICT_ANN, ss_owner))], {}, True),
    ("Pod not evicted because it is bound to a PV and evictLocalStoragePods = false",
     [pod("p5", apply=chain(set_normal_owner_ref, set_host_path_empty_dir_volume_source))], {}, False),
    ("Pod is evicted because it is bound to a PV and evictLocalStoragePods = true",
     [pod("p6", apply=chain(set_normal_owner_ref, set_host_path_empty_dir_volume_source))], {"evictLocalStoragePods": True}, True),
    ("Pod is evicted because it is bound to a PV and evictLocalStoragePods = false, but it has the evict annotation",
     [pod("p7", apply=chain(EVICT_ANN, set_normal_owner_ref, set_host_path_empty_dir_volume_source))], {}, True),
    ("Pod not evicted because it is part of a daemonSet", [pod("p8", apply=chain(set_normal_owner_ref, ds_owner))], {}, False),
    ("Pod is evicted because it is part of a daemonSet, but it has the evict annotation", [pod("p9", apply=chain(EVICT_ANN, ds_owner))], {}, True),
    ("Pod not evicted because it is a mirror poddsa", [pod("p10", apply=chain(set_normal_owner_ref, set_mirror_pod_annotation))], {}, False),
    ("Pod is evicted because it is a mirror pod, but it has the evict annotation",
     [pod("p11", apply=chain(set_normal_owner_ref, set_mirror_pod_annotation, EVICT_ANN))], {}, True),
    ("Pod not evicted because it has system critical priority", [pod("p12", apply=chain(set_normal_owner_ref, prio(SYSTEM_CRITICAL_PRIORITY)))], {}, False),
    ("Pod is evicted because it has system critical priority, but it has the evict annotation",
     [pod("p13", apply=chain(set_normal_owner_ref, prio(SYSTEM_CRITICAL_PRIORITY), EVICT_ANN))], {}, True),
    ("Pod not evicted because it has a priority higher than the configured priority threshold",
     [pod("p14", apply=chain(set_normal_owner_ref, prio(HIGH)))], {"priorityThreshold": {"value": LOW}}, False),
    ("Pod is evicted because it has a priority higher than the configured priority threshold, but it has the evict annotation",
     [pod("p15", apply=chain(set_normal_owner_ref, EVICT_ANN, prio(HIGH)))], {"priorityThreshold": {"value": LOW}}, True),
    ("Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true",
     [pod("p16", apply=chain(set_normal_owner_ref, prio(SYSTEM_CRITICAL_PRIORITY)))], {"evictSystemCriticalPods": True}, True),
    ("Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true and it has the evict annotation",
     [pod("p16", apply=chain(set_normal_owner_ref, EVICT_ANN, prio(SYSTEM_CRITICAL_PRIORITY)))], {"evictSystemCriticalPods": True}, True),
    ("Pod is evicted because it has a priority higher than the configured priority threshold, but evictSystemCriticalPods = true",
     [pod("p17", apply=chain(set_normal_owner_ref, prio(HIGH)))], {"evictSystemCriticalPods": True, "priorityThreshold": {"value": LOW}}, True),
    ("Pod is evicted because it has a priority higher than the configured priority threshold, but evictSystemCriticalPods = true and it has the evict annotation",
     [pod("p17", apply=chain(set_normal_owner_ref, EVICT_ANN, prio(HIGH)))], {"evictSystemCriticalPods": True, "priorityThreshold": {"value": LOW}}, True),
    ("Pod with no tolerations running on normal node, all other nodes tainted, no PreEvictionFilter, should ignore nodeFit",
     [pod("p1", apply=set_normal_owner_ref), node("node2", gpu_taint), node("node3", gpu_taint)], {"nodeFit": True}, True),
    ("minReplicas of 2, owner with 2 replicas, evicts",
     [pod("p1", apply=owner_uid("owner-uid"), cpu=1, mem=1), pod("p2", apply=owner_uid("owner-uid"), cpu=1, mem=1)], {"minReplicas": 2}, True),
    ("minReplicas of 3, owner with 2 replicas, no eviction",
     [pod("p1", apply=owner_uid("owner-uid"), cpu=1, mem=1), pod("p2", apply=owner_uid("owner-uid"), cpu=1, mem=1)], {"minReplicas": 3}, False),
    ("minReplicas of 2, multiple owners, no eviction",
     [pod("p1", apply=two_owners, cpu=1, mem=1), pod("p2", apply=set_normal_owner_ref, cpu=1, mem=1)], {"minReplicas": 2}, True),
    ("minPodAge of 50, pod created 10 minutes ago, no eviction",
     [pod("p1", apply=chain(set_normal_owner_ref, started(10)), cpu=1, mem=1)], {"minPodAge": "50m0s"}, False),
    ("minPodAge of 50, pod created 60 minutes ago, evicts",
     [pod("p1", apply=chain(set_normal_owner_ref, started(60)), cpu=1, mem=1)], {"minPodAge": "50m0s"}, True),
    ("nil minPodAge, pod created 60 minutes ago, evicts", [pod("p1", apply=chain(set_normal_owner_ref, started(60)), cpu=1, mem=1)], {}, True),
    ("ignorePodsWithoutPDB, pod with no PDBs, no eviction", [pod("p1", apply=chain(set_normal_owner_ref, labels(app="foo")), cpu=1, mem=1)],
     {"ignorePodsWithoutPDB": True}, False),
    ("ignorePodsWithoutPDB, pod with PDBs, evicts", [pod("p1", apply=chain(set_normal_owner_ref, labels(app="foo")), cpu=1, mem=1), PDB],
     {"ignorePodsWithoutPDB": True}, True),
    ("ignorePvcPods is set, pod with PVC, not evicts", [pod("p15", apply=chain(set_normal_owner_ref, pvc_foo))], {"ignorePvcPods": True}, False),
    ("ignorePvcPods is not set, pod with PVC, evicts", [pod("p15", apply=chain(set_normal_owner_ref, pvc_foo))], {}, True),
    ("Pod with local storage is evicted because 'PodsWithLocalStorage' is in DefaultDisabled",
     [pod("p18", apply=chain(set_normal_owner_ref, lambda p: p["spec"].__setitem__("volumes", [{"name": "local-storage", "emptyDir": {}}])))],
     {"podProtections": {"defaultDisabled": ["PodsWithLocalStorage"]}}, True),
    ("DaemonSet pod is evicted because 'DaemonSetPods' is in DefaultDisabled",
     [pod("p19", apply=lambda p: p["metadata"].__setitem__("ownerReferences", [{"kind": "DaemonSet", "name": "daemonset-test", "uid": "daemonset-uid"}]))],
     {"podProtections": {"defaultDisabled": ["DaemonSetPods"]}}, True),
    ("Pod with PVC is not evicted because 'PodsWithPVC' is in ExtraEnabled", [pod("p20", apply=chain(set_normal_owner_ref, pvc_foo))],
     {"podProtections": {"extraEnabled": ["PodsWithPVC"]}}, False),
    ("Pod without PDB is not evicted because 'PodsWithoutPDB' is in ExtraEnabled", [pod("p21", apply=set_normal_owner_ref)],
     {"podProtections": {"extraEnabled": ["PodsWithoutPDB"]}}, False),
    ("Pod with ResourceClaims is not evicted because 'PodsWithResourceClaims' is in ExtraEnabled",
     [pod("p20", apply=chain(set_normal_owner_ref, lambda p: p["spec"].__setitem__(
         "resourceClaims", [{"name": "test-claim", "resourceClaimName": "test-resource-claim"}])))],
     {"podProtections": {"extraEnabled": ["PodsWithResourceClaims"]}}, False),
    ("Pod using StorageClass is not evicted because 'PodsWithPVC' is in ExtraEnabled", [pod("p23", apply=chain(set_normal_owner_ref, pvc_foo)),
                                                                                       pvc("foo", "standard")],
     {"podProtections": {"extraEnabled": ["PodsWithPVC"], **protected_sc("standard")}}, False),
    ("Pod using unprotected StorageClass is evicted even though 'PodsWithPVC' is in ExtraEnabled",
     [pod("p24", apply=chain(set_normal_owner_ref, pvc_foo)), pvc("foo", "unprotected")],
     {"podProtections": {"extraEnabled": ["PodsWithPVC"], **protected_sc("protected")}}, True),
    ("Pod using unexisting PVC is not evicted because we cannot determine if storage class is protected or not",
     [pod("p25", apply=chain(set_normal_owner_ref, pvc_foo))], {"podProtections": {"extraEnabled": ["PodsWithPVC"], **protected_sc("protected")}}, False),
    ("Pod using protected and unprotected StorageClasses is not evicted",
     [pod("p26", apply=chain(set_normal_owner_ref, lambda p: p["spec"].__setitem__("volumes", [
         {"name": "protected-pvc", "persistentVolumeClaim": {"claimName": "protected"}},
         {"name": "unprotected-pvc", "persistentVolumeClaim": {"claimName": "unprotected"}}]))),
      pvc("protected", "protected"), pvc("unprotected", "unprotected")],
     {"podProtections": {"extraEnabled": ["PodsWithPVC"], **protected_sc("protected")}}, False),
]


@pytest.mark.parametrize("description,docs,args,result", FILTER, ids=[c[0][:90] for c in FILTER])
def test_default_evictor_filter(description, docs, args, result):
    docs = [N1, *docs]
    assert evictor_for(docs, args).filter(ref_of(docs[1])) is result


def test_the_filter_says_why():
    docs = [N1, pod("p12", apply=chain(set_normal_owner_ref, prio(SYSTEM_CRITICAL_PRIORITY), set_host_path_empty_dir_volume_source))]
    assert evictor_for(docs, {}).filter_reasons(ref_of(docs[1])) == [
        "pod has system critical priority and is protected against eviction",
        "pod has local storage and is protected against eviction"]
