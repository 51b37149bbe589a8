"""`oc describe clusterversion|co|mcp|machine|machineset`: kubectl's generic describer
(pkg/describe TestSmartLabelFor and TestDescribeUnstructuredContent translated), on the
shipped OpenShift 4 demo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scheduling.engine import oc
from scheduling.engine.oc.describe import _W
from scheduling.engine.oc.describe_generic import print_unstructured, smart_label
from scheduling.store.kube import load_documents

from .driver import Driver

DEMO = Path(__file__).resolve().parents[4] / "scheduling" / "demo" / "openshift4-cluster.yaml"


@pytest.mark.parametrize("field, label", [
    ("simpleField", "Simple Field"), ("respectPDBs", "Respect PDBs"), ("respectPDB", "Respect PDB"), ("apiURL", "API URL"),
    ("kubeAPI", "Kube API"), ("userUID", "User UID"), ("HTTPSProxy", "HTTPSProxy"), ("customCRDs", "Custom CRDs"),
])
def test_smart_label_for(field, label):
    assert smart_label(field) == label


def test_describe_unstructured_content():
    obj = {"apiVersion": "v1", "kind": "Test", "dummyDummy": "present", "dummy/dummy": "present", "dummy-dummy@dummy": "present",
           "dummy-dummy": "present", "dummy1": "present", "dummy2": "present",
           "metadata": {"name": "MyName", "namespace": "MyNamespace", "creationTimestamp": "2017-04-01T00:00:00Z",
                        "resourceVersion": 123, "uid": "00000000-0000-0000-0000-000000000001", "dummy3": "present"},
           "items": [{"itemBool": True, "itemInt": 42}], "url": "http://localhost", "status": "ok"}
    w = _W()
    print_unstructured(w, 0, obj, "", (".dummy1", ".metadata.dummy3"))
    output = "".join(w.text)
    assert ("API Version:\tv1\nDummy - Dummy:\tpresent\ndummy-dummy@dummy:\tpresent\ndummy/dummy:\tpresent\ndummy2:\tpresent\n"
            "Dummy Dummy:\tpresent\nItems:\n  Item Bool:\ttrue\n  Item Int:\t42\nKind:\tTest\nMetadata:\n"
            "  Creation Timestamp:\t2017-04-01T00:00:00Z\n  Name:\tMyName\n  Namespace:\tMyNamespace\n  Resource Version:\t123\n"
            "  UID:\t00000000-0000-0000-0000-000000000001\nStatus:\tok\nURL:\thttp://localhost\n") in output
    for unexpected in ("\nDummy 1:\tpresent\n", "Dummy 1", "Dummy 3", "Dummy3", "dummy3", "dummy 3"):
        assert unexpected not in output


@pytest.fixture(scope="module")
def demo():
    d = Driver(load_documents(DEMO.read_text(), DEMO.name))
    d.run_until(0)
    return d


def describe(d, command: str) -> str:
    result = oc.run(d.store, command, d.now)
    assert (result.stderr, result.exit_code) == ("", 0)
    return result.stdout


def test_describe_clusterversion(demo):
    out = describe(demo, "oc describe clusterversion version")
    lines = out.splitlines()
    assert lines[:4] == ["Name:         version", "Namespace:    ", "Labels:       <none>", "Annotations:  <none>"]
    assert "API Version:  config.openshift.io/v1\nKind:         ClusterVersion\n" in out
    assert "Spec:\n  Channel:     eus-4.18\n  Cluster ID:  " in out
    assert "    Message:               Done applying 4.18.44\n" in out
    assert out.endswith("Events:                 <none>\n")


def test_describe_clusteroperator_and_pool(demo):
    co = describe(demo, "oc describe co kube-apiserver")
    assert "  Versions:\n    Name:     operator\n    Version:  4.18.44\n" in co
    assert "KubeletMinorVersionUpgradeable: Kubelet and API server minor versions are synced." in co
    mcp = describe(demo, "oc describe mcp infra")
    assert "Labels:       pools.operator.machineconfiguration.openshift.io/infra=\n" in mcp
    assert re.search(r"(?m)^  Paused: +false$", mcp)
    assert "  Machine Count:              3\n" in mcp


def test_describe_machine_and_machineset(demo):
    machine = describe(demo, "oc describe machine -n openshift-machine-api ocp4-8x2kq-master-0")
    assert machine.startswith("Name:         ocp4-8x2kq-master-0\nNamespace:    openshift-machine-api\n")
    assert "  Node Ref:\n    Kind:  Node\n    Name:  ip-10-0-16-11.ec2.internal\n  Phase:   Running\nEvents:    <none>\n" in machine
    assert "      Name:     EtcdQuorumOperator\n      Owner:    clusteroperator/etcd\n" in machine
    ms = describe(demo, "oc describe machineset -n openshift-machine-api ocp4-8x2kq-infra-us-east-1a")
    assert "Spec:\n  Delete Policy:  Oldest\n  Replicas:       1\n" in ms
    assert "      Taints:\n        Effect:  NoSchedule\n        Key:     node-role.kubernetes.io/infra\n" in ms


def test_describe_a_service_the_cluster_lacks(demo):
    """Every simulated kind has its describer: a missing object is the API server's NotFound."""
    result = oc.run(demo.store, "oc describe service web -n shop", demo.now)
    assert (result.stderr, result.exit_code) == ('Error from server (NotFound): services "web" not found\n', 1)
