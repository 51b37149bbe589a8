"""Why a pod is where it is (or Pending), computed with the engine on a snapshot.

`explain_pod` answers for one pod: every node against every predicate of the policy (the
scheduler of 1.11 stops at the first failing predicate of a node unless
alwaysCheckAllPredicates; here all of them run, and the one that stopped the scheduler is
marked), the scores of the feasible nodes (raw, weight, weighted, total; the winner and the
ties), the FailedScheduling message and the preemption decision. A pod already on a node is
explained as if it were scheduled now (it is taken off its node first). `explain_node`
answers for each pod of a node why it is there and whether it would still fit.

The computations take a ClusterState and a Policy and touch no database; the helpers at
the bottom read the stored cluster (state, events) for the views.
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from .engine.cluster import ClusterState, NodeInfo
from .engine.context import CycleContext
from .engine.objects import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, Pod, Taint, Toleration
from .engine.policy import Policy, PolicyError, load_policy
from .engine.preemption import UNRESOLVABLE_REASONS, preempt
from .engine import registry
from .engine.scheduler import TOTAL, is_pending, schedule, scheduler_not_running_message

MAX_FILTER_ROWS = 200
MAX_NODE_PODS = 40
MAX_PODS_FOR_PENDING_MESSAGES = 2000


@dataclass(frozen=True)
class Cell:
    reasons: tuple[str, ...]
    stopped: bool = False  # the predicate at which the 1.11 scheduler stopped on this node
    skipped: bool = False  # after the stop: the scheduler did not evaluate it

    @property
    def fits(self) -> bool:
        return not self.reasons


@dataclass(frozen=True)
class FilterRow:
    node: str
    cells: tuple[Cell, ...]
    scheduler_reasons: tuple[str, ...]  # what the scheduler reported for the node

    @property
    def fits(self) -> bool:
        return not self.scheduler_reasons


@dataclass(frozen=True)
class ScoreCell:
    raw: int
    weight: int

    @property
    def weighted(self) -> int:
        return self.raw * self.weight


@dataclass(frozen=True)
class ScoreRow:
    node: str
    cells: tuple[ScoreCell, ...]
    total: int
    winner: bool
    tied: bool


@dataclass(frozen=True)
class Candidate:
    node: str
    victims: tuple[tuple[str, int], ...]  # (pod key, priority), in the order preemption lists them
    pdb_violations: int
    chosen: bool


@dataclass
class PreemptionView:
    considered: bool
    reason: str  # why it was not considered / why nothing can be freed
    candidates: list[Candidate] = field(default_factory=list)
    nominated: str | None = None
    unhelpful: list[tuple[str, str]] = field(default_factory=list)  # (node, unresolvable reason)


@dataclass
class PodExplanation:
    pod: Pod
    current_node: str  # where it runs now ("" when pending)
    predicates: tuple[str, ...]
    always_check_all: bool
    filter_rows: list[FilterRow]
    more_rows: int
    priorities: tuple[tuple[str, int], ...]  # (name, weight)
    score_rows: list[ScoreRow]
    winner: str | None
    tied: tuple[str, ...]
    prioritized: bool
    message: str | None
    preemption: PreemptionView | None
    scheduler_runs: bool = True

    @property
    def feasible(self) -> list[str]:
        return [r.node for r in self.filter_rows if r.fits]


def _nominated(state: ClusterState, pod: Pod) -> dict[str, list[Pod]]:
    nominated: dict[str, list[Pod]] = defaultdict(list)
    for p in state.pods:
        if p.nominated_node_name and p.key != pod.key and is_pending(p, p.scheduler_name):
            nominated[p.nominated_node_name].append(p)
    return nominated


def unbound_copy(pod: Pod) -> Pod:
    return dataclasses.replace(pod, node_name="", phase="Pending", nominated_node_name=pod.nominated_node_name if not pod.node_name else "")


def infos_without(state: ClusterState, keys: set[str]) -> dict[str, NodeInfo]:
    infos = {n.name: NodeInfo(n) for n in state.nodes}
    for p in state.pods:
        if p.node_name and p.node_name in infos and p.key not in keys:
            infos[p.node_name].add_pod(p)
    return infos


def find_pod(state: ClusterState, key: str) -> Pod | None:
    for p in state.pods:
        if p.key == key:
            return p
    return None


def explain_pod(
    state: ClusterState,
    policy: Policy,
    key: str,
    *,
    seed: int = 0,
    preemption: bool = True,
) -> PodExplanation:
    """The explanation of pod `key` ("<ns>/<name>"); KeyError when it is not in `state`."""
    original = find_pod(state, key)
    if original is None:
        raise KeyError(key)
    pod = unbound_copy(original)
    infos = infos_without(state, {key})
    nominated = _nominated(state, pod)
    result = schedule(pod, state, infos, policy, random.Random(seed), nominated=nominated, explain=True)

    ctx = CycleContext(pod, state, dict(infos))
    entries = policy.predicates
    rows: list[FilterRow] = []
    for name, info in infos.items():
        cells = []
        stopped = False
        for entry in entries:
            reasons = tuple(entry.fn(pod, ctx, info))
            if stopped:
                cells.append(Cell(reasons, skipped=not policy.always_check_all_predicates))
                continue
            is_stop = bool(reasons) and not policy.always_check_all_predicates
            cells.append(Cell(reasons, stopped=is_stop))
            stopped = is_stop
        rows.append(FilterRow(name, tuple(cells), tuple(result.filters.get(name, ()))))
    rows.sort(key=lambda r: r.fits)  # failing nodes first, node order within each (stable)
    more = max(0, len(rows) - MAX_FILTER_ROWS)
    rows = rows[:MAX_FILTER_ROWS]

    if policy.priorities:
        priorities = tuple((p.name, p.weight) for p in policy.priorities)
    else:
        priorities = ((registry.IMPLICIT_PRIORITY, 1),)
    score_rows = []
    for node, scores in result.scores.items():
        cells = tuple(ScoreCell(int(scores.get(name, 0)), weight) for name, weight in priorities)
        score_rows.append(
            ScoreRow(node, cells, int(scores.get(TOTAL, 0)), node == result.node, node in result.tied and len(result.tied) > 1)
        )
    score_rows.sort(key=lambda r: -r.total)

    view = None
    if result.node is None and result.filters:
        view = _preemption(pod, state, infos, policy, result.filters, nominated, preemption)
    runs = pod.scheduler_name == policy.scheduler_name
    message = result.message
    if not runs and original.node_name == "":
        message = scheduler_not_running_message(pod.scheduler_name)
    return PodExplanation(
        pod=original,
        current_node=original.node_name,
        predicates=tuple(e.name for e in entries),
        always_check_all=policy.always_check_all_predicates,
        filter_rows=rows,
        more_rows=more,
        priorities=priorities,
        score_rows=score_rows,
        winner=result.node,
        tied=result.tied if len(result.tied) > 1 else (),
        prioritized=result.prioritized,
        message=message,
        preemption=view,
        scheduler_runs=runs,
    )


def _preemption(pod, state, infos, policy, filters, nominated, enabled) -> PreemptionView:
    if not enabled or policy.disable_preemption:
        return PreemptionView(False, "preemption is disabled for this cluster's scheduler")
    unhelpful = []
    for node, reasons in filters.items():
        bad = [r for r in reasons if r in UNRESOLVABLE_REASONS]
        if bad:
            unhelpful.append((node, bad[0]))
    outcome = preempt(pod, state, infos, policy, filters, nominated=nominated)
    if outcome is None:
        return PreemptionView(False, "the pod already preempted: lower-priority pods are still terminating on its nominated node")
    candidates = [
        Candidate(node, tuple((v.key, v.priority) for v in victims), outcome.pdb_violations.get(node, 0), node == outcome.nominated_node)
        for node, victims in outcome.candidates.items()
    ]
    if outcome.nominated_node is None:
        reason = (
            "no node where removing pods could help"
            if not candidates and len(unhelpful) == len(filters)
            else "removing every lower-priority pod would not make the pod fit on any node"
        )
    else:
        reason = ""
    return PreemptionView(True, reason, candidates, outcome.nominated_node, unhelpful)


# --- a node: why each of its pods is there --------------------------------------------------


def toleration_text(t: Toleration) -> str:
    """As `oc describe pod` prints a toleration."""
    text = t.key if t.key else ("op=Exists" if t.operator == "Exists" else "")
    if t.value:
        text += f"={t.value}"
    if t.effect:
        text += f":{t.effect}"
    if t.toleration_seconds is not None:
        text += f" for {t.toleration_seconds}s"
    return text


@dataclass(frozen=True)
class TaintMatch:
    taint: str
    effect: str
    toleration: str  # the toleration that tolerates it, "" when none


@dataclass
class PodOnNode:
    pod: Pod
    fits: tuple[str, ...]  # reasons it would not fit this node now (empty: it fits)
    taints: list[TaintMatch]
    total: int | None  # this node's score for the pod (None when it does not fit)
    best: tuple[str, ...]  # the best node(s) for the pod now
    best_total: int | None
    rank: int | None  # 1 = the best


@dataclass
class NodeExplanation:
    node: str
    pods: list[PodOnNode]
    more: int


def taint_matches(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> list[TaintMatch]:
    out = []
    for taint in taints:
        match = next((t for t in tolerations if t.tolerates(taint)), None)
        out.append(TaintMatch(str(taint), taint.effect, toleration_text(match) if match else ""))
    return out


def explain_node(state: ClusterState, policy: Policy, node_name: str, *, seed: int = 0) -> NodeExplanation:
    node = next((n for n in state.nodes if n.name == node_name), None)
    if node is None:
        raise KeyError(node_name)
    pods = [p for p in state.pods if p.node_name == node_name]
    rows = []
    for original in pods[:MAX_NODE_PODS]:
        pod = unbound_copy(original)
        infos = infos_without(state, {original.key})
        result = schedule(pod, state, infos, policy, random.Random(seed), explain=True)
        totals = {n: s.get(TOTAL, 0) for n, s in result.scores.items()}
        ordered = sorted(set(totals.values()), reverse=True)
        total = totals.get(node_name)
        best_total = ordered[0] if ordered else None
        rows.append(
            PodOnNode(
                pod=original,
                fits=tuple(result.filters.get(node_name, ())),
                taints=taint_matches(node.taints, original.tolerations),
                total=total,
                best=tuple(n for n, t in totals.items() if t == best_total) if best_total is not None else (),
                best_total=best_total,
                rank=(ordered.index(total) + 1) if total is not None else None,
            )
        )
    return NodeExplanation(node_name, rows, max(0, len(pods) - MAX_NODE_PODS))


# --- the stored cluster ---------------------------------------------------------------------------


def cluster_policy(cluster) -> Policy:
    try:
        return load_policy(cluster.policy)
    except PolicyError:
        return load_policy(None)


def pending_messages(cluster, keys: Sequence[str], *, budget: int) -> dict[str, str]:
    """FailedScheduling messages of the pending pods `keys`, computed with the engine, as
    many as `budget` (pods x nodes predicate checks) allows."""
    from .state import cluster_state

    if not keys:
        return {}
    from .models import Node, Pod

    nodes = Node.objects.filter(cluster=cluster).count()
    affordable = budget // max(1, nodes)
    if affordable <= 0 or Pod.objects.filter(cluster=cluster).count() > MAX_PODS_FOR_PENDING_MESSAGES:
        return {}  # reading the whole cluster into the engine would cost more than a render
    state = cluster_state(cluster)
    policy = cluster_policy(cluster)
    infos = state.node_infos()
    wanted = set(list(keys)[:affordable])
    out = {}
    for pod in state.pods:
        if pod.key not in wanted:
            continue
        if pod.scheduler_name != policy.scheduler_name:
            out[pod.key] = scheduler_not_running_message(pod.scheduler_name)
            continue
        result = schedule(pod, state, infos, policy, random.Random(cluster.seed), nominated=_nominated(state, pod), explain=False)
        out[pod.key] = (result.message or "") if result.node is None else WOULD_SCHEDULE + result.node
    return out


# The prefix of pending_messages' answer for a pod that fits somewhere (not attempted yet).
WOULD_SCHEDULE = "would schedule to "


@dataclass(frozen=True)
class DescribeEvent:
    """A row of the Events table of `oc describe`: Type Reason Age From Message."""

    type: str
    reason: str
    age: str
    source: str
    message: str


def object_events(cluster, kind: str, name: str, namespace: str = "") -> list[DescribeEvent]:
    from .board import format_duration
    from .models import Event

    rows = []
    for e in Event.objects.filter(
        cluster=cluster, involved_kind=kind, involved_namespace=namespace, involved_name=name
    ).order_by("last_time", "id"):
        if e.count > 1:
            age = f"{format_duration(cluster.now - e.last_time)} (x{e.count} over {format_duration(cluster.now - e.first_time)})"
        else:
            age = format_duration(cluster.now - e.first_time)
        rows.append(DescribeEvent(e.type, e.reason, age, e.source, e.message.strip()))
    return rows


EFFECT_MEANING: Mapping[str, str] = {
    NO_SCHEDULE: "new pods that do not tolerate it are not scheduled here",
    PREFER_NO_SCHEDULE: "the scheduler tries to avoid placing pods that do not tolerate it here",
    NO_EXECUTE: "pods that do not tolerate it are evicted, new ones are not scheduled",
}
