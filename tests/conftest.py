"""Shared fixtures: users with and without edit rights, real Redis, the worker's database URL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"


def need(reason: str):
    """Skip locally when a real service is missing; in CI a missing service is a failure."""
    if IN_CI:
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=1) as s:
            s.sendall(b"PING\r\n")
            if not s.recv(16).startswith(b"+PONG"):
                raise OSError("no PONG")
    except OSError:
        need(f"no Redis at {url} (start redis-server to run the integration tests)")
    return url


@pytest.fixture
def editor(db, django_user_model):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("editor", password="editor-pass-123")
    user.user_permissions.add(Permission.objects.get(codename="edit_cluster"))
    return user


@pytest.fixture
def viewer(db, django_user_model):
    return django_user_model.objects.create_user("viewer", password="viewer-pass-123")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def viewer_client(client, viewer):
    client.force_login(viewer)
    return client


def database_url_for_subprocess() -> str:
    """The URL of the database the tests run on, for a worker started as a subprocess."""
    from django.db import connection

    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{s['NAME']}"
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.1, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def start_process(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = open(log, "wb")
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
