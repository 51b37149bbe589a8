"""What-if previews for people: the engine's loop run on a copy, summarised.

Every what-if of the pages (the node, pod and workload editors, the console's dry run, the
training questions) is `engine.preview.run_preview`: the change applied at the cluster's
clock and the same controllers run on (previews.py builds the change and runs it). There
is no second engine here: `summarise` only reads what the loop did, from its events and
its stores before and after:

* pods the taint manager evicted at once, and later with the time (TaintManagerEviction);
* pods deleted by someone else: preempted (Preempted: by whom, on which node), removed by
  their controller (SuccessfulDelete), or otherwise stopped (Killing);
* pods a controller created (SuccessfulCreate), pending pods that started and where
  (Scheduled), pods that end Pending (with their last FailedScheduling message);
* the taints the controllers changed (taint nodes by condition, taint-based evictions:
  the node lifecycle controller with its zone rate limits);
* how the scores of the affected pods change: scheduler queries (engine.scheduler's
  node_scores) on the loop's store before the change and at the end, each pod taken off
  its node, as the explainer asks them.

The document edits the editor offers (labels, cordon, conditions, tolerations, node
selector, affinity) are small pure functions on documents, at the bottom; taint edits go
through `oc adm taint` (previews.py).
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine.api.objects import Pod
from scheduling.engine.api.selectors import VALUELESS_OPERATORS
from scheduling.engine.controllers.scheduling import build_state
from scheduling.engine.preview import PreviewResult
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.scheduler.priorities.node_prefer_avoid_pods import node_prefer_avoid_pods_priority
from scheduling.engine.scheduler.scheduler import TOTAL, node_scores, schedule_cached
from scheduling.engine.store import Store, document_copy
from scheduling.pages.explain import infos_without, unbound_copy

MAX_PLACEMENT_CHECKS = 200
MAX_SCORED_PODS = 12
EPSILON = 1e-9


# --- the loop's result, for people -------------------------------------------------------------------


@dataclass(frozen=True)
class Evicted:
    """A pod the taint manager deleted (TaintManagerEviction "Marking for deletion")."""

    pod: str
    node: str
    at: float  # simulated time of the eviction
    seconds: float  # after the change (0: at once)
    message: str = ""


@dataclass(frozen=True)
class Deleted:
    """A running pod deleted otherwise: preempted, removed by its controller, stopped."""

    pod: str
    node: str
    at: float
    how: str  # "preempted by default/x on node n1", "deleted by ReplicaSet/default/web-1", "stopped"


@dataclass(frozen=True)
class Started:
    """A pod the scheduler bound (Scheduled)."""

    pod: str
    node: str
    at: float
    new: bool = False  # created during the preview

    @property
    def after(self) -> str:
        return self.node


@dataclass(frozen=True)
class Created:
    pod: str
    by: str  # the controller: "ReplicaSet/default/web-6d4f8b9c7d"
    at: float


@dataclass(frozen=True)
class StillPending:
    pod: str
    message: str = ""
    new: bool = False


@dataclass(frozen=True)
class TaintChange:
    node: str
    taint: str  # "key=value:Effect"
    added: bool
    at: float | None = None  # timeAdded of an added taint


@dataclass
class LoopPreview:
    """What the loop did after the change, from `at` (the clock) to `until`."""

    at: float
    until: float
    changed_nodes: list[str] = field(default_factory=list)  # what the change itself wrote
    changed_pods: list[str] = field(default_factory=list)
    evicted_now: list[Evicted] = field(default_factory=list)
    evicted_later: list[Evicted] = field(default_factory=list)
    deleted: list[Deleted] = field(default_factory=list)
    created: list[Created] = field(default_factory=list)
    scheduled: list[Started] = field(default_factory=list)
    pending: list[StillPending] = field(default_factory=list)
    taints: list[TaintChange] = field(default_factory=list)
    scores: list["PodScores"] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)  # every event of the run, with "key": "<time>|<reason>|<object>"
    notes: list[str] = field(default_factory=list)
    truncated: bool = False

    @property
    def now(self) -> float:
        return self.at

    @property
    def evicted_keys(self) -> list[str]:
        return [e.pod for e in self.evicted_now]

    @property
    def nothing_happens(self) -> bool:
        return not (self.evicted_now or self.evicted_later or self.deleted or self.created or self.scheduled
                    or self.pending or self.taints)


def time_text(t: float) -> str:
    """A simulated time as the preview's event keys write it: 130, 130.5."""
    return format(float(t), ".15g")


def _pod_key(doc: Mapping) -> str:
    m = doc.get("metadata") or {}
    return f"{m.get('namespace') or 'default'}/{m.get('name') or ''}"


def _taints(doc: Mapping | None) -> dict[tuple[str, str, str], Mapping]:
    out = {}
    for t in ((doc or {}).get("spec") or {}).get("taints") or ():
        if isinstance(t, Mapping):
            out[(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or ""))] = t
    return out


