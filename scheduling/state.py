"""Read a stored cluster into the engine's shapes: documents, a ClusterState, and the
controllers' own state (kept by scheduling.reconcile in `Cluster.controller_state`)."""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from typing import Any

from scheduling.engine.api.validation import FieldError, engine_problem
from scheduling.engine.controllers import taint_manager
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.store import sim_time, time_value
from .engine.controllers.scheduling import build_state
from .models import KIND_MODELS, Cluster


def cluster_documents(cluster: Cluster, kinds: tuple[str, ...] | None = None) -> list[dict]:
    """Every stored object as the API would return it, kinds in KIND_MODELS order, each kind
    in creation order (pods keep their queue order)."""
    docs: list[dict] = []
    for kind, model in KIND_MODELS.items():
        if kinds is not None and kind not in kinds:
            continue
        docs.extend(obj.document for obj in model.objects.filter(cluster=cluster).order_by("pk"))
    return docs


def split_usable(docs: list[dict]) -> tuple[list[dict], list[tuple[dict, FieldError]]]:
    """(the documents the engine can use, the others with the first reason each is not).

    Imports validate everything, so this only matters for objects stored before a rule
    existed; it costs a decode walk per document, so callers use it as a fallback when the
    engine refuses the whole set (`with_usable_documents`)."""
    usable: list[dict] = []
    skipped: list[tuple[dict, FieldError]] = []
    for doc in docs:
        problem = engine_problem(doc)
        if problem is None:
            usable.append(doc)
        else:
            skipped.append((doc, problem))
    return usable, skipped


def with_usable_documents(docs: list[dict], run):
    """run(docs); when the engine fails on a malformed stored object, run again without the
    objects it cannot use. Returns (run's result, the skipped objects with their reasons)."""
    try:
        return run(docs), []
    except Exception:
        usable, skipped = split_usable(docs)
        if not skipped:
            raise  # not the data: a real error
        return run(usable), skipped


# The ClusterStates of the last few (cluster, revision) read in this process: every write of
# a cluster's objects takes a new revision, so a state read at a revision stays right. The
# engine's objects are immutable; callers get fresh lists.
_STATES: OrderedDict[tuple, ClusterState] = OrderedDict()
_STATES_KEPT = 4
_states_lock = threading.Lock()


def _fresh_lists(state: ClusterState) -> ClusterState:
    return dataclasses.replace(state, **{
        f.name: list(getattr(state, f.name)) for f in dataclasses.fields(state) if isinstance(getattr(state, f.name), list)
    })


def cluster_state(cluster: Cluster) -> ClusterState:
    """The engine's snapshot of a stored cluster (the scheduler, previews and the explainer),
    read once per revision of the cluster in this process; objects the engine cannot use
    are left out."""
    key = (cluster.pk, cluster.created_at, cluster.revision)
    with _states_lock:
        cached = _STATES.get(key)
        if cached is not None:
            _STATES.move_to_end(key)
            return _fresh_lists(cached)
    state, _ = with_usable_documents(cluster_documents(cluster), build_state)
    with _states_lock:
        _STATES[key] = state
        while len(_STATES) > _STATES_KEPT:
            _STATES.popitem(last=False)
    return _fresh_lists(state)


def controllers_state(cluster: Cluster) -> dict[str, dict[str, Any]]:
    """Each controller's own state as the last reconcile left it (controller name -> its
    dict; engine.controller), e.g. `["taint-manager"]["default/web"]` = eviction time."""
    return (cluster.controller_state or {}).get("controllers") or {}


def eviction_timers(cluster: Cluster) -> dict[str, float]:
    """"<namespace>/<name>" -> when the NoExecute taint manager deletes the pod."""
    timers = controllers_state(cluster).get(taint_manager.NAME) or {}
    return {key: float(t) for key, t in timers.items() if sim_time(t) is not None}


def eviction_time(cluster: Cluster, namespace: str, name: str) -> int | float | None:
    """When the taint manager's timer deletes this pod (None: no timer), as shown."""
    t = eviction_timers(cluster).get(taint_manager.pod_key(namespace, name))
    return None if t is None else time_value(t)
