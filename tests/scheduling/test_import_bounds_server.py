"""The hostile imports against the real server (`manage.py serve`, embedded mode): the
server's own peak memory (VmHWM) stays under 300 MB, the refusals name the limit, and
nothing is logged with a traceback."""

from __future__ import annotations

import http.client
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.parse

import pytest

from tests.conftest import ROOT, free_port, start_process, wait_for
from tests.scheduling.test_import_bounds import MiB, annotation_yaml, multipart, nested_yaml

LIMIT_KIB = 300 * 1024

SESSION = """
from django.contrib.auth import get_user_model, BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
user = get_user_model().objects.create_superuser("root", "root@example.com", "x")
s = SessionStore()
s[SESSION_KEY] = str(user.pk); s[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
s[HASH_SESSION_KEY] = user.get_session_auth_hash(); s.create()
print(s.session_key)
"""


def vm_hwm_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to read the server's peak memory")
    tmp = tmp_path_factory.mktemp("server")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(CLUSTERUI_VAR_DIR=str(tmp), DEBUG="1", HTTPS="0", SECRET_KEY="x")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)
    key = subprocess.run([sys.executable, "manage.py", "shell", "-c", SESSION], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    port = free_port()
    proc = start_process(["manage.py", "serve", "--port", str(port), "--no-worker"], env, tmp / "server.log")

    def up():
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/")
            return conn.getresponse().status
        except OSError:
            return None

    wait_for(up, timeout=60, what="the server to answer")
    yield proc, port, key, tmp / "server.log"
    proc.terminate()
    proc.wait(timeout=20)


def post(port: int, key: str, body: bytes, content_type: str, path: str = "/clusters/import") -> tuple[int, str, float]:
    token = secrets.token_hex(16)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    started = time.monotonic()
    conn.putrequest("POST", path)
    for name, value in (("Content-Type", content_type), ("Content-Length", str(len(body))),
                        ("Cookie", f"sessionid={key}; csrftoken={token}"), ("X-CSRFToken", token),
                        ("HX-Request", "true"), ("Referer", f"http://127.0.0.1:{port}/"), ("Origin", f"http://127.0.0.1:{port}")):
        conn.putheader(name, value)
    conn.endheaders()
    try:
        for i in range(0, len(body), 1 << 20):
            conn.send(body[i:i + (1 << 20)])
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before the body was read: the answer is waiting
    response = conn.getresponse()
    text = response.read().decode()
    return response.status, text, time.monotonic() - started


def follow(port: int, key: str, text: str) -> str:
    """A background import's outcome (the progress bar's polling), or the answer itself."""
    match = re.search(r'hx-get="(/imports/[^"]+)"', text)
    if not match:
        return text

    def finished():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", match.group(1), headers={"Cookie": f"sessionid={key}", "HX-Request": "true"})
        response = conn.getresponse()
        body = response.read().decode()
        return body if response.status != 200 else None  # a finished job answers 422 or redirects

    return wait_for(finished, timeout=60, interval=0.3, what="the import to finish")


def test_hostile_imports_keep_the_server_under_300_mb(server):
    proc, port, key, log = server
    print(f"server at start: VmHWM {vm_hwm_kib(proc.pid) / 1024:.0f} MiB")

    # a 22 MiB upload: refused on the stream, at once
    status, text, seconds = post(port, key, multipart({"name": "huge"}, b"# " + b"x" * (22 * MiB) + b"\n"),
                                 "multipart/form-data; boundary=BoUnDaRy")
    print(f"22 MiB upload: {status} in {seconds:.2f}s, VmHWM {vm_hwm_kib(proc.pid) / 1024:.0f} MiB")
    assert status == 413 and "Request entity too large: limit is" in text
    assert seconds < 2

    # a 20 MiB annotation, uploaded and pasted (the page posts its form as multipart)
    annotated = annotation_yaml(20 * MiB - 200)
    for how, body, content_type in (
        ("file", multipart({"name": "annotated"}, annotated.encode()), "multipart/form-data; boundary=BoUnDaRy"),
        ("text", multipart({"name": "annotated", "text": annotated}, None), "multipart/form-data; boundary=BoUnDaRy"),
    ):
        status, text, seconds = post(port, key, body, content_type)
        answer = follow(port, key, text)
        print(f"20 MiB annotation ({how}): {status} in {seconds:.2f}s, VmHWM {vm_hwm_kib(proc.pid) / 1024:.0f} MiB")
        assert "metadata.annotations: Too long: must have at most 262144 characters" in answer

    # the same text urlencoded (Django's parse of one costs eight times its size): refused unread
    status, text, seconds = post(port, key, urllib.parse.urlencode({"name": "annotated", "text": annotated}).encode(),
                                 "application/x-www-form-urlencoded")
    print(f"20 MiB urlencoded: {status} in {seconds:.2f}s, VmHWM {vm_hwm_kib(proc.pid) / 1024:.0f} MiB")
    assert status == 413 and "Request entity too large: limit is 1048576 bytes" in text

    # 3,000 levels of block YAML
    status, text, seconds = post(port, key, multipart({"name": "deep", "text": nested_yaml(3000)}, None),
                                 "multipart/form-data; boundary=BoUnDaRy")
    answer = follow(port, key, text)
    print(f"3,000 levels: {status} in {seconds:.2f}s, VmHWM {vm_hwm_kib(proc.pid) / 1024:.0f} MiB")
    assert "exceeded max depth of 100 nested mappings and sequences" in answer

    peak = vm_hwm_kib(proc.pid)
    print(f"server peak: VmHWM {peak / 1024:.0f} MiB")
    assert peak < LIMIT_KIB
    assert "Traceback" not in log.read_text()
