"""The generic scheduler of Kubernetes 1.11 (pkg/scheduler/core/generic_scheduler.go).

`schedule()` is one scheduling cycle for one pod: every node through the policy's
predicates (in the 1.11 order, stopping at the first failure unless
alwaysCheckAllPredicates), the feasible nodes through the priorities (raw 0..10 each,
weighted and summed), the best total wins and ties are broken with the `random.Random`
passed in. It returns everything a user may ask about: the reasons per node, the scores,
the tie, and the FailedScheduling message (`0/3 nodes are available: 1 Insufficient cpu,
2 node(s) had taints that the pod didn't tolerate.`).

`run_queue()` is the scheduling queue: the pending pods of one scheduler in queue order
(priority high to low, then input order), each bound into the NodeInfos so later pods see
it, preempting when a pod does not fit (engine.scheduler.preemption).

Decisions where 1.11 and OpenShift 3.11's documentation differ:
* Ties: 1.11.0's selectHost takes the tied nodes round-robin (`lastNodeIndex`); the documentation
  says "one of them is selected at random" and the engine must be reproducible, so we
  draw `rng.randrange(len(tied))` over the tied nodes in node order (only when more than
  one node ties, so the random stream does not move otherwise).
* One feasible node: 1.11 takes it without running the priorities ("When only one node
  after predicate, just use it"). We do the same (`prioritized` is False), but when
  `explain` is on we still compute its scores for the user to read; they decide nothing.
* All nodes are listed (1.11's node lister no longer drops not-ready or unschedulable
  nodes; the mandatory CheckNodeCondition predicate rejects them), so the message counts
  every node: `0/3 nodes are available: 1 node(s) were not ready, ...`.
* Nominated pods: like podFitsOnNode, a node with pods nominated to it (preemptors
  waiting for their victims to go) is checked twice: first with the nominated pods of
  equal or higher priority added, then, if that passes, without them.

Two paths, one result. The plain path (`fast=False`) is the algorithm as written above:
every predicate on every node, every priority over the feasible nodes, in Python. The
fast path (the default) makes the same decisions with the scheduler's cache
(engine.scheduler.cache): the predicates that read only the node are evaluated once per distinct
pod spec and kept, the others a node vector at a time (numpy) over arrays the cache keeps
in step as pods are bound, and the priorities likewise (`fn.mask` / `fn.vector` /
`fn.static_key` next to each plain function). It builds the per-node reasons only when
someone reads them: with `explain`, or when the pod fits nowhere (the FailedScheduling
message and preemption need them), and then with the plain functions.
tests/engine/scheduler/test_scheduler_equivalence.py runs both paths on random clusters and
requires identical placements, filters, scores and messages.
"""

from __future__ import annotations

import dataclasses
import heapq
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.api.objects import DEFAULT_SCHEDULER, Pod
from scheduling.engine.scheduler.policy import MAX_PRIORITY, Policy
from scheduling.engine.scheduler.priorities.normalize import PriorityError
from scheduling.engine.scheduler import registry
from scheduling.engine.scheduler.framework import (
    fit_error_message,
    pod_fits_on_node,
)
from scheduling.engine.scheduler.preemption import (
    PreemptionResult,
    nodes_where_preemption_might_help,
    pod_eligible_to_preempt_others,
    preempt,
)

NO_NODES_AVAILABLE = "no nodes available to schedule pods"  # core.ErrNoNodesAvailable
TOTAL = "total"
MAX_ATTEMPTS_PER_RUN = 10  # safety net: a pod is tried at most this often in one run_queue


@dataclass(frozen=True)
class Event:
    """A Kubernetes Event as the simulator reports it."""

    time: float
    type: str  # Normal | Warning
    reason: str
    object: str  # "Pod/<ns>/<name>"
    message: str

    def to_doc(self) -> dict:
        return {"time": self.time, "type": self.type, "reason": self.reason, "object": self.object, "message": self.message}


