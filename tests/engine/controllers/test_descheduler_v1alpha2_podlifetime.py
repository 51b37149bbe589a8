"""PodLifeTime, translated from sigs.k8s.io/descheduler
pkg/framework/plugins/podlifetime/pod_lifetime_test.go: every case of TestPodLifeTime (1),
_EvictorConfiguration (2), _GenericFiltering (1), _EvictionLimits (4),
_ContainerWaitingReasons (13), _PodStatusReasons (4), _AgeThreshold (4), _PodPhaseStates (4),
TestStatesWithTerminatedReasons (4), TestConditionFiltering (3), TestTransitionTimeFiltering
(4), TestOwnerKindsFiltering (3), TestStatesWithEphemeralContainers (2),
TestExitCodesFiltering (2), TestCombinedFilters (2): 53 cases. Times are simulated seconds:
"now" is NOW, the upstream olderPodCreationTime (2009) is 0."""

from __future__ import annotations

import pytest

from .descheduler_v1alpha2_builders import build_test_node, build_test_pod, chain, run_plugin, set_rs_owner_ref

NOW = 1_000_000_000.0
OLDER, NEWER = 0.0, NOW
OLD_TRANSITION, NEW_TRANSITION = NOW - 7200, NOW - 60
NODE1 = build_test_node("n1", 2000, 3000, 10)
NODE = build_test_node("node1", 2000, 3000, 10)


def created(t):
    def apply(pod):
        pod["metadata"]["creationTimestamp"] = t
    return apply


def for_node1(name, t, apply=None):
    """buildTestPodForNode1."""
    return build_test_pod(name, 100, 0, "n1", chain(created(t), apply))


def rs_node1(name, t, apply=None):
    """buildTestPodWithRSOwnerRefForNode1."""
    return for_node1(name, t, chain(set_rs_owner_ref, apply))


def pending_rs_node1(name, t, apply=None):
    """buildTestPodWithRSOwnerRefWithPendingPhaseForNode1."""
    return rs_node1(name, t, chain(phase("Pending"), apply))


def build_pod(name, node_name, apply=None):
    """buildPod: a ReplicaSet's pod without creationTimestamp."""
    return build_test_pod(name, 1, 1, node_name, chain(set_rs_owner_ref, apply))


def phase(value):
    def apply(pod):
        pod["status"]["phase"] = value
    return apply


def status(**fields):
    def apply(pod):
        pod["status"].update(fields)
    return apply


def owner_job(pod):
    pod["metadata"]["ownerReferences"] = [{"kind": "Job", "name": "job1", "apiVersion": "batch/v1"}]


def terminating(pod):
    pod["metadata"]["deletionTimestamp"] = 0


def labels(**kv):
    def apply(pod):
        pod["metadata"]["labels"] = dict(kv)
    return apply


def pvc(pod):
    pod["spec"]["volumes"] = [{"name": "pvc", "persistentVolumeClaim": {"claimName": "foo"}}]


def waiting(reason):
    return [{"state": {"waiting": {"reason": reason}}}]


def terminated(**t):
    return [{"state": {"terminated": dict(t)}}]


def stuck(name, reason):
    return build_test_pod(name, 0, 0, "n1", chain(status(containerStatuses=waiting(reason)), set_rs_owner_ref, created(OLDER)))


def cond(type_, status_="", reason="", t=None):
    c = {"type": type_, "status": status_, "reason": reason}
    if t is not None:
        c["lastTransitionTime"] = t
    return c


LIFE = {"maxPodLifeTimeSeconds": 600}


def life(**kw):
    return {**LIFE, **kw}


