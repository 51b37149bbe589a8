"""`make bench` (live): editors and viewers on one cluster whose clock runs at 60x, against a
real server on loopback, in embedded mode and in distributed mode.

    python -m scheduling.bench.live [--mode both|embedded|distributed] [--editors 20]
                                    [--viewers 100] [--edits 50] [--nodes 20] [--quick]

For each mode it starts the server as a user would (embedded: `manage.py serve`, SQLite in a
temporary directory, the Celery worker and beat in the process; distributed: daphne, a
`celery worker` and a `celery beat` process on Redis --redis-url and PostgreSQL
--database-url, both on 127.0.0.1; the Redis database is flushed first, so give the bench
one of its own), imports a cluster of --nodes nodes and a Deployment, sets its clock
running at 60x, and then:

* --viewers websockets (in a process of their own, as anonymous pages of the board) stay
  connected to /ws/clusters/<id>/ and note when each pushed node card first shows each
  taint (a socket closed with a code the page reconnects on reconnects and fetches the
  board again, as the page does); beside them --leavers pages keep connecting and dropping their connection without
  a close handshake (pushes then meet sockets that are gone);
* --editors logged-in editors each make --edits edits through the page's console (POST
  clusters/<id>/console/run with confirm=1, what the console's Apply posts): `oc label node
  <node> e<editor>-<n>=v`, every fifth an `oc adm taint nodes <node> t<editor>-<n>=v:
  PreferNoSchedule`, every seventh an `oc scale deployment web --replicas=<1..5>`.

It prints, per mode:

* lost edits: acknowledged (the console answered exit code 0) but absent from the stored
  node afterwards; must be 0;
* refused edits: answered with another exit code, and how many were conflicts (kubectl's
  patches and scale's retry never show one: must be 0);
* edit latency: POST to answer, p50 / p95 / max; target p95 < 2 s;
* ack -> every viewer: from an acknowledged taint's answer to the moment each viewer's
  socket had the card showing it, p50 / p95 / max over every (taint, viewer) pair, and how
  many pairs never arrived (must be 0); target p95 < 2 s;
* server tracebacks: lines of the servers' logs that start a traceback (must be 0: a push
  to a socket that is gone is dropped quietly).

Everything is bounded: each phase has a deadline (--timeout for the whole mode), the
servers are stopped at the end whatever happens, and only 127.0.0.1 is contacted. Figures,
not tests (tests/scheduling/test_live_load.py runs a small load and asserts what must
hold). The imports of Django and of the app sit inside the functions on purpose: the
--setup and --check steps run in a child process configured for the mode.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import http.cookiejar
import json
import os
import random
import re
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = "bench-live"
PASSWORD = "bench-live-editor-pass"
TAINT_MARK = re.compile(r'data-taint="(t\d+-\d+)=v:PreferNoSchedule"')
EXIT_CODE = re.compile(r'data-exit-code="(\d+)"')
TRACEBACK = "Traceback (most recent call last)"


def cluster_text(nodes: int) -> str:
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: node-{i:03d}, labels: {{kubernetes.io/hostname: node-{i:03d}, "
            f"topology.kubernetes.io/zone: zone-{i % 3}}}}}\n"
            'status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}' for i in range(nodes)]
    docs.append("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
                "spec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n"
                "    metadata: {labels: {app: web}}\n"
                "    spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 10m}}}]}")
    return "\n---\n".join(docs)


# --- the child steps (run with the mode's environment) ---------------------------------------

def setup(editors: int, nodes: int) -> dict:
    """Migrate, create the editors, import the cluster afresh and play its clock at 60x."""
    import django

    django.setup()
    from django.contrib.auth.models import Permission, User
    from django.core.management import call_command

    from scheduling.live import broadcast
    from scheduling.models import Cluster
    from scheduling.store import clock, reconcile, services

    call_command("migrate", verbosity=0, interactive=False)
    for old in Cluster.objects.filter(name=CLUSTER):
        services.delete_cluster(old)
    permission = Permission.objects.get(codename="edit_cluster")
    for i in range(editors):
        user, _ = User.objects.get_or_create(username=f"bench-editor-{i}")
        user.set_password(PASSWORD)
        user.save()
        user.user_permissions.add(permission)
    cluster = services.import_new_cluster(CLUSTER, cluster_text(nodes), "bench.yaml")
    reconcile.reconcile(cluster.pk)
    clock.play(cluster, 60.0)
    broadcast.flush()
    return {"cluster": cluster.pk}


def check(cluster_id: int) -> dict:
    """The labels and taint keys of the cluster's nodes as stored."""
    import django

    django.setup()
    from scheduling.models import Node

    return {n.name: {"labels": sorted((n.metadata.get("labels") or {})),
                     "taints": sorted(t.get("key", "") for t in (n.spec.get("taints") or []))}
            for n in Node.objects.filter(cluster_id=cluster_id)}


