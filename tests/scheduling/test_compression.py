"""Pages go out compressed, and compression does not expose the CSRF token (BREACH): it is
masked differently in every response."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from django.urls import reverse

from scheduling.store import services

DEMO = Path(__file__).resolve().parents[2] / "scheduling" / "demo" / "demo-cluster.yaml"
TOKEN = re.compile(rb'"X-CSRFToken": "([^"]+)"')


@pytest.fixture
def demo(db):
    return services.import_new_cluster("demo", DEMO.read_text(), DEMO.name)


def test_the_board_is_sent_gzipped_to_a_browser_that_accepts_it(editor_client, demo):
    response = editor_client.get(reverse("cluster-detail", args=[demo.pk]), HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    html = gzip.decompress(response.content)
    assert b'id="node-node1"' in html
    assert len(response.content) < len(html) / 3


def test_a_client_that_does_not_accept_gzip_gets_plain_html(editor_client, demo):
    response = editor_client.get(reverse("cluster-detail", args=[demo.pk]))
    assert not response.has_header("Content-Encoding")
    assert b'id="node-node1"' in response.content


def test_the_csrf_token_is_masked_afresh_in_every_compressed_response(editor_client, demo):
    tokens = []
    for _ in range(2):
        response = editor_client.get(reverse("cluster-detail", args=[demo.pk]), HTTP_ACCEPT_ENCODING="gzip")
        tokens.append(TOKEN.search(gzip.decompress(response.content)).group(1))
    assert tokens[0] != tokens[1]
