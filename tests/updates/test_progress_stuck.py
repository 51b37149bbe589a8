"""The progress page of a stored cluster says why a drain is stuck: the pod the drain cannot
evict, linked to its explainer, and the PodDisruptionBudget that refuses it; its push
renders the same fragment."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scheduling.store import clock, reconcile, services
from scheduling.models import Cluster, Pod
from updates.views import progress_fragment
from tests.updates.clusters import WEB_BEHIND_A_PDB, node, update_cluster

pytestmark = pytest.mark.django_db

CLUSTER = update_cluster(node("master-0", "master"), node("worker-0", "worker", created=0), node("worker-1", "worker", created=1),
                         WEB_BEHIND_A_PDB)
CONFIG = """
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata: {name: 99-worker-ssh, labels: {machineconfiguration.openshift.io/role: worker}}
spec: {config: {ignition: {version: 3.2.0}, storage: {files: [{path: /etc/ssh/extra, mode: 420}]}}}
"""


def test_a_drain_blocked_by_a_pdb_is_explained_on_the_progress_page(client):
    cluster = services.import_new_cluster("stuck", CLUSTER, "cluster.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    services.import_documents(Cluster.objects.get(pk=cluster.pk), CONFIG)
    for _ in range(4):  # the MCO targets worker-0 and its drain keeps failing on the PDB
        reconcile.reconcile(cluster.pk, force=True)
        clock.step(Cluster.objects.get(pk=cluster.pk), 60)
    reconcile.reconcile(cluster.pk, force=True)
    cluster.refresh_from_db()
    drained = Pod.objects.filter(cluster=cluster, node_name="worker-0", namespace="shop").values_list("name", flat=True)
    assert len(drained) == 1
    body = client.get(reverse("update-progress", args=[cluster.pk])).content.decode()
    assert "Why a drain is stuck" in body
    pod_url = reverse("pod-detail", args=[cluster.pk, "shop", drained[0]])
    assert (f'<li><a href="{pod_url}">shop/{drained[0]}</a>: The disruption budget web-pdb needs 2 healthy pods and has 2 '
            "currently (disruptions allowed: 0)</li>") in body
    assert ("<p><strong>worker-0</strong>: node worker-0: Drain failed. Waiting 1 minute then retrying. Error message from "
            f"drain: error when evicting pods/&quot;{drained[0]}&quot; -n &quot;shop&quot;: global timeout reached: 1m30s</p>") in body
    assert "Why a drain is stuck" in progress_fragment(cluster)  # what the broadcast pushes says the same