@dataclass
class ScheduleResult:
    """One scheduling attempt of one pod."""

    pod: Pod
    node: str | None = None  # the chosen node; None when the pod stays pending
    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)  # every node, node order; () = fits
    scores: dict[str, dict[str, int]] = field(default_factory=dict)  # feasible node -> {priority: raw, "total": weighted}
    tied: tuple[str, ...] = ()  # the nodes that shared the best total (chosen among them); explain only
    prioritized: bool = False  # False when 1.11 did not run the priorities (one feasible node)
    message: str | None = None  # FailedScheduling text when node is None
    preemption: "PreemptionResult | None" = None
    time: float = 0.0
    # A priority failed (1.11's PrioritizeNodes returned an error): the attempt fails with
    # that text as its message, and no preemption follows (only a FitError preempts).
    error: str | None = None

    @property
    def scheduled(self) -> bool:
        return self.node is not None

    def fits(self, node: str) -> bool:
        return node in self.filters and not self.filters[node]

    @property
    def feasible(self) -> list[str]:
        return [n for n, reasons in self.filters.items() if not reasons]

    def events(self) -> list[Event]:
        """The events 1.11 records for this attempt (scheduler.go: bind, schedule, preempt)."""
        pod = self.pod
        obj = f"Pod/{pod.namespace}/{pod.name}"
        if self.node is not None:
            return [Event(self.time, "Normal", "Scheduled", obj, f"Successfully assigned {pod.namespace}/{pod.name} to {self.node}")]
        events = [Event(self.time, "Warning", "FailedScheduling", obj, self.message or "")]
        pr = self.preemption
        if pr is not None and pr.nominated_node is not None:
            for victim in pr.victims:
                events.append(
                    Event(
                        self.time,
                        "Normal",
                        "Preempted",
                        f"Pod/{victim.namespace}/{victim.name}",
                        f"by {pod.namespace}/{pod.name} on node {pr.nominated_node}",
                    )
                )
        return events


# --- one cycle --------------------------------------------------------------------------------


def weighted_totals(pod: Pod, ctx: CycleContext, infos: list[NodeInfo], policy: Policy) -> tuple[list[int], list[list[int]]]:
    """PrioritizeNodes: (weighted total per node, raw scores per priority), in `infos` order.

    No priority configured: EqualPriorityMap, 1 for every node."""
    if not policy.priorities:
        return [1] * len(infos), []
    raws = [entry.fn(pod, ctx, infos) for entry in policy.priorities]
    totals = [0] * len(infos)
    for entry, raw in zip(policy.priorities, raws):
        weight = entry.weight
        for i, score in enumerate(raw):
            totals[i] += score * weight
    return totals, raws


def scores_by_node(names: Sequence[str], totals: list[int], raws: list[list[int]], policy: Policy) -> dict[str, dict[str, int]]:
    """{node: {priority name as written in the policy: raw score, ..., "total": weighted}}."""
    if not policy.priorities:
        return {name: {registry.IMPLICIT_PRIORITY: 1, TOTAL: 1} for name in names}
    out: dict[str, dict[str, int]] = {}
    for i, name in enumerate(names):
        row = {entry.name: raw[i] for entry, raw in zip(policy.priorities, raws)}
        row[TOTAL] = totals[i]
        out[name] = row
    return out


def prioritize(pod: Pod, ctx: CycleContext, infos: list[NodeInfo], policy: Policy) -> dict[str, dict[str, int]]:
    """Raw scores per priority and the weighted total, per node."""
    totals, raws = weighted_totals(pod, ctx, infos, policy)
    return scores_by_node([info.name for info in infos], totals, raws, policy)


