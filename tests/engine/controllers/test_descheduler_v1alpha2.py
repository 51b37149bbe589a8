"""The v1alpha2 descheduler's plugins and DefaultEvictor, with cases translated from
upstream sigs.k8s.io/descheduler:

* pkg/framework/plugins/removepodsviolatingnodetaints/node_taint_test.go
  TestDeletePodsViolatingNodeTaints: all 23 cases (test.BuildTestNode(name, 2000, 3000, 10),
  test.BuildTestPod(name, 100, 0, node) with a normal owner reference);
* podlifetime/pod_lifetime_test.go, removepodshavingtoomanyrestarts/toomanyrestarts_test.go,
  removefailedpods/failedpods_test.go, removeduplicates/removeduplicates_test.go: a few
  cases each (named after the upstream description);
* the policy's validation messages (pkg/descheduler/policyconfig_test.go and the
  plugins' validation_test.go), and one cycle's events.
"""

from __future__ import annotations

import pytest

from scheduling.engine.api.objects import Node
from scheduling.engine.controllers.descheduler_strategies.common import DeschedulerPolicyError
from scheduling.engine.controllers.descheduler_v1alpha2 import load_policy_v2, run_cycle
from scheduling.engine.controllers.descheduler_v1alpha2.evictor import Cycle
from scheduling.engine.controllers.descheduler_v1alpha2.plugins import PLUGINS
from scheduling.engine.controllers.descheduler_v1alpha2.policy import Profile
from scheduling.engine.store import Store

SYSTEM_CRITICAL = 2000000000


def node(name, taints=(), labels=None, unschedulable=False, cpu="2", memory="3000", pods="10"):
    cap = {"cpu": cpu, "memory": memory, "pods": pods}
    spec = {"taints": [dict(t) for t in taints]}
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})}, "spec": spec,
            "status": {"capacity": cap, "allocatable": cap, "conditions": [{"type": "Ready", "status": "True"}]}}


def taint(key, value, effect="NoSchedule"):
    return {"key": key, "value": value, "effect": effect}


