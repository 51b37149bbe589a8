"""kubectl's printers against the cases of kubernetes pkg/printers/internalversion/printers_test.go
(TestPrintPod, TestPrintPodWithRestartableInitContainer, TestPrintPodwide, TestPrintPodConditions),
translated: the Go structs become the documents `oc get` reads, `time.Now().Add(-10s)` a time
ten seconds before the pinned clock. Then the printers that print what an object given
with -f holds and invent no defaults (PersistentVolume, PersistentVolumeClaim, Namespace,
PriorityClass, Service with its load balancer), and the namespaces a running cluster has."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.oc import printers
from scheduling.engine.oc.session import SESSION
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

NOW = 100_000.0
DAY = 86_400


def running(ready=False, restarts=0, finished=None, **extra):
    s = {"ready": ready, "restartCount": restarts, "state": {"running": {}}, **extra}
    if finished is not None:
        s["lastState"] = {"terminated": {"finishedAt": NOW - finished}}
    return s


def waiting(reason="", restarts=0, ready=False, **extra):
    return {"ready": ready, "restartCount": restarts, "state": {"waiting": {"reason": reason} if reason else {}}, **extra}


def terminated(reason="", exit_code=0, restarts=0, finished=None, ready=False, **extra):
    state = {"exitCode": exit_code}
    if reason:
        state["reason"] = reason
    s = {"ready": ready, "restartCount": restarts, "state": {"terminated": state}, **extra}
    if finished is not None:
        s["lastState"] = {"terminated": {"finishedAt": NOW - finished}}
    return s


def pod(name, containers=1, init=0, sidecars=(), phase=None, reason=None, statuses=None, init_statuses=None,
        conditions=None, deleted=False, **spec):
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"containers": [{"name": ""} for _ in range(containers)], **spec}, "status": {}}
    init_specs = [{"name": ""} for _ in range(init)] + [{"name": n, "restartPolicy": "Always"} for n in sidecars]
    if init_specs:
        doc["spec"]["initContainers"] = init_specs
    if phase is not None:
        doc["status"]["phase"] = phase
    if reason is not None:
        doc["status"]["reason"] = reason
    if statuses is not None:
        doc["status"]["containerStatuses"] = statuses
    if init_statuses is not None:
        doc["status"]["initContainerStatuses"] = init_statuses
    if conditions is not None:
        doc["status"]["conditions"] = conditions
    if deleted:
        doc["metadata"]["deletionTimestamp"] = NOW - 10
    return doc


TEST_PRINT_POD = [
    (pod("test1", 2, phase="podPhase", statuses=[running(True, 3), {"restartCount": 3}]), ("1/2", "podPhase", "6")),
    (pod("test2", 2, phase="podPhase", statuses=[running(True, 3), waiting("ContainerWaitingReason", 3)]),
     ("1/2", "ContainerWaitingReason", "6")),
    (pod("test3", 2, phase="podPhase", statuses=[waiting("ContainerWaitingReason", 3), terminated("ContainerTerminatedReason", restarts=3)]),
     ("0/2", "ContainerWaitingReason", "6")),
    (pod("test4", 2, phase="podPhase", statuses=[running(True, 3), {"ready": True, "restartCount": 3}]), ("1/2", "podPhase", "6")),
    (pod("test5", 2, phase="podPhase", reason="podReason", statuses=[running(True, 3), {"ready": True, "restartCount": 3}]),
     ("1/2", "podReason", "6")),
    (pod("test6", 2, phase="Running", statuses=[terminated("Completed", 0, 3, ready=True), running(True, 3)]), ("1/2", "NotReady", "6")),
    (pod("test6", 2, phase="Running", statuses=[terminated("Completed", 0, 3, ready=True), running(True, 3)],
         conditions=[{"type": "Ready", "status": "True"}]), ("1/2", "Running", "6")),
    (pod("test7", 1, init=1, phase="podPhase", init_statuses=[running(False, 3, finished=10)], statuses=[waiting()]),
     ("0/1", "Init:0/1", "3 (10s ago)")),
    (pod("test8", 1, init=2, phase="podPhase", init_statuses=[running(False, 3, finished=10), waiting()], statuses=[waiting()]),
     ("0/1", "Init:0/2", "3 (10s ago)")),
    (pod("test9", 1, init=2, phase="podPhase", init_statuses=[terminated(), running(False, 3, finished=10)], statuses=[waiting()]),
     ("0/1", "Init:1/2", "3 (10s ago)")),
    (pod("test10", 1, init=2, phase="podPhase", init_statuses=[terminated(restarts=2, finished=120), running(False, 3, finished=10)],
         statuses=[waiting()]), ("0/1", "Init:1/2", "5 (10s ago)")),
    (pod("test11", 1, init=1, phase="Running", init_statuses=[terminated(restarts=2, finished=120)],
         statuses=[running(False, 4, finished=20)]), ("0/1", "Running", "4 (20s ago)")),
    (pod("test12", 1, phase="Running", statuses=[running(True, 3, finished=5 * DAY)]), ("1/1", "Running", "3 (5d ago)")),
    (pod("test13", 2, phase="Running", statuses=[running(True, 0), running(True, 3, finished=10 * DAY)]), ("2/2", "Running", "3 (10d ago)")),
    (pod("test14", 2, phase="Running", statuses=[running(True, 6, finished=5 * DAY), running(True, 3, finished=20 * DAY)]),
     ("2/2", "Running", "9 (5d ago)")),
    (pod("test15", 2, phase="podPhase", conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]),
     ("0/2", "SchedulingGated", "0")),
    (pod("test16", 1, phase="Succeeded", statuses=[terminated("Completed", 0)]), ("0/1", "Completed", "0")),
    (pod("test17", 1, phase="Failed", statuses=[terminated("Error", 1)]), ("0/1", "Error", "0")),
    (pod("test18", 1, phase="Succeeded", statuses=[terminated("Completed", 0)], deleted=True), ("0/1", "Completed", "0")),
    (pod("test19", 1, phase="Running", statuses=[running(False, 0)], deleted=True), ("0/1", "Terminating", "0")),
    (pod("test20", 1, phase="Pending", deleted=True), ("0/1", "Terminating", "0")),
]

SIDECARS = ("restartable-init-1", "restartable-init-2")
TEST_PRINT_POD_WITH_RESTARTABLE_INIT_CONTAINER = [
    (pod("test1", 1, sidecars=SIDECARS, phase="Pending",
         init_statuses=[running(False, 3, finished=10, name=SIDECARS[0], started=False), waiting(name=SIDECARS[1], started=False)],
         statuses=[waiting()], conditions=[{"type": "Initialized", "status": "False"}]), ("0/3", "Init:0/2", "3 (10s ago)")),
    (pod("test1", 1, sidecars=SIDECARS, phase="Pending",
         init_statuses=[running(False, 3, finished=10, name=SIDECARS[0], started=True), running(False, name=SIDECARS[1], started=False)],
         statuses=[waiting()], conditions=[{"type": "Initialized", "status": "False"}]), ("0/3", "Init:1/2", "3 (10s ago)")),
    (pod("test2", 1, sidecars=SIDECARS, phase="Running",
         init_statuses=[running(False, 3, finished=10, name=SIDECARS[0], started=True), running(False, name=SIDECARS[1], started=True)],
         statuses=[running(True, 4, finished=20)], conditions=[{"type": "Initialized", "status": "True"}]),
     ("1/3", "Running", "7 (10s ago)")),
    (pod("test3", 1, sidecars=SIDECARS, phase="Succeeded",
         init_statuses=[terminated("Error", 137, 3, finished=10, name=SIDECARS[0], started=False),
                        terminated("Error", 137, name=SIDECARS[1], started=False)],
         statuses=[terminated("Completed", 0, 4, finished=20)], conditions=[{"type": "Initialized", "status": "True"}]),
     ("0/3", "Completed", "7 (10s ago)")),
]


def _test4():
    doc = pod("test4", 1, phase="Running")
    doc["spec"]["initContainers"] = [{"name": "init1", "image": "initimage"},
                                     {"name": "sidecar1", "image": "sidecarimage", "restartPolicy": "Always"}]
    doc["spec"]["containers"] = [{"name": "container1", "image": "containerimage"}]
    doc["status"]["initContainerStatuses"] = [{"name": "initinvalid"}, {"name": "init1"}, {"name": "sidecar1"}]
    doc["status"]["containerStatuses"] = [{"name": "containerinvalid"}, {"name": "container1"}]
    return doc


TEST_PRINT_POD_WITH_RESTARTABLE_INIT_CONTAINER.append((_test4(), ("0/2", "Init:0/2", "0")))

TEST_PRINT_POD_CONDITIONS = [
    (pod("test1", 2, phase="Running", statuses=[running(True, 3), {"restartCount": 3}]), ("1/2", "Running", "6")),
    (pod("test1", 2, phase="Succeeded", statuses=[running(True, 3), {"restartCount": 3}]), ("1/2", "Succeeded", "6")),
    (pod("test2", 2, phase="Failed", statuses=[running(True, 3), {"restartCount": 3}]), ("1/2", "Failed", "6")),
]


@pytest.mark.parametrize("doc, cells", TEST_PRINT_POD + TEST_PRINT_POD_WITH_RESTARTABLE_INIT_CONTAINER + TEST_PRINT_POD_CONDITIONS)
def test_print_pod(doc, cells):
    headers, rows = printers.pods([doc], NOW, False)
    assert headers == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert rows == [[doc["metadata"]["name"], *cells, "<unknown>"]]


GATES = [{"conditionType": "condition1"}, {"conditionType": "condition2"}, {"conditionType": "condition3"}]
GATE_CONDITIONS = [{"type": "condition1", "status": "False"}, {"type": "condition2", "status": "True"}]


@pytest.mark.parametrize("doc, cells", [
    (pod("test1", 2, phase="podPhase", statuses=[running(True, 3), {"restartCount": 3}], conditions=GATE_CONDITIONS,
         nodeName="test1", readinessGates=GATES) | {}, ("1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3")),
    (pod("test2", 2, phase="podPhase", statuses=[running(True, 3), waiting("ContainerWaitingReason", 3)], nodeName=""),
     ("1/2", "ContainerWaitingReason", "6", "<unknown>", "<none>", "<none>", "<none>", "<none>")),
])
def test_print_pod_wide(doc, cells):
    if doc["metadata"]["name"] == "test1":
        doc["status"].update(podIPs=[{"ip": "1.1.1.1"}, {"ip": "2001:db8::"}], nominatedNodeName="node1")
    _, rows = printers.pods([doc], NOW, True)
    assert rows == [[doc["metadata"]["name"], *cells]]


def test_a_simulated_pod_without_container_statuses_reads_its_ready_condition():
    """The simulated kubelet keeps phase and conditions only: a running pod whose Ready
    condition is True shows its containers ready; one not Ready shows none."""
    up = pod("up", 2, phase="Running", conditions=[{"type": "Ready", "status": "True"}])
    down = pod("down", 2, phase="Running", conditions=[{"type": "Ready", "status": "False"}])
    pending = pod("pending", 1, phase="Pending")
    assert [r[1:3] for r in printers.pods([up, down, pending], NOW, False)[1]] == [
        ["2/2", "Running"], ["0/2", "Running"], ["0/1", "Pending"]]


# --- objects as given -----------------------------------------------------------------------------------------------


def test_volumes_and_claims_print_what_they_hold():
    pv = {"kind": "PersistentVolume", "metadata": {"name": "pv0"}, "spec": {"capacity": {"storage": "1Gi"}}}
    pvc = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "default"},
           "spec": {"volumeName": "pv0"}, "status": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}}
    unbound = {"kind": "PersistentVolumeClaim", "metadata": {"name": "d", "namespace": "default"}, "spec": {}}
    assert printers.persistent_volumes([pv], NOW, True)[1] == [
        ["pv0", "1Gi", "", "", "", "", "", "<unset>", "", "<unknown>", "<unset>"]]
    # the claim names its volume: capacity and modes, whatever its phase
    assert printers.claims([pvc, unbound], NOW, True)[1] == [
        ["c", "", "pv0", "1Gi", "RWO", "", "<unset>", "<unknown>", "<unset>"],
        ["d", "", "", "", "", "", "<unset>", "<unknown>", "<unset>"]]
    annotated = {**pv, "metadata": {"name": "pv1", "annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
                 "spec": {"storageClassName": "new"}}
    assert printers.persistent_volumes([annotated], NOW, False)[1][0][6] == "old"


def test_namespace_and_priority_class_print_what_they_hold():
    assert printers.namespaces([{"metadata": {"name": "x"}}], NOW, False)[1] == [["x", "", "<unknown>"]]
    pc = {"metadata": {"name": "p"}, "value": 5, "preemptionPolicy": "Never"}
    assert printers.priority_classes([pc], NOW, False) == (["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE"], [["p", "5", "false", "<unknown>"]])
    assert printers.priority_classes([pc], NOW, True)[1] == [["p", "5", "false", "<unknown>", "Never"]]


@pytest.mark.parametrize("spec, status, wide, external", [
    # printers_test.go TestPrintService / getServiceExternalIP
    ({"type": "LoadBalancer"}, {"loadBalancer": {"ingress": [{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}]}}, False, "2.3.4.5,3.4.5.6"),
    ({"type": "LoadBalancer", "externalIPs": ["5.6.7.8"]}, {"loadBalancer": {"ingress": [{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}]}},
     True, "2.3.4.5,3.4.5.6,5.6.7.8"),
    ({"type": "LoadBalancer"}, {}, False, "<pending>"),
    ({"type": "LoadBalancer"}, {"loadBalancer": {"ingress": [{"hostname": "a-very-long-host.example.com"}]}}, False, "a-very-long-h..."),
    ({"type": "NodePort", "externalIPs": ["1.2.3.4"]}, {}, False, "1.2.3.4"),
    ({"type": "ExternalName", "externalName": "db.example.com"}, {}, False, "db.example.com"),
    ({}, {}, False, "<unknown>"),
])
def test_service_external_ip(spec, status, wide, external):
    doc = {"metadata": {"name": "s"}, "spec": {**spec, "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}]},
           "status": status}
    row = printers.services([doc], NOW, wide)[1][0]
    assert row[3] == external and row[4] == "80:30080/TCP"


# --- the namespaces of a running cluster -----------------------------------------------------------------------------


def test_a_running_cluster_has_the_system_namespaces():
    store = Store([node_doc("n1"), pod_doc("web", namespace="shop")])
    session = {SESSION: [{"user": "system:admin", "cluster": "demo"}]}
    result = oc.run(store, "oc get ns -o name", NOW, files=session)
    assert result.stdout == ("namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n"
                             "namespace/shop\n")
    assert oc.run(store, "oc get ns kube-system -o jsonpath={.status.phase}", NOW, files=session).stdout == "Active"
    # a snapshot is taken exactly as given
    assert oc.run(store, "oc get ns", NOW).stderr == "No resources found\n"
    created = oc.run(store, "oc create -f ns.yaml", NOW, files={**session, "ns.yaml": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}]})
    assert (created.stderr, created.exit_code) == (
        'Error from server (AlreadyExists): error when creating "ns.yaml": namespaces "default" already exists\n', 1)


def test_describe_pod_tolerations():
    """describe_test.go TestDescribePodTolerations: every form of toleration, sorted by key."""
    doc = pod_doc("bar", namespace="foo", tolerations=[
        {"operator": "Exists"}, {"effect": "NoSchedule", "operator": "Exists"}, {"key": "key0", "operator": "Exists"},
        {"key": "key1", "value": "value1"}, {"key": "key2", "operator": "Equal", "value": "value2", "effect": "NoSchedule"},
        {"key": "key3", "value": "value3", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "key4", "effect": "NoExecute", "tolerationSeconds": 60}])
    out = oc.run(Store([doc]), "oc describe pod bar -n foo", NOW).stdout
    for line in ("  op=Exists\n", ":NoSchedule op=Exists\n", "key0 op=Exists\n", "key1=value1\n", "key2=value2:NoSchedule\n",
                 "key3=value3:NoExecute for 300s\n", "key4:NoExecute for 60s\n", "Tolerations:"):
        assert line in out
    assert "NoScheduleop=Exists" not in out


# --- describe_test.go: TestDescribeDeployment, TestDescribeNamespace, TestDescribePriorityClass ---------------------


def test_describe_deployment_with_two_mounted_volumes():
    labels = {"k8s-app": "bar"}
    template = {"metadata": {"name": "bar", "namespace": "foo", "labels": labels}, "spec": {
        "containers": [{"image": "mytest-image:latest", "volumeMounts": [
            {"name": "vol-foo", "mountPath": "/tmp/vol-foo"}, {"name": "vol-bar", "mountPath": "/tmp/vol-bar"}]}],
        "volumes": [{"name": "vol-foo", "emptyDir": {}}, {"name": "vol-bar", "emptyDir": {}}]}}
    created = "2021-01-01T00:00:00Z"
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
        "name": "bar", "namespace": "foo", "labels": labels, "uid": "00000000-0000-0000-0000-000000000001",
        "creationTimestamp": created}, "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template}}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "bar-001", "namespace": "foo", "labels": labels,
        "ownerReferences": [{"kind": "Deployment", "controller": True, "uid": "00000000-0000-0000-0000-000000000001"}]},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template}, "status": {"replicas": 1}}
    out = oc.run(Store([deploy, rs]), "oc describe deployment bar -n foo", NOW).stdout
    for expected in ("Name:               bar\nNamespace:          foo", "CreationTimestamp:  Fri, 01 Jan 2021 00:00:00 +0000",
                     "Labels:             k8s-app=bar", "Selector:           k8s-app=bar",
                     "Replicas:           1 desired | 0 updated | 0 total | 0 available | 0 unavailable",
                     "Image:        mytest-image:latest",
                     "Mounts:\n      /tmp/vol-bar from vol-bar (rw)\n      /tmp/vol-foo from vol-foo (rw)",
                     "OldReplicaSets:    <none>", "NewReplicaSet:     bar-001 (1/1 replicas created)", "Events:            <none>",
                     "Node-Selectors:  <none>", "Tolerations:     <none>"):
        assert expected in out, expected


def test_describe_namespace_and_priority_class():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "example"}, "status": {"phase": "Active"}}
    out = oc.run(Store([ns]), "oc describe ns example", NOW).stdout
    assert out == ("Name:         example\nLabels:       <none>\nAnnotations:  <none>\nStatus:       Active\n\n"
                   "No resource quota.\n\nNo LimitRange resource.\n")
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "bar"}, "value": 10,
          "globalDefault": False, "preemptionPolicy": "PreemptLowerPriority", "description": "test1"}
    out = oc.run(Store([pc]), "oc describe priorityclass bar", NOW).stdout
    lines = [line.split(None, 1) for line in out.splitlines()]
    assert lines[:5] == [["Name:", "bar"], ["Value:", "10"], ["GlobalDefault:", "false"],
                         ["PreemptionPolicy:", "PreemptLowerPriority"], ["Description:", "test1"]]


def test_describe_node_counts_sidecar_and_init_container_requests():
    """resourcehelper.PodRequestsAndLimits, as describe node's Allocated resources sums it: a
    sidecar's requests add to the containers'; a plain init container counts only when it
    needs more than they do."""
    node = node_doc("n1", cpu="4")
    p = pod_doc("p", node="n1", phase="Running")
    p["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "500m"}}
    p["spec"]["initContainers"] = [{"name": "proxy", "image": "i", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m"}}},
                                   {"name": "setup", "image": "i", "resources": {"requests": {"cpu": "2"}}}]
    out = oc.run(Store([node, p]), "oc describe node n1", NOW).stdout
    # max(500m + 250m, 2 + 250m) = 2250m of 4 cores
    assert "  cpu                2250m (56%)" in out
