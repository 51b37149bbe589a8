"""An object stored before today's validation rules (or written around the API) that the
engine cannot use never stops the cluster: the reconcile skips it, reports it with a
Warning InvalidObject event, and goes on with the rest; the pages still answer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scheduling import reconcile, services
from scheduling.models import Event, Node, Pod

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
