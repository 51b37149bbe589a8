"""The demo must not look stuck: the scheduler's first pass happens at import, in
the importing process (it may have no worker), and a server that starts asks for a reconcile
of every cluster with work due."""

import io

import pytest
from django.core.management import call_command

from scheduling.store import reconcile, services
from scheduling.models import Cluster, Pod

pytestmark = pytest.mark.django_db

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: web, image: nginx:1.15, resources: {requests: {cpu: 100m}}}]
"""


@pytest.mark.parametrize("command", [
    ["load_demo", "--only", "demo"],
    ["import_cluster", "imported", "{path}"],
])
def test_an_import_by_a_command_places_the_pods_before_it_returns(command, tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    call_command(*[part.format(path=path) for part in command], stdout=io.StringIO())
    cluster = Cluster.objects.get()
    pending = [p.name for p in Pod.objects.filter(cluster=cluster, node_name="") if p.phase == "Pending"]
    placed = Pod.objects.filter(cluster=cluster).exclude(node_name="").count()
    assert placed > 0
    assert not reconcile.is_due(cluster)
    if command[0] == "import_cluster":
        assert pending == []
        assert Pod.objects.get(cluster=cluster, name="web").node_name == "node1"


def test_a_starting_server_asks_for_a_reconcile_of_each_cluster_with_work_due(monkeypatch):
    waiting = services.import_new_cluster("waiting", CLUSTER, "cluster.yaml")
    done = services.import_new_cluster("done", CLUSTER, "cluster.yaml")
    reconcile.reconcile(done.pk)
    asked = []
    monkeypatch.setattr(services, "request_reconcile", asked.append)
    assert reconcile.enqueue_due() == [waiting.pk]
    assert asked == [waiting.pk]