def pod(name, node_name, *, owner="ReplicaSet", tolerations=(), namespace="default", priority=None, volumes=(),
        annotations=None, node_selector=None, phase="Running", created=0, restarts=0, image="busybox", status=None):
    meta = {"name": name, "namespace": namespace, "uid": f"uid-{name}", "creationTimestamp": created,
            "annotations": dict(annotations or {})}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner, "name": "rs" if owner != "DaemonSet" else "ds",
                                    "uid": "owner-uid", "controller": True}]
    spec = {"nodeName": node_name, "tolerations": [dict(t) for t in tolerations],
            "containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": "100m"}}}]}
    if priority is not None:
        spec["priority"] = priority
    if volumes:
        spec["volumes"] = list(volumes)
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    st = {"phase": phase, "containerStatuses": [{"name": "c", "restartCount": restarts}]}
    st.update(status or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": st}


def tol(key, value, effect="NoSchedule"):
    return {"key": key, "value": value, "effect": effect}


T1 = taint("testTaint1", "test1")
TESTING1 = taint("testingTaint1", "testing1")
TOL1 = tol("testTaint1", "test1")
TOLX = tol("testTaintX1", "testX1")
LOCAL = [{"name": "sample", "hostPath": {"path": "somePath"}}, {"name": "sample", "emptyDir": {"medium": ""}}]
MIRROR = {"kubernetes.io/config.mirror": "mirror"}
EAST = {"datacenter": "east"}


def run_plugin(plugin, docs, args=None, evictor=None, now=0.0, per_node=None, per_ns=None, total=None):
    store = Store(docs)
    nodes = [Node.from_doc(d) for d in docs if d["kind"] == "Node"]
    cycle = Cycle(store, now, nodes, False, per_node, per_ns, total)
    cycle.use_profile(Profile("p", {"DefaultEvictor": evictor or {}, plugin: args or {}}, {}))
    PLUGINS[plugin](cycle, nodes, args or {})
    return [p.name for p in cycle.planned if p.evicted]


N1 = node("n1", [T1])
N2 = node("n2", [TESTING1])
N5 = node("n5", [taint("testTaint1", "test1", "PreferNoSchedule")])
N7 = node("n7", [T1, TESTING1])
TAINTS = [
    ("Pods not tolerating node taint should be evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p2", "n1"), pod("p3", "n1", tolerations=[TOL1])], {}, {}, {}, 1),
    ("Pods with tolerations but not tolerating node taint should be evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p3", "n1", tolerations=[TOL1]), pod("p4", "n1", tolerations=[TOLX])], {}, {}, {}, 1),
    ("Only <maxNoOfPodsToEvictTotal> number of Pods not tolerating node taint should be evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p5", "n1"), pod("p6", "n1")], {}, {}, {"per_node": 2, "total": 1}, 1),
    ("Only <maxPodsToEvictPerNode> number of Pods not tolerating node taint should be evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p5", "n1"), pod("p6", "n1")], {}, {}, {"per_node": 1}, 1),
    ("Only <maxNoOfPodsToEvictPerNamespace> number of Pods not tolerating node taint should be evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p5", "n1"), pod("p6", "n1")], {}, {}, {"per_ns": 1}, 1),
    ("Only <maxNoOfPodsToEvictPerNamespace> number of Pods not tolerating node taint should be evicted (2)",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p5", "n1"), pod("p6", "n1")], {}, {}, {"per_ns": 1}, 1),
    ("Critical pods not tolerating node taint should not be evicted",
     [N2, pod("p7", "n2", namespace="kube-system", priority=SYSTEM_CRITICAL), pod("p8", "n2", owner="DaemonSet"),
      pod("p9", "n2", volumes=LOCAL), pod("p10", "n2", annotations=MIRROR)], {}, {}, {}, 0),
    ("Critical pods except storage pods not tolerating node taint should not be evicted",
     [N2, pod("p7", "n2", namespace="kube-system", priority=SYSTEM_CRITICAL), pod("p8", "n2", owner="DaemonSet"),
      pod("p9", "n2", volumes=LOCAL), pod("p10", "n2", annotations=MIRROR)], {}, {"evictLocalStoragePods": True}, {}, 1),
    ("Critical and non critical pods, only non critical pods not tolerating node taint should be evicted",
     [N2, pod("p7", "n2", namespace="kube-system", priority=SYSTEM_CRITICAL), pod("p8", "n2", owner="DaemonSet"),
      pod("p10", "n2", annotations=MIRROR), pod("p11", "n2")], {}, {}, {}, 1),
    ("Critical and non critical pods, pods not tolerating node taint should be evicted even if they are critical",
     [N1, N2, pod("p2", "n1"), pod("p7", "n2", namespace="kube-system", priority=SYSTEM_CRITICAL),
      pod("p9", "n2", volumes=LOCAL), pod("p10", "n2", annotations=MIRROR)], {}, {"evictSystemCriticalPods": True}, {}, 2),
    ("Pod p2 doesn't tolerate taint on it's node, but also doesn't tolerate taints on other nodes",
     [N1, N2, pod("p1", "n1", tolerations=[TOL1]), pod("p2", "n1"), pod("p3", "n1", tolerations=[TOL1])], {}, {"nodeFit": True}, {}, 0),
    ("Pod p12 doesn't tolerate taint on it's node, but other nodes don't match it's selector",
     [N1, node("n3", labels=EAST), pod("p1", "n1", tolerations=[TOL1]), pod("p3", "n1", tolerations=[TOL1]),
      pod("p11", "n2", node_selector={"datacenter": "west"})], {}, {"nodeFit": True}, {}, 0),
    ("Pod p2 doesn't tolerate taint on it's node, but other nodes are unschedulable",
     [N1, node("n4", unschedulable=True), pod("p1", "n1", tolerations=[TOL1]), pod("p2", "n1"), pod("p3", "n1", tolerations=[TOL1])],
     {}, {"nodeFit": True}, {}, 0),
    ("Pods not tolerating PreferNoSchedule node taint should not be evicted when not enabled",
     [N5, pod("p13", "n5", tolerations=[tol("testTaint0", "test0", "PreferNoSchedule")])], {}, {}, {}, 0),
    ("Pods not tolerating PreferNoSchedule node taint should be evicted when enabled",
     [N5, pod("p13", "n5", tolerations=[tol("testTaint0", "test0", "PreferNoSchedule")])], {"includePreferNoSchedule": True}, {}, {}, 1),
    ("Pods not tolerating excluded node taints (by key) should not be evicted",
     [N1, pod("p2", "n1")], {"excludedTaints": ["excludedTaint1", "testTaint1"]}, {}, {}, 0),
    ("Pods not tolerating excluded node taints (by key and value) should not be evicted",
     [N1, pod("p2", "n1")], {"excludedTaints": ["testTaint1=test1"]}, {}, {}, 0),
    ("The excluded taint matches the key of node1's taint, but does not match the value",
     [N1, pod("p2", "n1")], {"excludedTaints": ["testTaint1=test2"]}, {}, {}, 1),
    ("Critical and non critical pods, pods not tolerating node taint can't be evicted because the only available node does not have enough resources.",
     [N1, node("n6", [taint("testTaint1", "test1", "PreferNoSchedule")], cpu="1m", memory="1", pods="1"), pod("p2", "n1"),
      pod("p7", "n2", namespace="kube-system", priority=SYSTEM_CRITICAL), pod("p9", "n2", volumes=LOCAL), pod("p10", "n2", annotations=MIRROR)],
     {}, {"evictSystemCriticalPods": True, "nodeFit": True}, {}, 0),
    ("Pods tolerating included taints should not get evicted even with other taints present",
     [N7, pod("p1", "n1", tolerations=[TOL1])], {"includedTaints": ["testTaint1=test1"]}, {}, {}, 0),
    ("Pods not tolerating not included taints should not get evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p2", "n1"), pod("p4", "n1", tolerations=[TOLX])],
     {"includedTaints": ["testTaint2=test2"]}, {}, {}, 0),
    ("Pods tolerating includedTaint should not get evicted. Pods not tolerating includedTaints should get evicted",
     [N1, pod("p1", "n1", tolerations=[TOL1]), pod("p2", "n1"), pod("p3", "n1", tolerations=[TOL1])],
     {"includedTaints": ["testTaint1=test1"]}, {}, {}, 1),
    ("Pods not tolerating all taints are evicted when includedTaints is empty",
     [N7, pod("p14", "n7", tolerations=[TOL1]), pod("p15", "n7", tolerations=[TOL1, tol("testingTaint1", "testing1")])], {}, {}, {}, 1),
]


