"""Why a pod is where it is (or Pending), computed with the engine on a snapshot.

`explain_pod` answers for one pod: every node against every predicate of the policy (the
scheduler of 1.11 stops at the first failing predicate of a node unless
alwaysCheckAllPredicates; here all of them run, and the one that stopped the scheduler is
marked), the scores of the feasible nodes (raw, weight, weighted, total; the winner and the
ties), the FailedScheduling message and the preemption decision. A pod already on a node is
explained as if it were scheduled now (it is taken off its node first). `explain_node`
answers for each pod of a node why it is there and whether it would still fit.

The computations take a ClusterState and a Policy and touch no database; the helpers at
the bottom read the stored cluster (its state) for the views.
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import yaml

from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo, infos_with
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.api.objects import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, Pod, Taint, Toleration
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.scheduler.preemption import UNRESOLVABLE_REASONS, preempt
from scheduling.engine.scheduler import registry
from scheduling.engine.scheduler.priorities.node_prefer_avoid_pods import node_prefer_avoid_pods_priority
from scheduling.engine.scheduler.predicates.taints import ERR_TAINTS_TOLERATIONS_NOT_MATCH, pod_tolerates_node_no_execute_taints
from scheduling.engine.scheduler.scheduler import TOTAL, is_pending, schedule, scheduler_not_running_message
from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.framework.interface import Handle
from scheduling.engine.framework.runtime import Framework, Profile, schedule_one

from scheduling.models import Node
from scheduling.models import Pod as StoredPod
from scheduling.store.state import cluster_schedulers, cluster_state

MAX_FILTER_ROWS = 200
MAX_SCORE_ROWS = 200  # the highest totals (and the node the pod is on); then "and N more nodes"
# Above this many nodes the per-node filter table starts collapsed under the summary by reason.
OPEN_FILTER_ROWS = 20
NODES_PER_REASON = 12  # node names listed beside a reason of the summary (then "and N more")
MAX_NODE_PODS = 40
# A node's page works out inline why each of its pods is there (each pod scheduled again
# against every node) up to this many pod x node checks; past it the page loads that table
# in a request of its own, after the node is shown.
NODE_EXPLAIN_INLINE_CHECKS = 2_000
MAX_PODS_FOR_PENDING_MESSAGES = 2000


@dataclass(frozen=True)
class Cell:
    reasons: tuple[str, ...]
    stopped: bool = False  # the predicate at which the 1.11 scheduler stopped on this node
    skipped: bool = False  # after the stop: the scheduler did not evaluate it
    detail: str = ""  # what the reason is about: the taints the pod does not tolerate
    code: str = ""  # the framework's status code (UnschedulableAndUnresolvable: preemption cannot help)

    @property
    def fits(self) -> bool:
        return not self.reasons

    @property
    def unresolvable(self) -> bool:
        return self.code == "UnschedulableAndUnresolvable"


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
    avoid: bool = False  # NodePreferAvoidPodsPriority: weight 10000, shown apart
    skipped: bool = False  # a framework Score plugin its PreScore skipped for this pod (adds nothing)

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
    avoid: int = 0  # the weighted NodePreferAvoidPodsPriority part of the total

    @property
    def rest(self) -> int:
        """The total without the avoid-pods part: what decides between ordinary nodes."""
        return self.total - self.avoid


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
    # already preempted: the lower-priority pods still terminating on the nominated node
    terminating: list[tuple[str, int]] = field(default_factory=list)


@dataclass(frozen=True)
class ReasonGroup:
    """One failure reason of the filters and the nodes that failed with it (as the
    FailedScheduling message counts them, with the nodes named)."""

    reason: str
    count: int
    nodes: tuple[str, ...]  # the first NODES_PER_REASON

    @property
    def more(self) -> int:
        return self.count - len(self.nodes)


@dataclass(frozen=True)
class TaintFix:
    """A taint that kept the pod off nodes, the nodes, and the toleration that tolerates it."""

    taint: str
    key: str
    value: str
    effect: str
    nodes: tuple[str, ...]
    count: int

    @property
    def operator(self) -> str:
        return "Equal" if self.value else "Exists"

    @property
    def toleration_yaml(self) -> str:
        """The toleration as a user pastes it under the pod's spec."""
        toleration = {"key": self.key, "operator": self.operator, **({"value": self.value} if self.value else {}), "effect": self.effect}
        return yaml.safe_dump({"tolerations": [toleration]}, sort_keys=False, default_flow_style=False).rstrip()

    @property
    def more(self) -> int:
        return self.count - len(self.nodes)


