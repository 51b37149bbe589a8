"""Distributed mode through a Redis outage, against the real server (daphne with the
RedisChannelLayer of REDIS_URL; a redis-server of the test's own on a free loopback port, so
it can be stopped): the open sockets are closed with a code the page's ws extension
reconnects on (1013 Try Again Later, a line in the log), a socket that connects during the outage is accepted and
closed with 1013 instead of failing its handshake with HTTP 500, and once Redis is back a
socket connects and receives the next push; the server logs no traceback."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
import websockets

from tests.conftest import ROOT, free_port, need, start_process, wait_for

pytestmark = pytest.mark.integration

RECONNECT_CODES = {1006, 1011, 1012, 1013}  # the htmx ws extension reconnects on these
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def start_redis(port: int, log) -> subprocess.Popen:
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=log, stderr=subprocess.STDOUT)

    def answers():
        import redis

        try:
            return redis.Redis(port=port, socket_timeout=1).ping()
        except redis.RedisError:
            return False

    wait_for(answers, timeout=20, what="redis-server")
    return proc


@pytest.fixture
def server(tmp_path):
    if not os.access(REDIS_SERVER, os.X_OK):
        need("redis-server is not installed: the outage test runs one of its own")
    redis_port, port = free_port(), free_port()
    redis_log = open(tmp_path / "redis.log", "wb")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(REDIS_URL=f"redis://127.0.0.1:{redis_port}/0", CLUSTERUI_VAR_DIR=str(tmp_path), SECRET_KEY="x", HTTPS="0",
               DEBUG="0", ALLOWED_HOSTS="127.0.0.1")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)
    pk = subprocess.run([*manage, "shell", "-c", "from scheduling.store import services; print(services.create_cluster('outage').pk)"],
                        cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.split()[-1]
    state = {"redis": start_redis(redis_port, redis_log)}
    daphne = start_process(["-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "clusterui.asgi:application"], env,
                           tmp_path / "daphne.log")

    def up():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        wait_for(up, timeout=40, what="daphne to answer")
        yield {"port": port, "cluster": int(pk), "redis_port": redis_port, "state": state, "redis_log": redis_log,
               "log": tmp_path / "daphne.log"}
    finally:
        daphne.terminate()
        daphne.wait(timeout=20)
        if state["redis"].poll() is None:
            state["redis"].terminate()
            state["redis"].wait(timeout=20)


async def test_sockets_come_back_after_a_redis_outage(server):
    url = f"ws://127.0.0.1:{server['port']}/ws/clusters/{server['cluster']}/"
    origin = f"http://127.0.0.1:{server['port']}"
    open_sockets = [await websockets.connect(url, origin=origin) for _ in range(5)]

    redis_proc = server["state"]["redis"]
    redis_proc.terminate()
    await asyncio.to_thread(redis_proc.wait, 20)

    # the open sockets are closed with 1013 Try Again Later, which the page reconnects on
    for ws in open_sockets:
        await asyncio.wait_for(ws.wait_closed(), 30)
        assert ws.close_code == 1013 in RECONNECT_CODES

    # one that connects meanwhile: accepted, then closed with 1013 (not an HTTP 500)
    during = await websockets.connect(url, origin=origin, open_timeout=30)
    await asyncio.wait_for(during.wait_closed(), 30)
    assert during.close_code == 1013

    server["state"]["redis"] = await asyncio.to_thread(start_redis, server["redis_port"], server["redis_log"])
    deadline = time.monotonic() + 30
    while True:  # as the page does: reconnect until the socket stays open
        again = await websockets.connect(url, origin=origin, open_timeout=30)
        try:
            await asyncio.wait_for(again.wait_closed(), 1.0)
        except asyncio.TimeoutError:
            break  # open and staying open
        assert time.monotonic() < deadline, "no socket stayed open after Redis came back"
        await asyncio.sleep(0.5)

    # a push reaches it (what the server's writes send: a group_send on the same Redis)
    from channels_redis.core import RedisChannelLayer

    layer = RedisChannelLayer(hosts=[f"redis://127.0.0.1:{server['redis_port']}/0"])
    await layer.group_send(f"cluster.{server['cluster']}", {"type": "cluster.update", "html": '<b id="back">1</b>'})
    assert await asyncio.wait_for(again.recv(), 10) == '<b id="back">1</b>'
    await again.close()
    await layer.flush()

    log = server["log"].read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    assert " 500 " not in log