def _taint_text(key: tuple[str, str, str]) -> str:
    k, v, effect = key
    return f"{k}={v}:{effect}" if v else f"{k}:{effect}"


_ASSIGNED = re.compile(r"^Successfully assigned (\S+) to (\S+)$")
_POD_MESSAGE = re.compile(r"^(?:Created|Deleted) pod: (\S+)$")


def _sort_the_events(out: LoopPreview, result: PreviewResult, at: float, node_of, pods_before: Mapping) -> dict[str, str]:
    """Sort the run's events into what `out` lists: pods evicted (now or later), deleted,
    created, scheduled; the controllers' refused creations as notes. Returns each pod's
    last FailedScheduling message."""
    gone: set[str] = set()
    last_failure: dict[str, str] = {}
    for e in result.events:
        kind, _, rest = e["object"].partition("/")
        reason, message, time = e["reason"], e["message"] or "", e["time"]
        if kind == "Pod" and ((reason == "TaintManagerEviction" and message.startswith("Marking for deletion"))
                              or reason == "Descheduled"):  # the taint manager's or the descheduler's eviction
            evicted = Evicted(rest, node_of(rest), time, time - at, message)
            (out.evicted_now if time <= at + EPSILON else out.evicted_later).append(evicted)
            gone.add(rest)
        elif reason == "Preempted" and kind == "Pod" and rest not in gone:
            out.deleted.append(Deleted(rest, node_of(rest), time, f"preempted {message}".strip()))
            gone.add(rest)
        elif reason in ("SuccessfulCreate", "SuccessfulDelete"):
            m = _POD_MESSAGE.match(message)
            namespace = rest.partition("/")[0] if "/" in rest else "default"
            if m is None:
                continue
            key = f"{namespace}/{m.group(1)}"
            if reason == "SuccessfulCreate":
                out.created.append(Created(key, e["object"], time))
            elif key not in gone:
                out.deleted.append(Deleted(key, node_of(key), time, f"deleted by {e['object']}"))
                gone.add(key)
        elif reason == "Killing" and kind == "Pod" and rest not in gone:
            out.deleted.append(Deleted(rest, node_of(rest), time, "stopped (deleted)"))
            gone.add(rest)
        elif reason == "Scheduled" and kind == "Pod":
            m = _ASSIGNED.match(message)
            if m is not None:
                out.scheduled.append(Started(rest, m.group(2), time, rest not in pods_before))
        elif reason == "FailedScheduling" and kind == "Pod":
            last_failure[rest] = message
        elif reason == "FailedCreate":
            note = f"{e['object']}: its controller's new pods are refused: {message}"
            if note not in out.notes:
                out.notes.append(note)
    return last_failure


def _still_pending(out: LoopPreview, result: PreviewResult, pods_before: Mapping, last_failure: Mapping[str, str]) -> None:
    """The pods pending at the end of the run that the change concerns: new ones, ones it
    unbound, and pending ones it wrote."""
    for pod in result.pods:
        key = pod["pod"]
        if pod["node"] or pod["terminating"] or pod["phase"] not in ("Pending", None):
            continue
        new = key not in pods_before
        old = pods_before.get(key) or {}
        was_pending = not new and not (old.get("spec") or {}).get("nodeName")
        # a pod Pending before the change and after is listed only when the change wrote it
        if new or not was_pending or key in out.changed_pods:
            out.pending.append(StillPending(key, last_failure.get(key, ""), new))


def summarise(result: PreviewResult, before: Sequence[Mapping], actions: Iterable[Any] = (), *,
              policy: Policy | None = None, seed: int = 0) -> LoopPreview:
    """The loop's run (`result`) for people. `before`: the loop's documents at the clock,
    before the change (the store never changes a document in place: a list of them is a
    snapshot); `actions`: the change (its own taints are not the controllers'). With a
    `policy`, the score changes of the affected pods."""
    at = result.at
    nodes_before = {(d.get("metadata") or {}).get("name"): d for d in before if d.get("kind") == "Node"}
    pods_before = {_pod_key(d): d for d in before if d.get("kind") == "Pod"}
    end = result.sim.store if result.sim is not None else None
    out = LoopPreview(at=at, until=result.until)
    out.events = [{**e, "key": f"{time_text(e['time'])}|{e['reason']}|{e['object']}"} for e in result.events]
    out.changed_nodes = [name for kind, _, name in result.changed if kind == "Node"]
    out.changed_pods = [f"{ns or 'default'}/{name}" for kind, ns, name in result.changed if kind == "Pod"]

    bound: dict[str, str] = {}  # pods the scheduler bound during the run (gone again by its end, perhaps)
    for e in result.events:
        if e["reason"] == "Scheduled" and e["object"].startswith("Pod/"):
            m = _ASSIGNED.match(e["message"] or "")
            if m is not None:
                bound[e["object"][4:]] = m.group(2)

    def node_of(key: str) -> str:
        if key in bound:
            return bound[key]
        doc = pods_before.get(key)
        if doc is None and end is not None:
            ns, _, name = key.partition("/")
            doc = end.get("Pod", ns, name)
        return ((doc or {}).get("spec") or {}).get("nodeName") or ""

    last_failure = _sort_the_events(out, result, at, node_of, pods_before)
    _still_pending(out, result, pods_before, last_failure)
    out.taints = _taint_changes(nodes_before, actions, end)
    if policy is not None and end is not None:
        _scores(out, before, result, policy, seed)
    return out


