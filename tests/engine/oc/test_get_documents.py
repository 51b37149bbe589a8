"""`oc get -o json|yaml` for every kind `oc get` lists: a v1 List of the objects as the API
returns them (times as RFC 3339), the one object when one is named, and only the NotFound
error when the one object named does not exist (kubectl's singleItemImplied)."""

from __future__ import annotations

import json

import pytest

from scheduling.engine import oc
from scheduling.engine.api.kinds import BY_KIND as PRINTERS
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc
from tests.engine.oc.test_get import KINDS, NOW

EXAMPLES = {doc["kind"]: doc for doc in KINDS}
EXAMPLES["Node"] = {**node_doc("node1"), "metadata": {**node_doc("node1")["metadata"], "creationTimestamp": 0}}
EXAMPLES["Pod"] = {**pod_doc("web", node="node1"), "metadata": {**pod_doc("web", node="node1")["metadata"], "creationTimestamp": 0}}
EXAMPLES["ReplicationController"] = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {
    "name": "rc", "namespace": "default", "creationTimestamp": 0}, "spec": {"replicas": 1, "selector": {"app": "rc"}}}
EXAMPLES["ClusterOperator"] = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator", "metadata": {
    "name": "dns", "creationTimestamp": 0}, "status": {"versions": [{"name": "operator", "version": "4.14.1"}]}}
EXAMPLES["MachineConfig"] = {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig", "metadata": {
    "name": "00-worker", "creationTimestamp": 0}, "spec": {}}
EXAMPLES["MachineSet"] = {"apiVersion": "machine.openshift.io/v1beta1", "kind": "MachineSet", "metadata": {
    "name": "ms", "namespace": "openshift-machine-api", "creationTimestamp": 0}, "spec": {"replicas": 1}}
EXAMPLES["MachineHealthCheck"] = {"apiVersion": "machine.openshift.io/v1beta1", "kind": "MachineHealthCheck", "metadata": {
    "name": "mhc", "namespace": "openshift-machine-api", "creationTimestamp": 0}, "spec": {}}
EXAMPLES["ConfigMap"] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
    "name": "admin-acks", "namespace": "openshift-config", "creationTimestamp": 0}, "data": {"ack-4.18-kube-1.32-api-removals-in-4.19": "true"}}
EXAMPLES["KubeDescheduler"] = {"apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler", "metadata": {
    "name": "cluster", "namespace": "openshift-kube-descheduler-operator", "creationTimestamp": 0},
    "spec": {"mode": "Predictive", "profiles": ["AffinityAndTaints"], "deschedulingIntervalSeconds": 3600}}
EXAMPLES["Job"] = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default", "creationTimestamp": 0},
                   "spec": {"completions": 1, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]}}},
                   "status": {"succeeded": 1, "startTime": 0, "completionTime": 60}}
EXAMPLES["CronJob"] = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello", "namespace": "default",
                                                                              "creationTimestamp": 0},
                       "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {}}}, "status": {"lastScheduleTime": 300}}
STORE_DOCS = [EXAMPLES[kind] for kind in PRINTERS]


@pytest.mark.parametrize("kind", list(PRINTERS))
@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_every_kind_prints_as_a_v1_list_of_its_objects(kind, fmt):
    plural = PRINTERS[kind].plural
    result = oc.run(Store(STORE_DOCS), f"oc get {plural} -A -o {fmt}", NOW)
    assert (result.stderr, result.exit_code) == ("", 0)
    if fmt == "yaml":
        assert result.stdout.startswith("apiVersion: v1\nitems:\n- ") and result.stdout.endswith(
            "kind: List\nmetadata:\n  resourceVersion: \"\"\n")
        return
    listed = json.loads(result.stdout)
    assert ({k: v for k, v in listed.items() if k != "items"}, [
        (i["kind"], i["apiVersion"], i["metadata"]["name"], i["metadata"]["creationTimestamp"]) for i in listed["items"]]) == (
        {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}},
        [(kind, EXAMPLES[kind]["apiVersion"], EXAMPLES[kind]["metadata"]["name"], "2026-01-01T00:00:00Z"
          if EXAMPLES[kind]["metadata"]["creationTimestamp"] == 0 else
          f"2026-01-01T00:0{EXAMPLES[kind]['metadata']['creationTimestamp'] // 60}:00Z")])


@pytest.mark.parametrize(
    "command, stdout, stderr",
    [
        pytest.param("oc get node nope -o json", "", 'Error from server (NotFound): nodes "nope" not found\n',
                     id="the one node named is missing: the error alone"),
        pytest.param("oc get clusterversion nope -o yaml", "",
                     'Error from server (NotFound): clusterversions.config.openshift.io "nope" not found\n',
                     id="the one clusterversion named is missing: the error alone"),
        pytest.param("oc get ns default nope -o jsonpath={.items[*].metadata.name}", "default",
                     'Error from server (NotFound): namespaces "nope" not found\n',
                     id="two named, one missing: the List of the one found and the error"),
    ],
)
def test_an_object_named_and_not_found_prints_only_the_error(command, stdout, stderr):
    result = oc.run(Store(STORE_DOCS), command, NOW)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, stderr, 1)
