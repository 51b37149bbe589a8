"""Property: any document the import accepts reconciles without an exception (at once and
two simulated minutes later) and then renders on the board, node, pod, workload, pending,
events, policy, Cluster Settings, update progress, machines and MachineSet pages (200, or
404 when a mutation renamed or dropped the object).
Hypothesis plants hostile values (wrong types, nulls, huge and odd quantities, long
strings) at random places of a small valid cluster."""

from __future__ import annotations

import copy
import itertools

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scheduling.store import kube, services
from scheduling.store.reconcile import reconcile

NODE = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-a", "labels": {"zone": "a"}},
    "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
    "status": {
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True"}],
        "images": [{"names": ["nginx"], "sizeBytes": 1000}],
    },
}
POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
        "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}],
        "nodeSelector": {"zone": "a"},
    },
}
STATEFUL_SET = {
    "apiVersion": "apps/v1", "kind": "StatefulSet",
    "metadata": {"name": "db", "namespace": "default"},
    "spec": {
        "replicas": 2, "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": {
            "metadata": {"labels": {"app": "db"}},
            "spec": {"containers": [{"name": "c", "image": "pg", "resources": {"requests": {"cpu": "200m"}}}]},
        },
    },
}
PDB = {
    "apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget",
    "metadata": {"name": "db", "namespace": "default"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
}
MACHINE_SET = {
    "apiVersion": "machine.openshift.io/v1beta1", "kind": "MachineSet",
    "metadata": {"name": "workers", "namespace": "openshift-machine-api"},
    "spec": {
        "replicas": 1, "deletePolicy": "Oldest",
        "selector": {"matchLabels": {"machine.openshift.io/cluster-api-machineset": "workers"}},
        "template": {
            "metadata": {"labels": {"machine.openshift.io/cluster-api-machineset": "workers"}},
            "spec": {"providerSpec": {"value": {"instanceType": "m6i.xlarge",
                                                "placement": {"region": "us-east-1", "availabilityZone": "us-east-1a"}}},
                     "lifecycleHooks": {"preDrain": [{"name": "hook", "owner": "me"}]}},
        },
    },
}
CLUSTER_VERSION = {
    "apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
    "spec": {"channel": "stable-4.14", "clusterID": "00000000-0000-4000-8000-000000000000"},
    "status": {"desired": {"version": "4.14.1"}, "history": [{"state": "Completed", "version": "4.14.1", "startedTime": 0}]},
}
BASE = [NODE, POD, STATEFUL_SET, PDB, MACHINE_SET, CLUSTER_VERSION]

HOSTILE = [
    True, False, 1.5, 0, -1, 5, 2**70, None, "", "x" * 300, "1e1000", "1e18", "-1", "NoExcute", "x", "v4.14.1", "4.14",
    [], [None], [{"type": {"a": 1}}], [5], {}, {"a": 1}, {"": None}, "0.0001m", "1Ei", {"version": "4.14.2"},
]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


PATHS = [(d, p) for d, doc in enumerate(BASE) for p in _paths(doc) if len(p) > 1 and p[0] not in ("kind", "apiVersion")]
# also places the base documents leave empty
EXTRA = [
    (0, ("status", "conditions", 0, "lastHeartbeatTime")), (0, ("metadata", "ownerReferences")),
    (1, ("metadata", "ownerReferences")), (1, ("status",)), (1, ("status", "phase")), (1, ("spec", "priority")),
    (1, ("spec", "volumes")), (1, ("metadata", "deletionTimestamp")), (3, ("status",)), (2, ("status",)),
    (1, ("spec", "affinity")), (1, ("spec", "containers", 0, "ports")), (0, ("metadata", "annotations")),
    # an update asked for by version only: the CVO's preconditions then parse the versions
    (5, ("spec", "desiredUpdate")), (5, ("spec", "desiredUpdate", "version")),
]


def _set(doc: dict, path: tuple, value) -> None:
    target = doc
    for part in path[:-1]:
        target = target[part]
    if isinstance(target, list) and isinstance(path[-1], int) and path[-1] >= len(target):
        target.append(value)
    else:
        target[path[-1]] = value


# Nulls and empties are what Go decodes to zero values, so most of them are accepted: half
# the mutations use them, so that many examples reach the pages and the reconcile.
NULLISH = [None, [], {}, [None], [{}], "", 0, False, "0"]
mutation = st.tuples(st.sampled_from(PATHS + EXTRA), st.sampled_from(HOSTILE) | st.sampled_from(NULLISH))
_names = itertools.count()


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutations=st.lists(mutation, min_size=1, max_size=3))
def test_every_accepted_document_renders_and_reconciles(client, mutations):
    """(Mutations of one document may leave it refused; the others are imported as they are.)"""
    docs = copy.deepcopy(BASE)
    for (index, path), value in mutations:
        try:
            _set(docs[index], path, copy.deepcopy(value))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed the parent
    accepted = []
    for doc in docs:  # each document on its own: the accepted ones go in together
        text = kube.dump_documents([doc])
        try:
            kube.load_documents(text, "fuzz.yaml")
        except kube.DocumentError as exc:
            assert ": " in str(exc) and "Traceback" not in str(exc)
            event("a document refused")
        else:
            accepted.append(text)
    if not accepted:
        return
    event(f"{len(accepted)} of {len(docs)} documents accepted")
    cluster = services.import_new_cluster(f"fuzz-{next(_names)}", "---\n".join(accepted), "fuzz.yaml")
    pages = [
        reverse("cluster-detail", args=[cluster.pk]),
        reverse("node-detail", args=[cluster.pk, "node-a"]),
        reverse("pending-section", args=[cluster.pk]),
        reverse("events-section", args=[cluster.pk]),
        reverse("policy", args=[cluster.pk]),
        reverse("update-settings", args=[cluster.pk]),
        reverse("update-progress", args=[cluster.pk]),
        reverse("machines", args=[cluster.pk]),
        reverse("machineset-detail", args=[cluster.pk, "openshift-machine-api", "workers"]),
    ]
    pages.append(reverse("pod-detail", args=[cluster.pk, "default", "web"]))
    pages.append(reverse("controller-detail", args=[cluster.pk, "StatefulSet", "default", "db"]))
    reconcile(cluster.pk, force=True)
    cluster.refresh_from_db()
    cluster.now += 120
    cluster.save(update_fields=["now"])
    reconcile(cluster.pk, force=True)
    for url in pages:
        assert client.get(url).status_code in (200, 404), url