def _taint_changes(nodes_before: Mapping[str, Mapping], actions: Iterable[Any], end: Store | None) -> list[TaintChange]:
    """The taints the controllers changed: the nodes at the end against the nodes as the
    change alone leaves them (its actions applied to the nodes before, nothing run)."""
    if end is None:
        return []
    intended = Store(list(nodes_before.values()), copy=False)
    for action in actions:
        try:
            intended.apply(action)
        except Exception:  # an action on another kind the node-only store cannot take: not a node's
            continue
    changes = []
    for doc in end.list("Node"):
        name = (doc.get("metadata") or {}).get("name")
        mine, theirs = _taints(intended.get("Node", "", name)), _taints(doc)
        for key, taint in theirs.items():
            if key not in mine:
                added = taint.get("timeAdded")
                changes.append(TaintChange(name, _taint_text(key), True, added if isinstance(added, (int, float)) else None))
        for key in mine:
            if key not in theirs:
                changes.append(TaintChange(name, _taint_text(key), False))
    return changes


def _scores(out: LoopPreview, before: Sequence[Mapping], result: PreviewResult, policy: Policy, seed: int) -> None:
    """How the node scores of the affected pods change between the loop's store at the clock
    and at the end: the pods the change wrote, the pods on the nodes it wrote, the pods that
    end Pending; each pod taken off its node and scored on every node."""
    store = result.sim.store
    pods_before = {_pod_key(d): d for d in before if d.get("kind") == "Pod"}
    pods_after = {_pod_key(d): d for d in store.list("Pod")}
    changed_nodes = set(out.changed_nodes)
    affected = list(out.changed_pods)
    for key, doc in pods_before.items():
        if ((doc.get("spec") or {}).get("nodeName") or "") in changed_nodes:
            affected.append(key)
    affected += [p.pod for p in out.pending]
    affected = [k for k in dict.fromkeys(affected)]
    if not affected:
        return
    state_before = build_state(before, store.memo)
    state_after = build_state(store.all(), store.memo)
    objects_before = {p.key: p for p in state_before.pods}
    objects_after = {p.key: p for p in state_after.pods}
    placer_before = placer_after = None
    try:
        for key in affected:
            if len(out.scores) >= MAX_SCORED_PODS:
                out.truncated = True
                break
            pod_a = objects_after.get(key)
            pod_b = objects_before.get(key, pod_a)
            pod_a = pod_a or pod_b
            if pod_a is None or (pod_a.is_terminating and pod_b.is_terminating):
                continue
            if placer_before is None:
                placer_before, placer_after = _Placer(state_before, policy, seed), _Placer(state_after, policy, seed)
            totals_b, totals_a = placer_before.totals(pod_b), placer_after.totals(pod_a)
            best_b, best_a = _best(totals_b), _best(totals_a)
            nodes = [n.name for n in state_after.nodes]
            changed = [n for n in nodes if totals_b.get(n) != totals_a.get(n)]
            if changed:
                shown = set(changed) | set(best_b) | set(best_a)
                rows = tuple(_delta(n, totals_b.get(n), totals_a.get(n)) for n in nodes if n in shown)
                rows = tuple(sorted(rows, key=lambda r: (r.node not in best_a, r.node not in best_b)))
                out.scores.append(PodScores(key, best_b, best_a, rows))
    finally:
        for placer in (placer_before, placer_after):
            if placer is not None:
                placer.close()


# --- scheduler queries: a pod's node scores --------------------------------------------------------


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


def _delta(node: str, before: tuple[int, int] | None, after: tuple[int, int] | None) -> ScoreDelta:
    return ScoreDelta(
        node, before[0] if before else None, after[0] if after else None,
        before_avoid=before[1] if before else 0, after_avoid=after[1] if after else 0,
    )


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


def set_scheduler_name(doc: Mapping, name: str) -> dict:
    out, spec = pod_spec(doc)
    if name == "default-scheduler":
        spec.pop("schedulerName", None)  # the API server's default
    else:
        spec["schedulerName"] = name
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
    if values or operator not in VALUELESS_OPERATORS:
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