def _child(step: list[str], env: dict, timeout: float) -> dict:
    done = subprocess.run([sys.executable, "-m", "scheduling.bench.live", *step], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(step)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the viewers (a process of their own) ------------------------------------------------------

async def _viewers(url: str, origin: str, count: int, leavers: int) -> None:
    """Connect `count` sockets, say "ready", note when each first sees each taint; on a
    "wait <json markers> <seconds>" line from stdin, wait until every socket has seen every
    marker (or the seconds passed), print the first-seen times as JSON and return."""
    import websockets

    seen: list[dict[str, float]] = [{} for _ in range(count)]
    stats = {"messages": 0, "bytes": 0, "closed": 0, "refused": 0, "left": 0, "resyncs": 0, "close_codes": {}}

    board = origin + urllib.parse.urlparse(url).path.removeprefix("/ws")  # /ws/clusters/<id>/ -> the board

    def note(i: int, text: str) -> None:
        now = time.monotonic()
        for mark in TAINT_MARK.findall(text):
            seen[i].setdefault(mark, now)

    def fetch_board() -> str:
        with urllib.request.urlopen(board, timeout=30) as r:
            return r.read().decode()

    async def viewer(i: int, ready: asyncio.Event, connected: list) -> None:
        """A page: its socket, and as the page does, after a close the htmx ws extension
        reconnects on (1006, 1011, 1012, 1013) a reconnect and a resync (the board fetched
        again); any other close ends it."""
        first = True
        while True:
            try:
                async with websockets.connect(url, origin=origin, max_size=None, open_timeout=30) as ws:
                    if first:
                        first = False
                        connected.append(i)
                        if len(connected) == count:
                            ready.set()
                    else:
                        stats["resyncs"] += 1
                        note(i, await asyncio.get_running_loop().run_in_executor(None, fetch_board))
                    async for message in ws:
                        stats["messages"] += 1
                        stats["bytes"] += len(message)
                        note(i, message)
            except websockets.ConnectionClosed as exc:
                stats["closed"] += 1
                code = exc.rcvd.code if exc.rcvd else 1006
                how = f"received {exc.rcvd.code}" if exc.rcvd else f"sent {exc.sent.code}" if exc.sent else "no close frame"
                stats["close_codes"][how] = stats["close_codes"].get(how, 0) + 1
                if code not in (1006, 1011, 1012, 1013):
                    return
                await asyncio.sleep(random.uniform(0, 1))
            except (OSError, websockets.InvalidHandshake, asyncio.TimeoutError):
                stats["refused"] += 1
                if first:
                    first = False
                    connected.append(i)
                    if len(connected) == count:
                        ready.set()
                await asyncio.sleep(random.uniform(0, 2))

    async def leaver(i: int) -> None:
        """A page that keeps leaving: connects, stays a moment, drops its connection without
        a close handshake (a closed laptop), and comes back; pushes meet it closed."""
        rng = random.Random(i)
        while True:
            try:
                ws = await websockets.connect(url, origin=origin, max_size=None, open_timeout=30)
                await asyncio.sleep(rng.uniform(0.2, 2.0))
                ws.transport.abort()
                stats["left"] += 1
            except (OSError, websockets.InvalidHandshake, asyncio.TimeoutError):
                pass
            await asyncio.sleep(rng.uniform(0.0, 0.5))

    ready, connected = asyncio.Event(), []
    tasks = [asyncio.create_task(viewer(i, ready, connected)) for i in range(count)]
    await asyncio.wait_for(ready.wait(), 120)
    tasks += [asyncio.create_task(leaver(i)) for i in range(leavers)]
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    line = await loop.run_in_executor(None, sys.stdin.readline)
    _, markers, seconds = line.split(" ", 2)
    markers = json.loads(markers)
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline and not all(m in s for s in seen for m in markers):
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    print(json.dumps({"seen": [{m: s.get(m) for m in markers} for s in seen], **stats}), flush=True)


# --- the editors ---------------------------------------------------------------------------------

class Editor:
    """A logged-in browser session of an editor: the console's POSTs with its CSRF token."""

    def __init__(self, base: str, username: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self._get("/login/")
        self._post("/login/", {"username": username, "password": PASSWORD, "next": "/"})
        if "sessionid" not in {c.name for c in self.jar}:
            raise RuntimeError(f"{username} could not log in")

    def _csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def _get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=60) as r:
            return r.read().decode()

    def _post(self, path: str, data: dict, htmx: bool = False) -> str:
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self._csrf()}).encode()
        request = urllib.request.Request(self.base + path, data=body, headers={
            "Referer": self.base + "/", "X-CSRFToken": self._csrf(), **({"HX-Request": "true"} if htmx else {})})
        with self.opener.open(request, timeout=60) as r:
            return r.read().decode()

    def run(self, cluster_id: int, command: str) -> tuple[int, str]:
        """The console's Apply of `command`: (exit code, output text)."""
        answer = self._post(f"/clusters/{cluster_id}/console/run", {"command": command, "confirm": "1"}, htmx=True)
        found = EXIT_CODE.search(answer)
        text = html.unescape(re.sub(r"<[^>]+>", "", answer)).strip()
        return (int(found.group(1)) if found else -1), text


