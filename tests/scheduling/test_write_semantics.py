"""kubectl's write semantics on a stored cluster: label, annotate, taint and cordon are
patches (no resourceVersion precondition: concurrent writers of different fields all win,
the last writer wins a field), scale retries a conflict on a fresh read, and a real
conflict (a resourceVersion the user gives) is the API server's message."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from scheduling.models import Cluster, Deployment, Node
from scheduling.store import oc_cli, reconcile, services

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.15}]
"""


def oc(cluster: Cluster, *argv: str) -> tuple[int, str]:
    out: list[str] = []
    result = oc_cli.run_on_cluster(Cluster.objects.get(pk=cluster.pk), ["oc", *argv], lambda stream, text: out.append(text))
    return result.exit_code, "".join(out)


@pytest.fixture
def cluster(db):
    cluster = services.create_cluster("writes", seed=1)
    services.import_documents(cluster, NODES)
    reconcile.reconcile(cluster.pk)
    return cluster


@pytest.fixture
def someone_writes_first(monkeypatch):
    """Before the command's write, someone else writes the object once (a label `other=x`)."""
    real = oc_cli.write_actions
    done = []

    def racing(cluster, store, actions, sources=None):
        if not done:
            done.append(1)
            target = actions[0]
            kind = getattr(target, "kind", "Node")
            name = getattr(target, "name", None) or getattr(target, "node")
            obj = services.get_object(cluster, kind, name, getattr(target, "namespace", "") or "")
            doc = obj.document
            doc["metadata"].setdefault("labels", {})["other"] = "x"
            services.replace_object(cluster, doc)
        return real(cluster, store, actions, sources)

    monkeypatch.setattr(oc_cli, "write_actions", racing)
    return done


@pytest.mark.django_db
@pytest.mark.parametrize("argv, check", [
    (("label", "node", "node1", "mine=v"), lambda n: n.metadata["labels"]["mine"] == "v"),
    (("annotate", "node", "node1", "note=v"), lambda n: n.metadata["annotations"]["note"] == "v"),
    (("adm", "taint", "nodes", "node1", "k=v:NoSchedule"), lambda n: {"key": "k", "value": "v", "effect": "NoSchedule"} in n.spec["taints"]),
    (("adm", "cordon", "node1"), lambda n: n.spec.get("unschedulable") is True),
])
def test_a_patch_meets_the_latest_object_with_no_conflict(cluster, someone_writes_first, argv, check):
    code, out = oc(cluster, *argv)
    assert code == 0, out
    assert "Conflict" not in out
    node = Node.objects.get(cluster=cluster, name="node1")
    assert check(node) and node.metadata["labels"]["other"] == "x"  # both writers won
    assert someone_writes_first


@pytest.mark.django_db
def test_scale_retries_a_conflict_on_a_fresh_read(cluster, someone_writes_first):
    code, out = oc(cluster, "scale", "deployment", "web", "--replicas=3")
    assert code == 0 and out == "deployment.apps/web scaled\n"
    web = Deployment.objects.get(cluster=cluster, name="web")
    assert web.spec["replicas"] == 3 and web.metadata["labels"]["other"] == "x"


@pytest.mark.django_db
def test_a_resource_version_given_by_the_user_is_a_real_conflict(cluster):
    stale = str(Node.objects.get(cluster=cluster, name="node1").resource_version)
    code, _ = oc(cluster, "label", "node", "node1", "first=1")
    assert code == 0
    code, out = oc(cluster, "label", "node", "node1", "second=2", f"--resource-version={stale}")
    assert code == 1
    assert out == ('Error from server (Conflict): Operation cannot be fulfilled on nodes "node1": the object has been '
                   "modified; please apply your changes to the latest version and try again\n")
    assert "second" not in Node.objects.get(cluster=cluster, name="node1").metadata["labels"]
    current = str(Node.objects.get(cluster=cluster, name="node1").resource_version)
    code, out = oc(cluster, "annotate", "node", "node1", "a=b", f"--resource-version={current}")
    assert code == 0 and out == "node/node1 annotated\n"
    code, out = oc(cluster, "scale", "deployment", "web", "--replicas=2", f"--resource-version={stale}")
    current = Deployment.objects.get(cluster=cluster, name="web").resource_version
    assert code == 1 and out == f"error: Expected resource version to be {stale}, was {current}\n"


@pytest.mark.django_db(transaction=True)
def test_twelve_concurrent_labels_give_no_conflict_and_all_twelve_labels():
    cluster = services.create_cluster("busy", seed=1)
    services.import_documents(cluster, NODES)
    reconcile.reconcile(cluster.pk)
    results: dict[int, tuple[int, str]] = {}
    start = threading.Barrier(12)

    def writer(i: int) -> None:
        try:
            start.wait()
            results[i] = oc(cluster, "label", "node", "node1", f"c{i}=v")
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    conflicts = [out for code, out in results.values() if "Conflict" in out]
    print(f"{connection.vendor}: {len(results)} writers, {len(conflicts)} conflicts")
    assert len(results) == 12 and not conflicts
    assert all(code == 0 and out == "node/node1 labeled\n" for code, out in results.values()), results
    labels = Node.objects.get(cluster=cluster, name="node1").metadata["labels"]
    assert {f"c{i}" for i in range(12)} <= set(labels)
