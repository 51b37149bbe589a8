"""Deschedule plugins' tables translated from sigs.k8s.io/descheduler:

* removepodshavingtoomanyrestarts/toomanyrestarts_test.go TestRemovePodsHavingTooManyRestarts:
  all 20 cases;
* removefailedpods/failedpods_test.go TestRemoveFailedPods: all 25 cases.
"""

from __future__ import annotations

import pytest

from .descheduler_v1alpha2_builders import (
    build_test_node,
    build_test_pod,
    chain,
    run_plugin,
    set_ds_owner_ref,
    set_host_path_empty_dir_volume_source,
    set_mirror_pod_annotation,
    set_normal_owner_ref,
    set_rs_owner_ref,
)

# --- RemovePodsHavingTooManyRestarts ---------------------------------------------------------


def node(name, apply=None):
    return build_test_node(name, 2000, 3000, 10, apply)


def restart_counts(base: int):
    def apply(pod):
        pod["status"] = {"initContainerStatuses": [{"restartCount": 5 * base}],
                         "containerStatuses": [{"restartCount": 10 * base}, {"restartCount": 10 * base}]}
    return apply


def init_pods(apply=None) -> list[dict]:
    """initPods: pod-0..pod-9 on node1 (restarts 25*i with init containers, 20*i without);
    pod-6 a DaemonSet pod, pod-7 with local storage, pod-8 a mirror pod; two CPU consumers
    on node4 and node5."""
    pods = []
    for i in range(10):
        extra = {6: set_ds_owner_ref, 7: chain(set_normal_owner_ref, set_host_path_empty_dir_volume_source),
                 8: set_mirror_pod_annotation}.get(i)
        pods.append(build_test_pod(f"pod-{i}", 100, 0, "node1", chain(set_normal_owner_ref, restart_counts(i), extra, apply)))
    pods.append(build_test_pod("CPU-consumer-1", 150, 100, "node4", set_normal_owner_ref))
    pods.append(build_test_pod("CPU-consumer-2", 150, 100, "node5", set_normal_owner_ref))
    return pods


def gpu_taint(n):
    n["spec"]["taints"] = [{"key": "hardware", "value": "gpu", "effect": "NoSchedule"}]


def unschedulable(n):
    n["spec"] = {"unschedulable": True}


