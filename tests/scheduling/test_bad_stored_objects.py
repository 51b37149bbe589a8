"""An object stored before today's validation rules (or written around the API) that the
engine cannot use never stops the cluster: the reconcile skips it, reports it with a
Warning InvalidObject event, and goes on with the rest; the pages still answer."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from scheduling.store import reconcile, services
from scheduling.models import ClusterVersion, Event, MachineSet, Node, Pod

pytestmark = pytest.mark.django_db

BROKEN_STATUSES = [
    pytest.param({"conditions": True}, id="conditions is a boolean"),
    pytest.param({"conditions": [{"type": {"a": 1}}]}, id="a condition type that is a mapping"),
]


@pytest.mark.parametrize("status", BROKEN_STATUSES)
def test_a_node_stored_with_a_malformed_status_is_skipped_reported_and_the_rest_reconciles(editor_client, demo, status):
    Node.objects.filter(cluster=demo, name="node3").update(status=status)  # as an older version stored it
    services.create_object(demo, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late", "namespace": "default"},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    demo.refresh_from_db()

    outcome = reconcile.reconcile(demo.pk, force=True)

    assert outcome.ran and not outcome.conflict
    warning = Event.objects.get(cluster=demo, reason="InvalidObject")
    assert warning.type == "Warning" and (warning.involved_kind, warning.involved_name) == ("Node", "node3")
    assert warning.message.startswith('Node "node3" is skipped by the controllers: ') and "status." in warning.message
    assert Node.objects.get(cluster=demo, name="node3").status == status  # left as it was, not rewritten
    assert Pod.objects.get(cluster=demo, name="late").node_name  # the rest of the cluster still schedules
    for url in (reverse("cluster-detail", args=[demo.pk]), reverse("node-detail", args=[demo.pk, "node1"]),
                reverse("node-detail", args=[demo.pk, "node3"])):
        assert editor_client.get(url).status_code == 200


def test_a_node_stored_with_an_allocatable_past_any_quantity_does_not_stop_the_cluster(editor_client, demo):
    Node.objects.filter(cluster=demo, name="node3").update(status={"allocatable": {"cpu": "1e1000"}})
    demo.refresh_from_db()

    assert reconcile.reconcile(demo.pk, force=True).ran
    for url in (reverse("cluster-detail", args=[demo.pk]), reverse("node-detail", args=[demo.pk, "node3"])):
        assert editor_client.get(url).status_code == 200


# --- the OpenShift kinds: their CRD schemas (validation.crd) are the safety net ---------------------

def _openshift_cluster():
    from tests.fuzz.test_accepted_documents_work import CLUSTER_VERSION, MACHINE_SET
    from tests.scheduling.pages import DEMO
    from scheduling.store import kube
    return services.import_new_cluster("openshift", DEMO.read_text() + "\n---\n" + kube.dump_documents([MACHINE_SET, CLUSTER_VERSION]),
                                       "openshift.yaml")


BROKEN_OPENSHIFT_OBJECTS = [
    pytest.param(MachineSet, "workers", {"spec": {"replicas": "many"}},
                 'MachineSet "workers" is skipped by the controllers: spec.replicas: Invalid value: "string": '
                 'spec.replicas in body must be of type integer: "string"', id="a MachineSet whose replicas is a string"),
    pytest.param(MachineSet, "workers", {"spec": {"replicas": 1, "selector": "all"}},
                 'MachineSet "workers" is skipped by the controllers: spec.selector: Invalid value: "string": '
                 'spec.selector in body must be of type object: "string"', id="a MachineSet whose selector is a string"),
    pytest.param(ClusterVersion, "version", {"status": {"desired": {"version": "4.14.1"}, "conditions": True}},
                 'ClusterVersion "version" is skipped by the controllers: status.conditions: Invalid value: "boolean": '
                 'status.conditions in body must be of type array: "boolean"', id="a ClusterVersion whose conditions is a boolean"),
    pytest.param(ClusterVersion, "version", {"status": {"desired": {"version": 5}}},
                 'ClusterVersion "version" is skipped by the controllers: status.desired.version: Invalid value: "integer": '
                 'status.desired.version in body must be of type string: "integer"', id="a ClusterVersion whose version is a number"),
    pytest.param(ClusterVersion, "version", {"spec": {"channel": "stable-4.14", "desiredUpdate": 5}},
                 'ClusterVersion "version" is skipped by the controllers: spec.desiredUpdate: Invalid value: "integer": '
                 'spec.desiredUpdate in body must be of type object: "integer"', id="a ClusterVersion whose desiredUpdate is a number"),
]


@pytest.mark.parametrize("model, name, fields, message", BROKEN_OPENSHIFT_OBJECTS)
def test_an_openshift_object_stored_past_its_crd_schema_is_skipped_reported_and_the_rest_reconciles(editor_client, model, name,
                                                                                                   fields, message):
    cluster = _openshift_cluster()
    model.objects.filter(cluster=cluster, name=name).update(**fields)  # written around the API
    services.create_object(cluster, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late", "namespace": "default"},
                                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    cluster.refresh_from_db()

    outcome = reconcile.reconcile(cluster.pk, force=True)

    assert outcome.ran and not outcome.conflict
    warning = Event.objects.get(cluster=cluster, reason="InvalidObject")
    assert (warning.type, warning.involved_kind, warning.involved_name, warning.message) == ("Warning", model.KIND, name, message)
    assert Pod.objects.get(cluster=cluster, name="late").node_name  # the rest of the cluster still schedules
    stored = model.objects.get(cluster=cluster, name=name)
    assert all(getattr(stored, field) == value for field, value in fields.items())  # left as it was
    for url in (reverse("cluster-detail", args=[cluster.pk]), reverse("update-settings", args=[cluster.pk]),
                reverse("update-progress", args=[cluster.pk]), reverse("machines", args=[cluster.pk]),
                reverse("machineset-detail", args=[cluster.pk, "openshift-machine-api", "workers"])):
        response = editor_client.get(url)
        assert response.status_code == 200, url
    if model is ClusterVersion:  # the update pages say why they show no ClusterVersion
        for url in (reverse("update-settings", args=[cluster.pk]), reverse("update-progress", args=[cluster.pk])):
            assert html.escape(message) in editor_client.get(url).content.decode(), url