def schedule(
    pod: Pod,
    state: ClusterState,
    node_infos: Mapping[str, NodeInfo],
    policy: Policy,
    rng: random.Random,
    *,
    nominated: Mapping[str, Sequence[Pod]] | None = None,
    explain: bool = True,
    fast: bool = True,
) -> ScheduleResult:
    """One scheduling cycle (genericScheduler.Schedule) for `pod` against `node_infos`.

    `explain=False` skips what only a reader needs: the scores of the nodes, the tied
    nodes when several share the best total, and the per-node filters of a pod that was
    placed (a pod that fits nowhere keeps them: its message and preemption read them).

    `fast` takes the fast path with a cache built for this one cycle, except with
    `explain`: the filters are then computed node by node anyway, and building the cache
    would cost more than it saves (run_queue keeps one cache for the whole queue instead).
    `fast=False` takes the plain path (module doc)."""
    if fast and node_infos and not explain:
        return _schedule_fast(pod, state, SchedulerCache(node_infos, state), policy, rng, nominated, explain)
    return _schedule_plain(pod, state, node_infos, policy, rng, nominated, explain)


def _schedule_plain(
    pod: Pod,
    state: ClusterState,
    node_infos: Mapping[str, NodeInfo],
    policy: Policy,
    rng: random.Random,
    nominated: Mapping[str, Sequence[Pod]] | None,
    explain: bool,
) -> ScheduleResult:
    """The plain path: every predicate on every node, node by node."""
    result = ScheduleResult(pod=pod)
    if not node_infos:
        result.message = NO_NODES_AVAILABLE
        return result
    ctx = CycleContext(pod, state, dict(node_infos))
    filters = result.filters
    feasible: list[NodeInfo] = []
    names: list[str] = []
    for name, info in node_infos.items():
        reasons = pod_fits_on_node(pod, ctx, info, policy, nominated)
        filters[name] = reasons
        if not reasons:
            feasible.append(info)
            names.append(name)
    if not feasible:
        result.message = fit_error_message(len(node_infos), filters)
        return result
    if not explain:
        result.filters = {}
    if len(feasible) == 1:
        result.node = names[0]
        result.tied = (result.node,)
        if explain:
            try:
                result.scores = prioritize(pod, ctx, feasible, policy)
            except PriorityError:
                result.scores = {}  # 1.11 skips priorities for a single feasible node: nothing to show
        return result
    result.prioritized = True
    try:
        totals, raws = weighted_totals(pod, ctx, feasible, policy)
    except PriorityError as e:
        return _priority_failed(result, e)
    best = max(totals)
    tied = [name for name, total in zip(names, totals) if total == best]
    result.node = tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0]
    if explain:
        result.tied = tuple(tied)
        result.scores = scores_by_node(names, totals, raws, policy)
    return result


# --- the fast path --------------------------------------------------------------------------------


def feasible_mask(
    pod: Pod, ctx: CycleContext, cache: SchedulerCache, policy: Policy, nominated: Mapping[str, Sequence[Pod]] | None
) -> np.ndarray:
    """Where the pod fits (every node, node order): what `pod_fits_on_node` returning no
    reason says, computed with the cache. A node with other pods nominated to it is checked
    with `pod_fits_on_node` itself (1.11 checks it twice)."""
    mask = cache.all_of([entry.fn for entry in policy.predicates], pod, ctx)
    if nominated:
        for name, waiting in nominated.items():
            i = cache.index.get(name)
            if i is not None and any(p.key != pod.key for p in waiting):
                mask[i] = not pod_fits_on_node(pod, ctx, cache.infos[i], policy, nominated)
    return mask


def priority_scores(entry, pod: Pod, ctx: CycleContext, cache: SchedulerCache, idx: np.ndarray) -> np.ndarray:
    """The raw scores of one priority on the nodes `idx` (feasible, node order), from its
    static key, its vector form, or else the plain function."""
    fn = entry.fn
    key_of = getattr(fn, "static_key", None)
    if key_of is not None:
        return cache.static_scores(fn, key_of(pod), pod, ctx)[idx]
    vector = getattr(fn, "vector", None)
    if vector is not None:
        scores = vector(pod, ctx, cache, idx)
        if scores is not None:
            return scores
    return np.array(fn(pod, ctx, [cache.infos[i] for i in idx.tolist()]), dtype=np.int64)