def crash_loop(pod):
    statuses = pod["status"].get("containerStatuses") or []
    if statuses:
        statuses[0]["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}


def phase(value):
    def apply(pod):
        pod["status"]["phase"] = value
    return apply


def init_crash_loop(pod):
    pod["status"]["initContainerStatuses"] = [{"state": {"waiting": {"reason": "CrashLoopBackOff"}}}]


def args(threshold, init, states=None):
    out = {"podRestartThreshold": threshold, "includingInitContainers": init}
    if states:
        out["states"] = states
    return out


RESTARTS = [
    ("All pods have total restarts under threshold, no pod evictions", args(10000, True), None, [node("node1")], 0, {}, False),
    ("Some pods have total restarts bigger than threshold", args(1, True), None, [node("node1")], 6, {}, False),
    ("Nine pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", args(25, True), None, [node("node1")], 6, {}, False),
    ("Nine pods have total restarts equals threshold(includingInitContainers=false), 5 pod evictions", args(25, False), None, [node("node1")], 5, {}, False),
    ("All pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", args(20, True), None, [node("node1")], 6, {}, False),
    ("Nine pods have total restarts equals threshold(includingInitContainers=false), 6 pod evictions", args(20, False), None, [node("node1")], 6, {}, False),
    ("Five pods have total restarts bigger than threshold(includingInitContainers=true), but only 1 pod eviction", args(5 * 25 + 1, True), None, [node("node1")], 1, {}, False),
    ("Five pods have total restarts bigger than threshold(includingInitContainers=false), but only 1 pod eviction", args(5 * 20 + 1, False), None, [node("node1")], 1, {}, False),
    ("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3), 3 pod evictions", args(1, True), None, [node("node1")], 3, {"max_per_node": 3}, False),
    ("All pods have total restarts equals threshold(maxNoOfPodsToEvictPerNamespace=3), 3 pod evictions", args(1, True), None, [node("node1")], 3, {"max_per_namespace": 3}, False),
    ("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is tainted, 0 pod evictions",
     args(1, True), None, [node("node1"), node("node2", gpu_taint)], 0, {"max_per_node": 3}, True),
    ("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is not schedulable, 0 pod evictions",
     args(1, True), None, [node("node1"), node("node3", unschedulable)], 0, {"max_per_node": 3}, True),
    ("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node does not have enough CPU, 0 pod evictions",
     args(1, True), None, [node("node1"), build_test_node("node4", 200, 3000, 10)], 0, {"max_per_node": 3}, True),
    ("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node has enough CPU, 3 pod evictions",
     args(1, True), None, [node("node1"), node("node5")], 3, {"max_per_node": 3}, True),
    ("pods are in CrashLoopBackOff with states=CrashLoopBackOff, 3 pod evictions",
     args(1, False, ["CrashLoopBackOff"]), crash_loop, [node("node1"), node("node5")], 3, {"max_per_node": 3}, True),
    ("pods without CrashLoopBackOff with states=CrashLoopBackOff, 0 pod evictions",
     args(1, False, ["CrashLoopBackOff"]), None, [node("node1"), node("node5")], 0, {"max_per_node": 3}, True),
    ("pods running with state=Running, 3 pod evictions", args(1, False, ["Running"]), phase("Running"), [node("node1")], 3, {"max_per_node": 3}, False),
    ("pods pending with state=Running, 0 pod evictions", args(1, False, ["Running"]), phase("Pending"), [node("node1")], 0, {"max_per_node": 3}, False),
    ("pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=true), 3 pod evictions",
     args(1, True, ["CrashLoopBackOff"]), init_crash_loop, [node("node1")], 3, {"max_per_node": 3}, False),
    ("pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=false), 0 pod evictions",
     args(1, False, ["CrashLoopBackOff"]), init_crash_loop, [node("node1")], 0, {"max_per_node": 3}, False),
]


@pytest.mark.parametrize("description,plugin_args,apply,nodes,expected,limits,node_fit", RESTARTS, ids=[c[0][:70] for c in RESTARTS])
def test_remove_pods_having_too_many_restarts(description, plugin_args, apply, nodes, expected, limits, node_fit):
    evicted = run_plugin("RemovePodsHavingTooManyRestarts", nodes, init_pods(apply), plugin_args,
                         evictor={"nodeFit": node_fit}, **limits)
    assert len(evicted) == expected


# --- RemoveFailedPods -----------------------------------------------------------------------------

NOW = 10_000.0  # metav1.Now() in the upstream test: the pods are created now


def status(reason="", phase_="", init=None, container=None) -> dict:
    """newPodStatus."""
    ps: dict = {"reason": reason, "phase": phase_}
    if init is not None:
        ps["initContainerStatuses"] = [{"state": init}]
        ps["phase"] = "Failed"
    if container is not None:
        ps["containerStatuses"] = [{"state": container}]
        ps["phase"] = "Failed"
    return ps


def failed_pod(name, node_name, st, deletion=None) -> dict:
    """buildTestPod of failedpods_test.go: a ReplicaSet's pod created now."""
    def apply(pod):
        pod["status"] = st
    pod = build_test_pod(name, 1, 1, node_name, apply)
    set_rs_owner_ref(pod)
    pod["metadata"]["creationTimestamp"] = NOW
    if deletion is not None:
        pod["metadata"]["deletionTimestamp"] = deletion
    return pod


def fargs(init=False, reasons=None, exit_codes=None, exclude_kinds=None, min_age=None) -> dict:
    out: dict = {"includingInitContainers": init}
    if reasons is not None:
        out["reasons"] = reasons
    if exit_codes is not None:
        out["exitCodes"] = exit_codes
    if exclude_kinds is not None:
        out["excludeOwnerKinds"] = exclude_kinds
    if min_age is not None:
        out["minPodLifetimeSeconds"] = min_age
    return out


N1 = build_test_node("node1", 2000, 3000, 10)
N2 = build_test_node("node2", 2000, 3000, 10)
TERM_NA = {"terminated": {"reason": "NodeAffinity"}}
TERM_CCCE = {"terminated": {"reason": "CreateContainerConfigError"}}
WAIT_CCCE = {"waiting": {"reason": "CreateContainerConfigError"}}


def exit_code(code, reason=None):
    t = {"exitCode": code}
    if reason:
        t["reason"] = reason
    return {"terminated": t}


def unsched_node2(n):
    n["spec"]["unschedulable"] = True


FAILED = [
    ("default empty args, 0 failures, 0 evictions", {}, [N1], [], 0, False),
    ("0 failures, 0 evictions", fargs(), [N1], [], 0, False),
    ("1 container terminated with reason NodeAffinity, 1 eviction", fargs(), [N1],
     [failed_pod("p1", "node1", status(container=TERM_NA))], 1, False),
    ("1 container terminated with exitCode 1, 1 eviction", fargs(exit_codes=[1]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(1)))], 1, False),
    ("1 container terminated with exitCode 1, reason NodeAffinity, 1 eviction", fargs(exit_codes=[1]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(1, "NodeAffinity")))], 1, False),
    ("1 container terminated with exitCode 1, expected exitCode 2, 0 eviction", fargs(exit_codes=[2]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(1)))], 0, False),
    ("2 containers terminated with exitCode 1 and 2 respectively, 2 evictions", fargs(exit_codes=[1, 2, 3]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(1))), failed_pod("p2", "node1", status(container=exit_code(2)))], 2, False),
    ("2 containers terminated with exitCode 1 and 2 respectively, expected exitCode 1, 1 eviction", fargs(exit_codes=[1]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(1))), failed_pod("p2", "node1", status(container=exit_code(2)))], 1, False),
    ("1 init container terminated with reason NodeAffinity, 1 eviction", fargs(init=True), [N1],
     [failed_pod("p1", "node1", status(init=TERM_NA))], 1, False),
    ("1 init container terminated with exitCode 1, 1 eviction", fargs(init=True, exit_codes=[1]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(1)))], 1, False),
    ("1 init container terminated with exitCode 2, expected 1, 0 eviction", fargs(init=True, exit_codes=[1]), [N1],
     [failed_pod("p1", "node1", status(container=exit_code(2)))], 0, False),
    ("1 init container waiting with reason CreateContainerConfigError, 1 eviction", fargs(init=True), [N1],
     [failed_pod("p1", "node1", status(init=WAIT_CCCE))], 1, False),
    ("2 init container waiting with reason CreateContainerConfigError, 2 nodes, 2 evictions", fargs(init=True), [N1, N2],
     [failed_pod("p1", "node1", status(init=TERM_CCCE)), failed_pod("p2", "node2", status(init=TERM_CCCE))], 2, False),
    ("include reason=CreateContainerConfigError, 1 container terminated with reason CreateContainerConfigError, 1 eviction",
     fargs(reasons=["CreateContainerConfigError"]), [N1], [failed_pod("p1", "node1", status(container=TERM_CCCE))], 1, False),
    ("include reason=CreateContainerConfigError+NodeAffinity, 1 container terminated with reason CreateContainerConfigError, 1 eviction",
     fargs(reasons=["CreateContainerConfigError", "NodeAffinity"]), [N1], [failed_pod("p1", "node1", status(container=TERM_CCCE))], 1, False),
    ("include reason=CreateContainerConfigError, 1 container terminated with reason NodeAffinity, 0 eviction",
     fargs(reasons=["CreateContainerConfigError"]), [N1], [failed_pod("p1", "node1", status(container=TERM_NA))], 0, False),
    ("include init container=false, 1 init container waiting with reason CreateContainerConfigError, 0 eviction",
     fargs(reasons=["CreateContainerConfigError"]), [N1], [failed_pod("p1", "node1", status(init=WAIT_CCCE))], 0, False),
    ("lifetime 1 hour, 1 container terminated with reason NodeAffinity, 0 eviction", fargs(min_age=3600), [N1],
     [failed_pod("p1", "node1", status(container=TERM_NA))], 0, False),
    ("nodeFit=true, 1 unschedulable node, 1 container terminated with reason NodeAffinity, 0 eviction", fargs(),
     [N1, build_test_node("node2", 2000, 2000, 10, unsched_node2)], [failed_pod("p1", "node1", status(container=TERM_NA))], 0, True),
    ("nodeFit=true, only available node does not have enough resources, 1 container terminated with reason CreateContainerConfigError, 0 eviction",
     fargs(reasons=["CreateContainerConfigError"]), [build_test_node("node1", 1, 1, 10), build_test_node("node2", 0, 0, 10)],
     [failed_pod("p1", "node1", status(container=TERM_CCCE))], 0, True),
    ("excluded owner kind=ReplicaSet, 1 init container terminated with owner kind=ReplicaSet, 0 eviction",
     fargs(init=True, exclude_kinds=["ReplicaSet"]), [N1], [failed_pod("p1", "node1", status(init=TERM_NA))], 0, False),
    ("excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 eviction",
     fargs(init=True, exclude_kinds=["DaemonSet"]), [N1], [failed_pod("p1", "node1", status(init=TERM_NA))], 1, False),
    ("excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 pod in termination; nothing should be moved",
     fargs(init=True, exclude_kinds=["DaemonSet"]), [N1], [failed_pod("p1", "node1", status(init=TERM_NA), deletion=0)], 0, False),
    ("1 container terminated with reason ShutDown, 0 evictions", fargs(), [N1],
     [failed_pod("p1", "node1", status("Shutdown", "Failed"))], 0, True),
    ("include reason=Shutdown, 2 containers terminated with reason ShutDown, 2 evictions", fargs(reasons=["Shutdown"]), [N1],
     [failed_pod("p1", "node1", status("Shutdown", "Failed")), failed_pod("p2", "node1", status("Shutdown", "Failed"))], 2, False),
]


@pytest.mark.parametrize("description,plugin_args,nodes,pods,expected,node_fit", FAILED, ids=[c[0][:70] for c in FAILED])
def test_remove_failed_pods(description, plugin_args, nodes, pods, expected, node_fit):
    evicted = run_plugin("RemoveFailedPods", nodes, pods, plugin_args, evictor={"nodeFit": node_fit}, now=NOW)
    assert len(evicted) == expected
