"""Migration 0009: a KubeDescheduler kept in Cluster.descheduler (before it was a stored kind)
becomes the stored object, with its namespace; the descheduler's state is told the spec it
last acted on (the move runs no cycle); a 3.11 policy stays where it is."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("scheduling", "0008_configmap")]
AFTER = [("scheduling", "0009_kubedescheduler")]
NS = "openshift-kube-descheduler-operator"
KD = {"apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler", "metadata": {"name": "cluster", "namespace": NS},
      "spec": {"mode": "Automatic", "deschedulingIntervalSeconds": 600, "profiles": ["AffinityAndTaints"]}}
LEGACY = {"apiVersion": "descheduler/v1alpha1", "kind": "DeschedulerPolicy", "strategies": {"RemoveDuplicates": {"enabled": True}}}


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_the_setting_s_kube_descheduler_becomes_the_stored_object():
    apps = migrate(BEFORE)
    Cluster = apps.get_model("scheduling", "Cluster")
    state = {"controllers": {"descheduler": {"lastRun": 0, "runs": 1}}}
    moved = Cluster.objects.create(name="moved", now=120.0, revision=7, controller_state=state,
                                   descheduler={"policy": KD, "interval": None, "flags": {}, "runRequests": 2})
    kept = Cluster.objects.create(name="kept", descheduler={"policy": LEGACY, "interval": 60, "flags": {}, "runRequests": 0})
    try:
        apps = migrate(AFTER)
        Cluster = apps.get_model("scheduling", "Cluster")
        KubeDescheduler = apps.get_model("scheduling", "KubeDescheduler")
        Namespace = apps.get_model("scheduling", "Namespace")
        [row] = KubeDescheduler.objects.filter(cluster_id=moved.pk)
        assert (row.namespace, row.name, row.spec, row.metadata["creationTimestamp"]) == (NS, "cluster", KD["spec"], 120.0)
        assert Namespace.objects.filter(cluster_id=moved.pk, name=NS).exists()
        after = Cluster.objects.get(pk=moved.pk)
        assert after.descheduler == {"runRequests": 2}
        assert after.revision == 9 and row.resource_version == 9
        assert after.controller_state["controllers"]["descheduler"] == {"lastRun": 0, "runs": 1, "spec": KD["spec"]}
        assert Cluster.objects.get(pk=kept.pk).descheduler["policy"] == LEGACY
        assert not KubeDescheduler.objects.filter(cluster_id=kept.pk).exists()
    finally:
        migrate(latest())  # leave the schema as the other tests expect it: every migration applied