def weighted_totals_fast(
    pod: Pod, ctx: CycleContext, cache: SchedulerCache, idx: np.ndarray, policy: Policy
) -> tuple[np.ndarray | list[int], list[np.ndarray]]:
    """`weighted_totals` over the nodes `idx`, with the cache."""
    if not policy.priorities:
        return np.ones(len(idx), dtype=np.int64), []
    raws = [priority_scores(entry, pod, ctx, cache, idx) for entry in policy.priorities]
    # Every raw score is 0..MaxPriority (schedulerapi: what MaxWeight is derived from), so
    # MaxPriority times the sum of the weights bounds every partial sum; only weights near
    # MaxWeight make the scores themselves worth a look.
    bound = MAX_PRIORITY * sum(entry.weight for entry in policy.priorities)
    if bound >= 2**62:
        bound = sum(entry.weight * max(-int(raw.min()), int(raw.max()), 0) for entry, raw in zip(policy.priorities, raws))
    if bound < 2**62:
        totals = np.zeros(len(idx), dtype=np.int64)
        for entry, raw in zip(policy.priorities, raws):
            totals += entry.weight * raw
        return totals, raws
    # Beyond int64 (weights near MaxWeight): add them up as Python ints, as the plain path does.
    totals_list = [0] * len(idx)
    for entry, raw in zip(policy.priorities, raws):
        for i, score in enumerate(raw.tolist()):
            totals_list[i] += score * entry.weight
    return totals_list, raws


def _schedule_fast(
    pod: Pod,
    state: ClusterState,
    cache: SchedulerCache,
    policy: Policy,
    rng: random.Random,
    nominated: Mapping[str, Sequence[Pod]] | None,
    explain: bool,
) -> ScheduleResult:
    """`_schedule_plain`'s decisions, with the cache (module doc)."""
    result = ScheduleResult(pod=pod)
    node_infos = cache.node_infos
    ctx = CycleContext(pod, state, node_infos)
    names = cache.names
    if explain:
        filters = result.filters
        for name, info in node_infos.items():
            filters[name] = pod_fits_on_node(pod, ctx, info, policy, nominated)
        idx = np.array([i for i, reasons in enumerate(filters.values()) if not reasons], dtype=np.int64)
    else:
        idx = np.flatnonzero(feasible_mask(pod, ctx, cache, policy, nominated))
    if not len(idx):
        if not explain:  # the reasons, for the message and for preemption
            for name, info in node_infos.items():
                result.filters[name] = pod_fits_on_node(pod, ctx, info, policy, nominated)
        result.message = fit_error_message(len(node_infos), result.filters)
        return result
    if len(idx) == 1:
        result.node = names[int(idx[0])]
        result.tied = (result.node,)
        if explain:
            try:
                totals, raws = weighted_totals_fast(pod, ctx, cache, idx, policy)
            except PriorityError:
                return result  # 1.11 did not run them: nothing to show
            result.scores = scores_by_node([result.node], _ints(totals), [_ints(r) for r in raws], policy)
        return result
    result.prioritized = True
    try:
        totals, raws = weighted_totals_fast(pod, ctx, cache, idx, policy)
    except PriorityError as e:
        return _priority_failed(result, e)
    if isinstance(totals, np.ndarray):
        tied = idx[totals == totals.max()]
    else:
        best = max(totals)
        tied = np.array([i for i, total in zip(idx.tolist(), totals) if total == best], dtype=np.int64)
    result.node = names[int(tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0])]
    if explain:
        result.tied = tuple(names[i] for i in tied.tolist())
        result.scores = scores_by_node([names[i] for i in idx.tolist()], _ints(totals), [_ints(r) for r in raws], policy)
    return result


def schedule_cached(
    pod: Pod,
    state: ClusterState,
    cache: SchedulerCache,
    policy: Policy,
    rng: random.Random,
    *,
    nominated: Mapping[str, Sequence[Pod]] | None = None,
) -> ScheduleResult:
    """`schedule(..., explain=False)` against a SchedulerCache the caller keeps over many
    cycles (attached to its NodeInfos, so the caller may move pods between cycles): a preview
    that places many pods on one edited cluster builds the cache once."""
    if not cache.node_infos:  # as schedule(): genericScheduler.Schedule's ErrNoNodesAvailable
        return ScheduleResult(pod=pod, message=NO_NODES_AVAILABLE)
    return _schedule_fast(pod, state, cache, policy, rng, nominated, False)


