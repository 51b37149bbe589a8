"""Hostile imports stay bounded: the size is refused on the stream, before the body is
read into memory, and deep or huge documents are refused naming the limit, with no
traceback, and at most 300 MB of memory for the request."""

from __future__ import annotations

import logging
import re
import time
import tracemalloc

import pytest
from django.conf import settings
from django.urls import reverse

from scheduling.models import Cluster
from scheduling.store import kube
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

MiB = 1024 * 1024
LIMIT = 300 * MiB


def annotation_yaml(size: int) -> str:
    return "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations:\n    big: '" + "a" * size + "'\n"


def nested_yaml(depth: int) -> str:
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n"
    return head + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(depth)) + "  " * (depth + 1) + "v: x\n"


def multipart(fields: dict[str, str], file_text: bytes | None, boundary: str = "BoUnDaRy") -> bytes:
    """A form as the page posts it (multipart), with a file `big.yaml` unless file_text is None."""
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()]
    if file_text is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.yaml"\r\n'
                     f"Content-Type: application/yaml\r\n\r\n".encode() + file_text + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode()


def _measured(call):
    tracemalloc.start()
    started = time.monotonic()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak, time.monotonic() - started


def _outcome(client, response) -> str:
    """The page's answer: the form's error, or what the background job reported."""
    body = response.content.decode()
    match = re.search(r'hx-get="(/imports/[^"]+)"', body)
    if not match:
        return body

    def finished():
        answer = client.get(match.group(1), HTTP_HX_REQUEST="true")
        return answer if answer.status_code != 200 or "HX-Redirect" in answer else None

    return wait_for(finished, timeout=60, interval=0.2, what="the import to finish").content.decode()


@pytest.fixture
def quiet_errors(caplog):
    caplog.set_level(logging.ERROR)
    return caplog


def test_a_22_mib_upload_is_refused_on_the_stream(editor_client, quiet_errors):
    body = multipart({"name": "huge"}, b"# " + b"x" * (22 * MiB) + b"\n")
    response, peak, seconds = _measured(lambda: editor_client.post(
        reverse("cluster-import"), body, content_type="multipart/form-data; boundary=BoUnDaRy", HTTP_HX_REQUEST="true"))
    text = response.content.decode()
    print(f"22 MiB upload: {response.status_code} in {seconds:.2f}s, peak {peak / MiB:.1f} MiB")
    assert response.status_code == 413
    assert f"Request entity too large: limit is {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes" in text
    assert peak < LIMIT and seconds < 10  # (the test client copies the body; the server test times the stream)
    assert not [r for r in quiet_errors.records if r.exc_info]
    assert not Cluster.objects.filter(name="huge").exists()


@pytest.mark.parametrize("how", ["file", "text"])
def test_a_20_mib_annotation_is_refused_in_bounded_memory(editor_client, quiet_errors, how):
    text = annotation_yaml(20 * MiB - 200)
    assert len(text) <= kube.MAX_TEXT_BYTES
    if how == "file":
        body = multipart({"name": "annotated"}, text.encode())
        post = lambda: editor_client.post(reverse("cluster-import"), body,  # noqa: E731
                                          content_type="multipart/form-data; boundary=BoUnDaRy", HTTP_HX_REQUEST="true")
    else:
        post = lambda: editor_client.post(reverse("cluster-import"), {"name": "annotated", "text": text},  # noqa: E731
                                          HTTP_HX_REQUEST="true")
    answer, peak, seconds = _measured(lambda: _outcome(editor_client, post()))
    print(f"20 MiB annotation ({how}): {seconds:.2f}s, peak {peak / MiB:.1f} MiB")
    assert "metadata.annotations: Too long: must have at most 262144 characters" in answer
    assert peak < LIMIT
    assert not [r for r in quiet_errors.records if r.exc_info]
    assert not Cluster.objects.filter(name="annotated").exists()


def test_3000_levels_of_block_yaml_are_refused_naming_the_limit(editor_client, quiet_errors):
    text = nested_yaml(3000)
    answer, peak, seconds = _measured(lambda: _outcome(editor_client, editor_client.post(
        reverse("cluster-import"), {"name": "deep", "text": text}, HTTP_HX_REQUEST="true")))
    print(f"3,000 nested levels: {seconds:.2f}s, peak {peak / MiB:.1f} MiB")
    assert f"exceeded max depth of {kube.MAX_DEPTH} nested mappings and sequences" in answer
    assert peak < LIMIT
    assert not [r for r in quiet_errors.records if r.exc_info]
    assert not Cluster.objects.filter(name="deep").exists()


async def test_a_body_streaming_past_the_limit_without_a_length_is_cut_off_with_413():
    from clusterui.middleware import StreamSizeLimit

    reached = []

    async def app(scope, receive, send):  # reads the whole body, as Django's handler does
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                reached.append("disconnect")
                return
            if not message.get("more_body"):
                break
        reached.append("read")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    chunk = b"x" * MiB
    sent_chunks = []

    async def receive():
        sent_chunks.append(1)
        return {"type": "http.request", "body": chunk, "more_body": True}

    answers = []

    async def send(message):
        answers.append(message)

    scope = {"type": "http", "method": "POST", "path": "/clusters/import", "headers": [(b"content-type", b"multipart/form-data; boundary=B")]}
    await StreamSizeLimit(app)(scope, receive, send)
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert reached == ["disconnect"] and len(sent_chunks) == limit // MiB + 1
    assert answers[0]["status"] == 413 and len(answers) == 2
    assert f"Request entity too large: limit is {limit} bytes".encode() in answers[1]["body"]


async def test_a_request_within_the_limit_passes_through():
    from clusterui.middleware import StreamSizeLimit

    async def app(scope, receive, send):
        message = await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": message["body"]})

    async def receive():
        return {"type": "http.request", "body": b"small", "more_body": False}

    answers = []

    async def send(message):
        answers.append(message)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [(b"content-length", b"5")]}
    await StreamSizeLimit(app)(scope, receive, send)
    assert answers[0]["status"] == 200 and answers[1]["body"] == b"small"
