"""Render what changed once, after commit, and push it to every open page of the cluster.

services.py reports every change with `note_change` inside its transaction; once the
transaction commits, `flush` renders the affected fragments from the committed state and
sends them to the cluster's channel-layer group. Consumers only relay what is sent here.
The pushed HTML is the same named partials the pages and the htmx responses render, with
`hx-swap-oob` so the htmx ws extension swaps each one by its id.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.template.loader import render_to_string
from django.utils.html import format_html

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    """One changed object. `nodes` are the node cards that show it (a pod's node before and
    after the change), so a pod move re-renders both cards."""

    kind: str  # "Node", "Pod", "Event", "Cluster", or any stored kind
    name: str = ""
    namespace: str = ""
    nodes: tuple[str, ...] = ()


_local = threading.local()


def _pending() -> dict[int, list[Change]]:
    if not hasattr(_local, "pending"):
        _local.pending = {}
    return _local.pending


def group_name(cluster_id: int) -> str:
    return f"cluster.{cluster_id}"


def note_change(cluster_id: int, change: Change) -> None:
    """Remember a change; it is pushed after the surrounding transaction commits (at once
    outside a transaction). A rolled-back change is pushed with the next commit, which is
    harmless: fragments are always rendered from the committed state."""
    _pending().setdefault(cluster_id, []).append(change)
    transaction.on_commit(lambda: flush(cluster_id))


def flush(cluster_id: int) -> None:
    changes = _pending().pop(cluster_id, None)
    if not changes:
        return  # an earlier callback of the same transaction already pushed them
    try:
        html = render_changes(cluster_id, changes)
    except Exception:  # a rendering bug must never break a write that already committed
        logger.exception("rendering the changes of cluster %s failed", cluster_id)
        return
    if html:
        send_html(cluster_id, html)


def render_changes(cluster_id: int, changes: list[Change]) -> str:
    """The out-of-band fragments for `changes`, rendered from the committed state: the
    summary always; the clock (and the event ages) when the cluster itself changed; the
    node cards listed in the changes (an element that deletes the card of a node that is
    gone); the pending queue when a pod or a node changed; the event stream when an event
    was recorded. Every fragment is a named partial of the cluster page, rendered with the
    default display options: pages showing a filtered view refetch the fragments they
    receive with their own filters (static/js/clusterui.js)."""
    from . import board
    from .models import Cluster
    from .views import _urls, clock_context, cluster_summary_context

    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if cluster is None:
        return ""
    page = "scheduling/cluster_detail.html"
    base = {"cluster": cluster, "oob": True, **_urls(cluster)}
    kinds = {c.kind for c in changes}
    parts = [render_to_string(f"{page}#cluster-summary", {**cluster_summary_context(cluster), "oob": True})]
    if "Cluster" in kinds:
        parts.append(render_to_string(f"{page}#clock", {**clock_context(cluster), "oob": True}))

    node_changes = {c.name for c in changes if c.kind == "Node"}
    names: list[str] = []
    for c in changes:
        if c.kind == "Node":
            names.append(c.name)
        names.extend(c.nodes)
    if names:
        for name, card in board.node_cards(cluster, names).items():
            if card is not None:
                parts.append(render_to_string(f"{page}#node-card", {**base, "card": card}))
            elif name in node_changes:
                parts.append(format_html('<div id="{}" hx-swap-oob="delete"></div>', board.node_dom_id(name)))
    if kinds & {"Pod", "Node"}:
        parts.append(render_to_string(f"{page}#pending", {**base, "pending": board.pending_queue(cluster)}))
    if kinds & {"Event", "Cluster"}:
        parts.append(render_to_string(f"{page}#events", {**base, "events": board.events(cluster)}))
    return "".join(parts)


def send_html(cluster_id: int, html: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(cluster_id), {"type": "cluster.update", "html": html})
    except Exception:  # a broken channel layer must never break a write that already committed
        logger.exception("broadcast to cluster %s failed", cluster_id)
