"""Distributed mode: tasks run by a real `celery -A clusterui worker` process on real Redis."""

import os

import pytest
from django.conf import settings
from django.utils import timezone

from scheduling import tasks
from scheduling.models import Cluster
from tests.conftest import database_url_for_subprocess, need, start_process, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


@pytest.fixture
def worker(redis_url, tmp_path):
    if settings.EMBEDDED:
        need("REDIS_URL is not set, so this process uses the embedded broker; set REDIS_URL to test a real worker")
    env = {**os.environ, "REDIS_URL": settings.REDIS_URL, "DATABASE_URL": database_url_for_subprocess(),
           "CLUSTERUI_VAR_DIR": str(tmp_path)}
    log = tmp_path / "worker.log"
    _purge_queue()
    proc = start_process(["-m", "celery", "-A", "clusterui", "worker", "--pool=solo", "--loglevel=INFO",
                          "--without-gossip", "--without-mingle", "--hostname=test@%h"], env, log)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _purge_queue() -> None:
    """Drop the reconcile tasks the other tests' writes queued (their clusters are gone)."""
    from clusterui.celery import app

    app.control.purge()


def _unacknowledged() -> int:
    """Messages a worker took (acks_late) and has not acknowledged: kombu's `unacked` hash."""
    import redis

    return redis.Redis.from_url(settings.REDIS_URL).hlen("unacked")


def test_a_task_runs_in_the_worker_process(worker):
    from clusterui.celery import app

    assert not app.conf.task_always_eager
    info = tasks.worker_info.delay().get(timeout=30)
    assert info["pid"] == worker.pid != os.getpid()


def test_the_worker_advances_a_running_clock(worker):
    cluster = Cluster.objects.create(name="ticking", paused=False, speed=60.0, clock_anchor=timezone.now())
    tasks.worker_info.delay().get(timeout=30)  # the worker is up

    def advanced():
        tasks.tick.delay()
        cluster.refresh_from_db()
        return cluster.now > 0

    wait_for(advanced, timeout=30, interval=0.5, what="the clock to advance through the worker")
    assert cluster.revision == 0  # time passing is not a change of the cluster's objects


TOLERATING_POD = """
apiVersion: v1
kind: Node
metadata: {name: node1}
spec:
  taints: [{key: key1, value: value1, effect: NoExecute}]
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: patient, namespace: default}
spec:
  nodeName: node1
  containers: [{name: c, image: nginx:1.15}]
  tolerations: [{key: key1, operator: Equal, value: value1, effect: NoExecute, tolerationSeconds: 120}]
"""


def test_the_clock_ticking_through_the_worker_evicts_after_toleration_seconds(worker):
    from scheduling.store import services
    from scheduling.models import Event, Pod

    cluster = services.create_cluster("evicting")
    services.import_documents(cluster, TOLERATING_POD)
    tasks.worker_info.delay().get(timeout=30)
    Cluster.objects.filter(pk=cluster.pk).update(paused=False, speed=600.0, clock_anchor=timezone.now())

    def evicted():
        tasks.tick.delay()
        return Event.objects.filter(cluster=cluster, reason="TaintManagerEviction").first()

    event = wait_for(evicted, timeout=60, interval=0.5, what="the taint manager to evict after 120 simulated seconds")
    assert event.message == "Marking for deletion Pod default/patient"
    # The pod was processed at t=0 (imported, clock paused), so it goes at exactly t=120,
    # however coarse the worker's ticks were (10 simulated minutes per real second).
    assert event.first_time == 120.0
    wait_for(lambda: not Pod.objects.filter(cluster=cluster, name="patient").exists(), timeout=30,
             what="the pod to be gone after its grace period")


def _big_replica_set(replicas: int, nodes: int) -> str:
    docs = [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: node{i}}}\nstatus: {{capacity: {{cpu: '8', memory: 32Gi, pods: '110'}}}}\n"
        for i in range(nodes)
    ]
    docs.append(
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\nspec:\n"
        f"  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n"
        "  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: web, image: nginx:1.15, resources: {requests: {cpu: 10m}}}]}\n"
    )
    return "---\n".join(docs)


def test_a_worker_killed_in_the_middle_of_a_run_loses_and_duplicates_nothing(redis_url, tmp_path):
    """Kill -9 the worker while it reconciles a large cluster, start another one: Redis
    redelivers the unacknowledged message once the visibility timeout has passed (shortened
    to 5 s here through CELERY_VISIBILITY_TIMEOUT) and nobody enqueues anything again; the
    cluster ends exactly as one uninterrupted run leaves it."""
    import signal

    from scheduling.store import services
    from scheduling.models import Event, Pod

    if settings.EMBEDDED:
        need("REDIS_URL is not set; set it to test a real worker")
    replicas = 400
    cluster = services.create_cluster("crash")
    services.import_documents(cluster, _big_replica_set(replicas, 40))
    env = {**os.environ, "REDIS_URL": settings.REDIS_URL, "DATABASE_URL": database_url_for_subprocess(),
           "CLUSTERUI_VAR_DIR": str(tmp_path), "CELERY_VISIBILITY_TIMEOUT": "5"}
    args = ["-m", "celery", "-A", "clusterui", "worker", "--pool=solo", "--loglevel=INFO", "--without-gossip",
            "--without-mingle"]
    _purge_queue()
    unacked_before = _unacknowledged()
    first = start_process([*args, "--hostname=first@%h"], env, tmp_path / "first.log")
    try:
        tasks.worker_info.delay().get(timeout=30)
        tasks.reconcile_cluster.delay(cluster.pk)
        # "reconcile_cluster[<id>] received", not the task list the worker prints at start
        wait_for(lambda: "reconcile_cluster[" in (tmp_path / "first.log").read_text(), timeout=30,
                 interval=0.02, what="the worker to start the run")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    written = Pod.objects.filter(cluster=cluster).count()
    assert written in (0, replicas)  # never half of a run
    assert _unacknowledged() == unacked_before + 1  # the killed worker's reconcile, waiting for redelivery
    second = start_process([*args, "--hostname=second@%h"], env, tmp_path / "second.log")
    try:
        # Nothing is enqueued from here on: only the redelivered message can do the work.
        def settled():
            return Pod.objects.filter(cluster=cluster).exclude(node_name="").count() == replicas

        wait_for(settled, timeout=120, interval=1.0, what="the redelivered reconcile to finish the work")
        assert "reconcile_cluster[" in (tmp_path / "second.log").read_text()
    finally:
        second.terminate()
        second.wait(timeout=30)
    assert Pod.objects.filter(cluster=cluster).count() == replicas
    assert Event.objects.filter(cluster=cluster, reason="SuccessfulCreate").count() == replicas
    assert all(e.count == 1 for e in Event.objects.filter(cluster=cluster, reason="Scheduled"))
    assert Event.objects.filter(cluster=cluster, reason="Scheduled").count() == replicas
