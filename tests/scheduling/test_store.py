"""The cluster store: writes through services, resource versions, fork, delete."""

import copy

import pytest

from scheduling.store import kube, services
from scheduling.models import Cluster, Event, Node, Pod

pytestmark = pytest.mark.django_db

NODE = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {zone: a}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


@pytest.fixture
def cluster():
    return services.create_cluster("c1")


def _node_doc(**labels):
    doc = kube.load_documents(NODE)[0]
    doc["metadata"]["labels"].update(labels)
    return doc


def test_every_write_takes_a_new_resource_version(cluster):
    node = services.create_object(cluster, _node_doc())
    replaced = services.replace_object(cluster, {**_node_doc(team="x"), "metadata": {**node.metadata, "labels": {"team": "x"}}})
    assert replaced.resource_version > node.resource_version
    cluster.refresh_from_db()
    assert cluster.revision == replaced.resource_version


def test_a_stale_write_is_refused_and_changes_nothing(cluster):
    node = services.create_object(cluster, _node_doc())
    stale = node.resource_version
    first = _node_doc(team="first")
    services.replace_object(cluster, first, expected_version=stale)
    second = _node_doc(team="second")
    with pytest.raises(services.Conflict) as err:
        services.replace_object(cluster, second, expected_version=stale)
    assert str(err.value) == (
        'Operation cannot be fulfilled on nodes "node1": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert Node.objects.get(cluster=cluster, name="node1").metadata["labels"]["team"] == "first"


def test_a_stale_resource_version_in_the_document_is_refused(cluster):
    node = services.create_object(cluster, _node_doc())
    services.replace_object(cluster, _node_doc(team="a"))
    doc = _node_doc(team="b")
    doc["metadata"]["resourceVersion"] = str(node.resource_version)
    with pytest.raises(services.Conflict):
        services.replace_object(cluster, doc)


def test_creating_an_object_twice_is_refused(cluster):
    services.create_object(cluster, _node_doc())
    with pytest.raises(services.AlreadyExists, match='nodes "node1" already exists'):
        services.create_object(cluster, _node_doc())


def test_a_stale_delete_is_refused(cluster):
    node = services.create_object(cluster, _node_doc())
    services.replace_object(cluster, _node_doc(team="a"))
    with pytest.raises(services.Conflict):
        services.delete_object(cluster, "Node", "node1", expected_version=node.resource_version)
    assert Node.objects.filter(cluster=cluster).count() == 1


def test_a_fork_is_a_deep_copy(cluster):
    services.import_documents(cluster, NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\n")
    services.record_event(cluster, reason="Scheduled", message="m", kind="Pod", name="p", namespace="default")
    fork = services.fork_cluster(cluster, "c1-fork")
    assert services.export_documents(fork) == services.export_documents(cluster)
    assert Event.objects.filter(cluster=fork).count() == 1
    services.replace_object(fork, _node_doc(team="only-in-fork"))
    assert "team" not in Node.objects.get(cluster=cluster, name="node1").metadata["labels"]


def test_deleting_a_cluster_deletes_its_objects(cluster):
    services.import_documents(cluster, NODE)
    services.delete_cluster(cluster)
    assert not Cluster.objects.filter(name="c1").exists()
    assert Node.objects.count() == 0


def test_a_repeated_event_is_counted(cluster):
    for t in (1.0, 5.0):
        cluster.now = t
        services.record_event(cluster, reason="FailedScheduling", message="0/1 nodes are available", kind="Pod",
                              name="p", namespace="default", type="Warning")
    event = Event.objects.get(cluster=cluster)
    assert (event.count, event.first_time, event.last_time) == (2, 1.0, 5.0)


def test_pods_keep_their_node_and_phase_in_indexed_columns(cluster):
    services.import_documents(cluster, "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec: {nodeName: node1, containers: [{name: c, image: i}]}\nstatus: {phase: Running}\n")
    pod = Pod.objects.get(cluster=cluster)
    assert (pod.node_name, pod.phase, pod.namespace) == ("node1", "Running", "default")
