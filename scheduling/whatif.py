"""What-if previews: what an edit would do, computed by the engine on copies.

`preview(before, after, policy, ...)` compares two ClusterStates (the stored cluster and
the same cluster with one edited document) and returns a `Preview`: the pods the taint
manager would evict at once, those it would evict later and when (tolerationSeconds),
the pending pods that would schedule and where, the running pods that could not be placed
again if recreated, and how the scores of the affected pods change. Nothing here touches
the database: the stored cluster is never modified by a preview; applying is the view's
job (services.replace_object with the resource_version the preview was computed from).

The document edits the editor offers (labels, cordon, conditions, tolerations, node
selector, affinity) are small pure functions on documents, at the bottom; taint edits go
through `oc adm taint` (previews.py).
"""

from __future__ import annotations

import copy
import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from .engine import actions as A
from scheduling.engine.controllers import node_lifecycle, taint_manager
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.api.objects import NO_EXECUTE, Node, Pod
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controllers.controller_utils import template_hash
from .engine.store import Store, document_copy
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.priorities.node_prefer_avoid_pods import node_prefer_avoid_pods_priority
from scheduling.engine.scheduler.scheduler import TOTAL, is_pending, last_results, node_scores, run_queue, schedule_cached
from .explain import infos_without, unbound_copy

MAX_PLACEMENT_CHECKS = 200
MAX_SCORED_PODS = 12


# --- what the controllers do after an edit -------------------------------------------------------


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


def _conditions(doc: Mapping) -> dict[str, str]:
    return {c.get("type"): c.get("status") for c in (doc.get("status") or {}).get("conditions") or ()}


def with_lifecycle_taints(old_doc: Mapping, new_doc: dict, now: float) -> tuple[dict, list[str]]:
    """The node as the node lifecycle controller leaves it after an edit of its conditions
    or of spec.unschedulable (engine.node_lifecycle): the condition NoSchedule taints at
    once, and for Ready False/Unknown the not-ready/unreachable NoExecute taint that its
    next monitor pass adds (rate-limited per zone). Other edits: unchanged, no notes."""
    if _conditions(old_doc) == _conditions(new_doc) and bool((old_doc.get("spec") or {}).get("unschedulable")) == bool(
        (new_doc.get("spec") or {}).get("unschedulable")
    ):
        return new_doc, []
    name = (new_doc.get("metadata") or {}).get("name") or ""
    store = Store([new_doc])
    notes: list[str] = []
    for action in node_lifecycle.condition_taint_actions(new_doc, now):
        if store.apply(action):
            if isinstance(action, A.AddTaint):
                notes.append(f"the node lifecycle controller adds the taint {action.taint['key']}:NoSchedule at once")
            else:
                notes.append(f"the node lifecycle controller removes the taint {action.key}:NoSchedule")
    ready = _conditions(new_doc).get("Ready", "True")
    want = node_lifecycle.NO_EXECUTE_FOR_READY.get(ready)
    for key in node_lifecycle.NO_EXECUTE_FOR_READY.values():
        if key != want and store.apply(A.RemoveTaint(name, key, NO_EXECUTE)):
            notes.append(f"the node lifecycle controller removes the taint {key}:NoExecute")
    if want and store.apply(A.AddTaint(name, {"key": want, "effect": NO_EXECUTE, "timeAdded": now})):
        notes.append(
            f"the node lifecycle controller adds the taint {want}:NoExecute at its next monitor pass "
            "(taint-based evictions; rate-limited per zone)"
        )
    return store.get("Node", "", name), notes


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


@dataclass(frozen=True)
class ScoreDelta:
    node: str
    before: int | None  # None: not feasible
    after: int | None
    # the weighted NodePreferAvoidPodsPriority part of each total (x10000 dwarfs the rest)
    before_avoid: int = 0
    after_avoid: int = 0

    @property
    def before_rest(self) -> int | None:
        return None if self.before is None else self.before - self.before_avoid

    @property
    def after_rest(self) -> int | None:
        return None if self.after is None else self.after - self.after_avoid


@dataclass(frozen=True)
class PodScores:
    pod: str
    best_before: tuple[str, ...]
    best_after: tuple[str, ...]
    rows: tuple[ScoreDelta, ...]


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


def copy_state(state: ClusterState) -> ClusterState:
    """A copy whose lists may be changed (the objects in them are immutable)."""
    return dataclasses.replace(
        state,
        nodes=list(state.nodes),
        pods=list(state.pods),
        services=list(state.services),
        controllers=list(state.controllers),
        pdbs=list(state.pdbs),
        priority_classes=list(state.priority_classes),
        persistent_volumes=list(state.persistent_volumes),
        persistent_volume_claims=list(state.persistent_volume_claims),
        storage_classes=list(state.storage_classes),
        namespaces=list(state.namespaces),
    )


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