def node_scores(pod: Pod, state: ClusterState, cache: SchedulerCache, policy: Policy) -> dict[str, dict[str, int]]:
    """`schedule(..., explain=True).scores` without the per-node filter reasons: the raw
    score of every priority and the weighted total, for every node that fits `pod`; {} when
    no node fits or a priority fails."""
    ctx = CycleContext(pod, state, cache.node_infos)
    idx = np.flatnonzero(feasible_mask(pod, ctx, cache, policy, None))
    if not len(idx):
        return {}
    try:
        totals, raws = weighted_totals_fast(pod, ctx, cache, idx, policy)
    except PriorityError:
        return {}
    names = [cache.names[i] for i in idx.tolist()]
    return scores_by_node(names, _ints(totals), [_ints(r) for r in raws], policy)


def node_totals(pod: Pod, state: ClusterState, cache: SchedulerCache, policy: Policy) -> dict[str, int]:
    """The weighted total of every node that fits `pod` (the TOTAL of
    `schedule(..., explain=True).scores`), without the per-node filter reasons; {} when no
    node fits or a priority fails."""
    return {name: row.get(TOTAL, 0) for name, row in node_scores(pod, state, cache, policy).items()}


def _priority_failed(result: ScheduleResult, error: PriorityError) -> ScheduleResult:
    result.prioritized = False
    result.error = result.message = str(error)
    return result


def _ints(values) -> list[int]:
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


# --- the queue ----------------------------------------------------------------------------------


def is_pending(pod: Pod, scheduler_name: str = DEFAULT_SCHEDULER) -> bool:
    """Unbound, not terminating, not finished, and asking for this scheduler."""
    return (
        not pod.node_name
        and not pod.is_terminating
        and pod.phase not in ("Succeeded", "Failed")
        and pod.scheduler_name == scheduler_name
    )


def scheduler_not_running_message(scheduler_name: str) -> str:
    """What we tell the user about a pod whose scheduler does not run in the simulation.

    Kubernetes records no event for such a pod (no scheduler picks it up); the simulator
    shows this text as the pod's message instead of a FailedScheduling one."""
    return f'no scheduler named "{scheduler_name}" is running: the pod stays Pending until one picks it up'


def _required_affinity_matches(waiting: Pod, bound: Pod) -> bool:
    """getUnschedulablePodsWithMatchingAffinityTerm: does `bound` match one of the
    required pod-affinity terms of `waiting`?"""
    affinity = waiting.affinity
    if affinity is None or affinity.pod_affinity is None:
        return False
    for term in affinity.pod_affinity.required:
        namespaces = term.namespaces or (waiting.namespace,)
        if bound.namespace not in namespaces:
            continue
        if term.label_selector is not None and term.label_selector.matches(bound.labels):
            return True
    return False


# What a Pod computes from its containers and owner references (cached properties).
_DERIVED = ("request", "container_request", "non_zero_request", "host_ports", "qos_class", "controller_ref", "key", "label_set")


_POD_FIELDS = tuple(f.name for f in dataclasses.fields(Pod))


def replace_status(pod: Pod, **changes) -> Pod:
    """dataclasses.replace for status-like fields (nodeName, phase, nomination, deletion):
    the copy keeps what the pod already computed from its unchanged spec, instead of
    parsing its quantities again (a Pod is a frozen dataclass: its fields are set the way
    its __init__ sets them, without the per-field checks of `dataclasses.replace`)."""
    if not changes.keys() <= set(_POD_FIELDS):
        raise TypeError(f"not fields of Pod: {sorted(set(changes) - set(_POD_FIELDS))}")
    new = object.__new__(Pod)
    fields = new.__dict__
    current = pod.__dict__
    for name in _POD_FIELDS:
        fields[name] = current[name]
    fields.update(changes)
    for name in _DERIVED:
        if name in current:
            fields[name] = current[name]
    return new


_replace = replace_status