def untolerated_taints(node_taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> list[Taint]:
    """The NoSchedule and NoExecute taints none of the tolerations tolerates: what
    PodToleratesNodeTaints reports as "node(s) had taints that the pod didn't tolerate"."""
    return [t for t in node_taints if t.effect in (NO_SCHEDULE, NO_EXECUTE) and not any(x.tolerates(t) for x in tolerations)]


def reason_groups(filters: Mapping[str, Sequence[str]]) -> list[ReasonGroup]:
    """Nodes by failure reason, most nodes first (ties: the reason's text), as the
    FailedScheduling message counts them."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for node, reasons in filters.items():
        for reason in dict.fromkeys(reasons):
            by_reason[reason].append(node)
    return [
        ReasonGroup(reason, len(nodes), tuple(nodes[:NODES_PER_REASON]))
        for reason, nodes in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def taint_fixes(state: ClusterState, pod: Pod, nodes: Sequence[str]) -> list[TaintFix]:
    """For the nodes `nodes` (those the taints predicate refused): each untolerated taint,
    the nodes that carry it, and the toleration that would tolerate it."""
    wanted = set(nodes)
    by_taint: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for node in state.nodes:
        if node.name in wanted:
            for taint in untolerated_taints(node.taints, pod.tolerations):
                by_taint[(taint.key, taint.value, taint.effect)].append(node.name)
    return [
        TaintFix(str(Taint(k, v, e)), k, v, e, tuple(names[:NODES_PER_REASON]), len(names))
        for (k, v, e), names in sorted(by_taint.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


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
    reasons: list[ReasonGroup] = field(default_factory=list)  # the filters' failures by reason, every node
    taint_fixes: list[TaintFix] = field(default_factory=list)
    untolerated: dict[str, tuple[str, ...]] = field(default_factory=dict)  # node -> its taints the pod does not tolerate
    node_count: int = 0
    avoid_pods: tuple[str, ...] = ()  # the policy's NodePreferAvoidPodsPriority entries (shown apart)
    more_score_rows: int = 0  # scored nodes past MAX_SCORE_ROWS, not shown
    framework: bool = False  # explained with the OpenShift 4 scheduler (plugins, 0-100 scores)
    domain_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # PodTopologySpread: key -> value -> matching pods
    evaluated: int = 0  # nodes the scheduler evaluated before deciding (percentageOfNodesToScore)

    @property
    def filters_open(self) -> bool:
        """Whether the per-node table starts open (small clusters) or collapsed under the summary."""
        return self.node_count <= OPEN_FILTER_ROWS

    @property
    def feasible(self) -> list[str]:
        return [r.node for r in self.filter_rows if r.fits]


def nominated_pods(state: ClusterState, pod: Pod) -> dict[str, list[Pod]]:
    nominated: dict[str, list[Pod]] = defaultdict(list)
    for p in state.pods:
        if p.nominated_node_name and p.key != pod.key and is_pending(p, p.scheduler_name):
            nominated[p.nominated_node_name].append(p)
    return nominated


def unbound_copy(pod: Pod) -> Pod:
    return dataclasses.replace(pod, node_name="", phase="Pending", nominated_node_name=pod.nominated_node_name if not pod.node_name else "")


def infos_without(state: ClusterState, keys: set[str]) -> dict[str, NodeInfo]:
    return infos_with(state.nodes, state.pods, keys)


def find_pod(state: ClusterState, key: str) -> Pod | None:
    for p in state.pods:
        if p.key == key:
            return p
    return None


def _filter_rows(pod, state: ClusterState, infos, policy: Policy, result) -> tuple[list[FilterRow], dict[str, tuple[str, ...]]]:
    """Every node's row of predicate cells, as the scheduler evaluates them (stopping at the
    first failure unless the policy checks them all), and the taints each node with a
    taint failure has that the pod does not tolerate."""
    ctx = CycleContext(pod, state, dict(infos))
    rows: list[FilterRow] = []
    untolerated: dict[str, tuple[str, ...]] = {}
    for name, info in infos.items():
        cells = []
        stopped = False
        for entry in policy.predicates:
            reasons = tuple(entry.fn(pod, ctx, info))
            detail = ""
            if ERR_TAINTS_TOLERATIONS_NOT_MATCH in reasons:
                if name not in untolerated:
                    untolerated[name] = tuple(str(t) for t in untolerated_taints(info.node.taints, pod.tolerations))
                effects = (NO_EXECUTE,) if entry.fn is pod_tolerates_node_no_execute_taints else (NO_SCHEDULE, NO_EXECUTE)
                detail = ", ".join(str(t) for t in untolerated_taints(info.node.taints, pod.tolerations) if t.effect in effects)
            if stopped:
                cells.append(Cell(reasons, skipped=not policy.always_check_all_predicates, detail=detail))
                continue
            is_stop = bool(reasons) and not policy.always_check_all_predicates
            cells.append(Cell(reasons, stopped=is_stop, detail=detail))
            stopped = is_stop
        rows.append(FilterRow(name, tuple(cells), tuple(result.filters.get(name, ()))))
    return rows, untolerated


def _score_rows(policy: Policy, result) -> tuple[tuple[tuple[str, int], ...], set[str], list[ScoreRow]]:
    """The priorities (name, weight) the table shows, those that are NodePreferAvoidPods,
    and a row per scored node, highest total first."""
    if policy.priorities:
        priorities = tuple((p.name, p.weight) for p in policy.priorities)
    else:
        priorities = ((registry.IMPLICIT_PRIORITY, 1),)
    avoid = {p.name for p in policy.priorities if p.fn is node_prefer_avoid_pods_priority}
    score_rows = []
    for node, scores in result.scores.items():
        cells = tuple(ScoreCell(int(scores.get(name, 0)), weight, name in avoid) for name, weight in priorities)
        score_rows.append(
            ScoreRow(
                node, cells, int(scores.get(TOTAL, 0)), node == result.node, node in result.tied and len(result.tied) > 1,
                avoid=sum(c.weighted for c in cells if c.avoid),
            )
        )
    score_rows.sort(key=lambda r: -r.total)
    return priorities, avoid, score_rows


def top_score_rows(rows: list[ScoreRow], current_node: str) -> tuple[list[ScoreRow], int]:
    """(the MAX_SCORE_ROWS rows of the highest totals, highest first, and the row of the
    node the pod is on when it falls below them; how many rows are left out)."""
    shown = rows[:MAX_SCORE_ROWS]
    shown += [r for r in rows[MAX_SCORE_ROWS:] if r.node == current_node]
    return shown, len(rows) - len(shown)


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
    nominated = nominated_pods(state, pod)
    result = schedule(pod, state, infos, policy, random.Random(seed), nominated=nominated, explain=True)

    entries = policy.predicates
    rows, untolerated = _filter_rows(pod, state, infos, policy, result)
    rows.sort(key=lambda r: r.fits)  # failing nodes first, node order within each (stable)
    failing = {r.node: r.scheduler_reasons for r in rows if r.scheduler_reasons}
    tainted = [n for n, reasons in failing.items() if ERR_TAINTS_TOLERATIONS_NOT_MATCH in reasons]
    more = max(0, len(rows) - MAX_FILTER_ROWS)
    rows = rows[:MAX_FILTER_ROWS]

    priorities, avoid, score_rows = _score_rows(policy, result)
    score_rows, more_scores = top_score_rows(score_rows, original.node_name)

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
        more_score_rows=more_scores,
        winner=result.node,
        tied=result.tied if len(result.tied) > 1 else (),
        prioritized=result.prioritized,
        message=message,
        preemption=view,
        scheduler_runs=runs,
        reasons=reason_groups(failing),
        taint_fixes=taint_fixes(state, pod, tainted or list(untolerated)),
        untolerated=untolerated,
        node_count=len(infos),
        avoid_pods=tuple(name for name, _ in priorities if name in avoid),
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
        node = pod.nominated_node_name
        victims = [(p.key, p.priority) for p in state.pods if node and p.node_name == node and p.is_terminating and p.priority < pod.priority]
        return PreemptionView(
            False, "the pod already preempted: lower-priority pods are still terminating on its nominated node",
            nominated=node or None, terminating=victims,
        )
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
    # The cluster without one of this node's pods differs from the whole cluster on this node
    # only: the other nodes' infos are built once (as infos_without builds them).
    base = infos_with(state.nodes, state.pods)
    for original in pods[:MAX_NODE_PODS]:
        pod = unbound_copy(original)
        infos = dict(base)
        if node_name in infos:
            without = NodeInfo(infos[node_name].node)
            without.add_pods([p for p in pods if p.key != original.key])
            infos[node_name] = without
        result = attempt(pod, state, infos, policy, seed, None, True)
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


def node_explained_inline(pods_on_node: int, nodes: int) -> bool:
    return min(pods_on_node, MAX_NODE_PODS) * nodes <= NODE_EXPLAIN_INLINE_CHECKS


def cluster_policy(cluster):
    """The cluster's default scheduler: its 3.11 Policy, or the framework's Profile when the
    cluster runs the OpenShift 4 scheduler (engine.framework.config.select_schedulers)."""
    schedulers = dict(cluster_schedulers(cluster))
    return schedulers.get(DEFAULT_SCHEDULER) or next(iter(schedulers.values()))


def is_framework(scheduler) -> bool:
    return isinstance(scheduler, Profile)


def attempt(pod: Pod, state: ClusterState, infos, scheduler, seed: int, nominated, explain: bool):
    """One scheduling attempt with either scheduler (what the board and the node page ask)."""
    if is_framework(scheduler):
        framework = Framework(scheduler, Handle(state=state, node_infos=infos, nominated=nominated or {}))
        return schedule_one(framework, pod, random.Random(seed), explain=explain)[0]
    return schedule(pod, state, infos, scheduler, random.Random(seed), nominated=nominated, explain=explain)


def pending_messages(cluster, keys: Sequence[str], *, budget: int) -> dict[str, str]:
    """FailedScheduling messages of the pending pods `keys`, computed with the engine, as
    many as `budget` (pods x nodes predicate checks) allows."""
    if not keys:
        return {}
    nodes = Node.objects.filter(cluster=cluster).count()
    affordable = budget // max(1, nodes)
    if affordable <= 0 or StoredPod.objects.filter(cluster=cluster).count() > MAX_PODS_FOR_PENDING_MESSAGES:
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
        result = attempt(pod, state, infos, policy, cluster.seed, nominated_pods(state, pod), False)
        out[pod.key] = (result.message or "") if result.node is None else WOULD_SCHEDULE + result.node
    return out


# The prefix of pending_messages' answer for a pod that fits somewhere (not attempted yet).
WOULD_SCHEDULE = "would schedule to "


EFFECT_MEANING: Mapping[str, str] = {
    NO_SCHEDULE: "new pods that do not tolerate it are not scheduled here",
    PREFER_NO_SCHEDULE: "the scheduler tries to avoid placing pods that do not tolerate it here",
    NO_EXECUTE: "pods that do not tolerate it are evicted, new ones are not scheduled",
}
