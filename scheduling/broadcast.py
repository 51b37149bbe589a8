"""Render what changed once, after commit, and push it to every open page of the cluster.

Consumers only relay what is sent here. The pushed HTML is the same named partial the page
and the htmx responses render, with `hx-swap-oob` so the htmx ws extension swaps it by id.
"""

from __future__ import annotations

import logging
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_last_sent: dict[int, int] = {}  # cluster id -> revision last pushed from this process


def group_name(cluster_id: int) -> str:
    return f"cluster.{cluster_id}"


def schedule_cluster_changed(cluster_id: int) -> None:
    transaction.on_commit(lambda: cluster_changed(cluster_id))


def cluster_changed(cluster_id: int) -> None:
    """Push the cluster's live fragments, unless this revision was already pushed."""
    from .models import Cluster

    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if cluster is None:
        return
    with _lock:
        if _last_sent.get(cluster_id) == cluster.revision:
            return
        _last_sent[cluster_id] = cluster.revision
    from .views import cluster_summary_context

    html = render_to_string("scheduling/cluster_detail.html#cluster-summary", {**cluster_summary_context(cluster), "oob": True})
    send_html(cluster_id, html)


def send_html(cluster_id: int, html: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(cluster_id), {"type": "cluster.update", "html": html})
    except Exception:  # a broken channel layer must never break a write that already committed
        logger.exception("broadcast to cluster %s failed", cluster_id)