def _edit(i: int, n: int, nodes: int, rng) -> tuple[str, tuple[str, str, str] | None]:
    """The n-th command of editor i and what it leaves on a node (node, label, taint)."""
    node = f"node-{rng.randrange(nodes):03d}"
    if n % 7 == 6:
        return f"oc scale deployment web --replicas={rng.randrange(1, 6)}", None
    if n % 5 == 4:
        key = f"t{i}-{n}"
        return f"oc adm taint nodes {node} {key}=v:PreferNoSchedule", (node, "", key)
    key = f"e{i}-{n}"
    return f"oc label node {node} {key}=v", (node, key, "")


def run_editors(base: str, cluster_id: int, editors: int, edits: int, nodes: int, deadline: float) -> dict:
    latencies: list[float] = []
    acked: list[tuple[str, str, str]] = []
    acked_at: dict[str, float] = {}  # taint key -> monotonic time of the answer
    refused: list[str] = []
    errors: list[str] = []
    lock = threading.Lock()
    sessions = [Editor(base, f"bench-editor-{i}") for i in range(editors)]
    start = threading.Barrier(editors)

    def editor(i: int) -> None:
        rng = random.Random(1000 + i)
        start.wait()
        for n in range(edits):
            if time.monotonic() > deadline:
                with lock:
                    errors.append(f"editor {i}: out of time after {n} edits")
                return
            command, mark = _edit(i, n, nodes, rng)
            began = time.monotonic()
            try:
                code, text = sessions[i].run(cluster_id, command)
            except OSError as exc:
                code, text = -1, f"{type(exc).__name__}: {exc}"
            done = time.monotonic()
            with lock:
                latencies.append(done - began)
                if code == 0:
                    if mark is not None:
                        acked.append(mark)
                        if mark[2]:
                            acked_at[mark[2]] = done
                else:
                    refused.append(text[-300:])

    threads = [threading.Thread(target=editor, args=(i,), name=f"editor-{i}") for i in range(editors)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"latencies": latencies, "acked": acked, "acked_at": acked_at, "refused": refused, "errors": errors,
            "wall": time.monotonic() - began}