CASES = [
    # TestPodLifeTime
    ("No pod should be evicted since pod terminating", life(labelSelector={"matchLabels": {"foo": "bar"}}),
     [rs_node1("p14", OLDER, terminating), rs_node1("p15", OLDER, terminating)], [NODE1], 0, None, {}),
    # _EvictorConfiguration
    ("Does not evict pvc pods with ignorePvcPods set to true", life(), [rs_node1("p11", OLDER, pvc)], [NODE1], 0, None,
     {"evictor": {"ignorePvcPods": True}}),
    ("Evicts pvc pods with ignorePvcPods set to false (or unset)", life(), [rs_node1("p11", OLDER, pvc)], [NODE1], 1, None, {}),
    # _GenericFiltering
    ("1 pod matching label selector should be evicted", life(labelSelector={"matchLabels": {"foo": "bar"}}),
     [rs_node1("p12", OLDER, labels(foo="bar")), rs_node1("p13", OLDER, labels(foo="bar1"))], [NODE1], 1, ["p12"], {}),
    # _EvictionLimits
    ("2 Oldest pods should be evicted when maxPodsToEvictPerNode and maxPodsToEvictPerNamespace are not set", life(),
     [rs_node1("p1", NEWER), rs_node1("p2", OLDER), pending_rs_node1("p9", OLDER)], [NODE1], 2, ["p2", "p9"], {}),
    ("1 Oldest pod should be evicted when maxPodsToEvictPerNamespace is set to 1", life(),
     [rs_node1("p1", NEWER), rs_node1("p2", OLDER)], [NODE1], 1, ["p2"], {"max_per_namespace": 1}),
    ("1 Oldest pod should be evicted when maxPodsToEvictTotal is set to 1", life(),
     [rs_node1("p1", NEWER), rs_node1("p2", OLDER)], [NODE1], 1, ["p2"], {"max_per_namespace": 2, "max_total": 1}),
    ("1 Oldest pod should be evicted when maxPodsToEvictPerNode is set to 1", life(),
     [rs_node1("p1", NEWER), rs_node1("p2", OLDER)], [NODE1], 1, ["p2"], {"max_per_node": 1}),
    # _ContainerWaitingReasons
    ("Two pods, one with ContainerCreating state. 1 should be evicted.", life(states=["ContainerCreating"]),
     [pending_rs_node1("p9", OLDER), stuck("container-creating-stuck", "ContainerCreating")], [NODE1], 1, None, {}),
    ("Two pods, one with PodInitializing state. 1 should be evicted.", life(states=["PodInitializing"]),
     [pending_rs_node1("p9", OLDER), stuck("pod-initializing-stuck", "PodInitializing")], [NODE1], 1, None, {}),
    *[(f"1 pod with container status {r} should be evicted", life(states=[r]),
       [pending_rs_node1("p9", OLDER, status(containerStatuses=waiting(r)))], [NODE1], 1, None, {})
      for r in ("ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError", "ErrImagePull")],
    ("1 pod with init container status CreateContainerError should not be evicted without includingInitContainers",
     life(states=["CreateContainerError"]), [pending_rs_node1("p9", OLDER, status(initContainerStatuses=waiting("CreateContainerError")))],
     [NODE1], 0, None, {}),
    ("1 pod with init container status CreateContainerError should be evicted with includingInitContainers",
     life(states=["CreateContainerError"], includingInitContainers=True),
     [pending_rs_node1("p9", OLDER, status(initContainerStatuses=waiting("CreateContainerError")))], [NODE1], 1, None, {}),
    ("1 pod with ephemeral container status CreateContainerError should not be evicted without includingEphemeralContainers",
     life(states=["CreateContainerError"]), [pending_rs_node1("p9", OLDER, status(ephemeralContainerStatuses=waiting("CreateContainerError")))],
     [NODE1], 0, None, {}),
    ("1 pod with ephemeral container status CreateContainerError should be evicted with includingEphemeralContainers",
     life(states=["CreateContainerError"], includingEphemeralContainers=True),
     [pending_rs_node1("p9", OLDER, status(ephemeralContainerStatuses=waiting("CreateContainerError")))], [NODE1], 1, None, {}),
    *[(f"1 pod with container status {r} should be evicted", life(states=[r]),
       [pending_rs_node1("p9", OLDER, status(containerStatuses=waiting(r)))], [NODE1], 1, None, {})
      for r in ("CreateContainerError", "InvalidImageName")],
    ("1 pod with ImagePullBackOff status should be ignored when States filter is ContainerCreating", life(states=["ContainerCreating"]),
     [pending_rs_node1("p9", OLDER, status(containerStatuses=waiting("ImagePullBackOff")))], [NODE1], 0, None, {}),
    # _PodStatusReasons
    *[(f"1 pod with pod status reason {r} should be evicted", life(states=[r]),
       [pending_rs_node1("p9", OLDER, status(reason=r))], [NODE1], 1, None, {})
      for r in ("NodeLost", "NodeAffinity", "Shutdown", "UnexpectedAdmissionError")],
    # _AgeThreshold
    ("Two pods in the default namespace, 1 is new and 1 very is old. 1 should be evicted.", life(),
     [rs_node1("p1", NEWER), rs_node1("p2", OLDER)], [NODE1], 1, ["p2"], {}),
    ("Two pods in the default namespace, 2 are new and 0 are old. 0 should be evicted.", life(),
     [rs_node1("p3", NEWER), rs_node1("p4", NEWER)], [NODE1], 0, None, {}),
    ("Two pods in the default namespace, 1 created 605 seconds ago. 1 should be evicted.", life(),
     [rs_node1("p5", NEWER), rs_node1("p6", NOW - 605)], [NODE1], 1, ["p6"], {}),
    ("Two pods in the default namespace, 1 created 595 seconds ago. 0 should be evicted.", life(),
     [for_node1("p7", NEWER), for_node1("p8", NOW - 595)], [NODE1], 0, None, {}),
    # _PodPhaseStates
    ("Two old pods with different states. 1 should be evicted.", life(states=["Pending"]),
     [pending_rs_node1("p9", OLDER), rs_node1("p10", OLDER, phase("Running"))], [NODE1], 1, ["p9"], {}),
    *[(f"1 pod with pod status phase v1.Pod{p} should be evicted", life(states=[p]), [rs_node1("p16", OLDER, phase(p))], [NODE1], 1, None, {})
      for p in ("Succeeded", "Failed", "Unknown")],
    # TestStatesWithTerminatedReasons
    ("evict pod with matching terminated reason via states", {"states": ["NodeAffinity"]},
     [build_pod("p1", "node1", status(phase="Failed", containerStatuses=terminated(reason="NodeAffinity")))], [NODE], 1, None, {}),
    ("evict pod with matching pod status reason via states", {"states": ["Shutdown"]},
     [build_pod("p1", "node1", status(phase="Failed", reason="Shutdown"))], [NODE], 1, None, {}),
    ("states matches terminated reason on init container", {"states": ["CreateContainerConfigError"], "includingInitContainers": True},
     [build_pod("p1", "node1", status(initContainerStatuses=terminated(reason="CreateContainerConfigError")))], [NODE], 1, None, {}),
    ("states does not match terminated reason on init container without flag", {"states": ["CreateContainerConfigError"]},
     [build_pod("p1", "node1", status(initContainerStatuses=terminated(reason="CreateContainerConfigError")))], [NODE], 0, None, {}),
    # TestConditionFiltering
    ("evict pod with matching condition reason", {"conditions": [{"reason": "PodCompleted", "status": "True"}]},
     [build_pod("p1", "node1", status(conditions=[cond("Initialized", "True", "PodCompleted", OLD_TRANSITION)])),
      build_pod("p2", "node1", status(conditions=[cond("Initialized", "True", "OtherReason", OLD_TRANSITION)]))], [NODE], 1, ["p1"], {}),
    ("evict pod matching condition type only", {"conditions": [{"type": "Ready"}]},
     [build_pod("p1", "node1", status(conditions=[cond("Ready", "False", "", OLD_TRANSITION)]))], [NODE], 1, None, {}),
    ("no matching conditions, 0 evictions", {"conditions": [{"reason": "PodCompleted"}]},
     [build_pod("p1", "node1", status(conditions=[cond("Ready", "True", "SomethingElse")]))], [NODE], 0, None, {}),
    # TestTransitionTimeFiltering
    ("evict pod with old transition time",
     {"states": ["Succeeded"], "conditions": [{"reason": "PodCompleted", "status": "True", "minTimeSinceLastTransitionSeconds": 300}]},
     [build_pod("p1", "node1", status(phase="Succeeded", conditions=[cond("Initialized", "True", "PodCompleted", OLD_TRANSITION),
                                                                     cond("Ready", "False", "PodCompleted", OLD_TRANSITION)]))],
     [NODE], 1, ["p1"], {}),
    ("do not evict pod with recent transition time", {"states": ["Succeeded"], "conditions": [{"minTimeSinceLastTransitionSeconds": 14400}]},
     [build_pod("p1", "node1", status(phase="Succeeded", conditions=[cond("Ready", "False", "", NEW_TRANSITION)]))], [NODE], 0, None, {}),
    ("transition time scoped to matching conditions only", {"conditions": [{"reason": "PodCompleted", "minTimeSinceLastTransitionSeconds": 300}]},
     [build_pod("p1", "node1", status(conditions=[cond("Initialized", "", "PodCompleted", OLD_TRANSITION),
                                                  cond("Ready", "", "OtherReason", NEW_TRANSITION)]))], [NODE], 1, ["p1"], {}),
    ("no conditions on pod, transition time filter returns false", {"states": ["Running"], "conditions": [{"minTimeSinceLastTransitionSeconds": 300}]},
     [build_pod("p1", "node1", phase("Running"))], [NODE], 0, None, {}),
    # TestOwnerKindsFiltering
    ("exclude Job owner kind: Job-owned pod not evicted", {"states": ["Failed"], "ownerKinds": {"exclude": ["Job"]}},
     [build_pod("p1", "node1", chain(phase("Failed"), owner_job))], [NODE], 0, None, {}),
    ("exclude Job owner kind: non-Job pod still evicted", {"states": ["Failed"], "ownerKinds": {"exclude": ["Job"]}},
     [build_pod("p1", "node1", chain(phase("Failed"), owner_job)), build_pod("p2", "node1", phase("Failed"))], [NODE], 1, ["p2"], {}),
    ("include only Job owner kind", {"states": ["Failed"], "ownerKinds": {"include": ["Job"]}},
     [build_pod("p1", "node1", chain(phase("Failed"), owner_job)), build_pod("p2", "node1", phase("Failed"))], [NODE], 1, ["p1"], {}),
    # TestStatesWithEphemeralContainers
    ("states matches terminated reason on ephemeral container", {"states": ["OOMKilled"], "includingEphemeralContainers": True},
     [build_pod("p1", "node1", status(ephemeralContainerStatuses=terminated(reason="OOMKilled")))], [NODE], 1, None, {}),
    ("states does not match ephemeral container without flag", {"states": ["OOMKilled"]},
     [build_pod("p1", "node1", status(ephemeralContainerStatuses=terminated(reason="OOMKilled")))], [NODE], 0, None, {}),
    # TestExitCodesFiltering
    ("evict pod with matching exit code", {"states": ["Failed"], "exitCodes": [1]},
     [build_pod("p1", "node1", status(phase="Failed", containerStatuses=terminated(exitCode=1)))], [NODE], 1, None, {}),
    ("exit code not matched, 0 evictions", {"states": ["Failed"], "exitCodes": [2]},
     [build_pod("p1", "node1", status(phase="Failed", containerStatuses=terminated(exitCode=1)))], [NODE], 0, None, {}),
    # TestCombinedFilters
    ("user scenario: Succeeded + PodCompleted condition + transition time threshold",
     {"states": ["Succeeded"], "conditions": [{"reason": "PodCompleted", "status": "True", "minTimeSinceLastTransitionSeconds": 300}]},
     [build_pod("stale-completed", "node1", status(phase="Succeeded", conditions=[cond("Initialized", "True", "PodCompleted", OLD_TRANSITION),
                                                                                  cond("Ready", "False", "PodCompleted", OLD_TRANSITION)])),
      build_pod("recent-completed", "node1", status(phase="Succeeded", conditions=[cond("Initialized", "True", "PodCompleted", NEW_TRANSITION)])),
      build_pod("running-pod", "node1", phase("Running"))], [NODE], 1, ["stale-completed"], {}),
    ("failed pod removal compat: Failed + min age + exclude Job",
     {"states": ["Failed"], "maxPodLifeTimeSeconds": 0, "ownerKinds": {"exclude": ["Job"]}},
     [build_pod("failed-rs", "node1", status(phase="Failed", containerStatuses=terminated(reason="Error"))),
      build_pod("failed-job", "node1", chain(phase("Failed"), owner_job))], [NODE], 1, ["failed-rs"], {}),
]


@pytest.mark.parametrize("description,args,pods,nodes,expected,names,options", CASES, ids=[c[0][:80] for c in CASES])
def test_pod_life_time(description, args, pods, nodes, expected, names, options):
    options = dict(options)
    evictor = options.pop("evictor", {})
    evicted = run_plugin("PodLifeTime", nodes, pods, args, evictor=evictor, now=NOW, **options)
    assert len(evicted) == expected
    if names is not None:
        assert sorted(evicted) == sorted(names)