def _nothing_to_preempt(pod: Pod, infos: Mapping[str, NodeInfo], filters: Mapping[str, Sequence[str]]) -> bool:
    """No node where preemption might help has a pod of lower priority than `pod`. Then no
    node can become a candidate: selectVictimsOnNode would remove nothing and check the
    pod against exactly what this cycle's filters already rejected."""
    return not any(
        p.priority < pod.priority for info in nodes_where_preemption_might_help(infos, filters) for p in info.pods
    )


def _no_candidates(pod: Pod, infos: Mapping[str, NodeInfo], filters: Mapping[str, Sequence[str]]):
    """What `preempt` returns when `_nothing_to_preempt`: None if the pod may not preempt
    yet, else a result without candidates (clearing the nomination when no node might help)."""
    if not pod_eligible_to_preempt_others(pod, infos):
        return None
    return PreemptionResult(clear_nomination=not nodes_where_preemption_might_help(infos, filters))


def replace_pod_in_place(info: NodeInfo, old: Pod, new: Pod) -> None:
    """Swap a pod of a NodeInfo for an updated copy with the same requests and ports,
    keeping its position (the order of a node's pods is visible to some predicates)."""
    info.replace_pod(old, new)


class LazyRandom:
    """Stands in for a random.Random in a tie-break: the generator of one decision, made
    only when a tie needs it (most attempts do not draw at all)."""

    __slots__ = ("_make", "_args", "_rng")

    def __init__(self, make: Callable[..., random.Random], *args):
        self._make, self._args, self._rng = make, args, None

    def randrange(self, n: int) -> int:
        if self._rng is None:
            self._rng = self._make(*self._args)
        return self._rng.randrange(n)


