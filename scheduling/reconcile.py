"""Run the controllers of one stored cluster up to its clock, through the engine.

The same `engine.simulation.Simulation` that plays `simulate --until` runs here: the
stored documents go in, the controllers (scheduler, node lifecycle, taint manager,
kubelets, workload controllers) run from `reconciled_to` to the cluster's `now`, and what
changed comes back as documents and events, written in one transaction.

Idempotent by construction: all controller state lives in the documents (and the Zone
documents in `Cluster.controller_state`); the write is a compare-and-swap on the cluster
revision read at the start (someone else wrote meanwhile: nothing is written, the next
run starts again from the new state); and a run with nothing due and nothing changed
since the last one returns before computing anything.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction

from . import services
from .engine.defaults import ZONE_KIND
from .engine.policy import PolicyError, schedulers_for
from .engine.simulation import Simulation
from .engine.timeline import load_timeline
from .models import KIND_MODELS, Cluster
from .state import cluster_documents

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    ran: bool  # the controllers ran
    written: int = 0  # objects created, replaced or deleted
    events: int = 0
    conflict: bool = False  # someone wrote meanwhile; nothing was written


def _comparable(doc: dict) -> dict:
    """A document without the fields the store manages."""
    meta = {k: v for k, v in (doc.get("metadata") or {}).items() if k != "resourceVersion"}
    return {**doc, "metadata": meta}


def _schedulers(cluster: Cluster):
    docs = [cluster.policy, *(cluster.scheduler_policies or {}).values()]
    try:
        return schedulers_for(docs)
    except PolicyError:  # stored policies were validated; keep running on the defaults
        logger.exception("cluster %s has an invalid policy; using the default", cluster.pk)
        return schedulers_for([])


def is_due(cluster: Cluster) -> bool:
    """Something changed since the last run, or a controller asked to run by now."""
    state = cluster.controller_state or {}
    if state.get("revision") != cluster.revision:
        return True
    due = [t for t in (state.get("next_due"), _next_step_time(state)) if t is not None]
    return bool(due) and cluster.now >= min(due)


def _next_step_time(state: dict) -> float | None:
    """When the next Timeline step not yet played is due."""
    times = sorted(float(step.get("at") or 0) for doc in state.get("timelines") or [] for step in doc.get("steps") or [])
    played = int(state.get("steps_played") or 0)
    return times[played] if played < len(times) else None


def reconcile(cluster_id: int, *, force: bool = False) -> Outcome:
    with transaction.atomic():  # one consistent snapshot of the cluster
        cluster = Cluster.objects.filter(pk=cluster_id).first()
        if cluster is None:
            return Outcome(ran=False)
        if not force and not is_due(cluster):
            return Outcome(ran=False)
        docs = cluster_documents(cluster)
    stored = cluster.controller_state or {}
    zones = list(stored.get("zones") or [])
    timelines = [load_timeline(doc) for doc in stored.get("timelines") or []]
    start, until = cluster.reconciled_to, max(cluster.now, cluster.reconciled_to)

    sim = Simulation(
        docs + zones,
        schedulers=_schedulers(cluster),
        # A fresh generator per run, derived from the cluster's seed and the time, so a
        # replay of the same history makes the same choices.
        seed=cluster.seed * 1_000_003 + int(round(start * 1000)),
        admission=cluster.admission or None,
        explain=False,
        preemption=cluster.preemption_enabled,
        timelines=timelines,
        steps_played=int(stored.get("steps_played") or 0),
    )
    sim.now = start
    sim.run_until(until)
    return _write(cluster, docs, sim, until)


def _write(cluster: Cluster, before: list[dict], sim: Simulation, until: float) -> Outcome:
    old = {_key(d): d for d in before}
    new = {_key(d): d for d in sim.store.all() if d.get("kind") != ZONE_KIND}
    # Pods that are still pending carry the scheduler's last word, as the API shows it.
    for key, result in sim.last_results().items():
        ns, _, name = key.partition("/")
        doc = new.get(("Pod", ns, name))
        if doc is not None and result.node is None and result.message and not (doc.get("spec") or {}).get("nodeName"):
            _set_unschedulable_condition(doc, result.message, until)
    zones = [d for d in sim.store.all() if d.get("kind") == ZONE_KIND]
    written = 0
    with transaction.atomic(), services.controller_writes():
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        if locked.revision != cluster.revision:
            return Outcome(ran=True, conflict=True)
        order = list(KIND_MODELS)
        for key in sorted(new.keys() | old.keys(), key=lambda k: (order.index(k[0]) if k[0] in order else 99, k)):
            before_doc, after_doc = old.get(key), new.get(key)
            if key[0] not in KIND_MODELS:
                continue
            if before_doc is None:
                services.create_object(cluster, after_doc)
            elif after_doc is None:
                services.delete_object(cluster, key[0], key[2], key[1], expected_version=_version(before_doc))
            elif _comparable(after_doc) != _comparable(before_doc):
                services.replace_object(cluster, after_doc, expected_version=_version(before_doc))
            else:
                continue
            written += 1
        for e in sim.events:
            services.record_event(
                cluster, reason=e.reason, message=e.message, kind=e.kind, name=e.name, namespace=e.namespace,
                type=e.type, source=e.source, time=e.time,
            )
        revision = Cluster.objects.values_list("revision", flat=True).get(pk=cluster.pk)
        Cluster.objects.filter(pk=cluster.pk).update(
            reconciled_to=until,
            controller_state={
                **(cluster.controller_state or {}),
                "zones": zones,
                "next_due": sim.next_due,
                "revision": revision,
                "steps_played": sim.steps_played,
            },
        )
    return Outcome(ran=True, written=written, events=len(sim.events))


def _key(doc: dict) -> tuple[str, str, str]:
    meta = doc.get("metadata") or {}
    return doc.get("kind") or "", meta.get("namespace") or "", meta.get("name") or ""


def _version(doc: dict) -> int:
    return int((doc.get("metadata") or {}).get("resourceVersion") or 0)


def _set_unschedulable_condition(doc: dict, message: str, now: float) -> None:
    """status.conditions PodScheduled=False, reason Unschedulable, as the 1.11 scheduler
    records a pod it could not place."""
    status = doc.setdefault("status", {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    previous = next((c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
    if previous and previous.get("status") == "False" and previous.get("message") == message:
        conditions.append(previous)
    else:
        conditions.append(
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message,
             "lastTransitionTime": now}
        )
    status["conditions"] = conditions