class _Placer:
    """Places pods one at a time against ONE state: its NodeInfos and SchedulerCache are
    built once; each pod is taken off its node for its cycle and put back at the same
    position after (the order of a node's pods is visible to some predicates)."""

    def __init__(self, state: ClusterState, policy: Policy, seed: int):
        self.state, self.policy, self.seed = state, policy, seed
        self.infos = infos_without(state, set())
        self.cache = SchedulerCache(self.infos, state)
        self.cache.attach()

    def _cycle(self, pod: Pod, run):
        info = self.infos.get(pod.node_name) if pod.node_name else None
        position = None
        if info is not None:
            position = next((i for i, p in enumerate(info.pods) if p.key == pod.key), None)
            if position is not None:
                stored = info.pods[position]
                info.remove_pod(stored)
        try:
            return run(unbound_copy(pod))
        finally:
            if position is not None:
                info.add_pod(stored)
                info.pods.insert(position, info.pods.pop())

    def placement(self, pod: Pod):
        """Where `pod` would go if it were created now (it is taken off its node first)."""
        return self._cycle(pod, lambda p: schedule_cached(p, self.state, self.cache, self.policy, random.Random(self.seed)))

    def totals(self, pod: Pod) -> dict[str, tuple[int, int]]:
        """node -> (total score, its weighted avoid-pods part), for the nodes that would fit
        `pod` if it were created now (what `schedule(..., explain=True).scores` says)."""
        scores = self._cycle(pod, lambda p: node_scores(p, self.state, self.cache, self.policy))
        avoid = avoid_pods_weights(self.policy)
        return {
            n: (int(s.get(TOTAL, 0)), sum(int(s.get(name, 0)) * w for name, w in avoid.items()))
            for n, s in scores.items()
        }

    def close(self) -> None:
        self.cache.detach()


def avoid_pods_weights(policy: Policy) -> dict[str, int]:
    """The policy's NodePreferAvoidPodsPriority entries (name -> weight): their weight of
    10000 makes them decide only between nodes with and without the avoid-pods annotation."""
    return {p.name: p.weight for p in policy.priorities if p.fn is node_prefer_avoid_pods_priority}


def _best(totals: Mapping[str, tuple[int, int]]) -> tuple[str, ...]:
    if not totals:
        return ()
    top = max(t for t, _ in totals.values())
    return tuple(n for n, (t, _) in totals.items() if t == top)


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


def _delta(node: str, before: tuple[int, int] | None, after: tuple[int, int] | None) -> ScoreDelta:
    return ScoreDelta(
        node, before[0] if before else None, after[0] if after else None,
        before_avoid=before[1] if before else 0, after_avoid=after[1] if after else 0,
    )


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


# --- edits on documents -----------------------------------------------------------------------


class EditError(ValueError):
    """An edit that cannot be made; str() is the message for the user."""


def edited(doc: Mapping[str, Any]) -> dict:
    out = document_copy(dict(doc))
    out.get("metadata", {}).pop("resourceVersion", None)
    return out


def set_label(doc: Mapping, key: str, value: str) -> dict:
    out = edited(doc)
    out.setdefault("metadata", {}).setdefault("labels", {})[key] = value
    return out


def remove_label(doc: Mapping, key: str) -> dict:
    out = edited(doc)
    labels = out.get("metadata", {}).get("labels") or {}
    if key not in labels:
        raise EditError(f'label "{key}" not found')
    del labels[key]
    return out


def set_unschedulable(doc: Mapping, unschedulable: bool) -> dict:
    out = edited(doc)
    spec = out.setdefault("spec", {})
    if unschedulable:
        spec["unschedulable"] = True
    else:
        spec.pop("unschedulable", None)
    return out


NODE_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable", "OutOfDisk")


def set_condition(doc: Mapping, kind: str, status: str) -> dict:
    if kind not in NODE_CONDITIONS:
        raise EditError(f"unknown node condition {kind!r}")
    if status not in ("True", "False", "Unknown"):
        raise EditError(f"a condition status is True, False or Unknown, not {status!r}")
    out = edited(doc)
    conditions = out.setdefault("status", {}).setdefault("conditions", [])
    for c in conditions:
        if c.get("type") == kind:
            c["status"] = status
            break
    else:
        conditions.append({"type": kind, "status": status})
    return out