def run_queue(
    state: ClusterState,
    policy: Policy,
    rng: random.Random,
    preemption: bool = True,
    *,
    scheduler_name: str | None = None,
    now: float = 0.0,
    explain: bool = True,
    node_infos: dict[str, NodeInfo] | None = None,
    fast: bool = True,
    rng_for_attempt: Callable[[Pod, int], random.Random] | None = None,
    pending: Iterable[int] | None = None,
    cache: SchedulerCache | None = None,
) -> list[ScheduleResult]:
    """Schedule every pending pod of `scheduler_name` (default: the policy's, normally
    "default-scheduler"), in queue order; one result per attempt.

    Updates `state.pods` in place: a placed pod gets its nodeName (phase Running), a
    preemptor its nominatedNodeName, a preemption victim its deletionTimestamp (`now`; it
    stays on its node until the clock ends its grace period). Pods are retried within the
    run only when 1.11 would move them back to the active queue: a newly bound pod matches
    one of their required pod-affinity terms (AssignedPodAdded), or a preemption cleared
    their nomination.

    `fast` (the default) schedules with one SchedulerCache for the whole run, attached to
    the NodeInfos so that every bind and every preemption victim updates it; `fast=False`
    takes the plain path.

    `rng_for_attempt(pod, n)`, when given, replaces `rng` for the tie-break of the pod's
    n-th attempt of this run (1, 2, ...): a generator per decision, made only when nodes
    tie, so that a pod's placement does not depend on the other pods' draws (the event
    loop derives it from the cluster seed and the pod).

    `pending`, when given: the positions in `state.pods` of every pod that may be pending
    (the others are known not to be), so that the queue is made without reading every pod.
    `cache`, when given: the SchedulerCache of `node_infos` and `state` to use (a caller
    that keeps one from run to run, SchedulerCache.refresh) instead of a new one.
    """
    scheduler_name = scheduler_name or policy.scheduler_name
    infos = node_infos if node_infos is not None else state.node_infos()
    preemption = preemption and not policy.disable_preemption
    candidates: Iterable[int] = range(len(state.pods)) if pending is None else sorted(pending)
    index = _Positions(state.pods, () if pending is None else candidates)

    nominated: dict[str, list[Pod]] = defaultdict(list)
    heap: list[tuple[int, int, str]] = []
    for i in candidates:
        pod = state.pods[i]
        if is_pending(pod, scheduler_name):
            heap.append((-pod.priority, i, pod.key))
            if pod.nominated_node_name:
                nominated[pod.nominated_node_name].append(pod)
    heapq.heapify(heap)
    unschedulable: set[str] = set()
    attempts: Counter[str] = Counter()
    results: list[ScheduleResult] = []

    def current(key: str) -> Pod:
        return state.pods[index[key]]

    def update(pod: Pod) -> None:
        state.pods[index[pod.key]] = pod

    def set_nomination(pod: Pod, node: str) -> Pod:
        if pod.nominated_node_name:
            nominated[pod.nominated_node_name] = [p for p in nominated[pod.nominated_node_name] if p.key != pod.key]
        pod = _replace(pod, nominated_node_name=node)
        if node:
            nominated[node].append(pod)
        update(pod)
        return pod

    def requeue(key: str) -> None:
        if key in unschedulable and attempts[key] < MAX_ATTEMPTS_PER_RUN:
            unschedulable.discard(key)
            heapq.heappush(heap, (-current(key).priority, index[key], key))

    if not (fast and infos and heap):
        cache = None
    elif cache is None:
        cache = SchedulerCache(infos, state)
    if cache is not None:
        cache.attach()  # from here on every bind and every victim updates the cache
    try:
        while heap:
            _, _, key = heapq.heappop(heap)
            pod = current(key)
            attempts[key] += 1
            draw = rng if rng_for_attempt is None else LazyRandom(rng_for_attempt, pod, attempts[key])
            if cache is not None:
                result = _schedule_fast(pod, state, cache, policy, draw, nominated, explain)
            else:
                result = _schedule_plain(pod, state, infos, policy, draw, nominated, explain)
            result.time = now
            results.append(result)
            if result.node is not None:
                if pod.nominated_node_name:
                    pod = set_nomination(pod, "")
                bound = _replace(pod, node_name=result.node, phase="Running")
                infos[result.node].add_pod(bound)
                update(bound)
                for other in sorted(unschedulable, key=index.__getitem__):
                    if _required_affinity_matches(current(other), bound):
                        requeue(other)
                continue
            unschedulable.add(key)
            if not preemption or not result.filters or result.error:  # only a FitError triggers preemption
                continue
            if cache is not None and _nothing_to_preempt(pod, infos, result.filters):
                outcome = _no_candidates(pod, infos, result.filters)
            else:
                outcome = preempt(pod, state, infos, policy, result.filters, nominated=nominated)
            result.preemption = outcome
            if outcome is None:
                continue
            if outcome.nominated_node is None:
                if outcome.clear_nomination and pod.nominated_node_name:
                    set_nomination(pod, "")
                continue
            set_nomination(pod, outcome.nominated_node)
            info = infos[outcome.nominated_node]
            for victim in outcome.victims:
                # 1.11 deletes a victim again even when it is already terminating; its
                # deletionTimestamp stays the first one.
                since = victim.deletion_timestamp if victim.is_terminating else now
                terminating = _replace(victim, deletion_timestamp=since)
                replace_pod_in_place(info, victim, terminating)
                update(terminating)
            for lower in outcome.lower_priority_nominated:
                set_nomination(current(lower.key), "")
                requeue(lower.key)
    finally:
        if cache is not None:
            cache.detach()
    return results


class _Positions(dict):
    """Pod key -> position in `pods`: the positions given at first, every pod's on the first
    key missing."""

    def __init__(self, pods: Sequence[Pod], positions: Iterable[int]):
        super().__init__((pods[i].key, i) for i in positions)
        self.pods = pods
        self.complete = False

    def __missing__(self, key: str) -> int:
        if self.complete:
            raise KeyError(key)
        self.complete = True
        self.update((pod.key, i) for i, pod in enumerate(self.pods))
        return self[key]


def last_results(results: Iterable[ScheduleResult]) -> dict[str, ScheduleResult]:
    """The last attempt of each pod, keyed by "<ns>/<name>"."""
    last: dict[str, ScheduleResult] = {}
    for r in results:
        last[r.pod.key] = r
    return last
