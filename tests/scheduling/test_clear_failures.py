"""Clear failures: unknown websocket paths, a missing database, a stopped server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from channels.testing import WebsocketCommunicator
from django.db.utils import OperationalError
from django.urls import reverse

from clusterui.asgi import application
from tests.conftest import ROOT, free_port, wait_for

HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["/ws/clusters/abc/", "/ws/nowhere/", "/ws/clusters/1/extra/", "/"])
async def test_unknown_websocket_paths_are_refused_with_4404(path):
    comm = WebsocketCommunicator(application, path, headers=HEADERS)
    connected, code = await comm.connect()
    assert (connected, code) == (False, 4404)
    await comm.disconnect()


@pytest.mark.django_db
def test_a_page_without_its_database_answers_503_with_the_reason(client, monkeypatch):
    from scheduling.pages.views import clusters as views

    def unreachable(*args, **kwargs):
        raise OperationalError('connection to server at "db.example", port 5432 failed: Connection refused\nIs the server running?')

    monkeypatch.setattr(views, "_list_context", unreachable)
    response = client.get(reverse("cluster-list"))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert (
        "<p>the database is unavailable: connection to server at &quot;db.example&quot;, port 5432 failed: "
        "Connection refused</p>"
    ) in response.content.decode()


def _manage(*args, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    base.update(SECRET_KEY="x", HTTPS="0", **env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "env, line",
    [
        pytest.param({"DATABASE_URL": "postgres://postgres@127.0.0.1:1/none"},
                     'error: the database is unavailable: connection failed: connection to server at "127.0.0.1", port 1 failed: Connection refused',
                     id="an unreachable PostgreSQL"),
        pytest.param({}, "error: the database has no tables yet (run `manage.py migrate`): no such table: scheduling_cluster",
                     id="a new SQLite file without tables"),
    ],
)
def test_commands_name_a_database_problem_in_one_line(tmp_path, env, line):
    result = _manage("export_cluster", "demo", CLUSTERUI_VAR_DIR=str(tmp_path), **env)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == line and "Traceback" not in result.stderr


def test_serve_refuses_to_start_without_tables_in_one_line(tmp_path):
    result = _manage("serve", "--port", str(free_port()), CLUSTERUI_VAR_DIR=str(tmp_path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "error: the database has no tables yet (run `manage.py migrate`): no such table: scheduling_cluster"


def test_serve_stops_cleanly_on_sigterm(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(SECRET_KEY="x", HTTPS="0", CLUSTERUI_VAR_DIR=str(tmp_path))
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, capture_output=True, check=True, timeout=120)
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--port", str(free_port())], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: "serving on" in log.read_text(), timeout=60, what="the server to start")
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert time.monotonic() - started < 20
        assert "clusterui stopped" in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
