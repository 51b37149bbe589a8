"""The cluster pages as the tests read them: the demo cluster, the page HTML, a node card,
a what-if preview and the apply form it offers."""

from __future__ import annotations

import html
import re
from pathlib import Path

from django.urls import reverse

from scheduling.store import services

DEMO = Path(__file__).resolve().parents[2] / "scheduling" / "demo" / "demo-cluster.yaml"
FRONTEND_ON_NODE2 = "shop/frontend-6d4f8b9c7d-4xk2p"


def page(client, cluster, **params) -> str:
    response = client.get(reverse("cluster-detail", args=[cluster.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def card_html(body: str, name: str) -> str:
    start = body.index(f'<article id="node-{name}"')
    return body[start:body.index("</article>", start)]


def set_doc(cluster, kind, name, change, namespace=""):
    obj = services.get_object(cluster, kind, name, namespace)
    doc = obj.document
    change(doc)
    services.replace_object(cluster, doc)


def preview(client, cluster, node, **data):
    return client.post(reverse("node-preview", args=[cluster.pk, node]), data, HTTP_HX_REQUEST="true")


def apply_form(preview_html: str) -> dict:
    fields = dict(re.findall(r'<input type="hidden" name="(document|resource_version|verb|versions|verbs|base)" value="([^"]*)"', preview_html))
    return {k: html.unescape(v) for k, v in fields.items()}
