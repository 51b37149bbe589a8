"""The what-if predictor the pages used before their previews became the loop on a copy
(whatif.summarise of engine.preview.run_preview). It guesses what the controllers do (the
taint manager's timing, one scheduling pass, the pods a controller would create) instead of
running them; only updates.machine_previews.rollout_preview still calls it, and this module
goes with that caller. Nothing here is used by the scheduling pages."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from scheduling.engine.api.objects import NO_EXECUTE, Node, Pod
from scheduling.engine.controllers import taint_manager
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.scheduler.scheduler import is_pending, last_results, run_queue

from .whatif import MAX_PLACEMENT_CHECKS, MAX_SCORED_PODS, PodScores, _best, _delta, _Placer, copy_state

def eviction_at(pod: Pod, node: Node, now: float, timer: float | None = None) -> float | None:
    """When the NoExecute taint manager (engine.taint_manager) deletes the pod on `node`:
    None never, `now` at once, else the time its timer fires. Every NoExecute taint must
    be tolerated, else at once; otherwise the shortest tolerationSeconds of the tolerations
    used (the first matching each taint), none set meaning never; an eviction already
    scheduled (the pod's timer annotation) keeps its time."""
    taints = [t for t in node.taints if t.effect == NO_EXECUTE]
    if not taints:
        return None
    tolerated, used = taint_manager.matching_tolerations(taints, pod.tolerations)
    if not tolerated:
        return now
    minimum = taint_manager.min_toleration_time(used)
    if minimum < 0:
        return None
    if timer is not None:
        return max(now, timer)
    return now + minimum


def _eviction_taints(pod: Pod, node: Node) -> tuple[str, ...]:
    """The NoExecute taints behind an eviction: the untolerated ones, else those tolerated
    for a limited time."""
    taints = [t for t in node.taints if t.effect == NO_EXECUTE]
    untolerated = [str(t) for t in taints if not any(x.tolerates(t) for x in pod.tolerations)]
    if untolerated:
        return tuple(untolerated)
    limited = []
    for t in taints:
        match = next((x for x in pod.tolerations if x.tolerates(t)), None)
        if match is not None and match.toleration_seconds is not None:
            limited.append(str(t))
    return tuple(limited)


# --- the preview -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Eviction:
    pod: str
    node: str
    seconds: float  # 0 = at once
    at: float  # simulated time of the eviction
    taints: tuple[str, ...]


@dataclass(frozen=True)
class Placement:
    pod: str
    before: str | None  # node before the edit (None: stays pending)
    after: str | None
    message: str | None = None  # FailedScheduling text when it does not fit
    nominated: str | None = None  # node nominated by preemption
    victims: tuple[str, ...] = ()
    already: bool = False  # for unplaceable pods: it was already the case before the edit


@dataclass
class Preview:
    now: float
    changed_nodes: list[str] = field(default_factory=list)
    changed_pods: list[str] = field(default_factory=list)
    evicted_now: list[Eviction] = field(default_factory=list)
    evicted_later: list[Eviction] = field(default_factory=list)
    scheduled: list[Placement] = field(default_factory=list)  # pending pods that would schedule
    unscheduled: list[Placement] = field(default_factory=list)  # pending pods that would no longer schedule
    unplaceable: list[Placement] = field(default_factory=list)  # running pods, if recreated
    scores: list[PodScores] = field(default_factory=list)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def evicted_keys(self) -> list[str]:
        return [e.pod for e in self.evicted_now]

    @property
    def nothing_happens(self) -> bool:
        return not (self.evicted_now or self.evicted_later or self.scheduled or self.unscheduled or self.unplaceable)


def _evictions(state: ClusterState, now: float, timers: Mapping[str, float]) -> dict[str, tuple[float, str, tuple[str, ...]]]:
    """{pod: (seconds from now until its eviction, node, the taints behind it)}."""
    nodes = {n.name: n for n in state.nodes}
    out = {}
    for pod in state.pods:
        if not pod.node_name or pod.is_terminating or pod.node_name not in nodes:
            continue
        at = eviction_at(pod, nodes[pod.node_name], now, timers.get(pod.key))
        if at is not None:
            out[pod.key] = (at - now, pod.node_name, _eviction_taints(pod, nodes[pod.node_name]))
    return out


def _queue_outcome(state: ClusterState, policy: Policy, seed: int, preemption: bool, now: float):
    state = copy_state(state)
    results = run_queue(state, policy, random.Random(seed), preemption, now=now, explain=False)
    last = last_results(results)
    pods = {p.key: p for p in state.pods}
    return last, pods


def _without(state: ClusterState, keys: set[str]) -> ClusterState:
    out = copy_state(state)
    out.pods = [p for p in out.pods if p.key not in keys]
    return out


def preview(
    before: ClusterState,
    after: ClusterState,
    policy: Policy,
    *,
    now: float = 0.0,
    seed: int = 0,
    preemption: bool = True,
    recreated: Sequence[Pod] = (),
    notes: Sequence[str] = (),
    timers: Mapping[str, float] | None = None,
) -> Preview:
    """What changes between `before` and `after` (the same cluster with an edit).

    `recreated`: pods a controller would create after the edit (a template change); their
    placement is checked like that of the running pods. `timers`: the taint manager's
    running eviction timers ("<ns>/<name>" -> time, state.eviction_timers)."""
    timers = timers or {}
    result = Preview(now=now, notes=list(notes))
    nodes_before = {n.name: n for n in before.nodes}
    nodes_after = {n.name: n for n in after.nodes}
    pods_before = {p.key: p for p in before.pods}
    pods_after = {p.key: p for p in after.pods}
    result.changed_nodes = [n for n in nodes_after if nodes_before.get(n) != nodes_after[n]]
    result.changed_pods = [k for k in pods_after if pods_before.get(k) != pods_after[k]]
    result.changed_pods += [k for k in pods_before if k not in pods_after]

    # 1. The taint manager: pods whose eviction the edit starts (or brings forward).
    ev_before, ev_after = _evictions(before, now, timers), _evictions(after, now, timers)
    for key, (delay, node, taints) in ev_after.items():
        old = ev_before.get(key)
        if old is not None and old[0] <= delay:
            continue  # already on its way out at least as soon
        eviction = Eviction(key, node, delay, now + delay, taints)
        (result.evicted_now if delay == 0 else result.evicted_later).append(eviction)
    result.evicted_later.sort(key=lambda e: (e.seconds, e.pod))
    gone = {e.pod for e in result.evicted_now}

    # 2. The scheduler: the pending pods, before and after (evicted pods gone, their
    # resources freed).
    last_before, _ = _queue_outcome(before, policy, seed, preemption, now)
    last_after, pods_after_run = _queue_outcome(_without(after, gone), policy, seed, preemption, now)
    for key, attempt in last_after.items():
        prior = last_before.get(key)
        node_before = prior.node if prior is not None else None
        if attempt.node is not None and attempt.node != node_before:
            result.scheduled.append(Placement(key, node_before, attempt.node))
        elif attempt.node is None and node_before is not None:
            pod = pods_after_run.get(key)
            nominated = pod.nominated_node_name if pod is not None else None
            victims = tuple(v.key for v in attempt.preemption.victims) if attempt.preemption else ()
            result.unscheduled.append(Placement(key, node_before, None, attempt.message, nominated or None, victims))
    for key, attempt in last_after.items():
        if attempt.node is None and attempt.preemption is not None and attempt.preemption.nominated_node:
            prior = last_before.get(key)
            if prior is None or prior.preemption is None or prior.preemption.nominated_node != attempt.preemption.nominated_node:
                if all(p.pod != key for p in result.unscheduled):
                    result.scheduled.append(
                        Placement(key, None, None, attempt.message, attempt.preemption.nominated_node,
                                  tuple(v.key for v in attempt.preemption.victims))
                    )

    # 3. Running pods that could not be placed again if they were recreated: those on the
    # edited nodes, the edited pods, the pods evicted at once, and the controller's new pods.
    state_after = _without(after, gone)
    check: list[Pod] = []
    seen: set[str] = set()
    changed_nodes = set(result.changed_nodes)
    for pod in after.pods:
        if pod.node_name and not pod.is_terminating and (
            pod.node_name in changed_nodes or pod.key in result.changed_pods or pod.key in gone
        ):
            check.append(pod)
    check.extend(recreated)
    if len(check) > MAX_PLACEMENT_CHECKS:
        result.truncated = True
        check = check[:MAX_PLACEMENT_CHECKS]
    placer_before = _Placer(before, policy, seed)
    placer_after = _Placer(state_after, policy, seed)
    for pod in check:
        if pod.key in seen:
            continue
        seen.add(pod.key)
        attempt = placer_after.placement(pod)
        if attempt.node is not None:
            continue
        old = pods_before.get(pod.key)
        already = False
        if old is not None and old.node_name:
            already = placer_before.placement(old).node is None
        result.unplaceable.append(Placement(pod.key, pod.node_name or None, None, attempt.message, already=already))

    # 4. How the scores of the affected pods change.
    affected: list[str] = []
    for key in result.changed_pods:
        if key in pods_after:
            affected.append(key)
    for pod in after.pods:
        if is_pending(pod, pod.scheduler_name) or pod.node_name in changed_nodes:
            affected.append(pod.key)
    for key in dict.fromkeys(affected):
        if len(result.scores) >= MAX_SCORED_PODS:
            result.truncated = True
            break
        pod_a = pods_after.get(key)
        pod_b = pods_before.get(key, pod_a)
        if pod_a is None or pod_a.is_terminating:
            continue
        totals_b = placer_before.totals(pod_b)
        totals_a = placer_after.totals(pod_a)
        best_b, best_a = _best(totals_b), _best(totals_a)
        changed = [n for n in nodes_after if totals_b.get(n) != totals_a.get(n)]
        if changed:
            # the best nodes before and after always have a row, changed or not
            shown = set(changed) | set(best_b) | set(best_a)
            rows = tuple(_delta(n, totals_b.get(n), totals_a.get(n)) for n in nodes_after if n in shown)
            rows = tuple(sorted(rows, key=lambda r: (r.node not in best_a, r.node not in best_b)))
            result.scores.append(PodScores(key, best_b, best_a, rows))
    # 5. The controller's new pods (a template change): where each would land, placed in
    # turn (each sees the ones before it), and when the taint manager would evict it there.
    _new_pods(result, placer_after, recreated, nodes_after, now)
    placer_before.close()
    placer_after.close()
    return result


def _new_pods(result: Preview, placer: "_Placer", recreated: Sequence[Pod], nodes: Mapping[str, Node], now: float) -> None:
    for pod in recreated:
        attempt = placer.placement(pod)
        if attempt.node is None:
            continue  # reported with the pods that could not be placed (3.)
        result.scheduled.append(Placement(pod.key, None, attempt.node))
        bound = dataclasses.replace(pod, node_name=attempt.node, phase="Running")
        placer.infos[attempt.node].add_pod(bound)
        at = eviction_at(bound, nodes[attempt.node], now)
        if at is not None:
            eviction = Eviction(pod.key, attempt.node, at - now, at, _eviction_taints(bound, nodes[attempt.node]))
            (result.evicted_now if at == now else result.evicted_later).append(eviction)
    result.evicted_later.sort(key=lambda e: (e.seconds, e.pod))