@pytest.mark.parametrize("description,docs,args,evictor,limits,expected", TAINTS, ids=[c[0][:60] for c in TAINTS])
def test_remove_pods_violating_node_taints(description, docs, args, evictor, limits, expected):
    evicted = run_plugin("RemovePodsViolatingNodeTaints", docs, args, evictor, **limits)
    assert len(evicted) == expected


def test_pod_life_time_evicts_old_pods_only():
    """pod_lifetime_test.go: "Two pods in the `dev` Namespace, 1 is new and 1 very is old. 1 should be evicted." """
    docs = [node("n1"), node("n2"), pod("p1", "n1", created=0), pod("p2", "n1", created=1000)]
    assert run_plugin("PodLifeTime", docs, {"maxPodLifeTimeSeconds": 600}, now=1200) == ["p1"]


def test_pod_life_time_states():
    """pod_lifetime_test.go: "1 pod matching label selector should be evicted" by states (Pending)."""
    docs = [node("n1"), pod("p1", "n1", phase="Pending"), pod("p2", "n1", phase="Running")]
    assert run_plugin("PodLifeTime", docs, {"states": ["Pending"]}) == ["p1"]


def test_too_many_restarts_threshold():
    """toomanyrestarts_test.go: "some pods have total restarts bigger than threshold" (threshold 1, pods with 0..)."""
    docs = [node("n1"), pod("p0", "n1", restarts=0), pod("p1", "n1", restarts=5), pod("p2", "n1", restarts=30)]
    assert run_plugin("RemovePodsHavingTooManyRestarts", docs, {"podRestartThreshold": 5}) == ["p2", "p1"]


