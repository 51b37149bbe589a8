"""Bounds where work can grow: the workload controllers' burst per sync, the cluster's
limits on pods and objects (refused in the quota's words), and a reconcile that fails
time after time stops, marking the cluster, instead of crash-looping the server."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.urls import reverse

from scheduling.engine import actions as A
from scheduling.engine.controllers import workloads
from scheduling.engine.controllers.controller_utils import BURST_REPLICAS
from scheduling.engine.store import Store
from scheduling.models import Cluster, Event, Pod
from scheduling.store import kube, oc_cli, reconcile, services
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db

MAX_INT32 = 2147483647

NODES = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.15, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
"""


def replica_set(replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default", "uid": "u-web"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}


def created(result) -> list[A.CreateObject]:
    return [a for a in result.actions if isinstance(a, A.CreateObject)]


def failed_events(result) -> list[str]:
    return [a.message for a in result.actions if isinstance(a, A.RecordEvent) and a.reason == "FailedCreate"]


# --- the ReplicaSet controller's burst ----------------------------------------------------------


@pytest.mark.parametrize("replicas, expected", [(3, 3), (500, 500), (501, 500), (MAX_INT32, BURST_REPLICAS)])
def test_one_sync_creates_at_most_burst_replicas(replicas, expected):
    result = workloads.reconcile(Store([replica_set(replicas)]), 0.0)
    assert len(created(result)) == expected
    assert not failed_events(result)


@pytest.mark.parametrize("limit, made, refused", [
    # slowStartBatch: batches 1, 2, 4, 8, ...; the batch with a failure is finished, then no more
    (0, 0, 1), (1, 1, 2), (3, 3, 4), (5, 5, 2), (7, 7, 8), (10, 10, 5),
])
def test_slow_start_batches_stop_at_the_first_refused_batch(limit, made, refused):
    result = workloads.reconcile(Store([replica_set(1000)]), 0.0, pod_limit=limit)
    assert len(created(result)) == made
    messages = failed_events(result)
    assert len(messages) == refused
    assert all("is forbidden: exceeded quota: cluster-limits, requested: pods=1, "
               f"used: pods={limit}, limited: pods={limit}" in m and m.startswith('Error creating: pods "web-')
               for m in messages)
    conditions = [a for a in result.actions if isinstance(a, A.PatchStatus) and "conditions" in a.fields]
    assert len(conditions) == 1 and conditions[0].fields["conditions"][0]["reason"] == "FailedCreate"


def test_scale_down_deletes_at_most_burst_replicas_per_sync():
    store = Store([replica_set(700)])
    for action in created(workloads.reconcile(store, 0.0)):
        store.apply(action)
    for action in created(workloads.reconcile(store, 0.0)):
        store.apply(action)
    assert store.count("Pod") == 700
    store.put({**replica_set(0), "metadata": {**replica_set(0)["metadata"]}})
    result = workloads.reconcile(store, 1.0)
    assert sum(isinstance(a, A.SetPodDeletion) for a in result.actions) == BURST_REPLICAS


# --- a stored cluster scaled to the largest int32 ------------------------------------------------

HUGE = """
import re
from scheduling.models import Cluster, Event, Pod
from scheduling.store import clock, oc_cli, reconcile, services
from tests.scheduling.test_bounds import DEPLOYMENT, MAX_INT32, NODES

def hwm():
    return int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) // 1024

cluster = services.create_cluster("huge", seed=1)
services.import_documents(cluster, NODES + "---" + DEPLOYMENT % 3)
reconcile.reconcile(cluster.pk)
print("baseline", hwm())
out = []
oc_cli.run_on_cluster(cluster, ["oc", "scale", "deployment", "web", f"--replicas={MAX_INT32}"], lambda s, t: out.append(t))
print("scale", "".join(out).strip())
for _ in range(3):
    clock.step(Cluster.objects.get(pk=cluster.pk), 10.0)
    reconcile.reconcile(cluster.pk)
    print("step", Pod.objects.filter(cluster=cluster).count(), hwm())
print("event", Event.objects.filter(cluster=cluster, reason="FailedCreate").first().message)
"""


def test_a_deployment_scaled_to_max_int32_stays_under_300_mb(tmp_path):
    """The server's own case, in a process of its own with the default settings: the pods
    grow to the cluster's limit and stop there, and the process's peak memory (VmHWM) stays
    under 300 MB while the clock steps."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to read the peak memory")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "CLUSTER_MAX_PODS", "CLUSTER_MAX_OBJECTS")}
    env.update(CLUSTERUI_VAR_DIR=str(tmp_path), HTTPS="0", SECRET_KEY="x")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)
    run = subprocess.run([sys.executable, "manage.py", "shell", "-c", HUGE], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    print(run.stdout, run.stderr[-2000:])
    lines = [line.split(" ", 1) for line in run.stdout.splitlines() if " " in line]
    said = {}
    for word, rest in lines:
        said.setdefault(word, []).append(rest)
    limit = settings.CLUSTER_MAX_PODS
    assert said["scale"] == ["deployment.apps/web scaled"]
    steps = [tuple(int(x) for x in rest.split()) for rest in said["step"]]
    assert [pods for pods, _ in steps] == [limit] * 3
    peak = max(mib for _, mib in steps)
    print(f"peak VmHWM {peak} MiB (baseline {said['baseline'][0]} MiB) at {limit} pods")
    assert peak < 300
    assert (f"exceeded quota: cluster-limits, requested: pods=1, used: pods={limit}, limited: pods={limit}"
            in said["event"][0])


# --- the cluster's limits on what users create ---------------------------------------------------


def test_creating_past_the_pod_limit_is_refused_in_the_quota_words(settings):
    settings.CLUSTER_MAX_PODS = 2
    cluster = services.create_cluster("few", seed=1)
    pods = "\n---\n".join(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: default}}\n"
                          "spec: {containers: [{name: c, image: nginx}]}" for i in range(3))
    with pytest.raises(kube.DocumentError) as refused:
        services.import_documents(cluster, pods)
    assert ('pods "p0" is forbidden: exceeded quota: cluster-limits, requested: pods=3, used: pods=0, limited: pods=2'
            in str(refused.value))
    assert Pod.objects.filter(cluster=cluster).count() == 0
    services.import_documents(cluster, pods.split("\n---\n", 1)[1])  # two fit
    one = kube.load_documents("apiVersion: v1\nkind: Pod\nmetadata: {name: p9, namespace: default}\n"
                              "spec: {containers: [{name: c, image: nginx}]}")[0]
    with pytest.raises(services.Forbidden) as refused:
        services.create_object(cluster, one)
    assert str(refused.value) == ('pods "p9" is forbidden: exceeded quota: cluster-limits, '
                                  "requested: pods=1, used: pods=2, limited: pods=2")


def test_creating_past_the_object_limit_is_refused(settings):
    settings.CLUSTER_MAX_OBJECTS = 3
    cluster = services.create_cluster("small", seed=1)
    nodes = "\n---\n".join(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}" for i in range(4))
    with pytest.raises(kube.DocumentError) as refused:
        services.import_documents(cluster, nodes)
    assert ('nodes "n0" is forbidden: exceeded quota: cluster-limits, requested: count/objects=4, '
            "used: count/objects=0, limited: count/objects=3") in str(refused.value)


# --- a reconcile that fails time after time ------------------------------------------------------


def test_a_reconcile_that_keeps_failing_stops_and_marks_the_cluster(settings, monkeypatch, caplog, editor_client):
    settings.RECONCILE_MAX_FAILURES = 3
    cluster = services.create_cluster("broken", seed=1)
    services.import_documents(cluster, NODES + "---" + DEPLOYMENT % 1)
    calls = []

    def boom(*args, **kwargs):
        calls.append(1)
        raise MemoryError("the run grew without bound")

    monkeypatch.setattr(reconcile, "_run", boom)
    # a user's write that catches the cluster up to its clock is not failed by the run
    Cluster.objects.filter(pk=cluster.pk).update(now=5.0)
    calls_before = len(calls)
    lines = []
    done = oc_cli.run_on_cluster(cluster, ["oc", "label", "node", "node1", "fine=yes"], lambda stream, text: lines.append(text))
    assert done.exit_code == 0 and lines == ["node/node1 labeled\n"] and len(calls) > calls_before
    calls.clear()
    outcomes = [reconcile.reconcile(cluster.pk) for _ in range(6)]
    assert len(calls) == 3  # three attempts, then no more
    assert [o.failed for o in outcomes] == [True] * 6 and [o.ran for o in outcomes] == [True, True, True, False, False, False]
    cluster.refresh_from_db()
    condition = reconcile.stopped(cluster)
    assert condition == {"type": "Reconciling", "status": "False", "reason": "ReconcileFailed",
                         "message": "MemoryError: the run grew without bound"}
    event = Event.objects.get(cluster=cluster, reason="ReconcileFailed")
    assert event.type == "Warning" and event.message == (
        "reconcile stopped after 3 failed attempts: MemoryError: the run grew without bound")
    board = editor_client.get(reverse("events-section", args=[cluster.pk])).content.decode()
    assert "ReconcileFailed" in board and "reconcile stopped after 3 failed attempts" in board
    # a user's write (say, scaling back) is a new revision: the controllers try again
    monkeypatch.undo()
    lines = []
    oc_cli.run_on_cluster(cluster, ["oc", "scale", "deployment", "web", "--replicas=2"], lambda stream, text: lines.append(text))
    outcome = reconcile.reconcile(cluster.pk)
    assert outcome.ran and not outcome.failed
    cluster.refresh_from_db()
    assert reconcile.stopped(cluster) is None
    assert Pod.objects.filter(cluster=cluster).count() == 2


def test_a_run_that_died_with_its_process_counts_as_failed(settings):
    """kill -9 mid-run: nothing is written, but the attempt noted before it starts stays; after
    RECONCILE_MAX_FAILURES of them the cluster is stopped instead of crash-looping the server."""
    settings.RECONCILE_MAX_FAILURES = 2
    cluster = services.create_cluster("dying", seed=1)
    services.import_documents(cluster, NODES + "---" + DEPLOYMENT % 1)
    cluster.refresh_from_db()
    # what two runs that died leave behind: their attempt, noted before they started
    reconcile._set_attempt(cluster.pk, cluster.revision, 2, "the run did not finish")
    outcome = reconcile.reconcile(cluster.pk)
    assert not outcome.ran and outcome.failed
    cluster.refresh_from_db()
    assert reconcile.stopped(cluster)["message"] == "the run did not finish"
    assert Pod.objects.filter(cluster=cluster).count() == 0
