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
    proc = start_process(["-m", "celery", "-A", "clusterui", "worker", "--pool=solo", "--loglevel=INFO",
                          "--without-gossip", "--without-mingle", "--hostname=test@%h"], env, log)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)


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
    assert cluster.revision > 0
