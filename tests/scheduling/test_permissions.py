"""Who may change what: viewers look and preview, editors apply and move the clock, every
post needs a CSRF token."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from scheduling.models import Node
from tests.scheduling.pages import page, preview


@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_a_viewer_cannot_apply_or_move_the_clock(client, viewer, demo, who):
    if who == "viewer":
        client.force_login(viewer)
    node = Node.objects.get(cluster=demo, name="node2")
    doc = node.document
    doc["spec"] = {"taints": [{"key": "k", "effect": "NoExecute"}]}
    response = client.post(reverse("apply-edit", args=[demo.pk]),
                           {"document": json.dumps(doc), "resource_version": node.resource_version, "verb": "tainted"})
    assert response.status_code == 403
    assert client.post(reverse("clock-action", args=[demo.pk]), {"action": "step-60"}).status_code == 403
    assert client.post(reverse("policy-action", args=[demo.pk]), {"action": "save", "text": ""}).status_code == 403
    node.refresh_from_db()
    demo.refresh_from_db()
    assert "taints" not in node.spec and node.resource_version == Node.objects.get(pk=node.pk).resource_version
    assert demo.now == 0


def test_a_viewer_may_preview_but_is_not_offered_apply(viewer_client, demo):
    body = preview(viewer_client, demo, "node2", op="taint-add", key="k", value="", effect="NoExecute").content.decode()
    assert 'data-evicted="' in body
    assert "Log in as an editor" in body and ">Apply</button>" not in body


def test_the_board_offers_clock_controls_to_editors_only(client, editor_client, demo):
    assert 'aria-label="clock controls"' in page(editor_client, demo)
    assert 'aria-label="clock controls"' not in page(Client(), demo)


def test_every_post_needs_a_csrf_token(editor, demo):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(reverse("clock-action", args=[demo.pk]), {"action": "step-60"}).status_code == 403
    assert client.post(reverse("node-preview", args=[demo.pk, "node2"]), {"op": "cordon"}).status_code == 403
