"""The scheduler as a controller of the event loop (engine.simulation): it schedules the
pending pods with every running scheduler (the default one and one per named Policy),
in queue order, preempting when allowed (engine.scheduler.scheduler.run_queue), and
binds them.

It re-runs pending pods the way the 1.11 scheduling queue does: a pod that did not fit
waits in the unschedulable queue until a node changes, a bound pod is removed, or a
volume/service object changes (MoveAllToActiveQueue); new pods are tried at once. A pod
nominated by preemption is tried again with every run.

Its state (ctx.state, persisted with the cluster):
* `unschedulable`: the keys ("<ns>/<name>") of the pods in the unschedulable queue;
* `attempts`: pod key -> how many times a pending pod was tried. The tie-break of the
  n-th attempt draws from `tie_break_rng(seed, key, n)` (= ctx.rng("scheduler", key, n)):
  a pod lands on the same node however the clock is stepped, whatever the other pods drew.

Settings read (ctx.settings): `schedulers` [(name, Policy)], `preemption` (bool),
`explain` (keep filters and scores for a reader).

`results` keeps every attempt's ScheduleResult of this loop (what `simulate` prints); it
is not state: a resumed loop starts with none.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.defaults import KINDS, WORKLOAD_KINDS, ZONE_KIND
from scheduling.engine.api.objects import (
    DEFAULT_SCHEDULER,
    Controller,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    Volume,
)
from scheduling.engine.controller import Context, rng_for
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.scheduler import ScheduleResult, run_queue, scheduler_not_running_message
from scheduling.engine.store import Store, is_terminating, meta, time_value

NAME = "scheduler"
VOLUME_KINDS = {
    "PersistentVolume": "persistent_volumes",
    "PersistentVolumeClaim": "persistent_volume_claims",
    "StorageClass": "storage_classes",
}
MOVE_ALL_KINDS = frozenset({"Node", "Service", "PersistentVolume", "PersistentVolumeClaim", "StorageClass"})
_HELD = "\x00held"  # scheduler name given to pods kept in the unschedulable queue for a run
SIMULATOR_SOURCE = "clusterui"  # events the simulator adds where Kubernetes is silent
NO_SCHEDULER_REASON = "SchedulerNotRunning"


class SimulationError(ValueError):
    """The input cannot be simulated; str() is the message for the user."""


def _namespace_name(doc: Mapping[str, Any]) -> str:
    return (doc.get("metadata") or {}).get("name") or ""


# kind -> (the ClusterState list it goes to, how it is built from its document)
_BUILDERS: dict[str, tuple[str, Any]] = {
    "Node": ("nodes", Node.from_doc),
    "Pod": ("pods", Pod.from_doc),
    "Namespace": ("namespaces", _namespace_name),
    "PriorityClass": ("priority_classes", PriorityClass.from_doc),
    "Service": ("services", Service.from_doc),
    **{kind: ("controllers", Controller.from_doc) for kind in WORKLOAD_KINDS},
    "PodDisruptionBudget": ("pdbs", PodDisruptionBudget.from_doc),
    **{kind: (field, Volume.from_doc) for kind, field in VOLUME_KINDS.items()},
}


def build_state(docs: Iterable[Mapping[str, Any]], memo: dict[int, tuple] | None = None) -> ClusterState:
    """A ClusterState from cluster documents (the other controllers' kinds are skipped).

    `memo` (a Store's: documents never changed in place) keeps what was built from each
    document, by its identity, so a document seen before is not read again."""
    state = ClusterState()
    lists = {field: getattr(state, field) for field, _ in _BUILDERS.values()}
    for doc in docs:
        if memo is not None:
            hit = memo.get(id(doc))
            if hit is not None and hit[0] is doc:
                if hit[1] is not None:
                    lists[hit[1]].append(hit[2])
                continue
        kind = doc.get("kind")
        entry = _BUILDERS.get(kind)
        if entry is None:
            if kind in KINDS or kind == ZONE_KIND:
                # the other controllers' kinds (ClusterVersion, Machine, ...); legacy Zone documents
                if memo is not None:
                    memo[id(doc)] = (doc, None, None)
                continue
            raise SimulationError(f"cannot simulate a {kind!r} document")
        field, build = entry
        obj = build(doc)
        lists[field].append(obj)
        if memo is not None:
            memo[id(doc)] = (doc, field, obj)
    return state


def tie_break_rng(seed: int, pod_key: str, attempt: int):
    """The generator of the tie-break of a pod's `attempt`-th scheduling attempt (1, 2,
    ...): what a preview must use to show the node the scheduler will really pick."""
    return rng_for(seed, NAME, pod_key, attempt)


def _key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def _pending(doc: Mapping[str, Any] | None) -> bool:
    return doc is not None and not (doc.get("spec") or {}).get("nodeName") and not is_terminating(doc)


class SchedulerController:
    name = NAME
    watches = frozenset({"Pod"}) | MOVE_ALL_KINDS

    def __init__(self) -> None:
        self.results: list[ScheduleResult] = []
        self._bound: set[str] | None = None  # pods seen bound at the last run (to notice a bound pod removed)

    def scheduler_names(self, settings: Mapping[str, Any]) -> set[str]:
        return {name for name, _ in settings.get("schedulers") or ()}

    def reconcile(self, ctx: Context) -> A.Result:
        store = ctx.store
        unschedulable = set(ctx.state.get("unschedulable") or ())
        if self._bound is None or ctx.changed is None:
            self._bound = {_key(*_ns_name(p)) for p in store.list("Pod") if (p.get("spec") or {}).get("nodeName")}
        move_all, needed = self._note(store, ctx.changed, unschedulable)
        if not needed:
            return A.Result()
        return self._schedule(ctx, unschedulable, move_all)

    def _note(self, store: Store, changed, unschedulable: set[str]) -> tuple[bool, bool]:
        """(move every unschedulable pod back to the active queue, a pass is needed)."""
        if changed is None:
            unschedulable.clear()
            return True, True
        move_all = needed = False
        for kind, ns, name in changed:
            if kind in MOVE_ALL_KINDS:
                move_all = needed = True
            elif kind == "Pod":
                key = _key(ns, name)
                doc = store.get("Pod", ns, name)
                bound = doc is not None and bool((doc.get("spec") or {}).get("nodeName"))
                if key in self._bound and not bound:
                    move_all = needed = True  # a bound pod was removed
                if bound:
                    self._bound.add(key)
                else:
                    self._bound.discard(key)
                if doc is None:
                    unschedulable.discard(key)
                elif _pending(doc) and key not in unschedulable:
                    needed = True
        return move_all, needed

    def _schedule(self, ctx: Context, unschedulable: set[str], move_all: bool) -> A.Result:
        store, now, settings = ctx.store, ctx.now, ctx.settings
        attempts: dict[str, int] = dict(ctx.state.get("attempts") or {})
        state = build_state((d for k in store.kinds() for d in store.list(k)), store.memo)
        held: dict[int, Pod] = {}
        if move_all:
            unschedulable.clear()
        else:
            for i, pod in enumerate(state.pods):
                if pod.key in unschedulable and not pod.nominated_node_name and not pod.node_name:
                    held[i] = pod
                    state.pods[i] = dataclasses.replace(pod, scheduler_name=_HELD)
        before = list(state.pods)
        infos = state.node_infos()
        results: list[ScheduleResult] = []

        def rng_for_attempt(pod: Pod, n: int):
            return tie_break_rng(ctx.seed, pod.key, attempts.get(pod.key, 0) + n)

        for name, policy in settings.get("schedulers") or ():
            results += run_queue(state, policy, None, bool(settings.get("preemption", True)), scheduler_name=name,
                                 now=now, explain=bool(settings.get("explain", True)), node_infos=infos,
                                 rng_for_attempt=rng_for_attempt)
        for i, pod in held.items():
            state.pods[i] = pod
            before[i] = pod
        actions: list = []
        for old, new in zip(before, state.pods):
            if new.node_name and not old.node_name:
                actions.append(A.Bind(new.namespace, new.name, new.node_name))
                self._bound.add(new.key)
            elif new.nominated_node_name != old.nominated_node_name:
                actions.append(A.SetNominatedNode(new.namespace, new.name, new.nominated_node_name))
            if new.deletion_timestamp is not None and old.deletion_timestamp is None:
                actions.append(A.SetPodDeletion(new.namespace, new.name, now, old.termination_grace_period_seconds, "Preempted"))
        actions += self._no_scheduler(store, state, settings, now)
        tried: dict[str, int] = {}
        for r in results:
            source = r.pod.scheduler_name or DEFAULT_SCHEDULER
            for e in r.events():
                kind, ns, name = e.object.split("/", 2)
                actions.append(A.RecordEvent(e.time, e.type, e.reason, kind, ns, name, e.message, source))
            tried[r.pod.key] = tried.get(r.pod.key, 0) + 1
            if r.node is None:
                unschedulable.add(r.pod.key)
            else:
                unschedulable.discard(r.pod.key)
        self.results += results
        pending = {p.key for p in state.pods if not p.node_name and not p.is_terminating}
        for key, n in tried.items():
            attempts[key] = attempts.get(key, 0) + n
        attempts = {k: n for k, n in sorted(attempts.items()) if k in pending}
        unschedulable &= pending
        actions.append(A.SetControllerState(NAME, "unschedulable", sorted(unschedulable) or None))
        actions.append(A.SetControllerState(NAME, "attempts", attempts or None))
        return A.Result(actions)

    def _no_scheduler(self, store: Store, state: ClusterState, settings: Mapping[str, Any], now: float) -> list:
        """A pending pod that names a scheduler that does not run stays Pending. Kubernetes
        says nothing about it (no scheduler looks at it); the simulator says so once, with
        a Warning event and the pod's PodScheduled condition (which also makes it said
        only once: the condition is the memory)."""
        running = self.scheduler_names(settings) | {_HELD}
        actions: list = []
        for pod in state.pods:
            if pod.node_name or pod.is_terminating or pod.scheduler_name in running:
                continue
            doc = store.get("Pod", pod.namespace, pod.name)
            conditions = list(((doc or {}).get("status") or {}).get("conditions") or [])
            if any(c.get("type") == "PodScheduled" and c.get("reason") == NO_SCHEDULER_REASON for c in conditions):
                continue
            message = scheduler_not_running_message(pod.scheduler_name)
            conditions = [c for c in conditions if c.get("type") != "PodScheduled"] + [
                {"type": "PodScheduled", "status": "False", "reason": NO_SCHEDULER_REASON, "message": message,
                 "lastTransitionTime": time_value(now)}
            ]
            actions.append(A.PatchStatus("Pod", pod.namespace, pod.name, {"conditions": conditions}))
            actions.append(A.RecordEvent(now, "Warning", NO_SCHEDULER_REASON, "Pod", pod.namespace, pod.name,
                                         message, SIMULATOR_SOURCE))
        return actions


def _ns_name(doc: Mapping[str, Any]) -> tuple[str, str]:
    m = meta(doc)
    return m.get("namespace") or "default", m.get("name") or ""