# --- the servers -----------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")


def _env(mode: str, tmp: str, args) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(DJANGO_SETTINGS_MODULE="clusterui.settings", SECRET_KEY="bench-live-only-not-a-secret", HTTPS="0",
               DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost", CLUSTERUI_VAR_DIR=tmp, PYTHONUNBUFFERED="1")
    if mode == "distributed":
        env.update(REDIS_URL=args.redis_url, DATABASE_URL=args.database_url)
    return env


def _start(argv: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = open(log, "wb")
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(processes: list[subprocess.Popen]) -> None:
    for p in processes:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in processes:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)


def start_servers(mode: str, env: dict, port: int, tmp: Path) -> list[subprocess.Popen]:
    py = sys.executable
    if mode == "embedded":
        return [_start([py, "manage.py", "serve", "--port", str(port)], env, tmp / "serve.log")]
    return [
        _start([py, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "clusterui.asgi:application"], env, tmp / "daphne.log"),
        _start([py, "-m", "celery", "-A", "clusterui", "worker", "--loglevel=WARNING", "--without-gossip",
                "--without-mingle", f"--hostname=bench-live-{port}@%h"], env, tmp / "worker.log"),
        _start([py, "-m", "celery", "-A", "clusterui", "beat", "--loglevel=WARNING", "--schedule",
                str(tmp / "celerybeat-schedule")], env, tmp / "beat.log"),
    ]


def _ensure_database(url: str) -> None:
    """Create distributed mode's database when the server does not have it yet."""
    import psycopg
    import psycopg.sql

    parts = urllib.parse.urlparse(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))


