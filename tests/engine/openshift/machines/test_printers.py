"""`oc get` of the Machine API kinds prints their CRDs' additionalPrinterColumns as the API
server's table convertor (apiextensions-apiserver tableconvertor: a JSONPath that finds
nothing gives a nil cell) and kubectl's table printer (nothing written for a nil cell) do:
an EMPTY cell, not the `<none>` of kubectl's own printers, which the built-in kinds keep."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.store import Store

NS = "openshift-machine-api"
V1BETA1 = "machine.openshift.io/v1beta1"
NOW = 3600

DOCS = [
    {"apiVersion": V1BETA1, "kind": "Machine",
     "metadata": {"name": "worker-a-x7k2p", "namespace": NS, "creationTimestamp": 0,
                  "labels": {"machine.openshift.io/instance-type": "m6i.xlarge", "machine.openshift.io/region": "us-east-1",
                             "machine.openshift.io/zone": "us-east-1a"},
                  "annotations": {"machine.openshift.io/instance-state": "running"}},
     "spec": {"providerID": "aws:///us-east-1a/i-0a1b2c3d4e5f60718"},
     "status": {"phase": "Running", "nodeRef": {"kind": "Node", "name": "ip-10-0-21-11.ec2.internal"}}},
    # just created: the machine controller has not set a phase, the actuator no labels yet
    {"apiVersion": V1BETA1, "kind": "Machine", "metadata": {"name": "worker-b-q9w8e", "namespace": NS, "creationTimestamp": 3540}},
    {"apiVersion": V1BETA1, "kind": "MachineSet", "metadata": {"name": "worker-a", "namespace": NS, "creationTimestamp": 0},
     "spec": {"replicas": 2}, "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2}},
    # scaled to 0: readyReplicas and availableReplicas are omitempty, replicas is not
    {"apiVersion": V1BETA1, "kind": "MachineSet", "metadata": {"name": "worker-b", "namespace": NS, "creationTimestamp": 0},
     "spec": {"replicas": 0}, "status": {"replicas": 0}},
    # no status yet
    {"apiVersion": V1BETA1, "kind": "MachineSet", "metadata": {"name": "worker-c", "namespace": NS, "creationTimestamp": 3590},
     "spec": {"replicas": 1}},
    {"apiVersion": V1BETA1, "kind": "MachineHealthCheck", "metadata": {"name": "workers", "namespace": NS},
     "spec": {"maxUnhealthy": "40%"}, "status": {"expectedMachines": 3, "currentHealthy": 3}},
    {"apiVersion": V1BETA1, "kind": "MachineHealthCheck", "metadata": {"name": "fresh", "namespace": NS},
     "spec": {"maxUnhealthy": "100%"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default", "creationTimestamp": 0},
     "spec": {"containers": [{"name": "c", "image": "registry.example/web:1"}]}, "status": {"phase": "Pending"}},
]


@pytest.mark.parametrize(
    "command, stdout",
    [
        pytest.param(
            f"oc get machines -n {NS}",
            "NAME             PHASE     TYPE         REGION      ZONE         AGE\n"
            "worker-a-x7k2p   Running   m6i.xlarge   us-east-1   us-east-1a   60m\n"
            "worker-b-q9w8e                                                   60s\n",
            id="machines"),
        pytest.param(
            f"oc get machines -n {NS} -o wide",
            "NAME             PHASE     TYPE         REGION      ZONE         AGE   NODE                         PROVIDERID                              STATE\n"
            "worker-a-x7k2p   Running   m6i.xlarge   us-east-1   us-east-1a   60m   ip-10-0-21-11.ec2.internal   aws:///us-east-1a/i-0a1b2c3d4e5f60718   running\n"
            "worker-b-q9w8e                                                   60s                                                                        \n",
            id="machines -o wide"),
        pytest.param(
            f"oc get machinesets -n {NS}",
            "NAME       DESIRED   CURRENT   READY   AVAILABLE   AGE\n"
            "worker-a   2         2         2       2           60m\n"
            "worker-b   0         0                             60m\n"
            "worker-c   1                                       10s\n",
            id="machinesets"),
        pytest.param(
            f"oc get mhc -n {NS}",
            "NAME      MAXUNHEALTHY   EXPECTEDMACHINES   CURRENTHEALTHY\n"
            "fresh     100%                              \n"
            "workers   40%            3                  3\n",
            id="machinehealthchecks"),
        # a built-in kind keeps kubectl's own printer: <none>
        pytest.param(
            "oc get pods -o wide",
            "NAME   READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   READINESS GATES\n"
            "web    0/1     Pending   0          60m   <none>   <none>   <none>           <none>\n",
            id="pods -o wide"),
    ],
)
def test_missing_values_print_as_oc_prints_them(command, stdout):
    result = oc.run(Store(DOCS), command, NOW)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)
