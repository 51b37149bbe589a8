"""The namespaces of an OpenShift 4 cluster: the system ones every cluster has, and those of its
release payload's operators (engine.openshift.data.namespace_data), listed by `oc get ns`,
`-A` and `-n` as on a real cluster, and following the Cluster Version Operator through an
update (a new operator's namespaces appear when the CVO creates its ClusterOperator; those the
new release lacks go when the update completes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduling.engine import oc
from scheduling.engine.oc.session import SESSION
from scheduling.engine.store import Store
from scheduling.store.kube import load_documents

from .driver import Driver

DEMO = Path(__file__).resolve().parents[4] / "scheduling" / "demo" / "openshift4-cluster.yaml"
LIVE = {SESSION: [{"user": "system:admin", "cluster": "demo"}]}


@pytest.fixture(scope="module")
def demo():
    d = Driver(load_documents(DEMO.read_text(), DEMO.name))
    d.run_until(0)
    return d


def names(store, now=0.0):
    result = oc.run(store, "oc get ns -o name", now, files=LIVE)
    assert (result.stderr, result.exit_code) == ("", 0)
    return [line.removeprefix("namespace/") for line in result.stdout.splitlines()]


def test_an_openshift_4_cluster_has_its_payloads_namespaces(demo):
    listed = names(demo.store, demo.now)
    for name in ("default", "kube-system", "kube-public", "kube-node-lease", "openshift-apiserver", "openshift-etcd",
                 "openshift-etcd-operator", "openshift-kube-apiserver", "openshift-machine-config-operator",
                 "openshift-monitoring", "openshift-user-workload-monitoring", "openshift-ingress", "openshift-cluster-version",
                 "openshift-config", "openshift-config-managed", "openshift-machine-api", "openshift-operators",
                 "openshift-cluster-olm-operator"):  # 4.18's OLM v1 operator
        assert name in listed
    assert listed == sorted(listed) and len(listed) == len(set(listed))
    assert "openshift-cluster-api" not in listed  # TechPreview until 4.22
    table = oc.run(demo.store, "oc get namespaces", demo.now, files=LIVE).stdout.splitlines()
    assert table[0].split() == ["NAME", "STATUS", "AGE"]
    assert any(line.split()[:2] == ["openshift-etcd", "Active"] for line in table)


def test_empty_openshift_namespaces_answer_as_kubectl(demo):
    result = oc.run(demo.store, "oc get pods -n openshift-etcd", demo.now, files=LIVE)
    assert (result.stdout, result.stderr, result.exit_code) == ("", "No resources found in openshift-etcd namespace.\n", 0)
    got = oc.run(demo.store, "oc get ns openshift-etcd -o jsonpath={.status.phase}", demo.now, files=LIVE)
    assert (got.stdout, got.exit_code) == ("Active", 0)
    described = oc.run(demo.store, "oc describe ns openshift-kube-apiserver", demo.now, files=LIVE).stdout
    assert described.startswith("Name:         openshift-kube-apiserver\nLabels:       kubernetes.io/metadata.name=openshift-kube-apiserver\n")


def test_a_kubernetes_cluster_has_no_openshift_namespaces():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "creationTimestamp": 0}}
    assert names(Store([node])) == ["default", "kube-node-lease", "kube-public", "kube-system"]


def cluster(history, operators=()):
    cv = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
          "spec": {}, "status": {"desired": {"version": history[0][1]},
                                 "history": [{"state": s, "version": v, "startedTime": 100} for s, v in history]}}
    cos = [{"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator", "metadata": {"name": n, "creationTimestamp": 500}}
           for n in operators]
    return Store([cv, *cos])


def test_an_update_adds_a_new_operators_namespace_when_the_cvo_creates_its_cluster_operator():
    """4.16 -> 4.18: OLM v1 (ClusterOperator olm, runlevel 51) is new; its namespace comes with it."""
    before = names(cluster([("Partial", "4.18.1"), ("Completed", "4.16.9")]))
    assert "openshift-cluster-olm-operator" not in before and "openshift-etcd" in before
    after = cluster([("Partial", "4.18.1"), ("Completed", "4.16.9")], operators=["olm"])
    assert "openshift-cluster-olm-operator" in names(after)
    age = oc.run(after, "oc get ns openshift-cluster-olm-operator -o jsonpath={.metadata.creationTimestamp}", 600, files=LIVE)
    assert age.stdout == "2026-01-01T00:08:20Z"  # when the ClusterOperator was created
    assert "openshift-cluster-olm-operator" in names(cluster([("Completed", "4.18.1"), ("Completed", "4.16.9")]))


def test_namespaces_the_new_release_lacks_go_when_the_update_completes():
    """Back from 4.18 to 4.16 (olm is not in 4.16's payload): there until the update completes."""
    assert "openshift-cluster-olm-operator" in names(cluster([("Partial", "4.16.9"), ("Completed", "4.18.1")], ["olm"]))
    assert "openshift-cluster-olm-operator" not in names(
        cluster([("Completed", "4.16.9"), ("Completed", "4.18.1")], ["olm"]))


def test_a_stored_namespace_is_listed_once(demo):
    """The demo stores openshift-config: listed once, as stored."""
    assert names(demo.store, demo.now).count("openshift-config") == 1