def test_failed_pods_min_lifetime():
    """failedpods_test.go: "1 container terminated with reason NodeAffinity, 1 pod" with and without minPodLifetimeSeconds."""
    failed = pod("p1", "n1", phase="Failed", created=0, status={"reason": "NodeAffinity"})
    docs = [node("n1"), failed, pod("p2", "n1")]
    assert run_plugin("RemoveFailedPods", docs, {"minPodLifetimeSeconds": 3600}, now=100) == []
    assert run_plugin("RemoveFailedPods", docs, {"minPodLifetimeSeconds": 3600, "reasons": ["NodeAffinity"]}, now=4000) == ["p1"]


def test_remove_duplicates_two_nodes():
    """removeduplicates_test.go: "Three pods in the `dev` Namespace, bound to same ReplicaSet. 1 should be evicted." """
    docs = [node("n1"), node("n2"), pod("p1", "n1"), pod("p2", "n1"), pod("p3", "n1")]
    assert run_plugin("RemoveDuplicates", docs) == ["p3"]


def test_remove_duplicates_one_feasible_node():
    """removeduplicates_test.go: fewer than two nodes the pods could land on: nothing is evicted."""
    docs = [node("n1"), node("n2", [T1]), pod("p1", "n1"), pod("p2", "n1"), pod("p3", "n1")]
    assert run_plugin("RemoveDuplicates", docs) == []


def test_policy_validation_messages():
    base = {"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy"}
    with pytest.raises(DeschedulerPolicyError) as exc:
        load_policy_v2({**base, "profiles": [{"name": "p", "pluginConfig": [{"name": "Nope", "args": {}}]}]})
    assert str(exc.value) == "in profile p: plugin Nope in pluginConfig not registered"
    with pytest.raises(DeschedulerPolicyError) as exc:
        load_policy_v2({**base, "profiles": [{"name": "p", "pluginConfig": [
            {"name": "RemovePodsHavingTooManyRestarts", "args": {"podRestartThreshold": 0}},
            {"name": "RemovePodsViolatingNodeAffinity", "args": {}}]}]})
    assert str(exc.value) == ("[in profile p: invalid PodsHavingTooManyRestarts threshold, "
                              "in profile p: nodeAffinityType needs to be set]")
    with pytest.raises(DeschedulerPolicyError) as exc:
        load_policy_v2({**base, "profiles": [{"name": "p", "pluginConfig": [
            {"name": "DefaultEvictor", "args": {"priorityThreshold": {"name": "x", "value": 1}}}]}]})
    assert str(exc.value) == "in profile p: priority threshold misconfigured, only one of priorityThreshold fields can be set"
    policy = load_policy_v2({**base, "profiles": [{"name": "p", "plugins": {"deschedule": {"enabled": ["RemovePodsViolatingNodeTaints"]}}}]})
    assert policy.profiles[0].enabled("filter") == ("DefaultEvictor",)
    assert policy.profiles[0].enabled("preevictionfilter") == ("DefaultEvictor",)


