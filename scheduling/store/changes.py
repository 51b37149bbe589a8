"""What changed in a cluster, announced inside a transaction and delivered after it commits.

`services` announces every change here (services.announce). Once the surrounding
transaction commits (at once outside a transaction), the changes of each cluster are handed,
in one batch, to the listeners: the broadcast that renders and pushes the changed fragments
is the one listener, subscribed in SchedulingConfig.ready(). So the store knows nothing of
pages, and the pages are rendered from the committed state only.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from django.db import transaction


@dataclass(frozen=True)
class Change:
    """One changed object. `nodes` are the node cards that show it (a pod's node before and
    after the change), so a pod move re-renders both cards."""

    kind: str  # "Node", "Pod", "Event", "Cluster", "Policy", "Timeline", or any stored kind
    name: str = ""
    namespace: str = ""
    nodes: tuple[str, ...] = ()


Listener = Callable[[int, list[Change]], None]

_listeners: list[Listener] = []
_local = threading.local()


def subscribe(listener: Listener) -> None:
    """Call `listener(cluster_id, changes)` after every commit that changed the cluster."""
    if listener not in _listeners:
        _listeners.append(listener)


def _pending() -> dict[int, list[Change]]:
    if not hasattr(_local, "pending"):
        _local.pending = {}
    return _local.pending


def note(cluster_id: int, change: Change) -> None:
    """Remember a change; it is delivered after the surrounding transaction commits. A
    rolled-back change is delivered with the next commit, which is harmless: listeners read
    the committed state."""
    _pending().setdefault(cluster_id, []).append(change)
    transaction.on_commit(lambda: deliver(cluster_id))


def deliver(cluster_id: int) -> None:
    changes = _pending().pop(cluster_id, None)
    if not changes:
        return  # an earlier callback of the same transaction already delivered them
    for listener in list(_listeners):
        listener(cluster_id, changes)
