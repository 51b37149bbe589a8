"""A small live load against a real server on loopback (scheduling.bench.live: 3 editors
making 10 edits each through the console, 10 viewers on the board's socket, the clock at
60x, 3 more pages dropping their sockets without a close and coming back): no
acknowledged edit is lost, none is refused, every viewer receives every acknowledged
taint, no socket is closed on a viewer and the servers log no traceback. In
embedded mode (`manage.py serve`) and in distributed mode (daphne, a Celery worker and beat,
Redis and PostgreSQL: run where REDIS_URL and a postgres:// DATABASE_URL are set, as CI
sets them)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from urllib.parse import urlparse

import pytest

from tests.conftest import ROOT, need

EDITORS, EDITS, VIEWERS, NODES, LEAVERS = 3, 10, 10, 3, 3
TAINTS = EDITORS * 2  # every fifth edit of each editor taints a node (scheduling.bench.live._edit)


def run_load(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run([sys.executable, "-m", "scheduling.bench.live", "--editors", str(EDITORS), "--edits", str(EDITS),
                           "--viewers", str(VIEWERS), "--nodes", str(NODES), "--leavers", str(LEAVERS), "--timeout", "240", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=290)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def assert_nothing_lost(out: str, mode: str) -> None:
    assert f"live load, {mode} mode: {EDITORS} editors x {EDITS} edits, {VIEWERS} viewers, {NODES} nodes, clock at 60x: " \
           f"{EDITORS * EDITS} edits in" in out, out
    assert "  lost edits: 0\n" in out, out
    assert "  refused edits: 0 (0 conflicts)\n" in out, out
    viewers = re.search(r"ack -> every viewer: p50 \d+ ms, p95 \d+ ms, max \d+ ms \((\d+) taints x (\d+) viewers; "
                        r"missed: (\d+); \d+ messages, [\d.]+ MB; sockets closed: (\d+), refused: (\d+), resynchronised: \d+\)", out)
    assert viewers, out
    assert viewers.groups() == (str(TAINTS), str(VIEWERS), "0", "0", "0"), out
    assert re.search(rf"  pages that left: {LEAVERS} kept dropping their socket without a close, [1-9]\d* times\n", out), out
    assert "  server tracebacks: 0\n" in out, out


@pytest.mark.embedded
def test_embedded_mode_loses_nothing_and_every_viewer_gets_every_change():
    assert_nothing_lost(run_load("--mode", "embedded"), "embedded")


@pytest.mark.integration
def test_distributed_mode_loses_nothing_and_every_viewer_gets_every_change(redis_url):
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        need("DATABASE_URL is not a PostgreSQL database: distributed mode's load needs one")
    # Databases of the load's own beside the suite's: a PostgreSQL database named after the
    # suite's (created by the load) and Redis database 14 (flushed by the load).
    parts = urlparse(database)
    own_database = parts._replace(path=parts.path.rstrip("/") + "_live_load").geturl()
    own_redis = urlparse(redis_url)._replace(path="/14").geturl()
    out = run_load("--mode", "distributed", "--database-url", own_database, "--redis-url", own_redis)
    assert_nothing_lost(out, "distributed")