def test_cycle_events_and_skip():
    policy = {"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy", "metadata": {"name": "pol"},
              "profiles": [{"name": "taints", "pluginConfig": [{"name": "RemovePodsViolatingNodeTaints", "args": {}}],
                            "plugins": {"deschedule": {"enabled": ["RemovePodsViolatingNodeTaints"]}}}]}
    docs = [N1, node("n2"), pod("p2", "n1")]
    report = run_cycle(Store(docs), 0.0, policy)
    events = [(e.reason, e.name, e.message) for e in report.actions if type(e).__name__ == "RecordEvent"]
    assert ("Descheduled", "p2", "pod eviction from n1 node by sigs.k8s.io/descheduler (RemovePodsViolatingNodeTaints)") in events
    assert events[-1] == ("DeschedulerRun", "pol", "1 pods evicted")
    dry = run_cycle(Store(docs), 0.0, policy, dry_run=True)
    assert [e.reason for e in dry.actions if type(e).__name__ == "RecordEvent"] == ["DeschedulerRun"]
    assert dry.message == "would evict 1 pods"
    single = run_cycle(Store([N1, pod("p2", "n1")]), 0.0, policy)
    assert single.message == "Skipping descheduling cycle: requires >=2 nodes" and not single.planned


def test_eviction_failure_events_when_asked():
    """evictionFailureEventNotification: a Warning EvictionFailed names the limit (evictions.go)."""
    policy = {"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy", "metadata": {"name": "pol"},
              "maxNoOfPodsToEvictTotal": 1, "evictionFailureEventNotification": True,
              "profiles": [{"name": "taints", "pluginConfig": [{"name": "RemovePodsViolatingNodeTaints", "args": {}}],
                            "plugins": {"deschedule": {"enabled": ["RemovePodsViolatingNodeTaints"]}}}]}
    docs = [N1, node("n2"), pod("p2", "n1"), pod("p3", "n1")]
    report = run_cycle(Store(docs), 0.0, policy)
    events = [(e.type, e.reason, e.name, e.message) for e in report.actions if type(e).__name__ == "RecordEvent"]
    assert ("Warning", "EvictionFailed", "p3",
            "pod eviction from n1 node by sigs.k8s.io/descheduler failed: total eviction limit exceeded (1)") in events
    quiet = run_cycle(Store(docs), 0.0, {**policy, "evictionFailureEventNotification": False})
    assert "EvictionFailed" not in [e.reason for e in quiet.actions if type(e).__name__ == "RecordEvent"]


# --- defaultevictor/validation_test.go TestValidateDefaultEvictorArgs (all 18 cases) -----------------------------------

