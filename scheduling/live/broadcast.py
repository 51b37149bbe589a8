"""Render what changed once, after commit, and push it to every open page of the cluster.

services.py announces every change (changes.py); once the transaction commits, `push`
receives the cluster's changes (it is the listener SchedulingConfig.ready() subscribes),
renders the affected fragments from the committed state with the page functions of the
literal registry views/fragments.FRAGMENTS, and sends them to the cluster's channel-layer
group. Consumers only relay what is sent here. The pushed HTML is the same named partials
the pages and the htmx responses render, with `hx-swap-oob` so the htmx ws extension swaps
each one by its id.

The push is off the request path: `push` only queues the batch and returns, so a write's
response does not wait for the render or for the fan-out to the viewers. One delivery
thread per process takes the queue in commit order, merges the batches of a cluster that
queued up meanwhile (still one render per change, never one per viewer), renders them
from the committed state and sends them. `flush()` waits until everything queued is sent
(tests, the board benchmark, and the process's exit, so a command's last changes go out).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import queue
import re
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connections

from scheduling.store.changes import Change
from scheduling.models import Cluster
from scheduling.pages.views.fragments import FRAGMENTS

logger = logging.getLogger(__name__)


# The kinds the update progress page shows (its runlevels, operators, pools, nodes, stuck
# drains): a change of one of them re-renders its live fragment.
UPDATE_KINDS = frozenset({"ClusterVersion", "ClusterOperator", "MachineConfigPool", "MachineConfig", "Node", "Pod",
                          "PodDisruptionBudget"})




def group_name(cluster_id: int) -> str:
    return f"cluster.{cluster_id}"


def push(cluster_id: int, changes: list[Change]) -> None:
    """Queue the committed changes of a cluster for the delivery thread; returns at once."""
    _Delivery.get().put(cluster_id, list(changes))


def flush(timeout: float = 10.0) -> bool:
    """Wait until every queued change has been rendered and sent; False on timeout."""
    return _Delivery.get().wait_idle(timeout)


def deliver_now(cluster_id: int, changes: list[Change], loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Render and send at once, in this thread (the delivery thread's work, on its loop)."""
    try:
        html = render_changes(cluster_id, changes)
    except Exception:  # a rendering bug must never break a write that already committed
        logger.exception("rendering the changes of cluster %s failed", cluster_id)
        return
    if html:
        send_html(cluster_id, html, loop=loop)


class _Delivery:
    """The process's delivery thread and its queue (started on first use, again after a fork)."""

    _instance: "_Delivery | None" = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.queue: queue.Queue = queue.Queue()
        self.idle = threading.Condition()
        self.unfinished = 0
        # the thread's own event loop: sends need no executor (still there while the
        # process exits, when the last changes are flushed) and keep their connections
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="clusterui-broadcast", daemon=True)
        self.thread.start()

    @classmethod
    def get(cls) -> "_Delivery":
        instance = cls._instance
        if instance is None or instance.pid != os.getpid():
            with cls._lock:
                instance = cls._instance
                if instance is None or instance.pid != os.getpid():
                    instance = cls._instance = cls()
        return instance

    def put(self, cluster_id: int, changes: list[Change]) -> None:
        with self.idle:
            self.unfinished += 1
        self.queue.put((cluster_id, changes))

    def wait_idle(self, timeout: float) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.unfinished == 0, timeout)

    def _run(self) -> None:
        while True:
            batches = [self.queue.get()]
            while True:  # what queued up meanwhile goes out with it
                try:
                    batches.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            merged: dict[int, list[Change]] = {}
            for cluster_id, changes in batches:
                merged.setdefault(cluster_id, []).extend(changes)
            try:
                for cluster_id, changes in merged.items():
                    deliver_now(cluster_id, list(dict.fromkeys(changes)), loop=self.loop)
            finally:
                connections.close_all()  # this thread's connections: never held between deliveries
                with self.idle:
                    self.unfinished -= len(batches)
                    self.idle.notify_all()


atexit.register(lambda: _Delivery._instance is not None and _Delivery._instance.pid == os.getpid() and flush(10.0))


