"""The fan-out is off the request path: a write's response does not wait for the render of
the pushed fragments nor for their delivery; the delivery thread renders each committed
batch once (merging what queued up meanwhile) and sends it in commit order."""

from __future__ import annotations

import threading

import pytest
from django.urls import reverse

from scheduling.live import broadcast
from scheduling.store.changes import Change
from tests.scheduling.pages import apply_form, preview


@pytest.fixture
def slow_render(monkeypatch):
    """A render that blocks until released, recording what it was asked to render."""
    release, started = threading.Event(), threading.Event()
    rendered: list[tuple[int, list[Change]]] = []
    sent: list[str] = []

    def render(cluster_id, changes):
        started.set()
        release.wait(10)
        rendered.append((cluster_id, changes))
        return f"<div>{len(rendered)}</div>"

    monkeypatch.setattr(broadcast, "render_changes", render)
    monkeypatch.setattr(broadcast, "send_html", lambda cluster_id, html, loop=None: sent.append(html))
    yield release, started, rendered, sent
    release.set()
    broadcast.flush()


@pytest.mark.django_db(transaction=True)
def test_apply_returns_before_the_push_is_rendered(editor_client, slow_render):
    from scheduling.store import services
    from tests.scheduling.pages import DEMO

    release, _, rendered, sent = slow_render
    demo = services.import_new_cluster("fanout", DEMO.read_text(), DEMO.name)
    form = apply_form(preview(editor_client, demo, "node2", op="taint-oc", taint="key1=value1:NoExecute").content.decode())
    response = editor_client.post(reverse("apply-edit", args=[demo.pk]), form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "node/node2 tainted" in response.content.decode()
    assert sent == []  # the response is out; the render is still blocked
    release.set()
    assert broadcast.flush(10)
    assert any(Change("Node", "node2", nodes=("node2",)) in changes for _, changes in rendered)
    assert sent


def test_batches_queued_meanwhile_are_rendered_once_in_commit_order(slow_render):
    release, started, rendered, sent = slow_render
    broadcast.push(1, [Change("Cluster")])
    assert started.wait(10)  # the thread took it and is blocked in the render
    broadcast.push(1, [Change("Node", "a", nodes=("a",))])
    broadcast.push(1, [Change("Node", "b", nodes=("b",)), Change("Node", "a", nodes=("a",))])
    broadcast.push(2, [Change("Cluster")])
    release.set()
    assert broadcast.flush(10)
    assert rendered == [
        (1, [Change("Cluster")]),
        (1, [Change("Node", "a", nodes=("a",)), Change("Node", "b", nodes=("b",))]),
        (2, [Change("Cluster")]),
    ]
    assert sent == ["<div>1</div>", "<div>2</div>", "<div>3</div>"]