PP = "podProtections"
EXTRA_OPTS = "[PodsWithPVC PodsWithoutPDB PodsWithResourceClaims]"
DEFAULT_OPTS = "[PodsWithLocalStorage SystemCriticalPods FailedBarePods DaemonSetPods]"
EVICTOR_VALIDATION = [
    ("passing invalid priority", {"priorityThreshold": {"value": 1, "name": "priority-name"}},
     "priority threshold misconfigured, only one of priorityThreshold fields can be set"),
    ("passing invalid no eviction policy", {"noEvictionPolicy": "invalid-no-eviction-policy"},
     'noEvictionPolicy accepts only ["Preferred" "Mandatory"] values'),
    ("Valid configuration with no deprecated fields", {PP: {"defaultDisabled": [], "extraEnabled": []}}, None),
    ("Valid configuration: both Disabled and ExtraEnabled",
     {PP: {"defaultDisabled": ["DaemonSetPods", "PodsWithLocalStorage"], "extraEnabled": ["PodsWithPVC"]}}, None),
    ("Valid configuration with ExtraEnabled", {PP: {"extraEnabled": ["PodsWithPVC"]}}, None),
    ("Invalid configuration: Deprecated field used with Disabled", {"evictLocalStoragePods": True, PP: {"defaultDisabled": ["DaemonSetPods"]}},
     "cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled"),
    ("Invalid configuration: Deprecated field used with ExtraPodProtections", {"evictDaemonSetPods": True, PP: {"extraEnabled": ["PodsWithPVC"]}},
     "cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled"),
    ("MinReplicas warning logged but no error", {"minReplicas": 1}, None),
    ("Invalid ExtraEnabled: Unknown policy", {PP: {"extraEnabled": ["InvalidPolicy"]}},
     f'invalid pod protection policy in ExtraEnabled: "InvalidPolicy". Valid options are: {EXTRA_OPTS}'),
    ("Invalid ExtraEnabled: Misspelled policy", {PP: {"extraEnabled": ["PodsWithPVCC"]}},
     f'invalid pod protection policy in ExtraEnabled: "PodsWithPVCC". Valid options are: {EXTRA_OPTS}'),
    ("Invalid ExtraEnabled: Policy from DefaultDisabled list", {PP: {"extraEnabled": ["DaemonSetPods"]}},
     f'invalid pod protection policy in ExtraEnabled: "DaemonSetPods". Valid options are: {EXTRA_OPTS}'),
    ("Invalid DefaultDisabled: Unknown policy", {PP: {"defaultDisabled": ["InvalidPolicy"]}},
     f'invalid pod protection policy in DefaultDisabled: "InvalidPolicy". Valid options are: {DEFAULT_OPTS}'),
    ("Invalid DefaultDisabled: Misspelled policy", {PP: {"defaultDisabled": ["PodsWithLocalStorag"]}},
     f'invalid pod protection policy in DefaultDisabled: "PodsWithLocalStorag". Valid options are: {DEFAULT_OPTS}'),
    ("Invalid DefaultDisabled: Policy from ExtraEnabled list", {PP: {"defaultDisabled": ["PodsWithPVC"]}},
     f'invalid pod protection policy in DefaultDisabled: "PodsWithPVC". Valid options are: {DEFAULT_OPTS}'),
    ("Invalid ExtraEnabled duplicate", {PP: {"extraEnabled": ["PodsWithPVC", "PodsWithPVC"]}},
     "PodProtections.ExtraEnabled contains duplicate entries"),
    ("Invalid DefaultDisabled duplicate", {PP: {"defaultDisabled": ["PodsWithLocalStorage", "PodsWithLocalStorage"]}},
     "PodProtections.DefaultDisabled contains duplicate entries"),
    ("Invalid DefaultDisabled duplicate and Invalid ExtraEnabled duplicate and passing invalid no eviction policy",
     {"noEvictionPolicy": "invalid-no-eviction-policy",
      PP: {"extraEnabled": ["PodsWithPVC", "PodsWithPVC"], "defaultDisabled": ["PodsWithLocalStorage", "PodsWithLocalStorage", "PodsWithoutPDB"]}},
     '[noEvictionPolicy accepts only ["Preferred" "Mandatory"] values, invalid pod protection policy in DefaultDisabled: "PodsWithoutPDB". '
     f'Valid options are: {DEFAULT_OPTS}, PodProtections.DefaultDisabled contains duplicate entries, '
     'PodProtections.ExtraEnabled contains duplicate entries]'),
    ("Protected storage classes without storage class name",
     {PP: {"extraEnabled": ["PodsWithPVC"], "config": {"PodsWithPVC": {"protectedStorageClasses": [
         {"name": ""}, {"name": "protected-storage-class-0"}, {"name": ""}, {"name": "protected-storage-class-1"}]}}}},
     "[PodProtections.Config.PodsWithPVC.ProtectedStorageClasses[0] name cannot be empty, "
     "PodProtections.Config.PodsWithPVC.ProtectedStorageClasses[2] name cannot be empty]"),
]


@pytest.mark.parametrize("name,args,message", EVICTOR_VALIDATION, ids=[c[0][:70] for c in EVICTOR_VALIDATION])
def test_validate_default_evictor_args(name, args, message):
    from scheduling.engine.controllers.descheduler_v1alpha2.policy import aggregate, default_and_validate
    _, errs = default_and_validate("DefaultEvictor", args)
    assert (aggregate(errs) if errs else None) == message
