"""Embedded mode (`make run`): one process, a real Celery worker thread on memory://, beat,
and the in-memory channel layer. `make test` runs these with REDIS_URL and DATABASE_URL unset."""

import json
import os
import subprocess
import sys
import urllib.request

import pytest
from django.conf import settings
from django.utils import timezone

from scheduling.models import Cluster
from tests.conftest import ROOT, free_port, start_process, wait_for

pytestmark = pytest.mark.embedded


@pytest.fixture
def embedded_celery():
    if not settings.EMBEDDED:
        pytest.skip("embedded-mode test: `make test` runs it in its second pass, without REDIS_URL")
    from clusterui.embedded import EmbeddedCelery

    celery = EmbeddedCelery().start()
    yield celery
    celery.stop()


@pytest.mark.django_db(transaction=True)
def test_a_task_goes_through_the_worker_thread(embedded_celery):
    from clusterui.celery import app
    from scheduling import tasks

    assert app.conf.broker_url == "memory://localhost/" and not app.conf.task_always_eager
    from celery.result import allow_join_result

    # The in-process worker marks this process as "inside a worker"; the test may wait.
    with allow_join_result():
        info = tasks.worker_info.delay().get(timeout=20)
    assert info == {"pid": os.getpid(), "thread": "celery-worker"}


@pytest.mark.django_db(transaction=True)
def test_beat_ticks_a_running_clock(embedded_celery):
    cluster = Cluster.objects.create(name="beat", paused=False, speed=10.0, clock_anchor=timezone.now())

    def advanced():
        cluster.refresh_from_db()
        return cluster.now > 0

    wait_for(advanced, timeout=20, interval=0.2, what="beat and the worker to advance the clock")


def test_the_real_server_serves_pages_and_pushes_over_its_websocket(tmp_path):
    """Smoke test of `make run`: the real server, its page, its socket, and a pushed change."""
    from websockets.sync.client import connect

    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(CLUSTERUI_VAR_DIR=str(tmp_path), DEBUG="1")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)
    subprocess.run([*manage, "load_demo"], cwd=ROOT, env=env, check=True, capture_output=True)
    play = "from scheduling.models import Cluster; Cluster.objects.filter(name='demo').update(paused=False, speed=10)"
    subprocess.run([*manage, "shell", "-c", play], cwd=ROOT, env=env, check=True, capture_output=True)
    port = free_port()
    server = start_process(["manage.py", "serve", "--port", str(port)], env, tmp_path / "server.log")
    base = f"http://127.0.0.1:{port}"
    try:
        def page():
            try:
                with urllib.request.urlopen(base + "/", timeout=2) as r:
                    return r.status, r.read().decode()
            except OSError:
                return None

        status, body = wait_for(page, timeout=30, what="the server to answer")
        assert status == 200 and ">demo</a>" in body
        with urllib.request.urlopen(base + "/static/vendor/htmx/htmx-2.0.11.min.js", timeout=5) as r:
            assert r.status == 200
        with connect(f"ws://127.0.0.1:{port}/ws/clusters/1/", origin=base, open_timeout=10) as ws:
            # the demo cluster's clock is running: beat -> worker thread -> broadcast -> this socket
            html = ws.recv(timeout=15)
            assert 'id="cluster-summary"' in html
            ws.send(json.dumps({"hello": "there"}))
            assert "error" in json.loads(ws.recv(timeout=5))
    finally:
        server.terminate()
        server.wait(timeout=20)
        print((tmp_path / "server.log").read_text()[-3000:])