def _flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def _percentiles(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms"


def run_mode(mode: str, args) -> list[str]:
    """The load against one mode's servers: the report's lines."""
    deadline = time.monotonic() + args.timeout
    with tempfile.TemporaryDirectory(prefix=f"clusterui-live-{mode}-") as tmp_name:
        tmp = Path(tmp_name)
        env = _env(mode, tmp_name, args)
        if mode == "distributed":
            _ensure_database(args.database_url)
            _flush_redis(args.redis_url)
        cluster_id = _child(["--setup", "--editors", str(args.editors), "--nodes", str(args.nodes)], env, 300)["cluster"]
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        servers = start_servers(mode, env, port, tmp)
        viewers = None
        try:
            _wait(lambda: _answers(base + "/"), 60, f"the {mode} server to answer")
            viewers = subprocess.Popen(
                [sys.executable, "-m", "scheduling.bench.live", "--viewers-at", f"ws://127.0.0.1:{port}/ws/clusters/{cluster_id}/",
                 "--origin", base, "--viewers", str(args.viewers), "--leavers", str(args.leavers)],
                cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            ready, _, _ = select.select([viewers.stdout], [], [], 120)
            if not ready or viewers.stdout.readline().strip() != "ready":
                raise RuntimeError("the viewers did not connect")
            load = run_editors(base, cluster_id, args.editors, args.edits, args.nodes, deadline)
            markers = sorted(load["acked_at"])
            grace = max(5.0, min(30.0, deadline - time.monotonic()))
            viewers.stdin.write(f"wait {json.dumps(markers, separators=(',', ':'))} {grace}\n")
            viewers.stdin.flush()
            out, _ = viewers.communicate(timeout=grace + 60)
            seen = json.loads(out.strip().splitlines()[-1])
        finally:
            if viewers is not None and viewers.poll() is None:
                viewers.kill()
            _stop(servers)
        stored = _child(["--check", str(cluster_id)], env, 120)
        tracebacks = sum(p.read_text(errors="replace").count(TRACEBACK) for p in tmp.glob("*.log"))
        warnings = [line for p in tmp.glob("*.log") for line in p.read_text(errors="replace").splitlines()
                    if "websocket /ws/" in line][:3]
        first_trace = next((p.read_text(errors="replace") for p in tmp.glob("*.log") if TRACEBACK in p.read_text(errors="replace")), "")
    lost = 0
    for node, label, taint in load["acked"]:
        doc = stored.get(node, {"labels": [], "taints": []})
        lost += bool(label and label not in doc["labels"]) + bool(taint and taint not in doc["taints"])
    delays, missed = [], 0
    for viewer in seen["seen"]:
        for mark, at in viewer.items():
            if at is None:
                missed += 1
            else:
                delays.append(max(0.0, at - load["acked_at"][mark]))
    conflicts = sum(1 for text in load["refused"] if "Conflict" in text or "has been modified" in text)
    lines = [
        f"live load, {mode} mode: {args.editors} editors x {args.edits} edits, {args.viewers} viewers, "
        f"{args.nodes} nodes, clock at 60x: {len(load['latencies'])} edits in {load['wall']:.1f} s",
        f"  lost edits: {lost}",
        f"  refused edits: {len(load['refused'])} ({conflicts} conflicts)",
        f"  edit latency: {_percentiles(load['latencies'])}",
        f"  ack -> every viewer: {_percentiles(delays)} ({len(markers)} taints x {args.viewers} viewers; "
        f"missed: {missed}; {seen['messages']} messages, {seen['bytes'] / 1e6:.1f} MB; sockets closed: {seen['closed']}, "
        f"refused: {seen['refused']}, resynchronised: {seen['resyncs']}"
        f"{'; closes: ' + json.dumps(seen['close_codes']) if seen['close_codes'] else ''})",
        f"  pages that left: {args.leavers} kept dropping their socket without a close, {seen['left']} times",
        f"  server tracebacks: {tracebacks}",
    ]
    lines += [f"  refused: {text}" for text in load["refused"][:3]] + [f"  {e}" for e in load["errors"][:3]]
    lines += [f"  server: {line}" for line in warnings]
    if first_trace:
        at = first_trace.index(TRACEBACK)
        lines.append("  first traceback: " + first_trace[at:at + 1500].replace("\n", "\n    "))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduling.bench.live", description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("both", "embedded", "distributed"), default="both")
    parser.add_argument("--editors", type=int, default=20)
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--leavers", type=int, default=10, help="pages that keep dropping their socket and coming back")
    parser.add_argument("--timeout", type=float, default=600.0, help="the longest one mode may take, in seconds")
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12"),
                        help="distributed mode's Redis (its database is flushed first)")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL",
                                                                 "postgres://postgres@127.0.0.1:5432/clusterui_bench"),
                        help="distributed mode's PostgreSQL database (migrated; the bench's cluster replaced)")
    parser.add_argument("--quick", action="store_true", help="small sizes (a test that the command works)")
    parser.add_argument("--setup", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--check", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--viewers-at", help=argparse.SUPPRESS)
    parser.add_argument("--origin", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.setup:
        print(json.dumps(setup(args.editors, args.nodes)))
        return 0
    if args.check is not None:
        print(json.dumps(check(args.check)))
        return 0
    if args.viewers_at:
        asyncio.run(_viewers(args.viewers_at, args.origin, args.viewers, args.leavers))
        return 0
    if args.quick:
        args.editors, args.viewers, args.edits, args.nodes, args.leavers = 3, 10, 10, 3, 3
    for mode in (("embedded", "distributed") if args.mode == "both" else (args.mode,)):
        for line in run_mode(mode, args):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
