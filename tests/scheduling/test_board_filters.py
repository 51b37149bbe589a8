"""The board's display options kept in the URL: search, namespace, node label selector, and
the sections refetched with the viewer's filters."""

from __future__ import annotations

import re

from django.urls import reverse

from tests.scheduling.pages import card_html, page


def test_filters_come_from_the_url_and_hide_what_does_not_match(client, demo):
    body = page(client, demo, ns="shop", label="disktype=ssd", group="role", color="owner", big="1")
    assert 'class="board-page big">' in body
    assert 'class="live color-owner"' in body
    assert re.findall(r'<section class="group" data-group="([^"]*)"', body) == ["master", "worker"]
    assert '<option selected>shop</option>' in body
    assert 'value="disktype=ssd"' in body
    # every node keeps an element (so pushed updates always have a target), hidden if filtered out
    assert '<article id="node-node2" data-node="node2"' in body and "data-filtered hidden" in card_html(body, "node2")
    assert "data-filtered" in card_html(body, "node3") and "hidden" not in card_html(body, "node3").split(">")[0]


def test_search_by_name_keeps_the_nodes_with_a_matching_pod(client, demo):
    body = page(client, demo, q="running-on")
    assert "hidden" not in card_html(body, "node1").split(">")[0]
    assert "hidden" in card_html(body, "node2").split(">")[0]
    pending = body[body.index('<section id="pending"'):body.index('<section id="board"')]
    assert "No pending pods match the filter" in pending


def test_a_namespace_filter_shows_only_that_namespaces_pods(client, demo):
    body = page(client, demo, ns="default")
    assert "data-pod=\"shop/" not in card_html(body, "node2")
    assert "1 other pod hidden by the filter" in card_html(body, "node2")


def test_a_bad_label_selector_is_reported(client, demo):
    assert "Node labels: unable to parse requirement" in page(client, demo, label="a in b")


def test_the_sections_can_be_refetched_with_the_viewers_filters(client, demo):
    card = client.get(reverse("node-card", args=[demo.pk, "node2"]), {"ns": "default"}).content.decode()
    assert card.lstrip().startswith('<article id="node-node2"') and "data-filtered" in card
    assert client.get(reverse("node-card", args=[demo.pk, "nope"])).status_code == 404
    live = client.get(reverse("cluster-detail", args=[demo.pk]), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live")
    assert live.content.decode().lstrip().startswith('<div id="live"')