def render_changes(cluster_id: int, changes: list[Change]) -> str:
    """The out-of-band fragments for `changes`, rendered from the committed state: the
    summary always; the clock (and the event ages) when the cluster itself changed; the
    node cards listed in the changes (an element that deletes the card of a node that is
    gone); the overview's counts and legend and the pending queue when a pod or a node changed; the event stream when an event
    was recorded; the update progress (updates/views.progress_fragment, empty without a
    ClusterVersion) when one of UPDATE_KINDS changed; the machine pages' fragments
    (updates/views_machines.machine_fragments, which knows the kinds its pages show: empty
    when none of them changed or without Machine API objects). Every fragment is a named partial of its
    page, rendered with the default display options: pages showing a filtered view refetch
    the fragments they receive with their own filters (static/js/clusterui.js), and a page
    drops the fragments it has no element for."""
    cluster = Cluster.objects.filter(pk=cluster_id).first()
    if cluster is None:
        return ""
    kinds = {c.kind for c in changes}
    parts = [FRAGMENTS["cluster-summary"](cluster)]
    if "Cluster" in kinds:
        parts.append(FRAGMENTS["clock"](cluster))
    names: list[str] = []
    for c in changes:
        if c.kind == "Node":
            names.append(c.name)
        names.extend(c.nodes)
    if names:
        parts.append(FRAGMENTS["node-cards"](cluster, names, {c.name for c in changes if c.kind == "Node"}))
        parts.append(FRAGMENTS["node-tiles"](cluster, names))
    if kinds & {"Pod", "Node"}:
        parts.append(FRAGMENTS["overview-meta"](cluster))
        parts.append(FRAGMENTS["pending"](cluster))
    if kinds & {"Event", "Cluster"}:
        parts.append(FRAGMENTS["events"](cluster))
    if kinds & UPDATE_KINDS and "update-progress" in FRAGMENTS:  # registered by the updates app
        parts.append(FRAGMENTS["update-progress"](cluster))
    if "machines" in FRAGMENTS:  # registered by the updates app
        deleted = tuple((c.namespace, c.name) for c in changes if c.kind == "Machine" and c.name)
        parts.append(FRAGMENTS["machines"](cluster, kinds, deleted))
    return "".join(parts)


def send_html(cluster_id: int, html: str, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Send to the cluster's group: on `loop` (the delivery thread's), else via async_to_sync;
    in as many messages as `socket_messages` makes of it."""
    layer = get_channel_layer()
    if layer is None:
        return

    async def send_all():
        for part in socket_messages(html):
            await layer.group_send(group_name(cluster_id), {"type": "cluster.update", "html": part})

    try:
        if loop is not None:
            loop.run_until_complete(send_all())
        else:
            async_to_sync(send_all)()
    except Exception:  # a broken channel layer must never break a write that already committed
        logger.exception("broadcast to cluster %s failed", cluster_id)


# --- messages a websocket carries ------------------------------------------------------------------
#
# Daphne (autobahn) refuses to send a websocket message over 1 MiB (PayloadExceededError: the
# page never gets it and goes stale), and a browser swaps a huge message in one long task.
# A push larger than MAX_MESSAGE_BYTES goes out as several messages, each holding whole
# fragments (the top-level elements the htmx ws extension swaps one by one); a single fragment
# larger than that (the node cards of a whole cluster are many fragments, but the pending
# queue of 10,000 pods is one) is replaced by its "refresh this section" partial: an empty
# element with the fragment's id and `data-refresh`, which the page answers by fetching the
# section from its data-src with its own filters (static/js/clusterui.js), as it does for a
# filtered view.

MAX_MESSAGE_BYTES = 512 * 1024

_TAG = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S)
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_RAW = frozenset({"script", "style", "textarea", "title"})
_ID = re.compile(r"""\sid=(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


def top_level_elements(html: str) -> list[str] | None:
    """The top-level elements of `html`, each as written (the text between them dropped:
    the ws extension swaps elements only); None when the HTML does not nest."""
    out: list[str] = []
    depth, start, pos = 0, 0, 0
    lowered = None
    while True:
        m = _TAG.search(html, pos)
        if m is None:
            break
        pos = m.end()
        if m.group(2) is None:  # a comment
            continue
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if closing:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                out.append(html[start:m.end()])
            continue
        if depth == 0:
            start = m.start()
        if name in _VOID or attrs.rstrip().endswith("/"):
            if depth == 0:
                out.append(html[start:m.end()])
            continue
        depth += 1
        if name in _RAW:  # its text is not markup: on to its end tag
            lowered = html.lower() if lowered is None else lowered
            end = lowered.find(f"</{name}", pos)
            if end < 0:
                return None
            pos = end
    return out if depth == 0 else None


def refresh_partial(element: str) -> str | None:
    """The "refresh this section" stand-in of a fragment: its tag and id, empty, marked
    data-refresh (None for an element without an id: nothing to refresh)."""
    m = _TAG.match(element)
    found = _ID.search(m.group(3)) if m else None
    if found is None:
        return None
    element_id = next(g for g in found.groups() if g is not None)
    name = m.group(2)
    return f'<{name} id="{element_id}" data-refresh hx-swap-oob="true">' + ("" if name.lower() in _VOID else f"</{name}>")


def socket_messages(html: str, limit: int = MAX_MESSAGE_BYTES) -> list[str]:
    """`html` as websocket messages of at most `limit` bytes each (see above)."""
    if len(html) * 4 <= limit or len(html.encode()) <= limit:
        return [html]
    elements = top_level_elements(html)
    if elements is None:
        logger.warning("a push of %d bytes could not be split into its fragments; sent whole", len(html.encode()))
        return [html]
    messages: list[str] = []
    current: list[str] = []
    size = 0
    for element in elements:
        n = len(element.encode())
        if n > limit:
            stand_in = refresh_partial(element)
            if stand_in is None:
                logger.warning("a fragment of %d bytes without an id was left out of a push", n)
                continue
            element, n = stand_in, len(stand_in.encode())
        if current and size + n > limit:
            messages.append("".join(current))
            current, size = [], 0
        current.append(element)
        size += n
    if current:
        messages.append("".join(current))
    return messages