def pod_spec(doc: Mapping) -> tuple[dict, dict]:
    """(the document copy, the pod spec to edit in it: the pod's or the template's)."""
    out = edited(doc)
    if out.get("kind") == "Pod":
        return out, out.setdefault("spec", {})
    template = out.setdefault("spec", {}).setdefault("template", {})
    return out, template.setdefault("spec", {})


def add_toleration(doc: Mapping, toleration: Mapping) -> dict:
    out, spec = pod_spec(doc)
    spec.setdefault("tolerations", []).append(dict(toleration))
    return out


def remove_toleration(doc: Mapping, index: int) -> dict:
    out, spec = pod_spec(doc)
    tolerations = spec.get("tolerations") or []
    if not 0 <= index < len(tolerations):
        raise EditError("that toleration is no longer there")
    del tolerations[index]
    if not tolerations:
        spec.pop("tolerations", None)
    return out


def set_node_selector(doc: Mapping, key: str, value: str) -> dict:
    out, spec = pod_spec(doc)
    spec.setdefault("nodeSelector", {})[key] = value
    return out


def remove_node_selector(doc: Mapping, key: str) -> dict:
    out, spec = pod_spec(doc)
    selector = spec.get("nodeSelector") or {}
    if key not in selector:
        raise EditError(f'node selector "{key}" not found')
    del selector[key]
    if not selector:
        spec.pop("nodeSelector", None)
    return out


def set_affinity(doc: Mapping, affinity: Mapping | None) -> dict:
    out, spec = pod_spec(doc)
    if affinity:
        spec["affinity"] = dict(affinity)
    else:
        spec.pop("affinity", None)
    return out


def add_node_affinity_requirement(doc: Mapping, key: str, operator: str, values: Sequence[str]) -> dict:
    """A matchExpression added to the first required nodeSelectorTerm (created if none)."""
    out, spec = pod_spec(doc)
    node_affinity = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    required = node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.setdefault("nodeSelectorTerms", [])
    if not terms:
        terms.append({})
    expression: dict = {"key": key, "operator": operator}
    if values or operator not in ("Exists", "DoesNotExist"):
        # kept as typed: the API server's validation refuses values with Exists/DoesNotExist
        expression["values"] = list(values)
    terms[0].setdefault("matchExpressions", []).append(expression)
    return out


def add_pod_affinity_term(doc: Mapping, anti: bool, key: str, value: str, topology_key: str) -> dict:
    """A required pod (anti-)affinity term: pods labelled key=value, in the same topology."""
    out, spec = pod_spec(doc)
    kind = "podAntiAffinity" if anti else "podAffinity"
    section = spec.setdefault("affinity", {}).setdefault(kind, {})
    section.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(
        {"labelSelector": {"matchLabels": {key: value}}, "topologyKey": topology_key}
    )
    return out


def template_pods(controller_doc: Mapping, existing: Iterable[Pod],
                  admit: Callable[[dict], dict] | None = None) -> tuple[list[Pod], str | None]:
    """The pods a controller would create from its template: as many as it has replicas
    (a DaemonSet: as many as it runs now), named after the controller. `admit` (the API
    server's admission of a new pod, raising AdmissionError) refuses them all alike: then
    no pods and the controller's FailedCreate message."""
    meta = controller_doc.get("metadata") or {}
    spec = controller_doc.get("spec") or {}
    template = spec.get("template") or {}
    name = meta.get("name") or ""
    namespace = meta.get("namespace") or "default"
    kind = controller_doc.get("kind")
    if kind == "DaemonSet":
        count = len(list(existing))
    else:
        count = int(spec.get("replicas", 1) or 0)
    # the name the API server sees at admission (not generated yet: generateName)
    generate_name = {"Deployment": f"{name}-{template_hash(template)}-", "StatefulSet": None}.get(kind, f"{name}-")
    pods = []
    for i in range(count):
        doc = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {**(template.get("metadata") or {}), "name": f"{name}-new-{i + 1}", "namespace": namespace},
            "spec": copy.deepcopy(template.get("spec") or {}),
        }
        if admit is not None:
            seen = {**doc, "metadata": {**doc["metadata"], "name": f"{name}-{i}"}}
            if generate_name is not None:
                seen["metadata"] = {**doc["metadata"], "name": "", "generateName": generate_name}
            try:
                admitted = admit(seen)
            except AdmissionError as exc:
                return [], f"Error creating: {exc}"
            doc = {**admitted, "metadata": doc["metadata"]}
        pods.append(Pod.from_doc(doc))
    return pods, None
