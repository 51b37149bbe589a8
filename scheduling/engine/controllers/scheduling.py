"""The scheduler as a controller of the event loop (engine.simulation): it schedules the
pending pods with every running scheduler (the default one and one per named Policy),
in queue order, preempting when allowed (engine.scheduler.scheduler.run_queue), and
binds them.

It re-runs pending pods the way the 1.11 scheduling queue does: a pod that did not fit
waits in the unschedulable queue until a node changes, a bound pod is removed (or finishes), or a
volume/service object changes (MoveAllToActiveQueue), or a pod is bound that matches one
of its required pod-affinity terms (AssignedPodAdded: only the pods it matches move,
whether the pod was bound by this scheduler or came bound); new pods are tried at once. A
pod nominated by preemption is tried again with every run.

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
import itertools
import operator
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
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import TERMINAL_PHASES, ClusterState, NodeInfo, assigned_node
from scheduling.engine.scheduler.predicates.inter_pod_affinity import pod_matches_term, required_affinity_terms
from scheduling.engine.scheduler.scheduler import ScheduleResult, replace_status, run_queue
from scheduling.engine.framework import runtime as framework
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
IGNORED_FIELD_REASON = "FieldIgnored"


def ignored_fields(pod: Pod) -> list[str]:
    """The fields of `pod` the OpenShift 3.11 scheduler does not read (they came later):
    a pod using them under that scheduler is told so."""
    fields = []
    if pod.topology_spread_constraints:
        fields.append("spec.topologySpreadConstraints")
    if pod.scheduling_gates:
        fields.append("spec.schedulingGates")
    if pod.preemption_policy == "Never":
        fields.append("spec.preemptionPolicy")
    affinity = pod.affinity
    for kind, rules in (("podAffinity", affinity and affinity.pod_affinity),
                        ("podAntiAffinity", affinity and affinity.pod_anti_affinity)):
        if rules is None:
            continue
        terms = list(rules.required) + [w.term for w in rules.preferred]
        if any(t.namespace_selector is not None for t in terms):
            fields.append(f"spec.affinity.{kind}: namespaceSelector")
        if any(t.match_label_keys or t.mismatch_label_keys for t in terms):
            fields.append(f"spec.affinity.{kind}: matchLabelKeys")
    return fields


def ignored_fields_message(fields: list[str]) -> str:
    return (f"{', '.join(fields)} ignored: this cluster runs the OpenShift 3.11 scheduler (a Policy), which "
            f"predates {'this field' if len(fields) == 1 else 'these fields'}; the OpenShift 4 scheduler "
            "(a KubeSchedulerConfiguration, or a ClusterVersion of 4.10 or later) reads "
            f"{'it' if len(fields) == 1 else 'them'}")


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


def _affinity_matched(store: Store, snapshot: "Snapshot | None", keys: Iterable[str], bound: list[Pod]) -> set[str]:
    """The pods of `keys` with a required pod-affinity term that one of the `bound` pods
    matches (1.11 getUnschedulablePodsWithMatchingAffinityTerm: namespaces and selector)."""
    out = set()
    for key in keys:
        ns, _, name = key.partition("/")
        if snapshot is not None and key in snapshot.pods:
            pod = snapshot.pod(key)
        else:
            doc = store.get("Pod", ns, name)
            if doc is None:
                continue
            pod = Pod.from_doc(doc)
        terms = required_affinity_terms(pod)
        if terms and any(pod_matches_term(b, pod, term) for term in terms for b in bound):
            out.add(key)
    return out


def is_pod_updated(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """The scheduling queue's isPodUpdated: the pods differ other than in resourceVersion,
    generation and status (a status the scheduler or the kubelet wrote moves nothing).
    An old document not known counts as updated."""
    if old is None:
        return True

    def strip(doc: Mapping[str, Any]) -> dict:
        meta = {k: v for k, v in (doc.get("metadata") or {}).items() if k not in ("resourceVersion", "generation")}
        return {**{k: v for k, v in doc.items() if k not in ("status", "metadata")}, "metadata": meta}

    return strip(old) != strip(new)


def _counts_on_node(doc: Mapping[str, Any] | None) -> bool:
    """Bound to a node and not finished (the pod informer leaves Succeeded and Failed pods
    out: a pod that finishes is, to the scheduler, a bound pod removed)."""
    return (doc is not None and bool((doc.get("spec") or {}).get("nodeName"))
            and (doc.get("status") or {}).get("phase") not in TERMINAL_PHASES)


def _bound_keys(store: Store) -> set[str]:
    """The keys of the pods bound to a node (and not finished)."""
    return {_key(*_ns_name(p)) for p in store.list("Pod") if _counts_on_node(p)}


def _pending(doc: Mapping[str, Any] | None) -> bool:
    return doc is not None and not (doc.get("spec") or {}).get("nodeName") and not is_terminating(doc)


class SchedulerController:
    name = NAME
    watches = frozenset({"Pod"}) | MOVE_ALL_KINDS

    def __init__(self) -> None:
        self.results: list[ScheduleResult] = []
        self._bound: set[str] | None = None  # pods seen bound at the last run (to notice a bound pod removed)
        self._snapshot: Snapshot | None = None  # the cluster as the last pass left it, brought up to date
        self._held: dict[str, tuple[Pod, Pod]] = {}  # pod key -> (its Pod, the copy held in the unschedulable queue)
        # pods held in the unschedulable queue during the last pass that a pod it bound matches
        # (AssignedPodAdded): moved back at the next run, which the binds' changes bring at once
        self._woken: set[str] = set()

    def attach(self, store: Store) -> None:
        """The pods bound as the run starts (engine.simulation calls this once): a bound pod
        removed before the scheduler's first run of a resumed loop still moves the
        unschedulable pods back, as a long-running kube-scheduler's cache sees it."""
        self._bound = _bound_keys(store)

    def scheduler_names(self, settings: Mapping[str, Any]) -> set[str]:
        return {name for name, _ in settings.get("schedulers") or ()}

    def reconcile(self, ctx: Context) -> A.Result:
        store = ctx.store
        unschedulable = set(ctx.state.get("unschedulable") or ())
        if self._bound is None or ctx.changed is None:
            self._bound = _bound_keys(store)
        # the pods' documents as the last run saw them (none known: a resumed loop's first
        # run, whose changes are users' writes)
        seen = {} if self._snapshot is None or not ctx.changed else {
            _key(ns, name): self._snapshot.pod_docs.get(_key(ns, name)) for kind, ns, name in ctx.changed if kind == "Pod"}
        if self._snapshot is None or ctx.changed is None:
            self._snapshot = Snapshot(store)
        else:
            self._snapshot.note(store, ctx.changed)
        move_all, needed = self._note(store, ctx.changed, unschedulable, seen)
        if not needed:
            return A.Result()
        return self._schedule(ctx, unschedulable, move_all)

    def _note(self, store: Store, changed, unschedulable: set[str], seen: Mapping[str, Any] = {}) -> tuple[bool, bool]:
        """(move every unschedulable pod back to the active queue, a pass is needed).
        A pending pod in the unschedulable queue that was updated (`seen`: its document at
        the last run; not known: a user's write) goes back to the active queue, as the 1.11
        scheduling queue's Update does when isPodUpdated."""
        if changed is None:
            unschedulable.clear()
            self._woken = set()
            return True, True
        move_all = needed = False
        newly_bound: list[Pod] = []
        for kind, ns, name in changed:
            if kind in MOVE_ALL_KINDS:
                move_all = needed = True
            elif kind == "Pod":
                key = _key(ns, name)
                doc = store.get("Pod", ns, name)
                bound = _counts_on_node(doc)
                if key in self._bound and not bound:
                    move_all = needed = True  # a bound pod was removed
                if bound:
                    if key not in self._bound:
                        newly_bound.append(Pod.from_doc(doc))  # bound by someone else (this pass's own: _woken)
                    self._bound.add(key)
                else:
                    self._bound.discard(key)
                if doc is None:
                    unschedulable.discard(key)
                elif _pending(doc) and key not in unschedulable:
                    needed = True
                elif _pending(doc) and is_pod_updated(seen.get(key), doc):
                    unschedulable.discard(key)
                    needed = True
        woken, self._woken = self._woken, set()
        if newly_bound and unschedulable and not move_all:
            woken |= _affinity_matched(store, self._snapshot, unschedulable, newly_bound)
        woken &= unschedulable
        if woken:  # AssignedPodAdded: these go back to the active queue
            unschedulable -= woken
            needed = True
        return move_all, needed

    def _schedule(self, ctx: Context, unschedulable: set[str], move_all: bool) -> A.Result:
        store, now, settings = ctx.store, ctx.now, ctx.settings
        attempts: dict[str, int] = dict(ctx.state.get("attempts") or {})
        snapshot = self._snapshot
        assert snapshot is not None
        if move_all:
            unschedulable.clear()
        names = {name for name, _ in settings.get("schedulers") or ()}
        results: list[ScheduleResult] = []
        actions: list = []
        bound: list[str] = []
        touched: dict[str, str] = {}  # pods the pass put on a node or made victims -> their node
        # A pass only when a pod would enter a queue (not held in the unschedulable queue,
        # for a running scheduler): otherwise the queues are empty and nothing changes.
        if any(pod.scheduler_name in names and pod.phase not in ("Succeeded", "Failed")
               and (key not in unschedulable or pod.nominated_node_name)
               for key in snapshot.pending for pod in (snapshot.pod(key),)):
            state, infos = snapshot.state(store)
            position = snapshot.positions(snapshot.pending | unschedulable)
            held: dict[int, Pod] = {}
            copies: dict[str, tuple[Pod, Pod]] = {}
            for key in sorted(unschedulable, key=lambda k: position.get(k, -1)):
                i = position.get(key)
                if i is None:
                    continue
                pod = state.pods[i]
                if not pod.nominated_node_name and not pod.node_name:
                    held[i] = pod
                    copy = self._held.get(key)
                    if copy is None or copy[0] is not pod:
                        copy = (pod, dataclasses.replace(pod, scheduler_name=_HELD))
                    copies[key] = copy
                    state.pods[i] = copy[1]
            self._held = copies
            before = list(state.pods)
            pending = [position[key] for key in snapshot.pending]

            def rng_for_attempt(pod: Pod, n: int):
                return tie_break_rng(ctx.seed, pod.key, attempts.get(pod.key, 0) + n)

            marks: list[tuple[SchedulerCache, int]] = []  # each run's cache and where its log of changes stood
            starts = dict(ctx.state.get("nextStartNodeIndex") or {})
            for name, policy in settings.get("schedulers") or ():
                if isinstance(policy, framework.Profile):
                    ran, starts[name] = framework.run_queue(
                        state, policy, None, bool(settings.get("preemption", True)), scheduler_name=name, now=now,
                        explain=bool(settings.get("explain", True)), node_infos=infos, rng_for_attempt=rng_for_attempt,
                        pending=pending, start=int(starts.get(name, 0)), namespace_labels=_namespace_labels(store))
                    results += ran
                    continue
                cache = snapshot.cache(infos, state)
                marks.append((cache, len(cache.changes)))
                ran = run_queue(state, policy, None, bool(settings.get("preemption", True)), scheduler_name=name,
                                now=now, explain=bool(settings.get("explain", True)), node_infos=infos,
                                rng_for_attempt=rng_for_attempt, pending=pending, cache=cache)
                actions += self._ignored_fields(ran, attempts, now)
                results += ran
            starts = {k: v for k, v in starts.items() if v}
            if starts != (ctx.state.get("nextStartNodeIndex") or {}):
                actions.append(A.SetControllerState(NAME, "nextStartNodeIndex", starts or None))
            for i, pod in held.items():
                state.pods[i] = pod
                before[i] = pod
            newly = [state.pods[i] for i in itertools.compress(range(len(before)), map(operator.is_not, before, state.pods))
                     if state.pods[i].node_name and not before[i].node_name]
            if newly and held:  # the held pods a pod bound by this pass matches: AssignedPodAdded
                self._woken = {pod.key for pod in held.values()
                               if any(pod_matches_term(b, pod, term) for term in required_affinity_terms(pod) for b in newly)}
            for i in itertools.compress(range(len(before)), map(operator.is_not, before, state.pods)):
                old, new = before[i], state.pods[i]
                if new.node_name and not old.node_name:
                    actions.append(A.Bind(new.namespace, new.name, new.node_name))
                    self._bound.add(new.key)
                    bound.append(new.key)
                    touched[new.key] = new.node_name
                elif new.nominated_node_name != old.nominated_node_name:
                    actions.append(A.SetNominatedNode(new.namespace, new.name, new.nominated_node_name))
                if new.deletion_timestamp is not None and old.deletion_timestamp is None:
                    actions.append(A.SetPodDeletion(new.namespace, new.name, now, old.termination_grace_period_seconds, "Preempted"))
                    touched.setdefault(new.key, new.node_name)
            snapshot.passed(touched, set(bound), marks)
        actions += self._gated(store, results, now)
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
        pending = snapshot.pending_keys() - set(bound)
        for key, n in tried.items():
            attempts[key] = attempts.get(key, 0) + n
        attempts = {k: n for k, n in sorted(attempts.items()) if k in pending}
        unschedulable &= pending
        actions.append(A.SetControllerState(NAME, "unschedulable", sorted(unschedulable) or None))
        actions.append(A.SetControllerState(NAME, "attempts", attempts or None))
        return A.Result(actions)

    @staticmethod
    def _gated(store: Store, results: list[ScheduleResult], now: float) -> list:
        """A pod held by its scheduling gates gets the PodScheduled condition the scheduler
        sets (reason SchedulingGated; `oc get pods` prints it as the STATUS), once."""
        actions: list = []
        for r in results:
            if not getattr(r, "gated", False):
                continue
            pod = r.pod
            doc = store.get("Pod", pod.namespace, pod.name)
            conditions = list(((doc or {}).get("status") or {}).get("conditions") or [])
            if any(c.get("type") == "PodScheduled" and c.get("reason") == framework.SCHEDULING_GATED_REASON
                   for c in conditions):
                continue
            conditions = [c for c in conditions if c.get("type") != "PodScheduled"] + [
                {"type": "PodScheduled", "status": "False", "reason": framework.SCHEDULING_GATED_REASON,
                 "message": framework.SCHEDULING_GATED_MESSAGE, "lastTransitionTime": time_value(now)}]
            actions.append(A.PatchStatus("Pod", pod.namespace, pod.name, {"conditions": conditions}))
        return actions

    @staticmethod
    def _ignored_fields(results: list[ScheduleResult], attempts: Mapping[str, int], now: float) -> list:
        """A Warning on a pod's first attempt by the 3.11 scheduler when it uses fields that
        scheduler does not read (Kubernetes 1.11 would drop them; the simulator keeps them
        and says so)."""
        actions: list = []
        seen: set[str] = set()
        for r in results:
            pod = r.pod
            if pod.key in seen or attempts.get(pod.key, 0):
                continue
            seen.add(pod.key)
            fields = ignored_fields(pod)
            if fields:
                actions.append(A.RecordEvent(now, "Warning", IGNORED_FIELD_REASON, "Pod", pod.namespace, pod.name,
                                             ignored_fields_message(fields), SIMULATOR_SOURCE))
        return actions


def _namespace_labels(store: Store) -> dict[str, dict[str, str]]:
    """Each namespace's labels (what namespaceSelector terms match)."""
    return {(meta(d).get("name") or ""): dict(meta(d).get("labels") or {}) for d in store.list("Namespace")}


def _ns_name(doc: Mapping[str, Any]) -> tuple[str, str]:
    m = meta(doc)
    return m.get("namespace") or "default", m.get("name") or ""


def _memo_built(memo: dict[int, tuple], doc: dict, field: str, build) -> Any:
    """What `build` makes of `doc`, from the store's memo when that very document was built
    before (a stored cluster's documents are kept from one reconcile to the next)."""
    hit = memo.get(id(doc))
    if hit is not None and hit[0] is doc and hit[1] == field:
        return hit[2]
    obj = build(doc)
    memo[id(doc)] = (doc, field, obj)
    return obj


class Snapshot:
    """What a scheduling pass reads, kept from one pass to the next: the Pod and Node
    objects in store order and the NodeInfos, brought up to date from the refs that
    changed (`note`, on every run), so a pass costs what changed, not the cluster's size.
    A Pod object is made when a pass needs it (the last version of a pod that changed
    several times between two passes, once). The other kinds' objects (few) are read again
    for each pass, each built once per document.

    `state(store)` gives what build_state and node_infos() give for the store's documents:
    a NodeInfo whose Node changed is built again; a pod that came, went or changed is
    taken out of its NodeInfo and put in its place in another (pods in store order, as
    node_infos() has them), with the SchedulerCache (`cache`) told as NodeInfos tell it.
    `passed(...)` after a pass: the NodeInfos it changed (pods bound, victims) are built
    again next time (the actions that changed them change their pods in the store too)."""

    def __init__(self, store: Store) -> None:
        self.pods: dict[str, Pod | None] = {}  # by key, in store order (None: to be made from its document)
        self.pod_docs: dict[str, dict] = {}
        self.order: dict[str, int] = {}  # key -> store.order
        self.nodes: dict[str, Node] = {}
        self.node_docs: dict[str, dict] = {}
        self.node_order: dict[str, int] = {}
        self.infos: dict[str, NodeInfo] | None = None  # None: build them all
        self.on: dict[str, tuple[str, int]] = {}  # key -> (the NodeInfo it is in, its order then)
        self._cache: SchedulerCache | None = None
        self.dirty_nodes: set[str] = set()  # NodeInfos to build again
        self.renode: set[str] = set()  # NodeInfos whose Node changed (their pods did not)
        self.dirty_pods: set[str] = set()  # pods to take out of or put in a NodeInfo
        self.pending: set[str] = set()  # keys of the pods without a node, not terminating
        self.stale: set[str] = set()  # keys of the pods whose object is to be made
        self.made: dict[str, tuple[Mapping[str, Any], Pod]] = {}  # key -> (document, the last Pod made from it)
        self.controllers: dict[tuple, tuple[Mapping, Mapping, Controller]] = {}  # workload -> (metadata, spec, Controller)
        self.built: dict[int, tuple[dict, Any]] = {}  # id(doc) -> (doc, object), for the other kinds
        self.memo = store.memo  # the objects built from these very documents before (build_state)
        for doc in store.list("Node"):
            self._set_node(store, doc)
        for doc in store.list("Pod"):
            self._set_pod(store, doc)

    # --- keeping up -------------------------------------------------------------------------------------

    def _set_node(self, store: Store, doc: dict) -> None:
        name = (doc.get("metadata") or {}).get("name") or ""
        self.nodes[name] = _memo_built(self.memo, doc, "nodes", Node.from_doc)
        self.node_docs[name] = doc
        self.node_order[name] = store.order("Node", "", name)

    def _set_pod(self, store: Store, doc: dict) -> None:
        ns, name = _ns_name(doc)
        key = _key(ns, name)
        self.pods[key] = None
        self.stale.add(key)
        self.pod_docs[key] = doc
        self.order[key] = store.order("Pod", ns, name)
        if _pending(doc):
            self.pending.add(key)
        else:
            self.pending.discard(key)

    def _drop_pod(self, key: str) -> None:
        self.pods.pop(key, None)
        self.stale.discard(key)
        self.made.pop(key, None)
        self.pod_docs.pop(key, None)
        self.order.pop(key, None)
        self.pending.discard(key)

    def pod(self, key: str) -> Pod:
        """The Pod object of a pod (made from its document when it changed). What a Pod works
        out from its containers alone (its requests and host ports: cached properties) is
        carried over from the pod's last object when the containers are the same objects."""
        pod = self.pods[key]
        if pod is None:
            doc = self.pod_docs[key]
            last = self.made.get(key)
            pod = (derived_pod(last[0], last[1], doc) if last is not None else None) or _memo_built(self.memo, doc, "pods", Pod.from_doc)
            self.pods[key] = pod
            self.stale.discard(key)
            spec, last_spec = doc.get("spec") or {}, (last[0].get("spec") or {}) if last is not None else {}
            if last is not None and pod is not last[1] and spec.get("containers") is last_spec.get("containers") \
                    and spec.get("initContainers") is last_spec.get("initContainers"):
                for attr in _FROM_CONTAINERS:
                    if attr in last[1].__dict__:
                        pod.__dict__[attr] = last[1].__dict__[attr]
            self.made[key] = (doc, pod)
        return pod

    def note(self, store: Store, changed: Iterable[tuple[str, str, str]]) -> None:
        """Bring the objects up to date with the `changed` refs."""
        added: list[tuple[int, dict]] = []
        nodes_moved = False
        for kind, ns, name in changed:
            if kind == "Pod":
                key = _key(ns, name)
                doc = store.get("Pod", ns, name)
                if doc is self.pod_docs.get(key):
                    continue
                self.dirty_pods.add(key)
                if doc is None:
                    self._drop_pod(key)
                    continue
                order = store.order("Pod", ns, name)
                if key in self.pods and self.order.get(key) == order:
                    self._set_pod(store, doc)  # in its place
                else:
                    self._drop_pod(key)
                    added.append((order, doc))
            elif kind == "Node":
                doc = store.get("Node", "", name)
                if doc is self.node_docs.get(name):
                    continue
                self.renode.add(name)
                if doc is None or self.node_order.get(name) != store.order("Node", "", name):
                    nodes_moved = True
                else:
                    self._set_node(store, doc)
        for _, doc in sorted(added, key=lambda item: item[0]):
            self._set_pod(store, doc)
        if nodes_moved:  # a node came or went: every node again, in store order
            self.nodes, self.node_docs, self.node_order = {}, {}, {}
            for doc in store.list("Node"):
                self._set_node(store, doc)
            self.infos = None

    def cache(self, infos: dict[str, NodeInfo], state: ClusterState) -> SchedulerCache:
        """The scheduler's cache for a pass over `infos` and `state`: the one of the last
        pass, refreshed, or a new one."""
        if self._cache is None or not self._cache.refresh(infos, state):
            self._cache = SchedulerCache(infos, state)
        return self._cache

    def passed(self, touched: Mapping[str, str], bound: set[str], marks: Iterable[tuple[SchedulerCache, int]]) -> None:
        """After a pass that changed the NodeInfos: the pods it put on nodes (`bound`) and
        its victims (`touched`: pod key -> node) are the pass's objects, to be swapped for
        the store's when the actions that made them have changed the pods (any other
        NodeInfo the pass changed is built again). The NodeInfos it changed are the ones its
        caches were told of (`marks`: each cache and the length of its log of changes when
        its run started; a run observes every NodeInfo it schedules on)."""
        explained = set(touched.values())
        for cache, start in marks:
            for i in set(cache.changes[start:]):
                name = cache.names[i]
                if name not in explained:
                    self.dirty_nodes.add(name)
        for key in bound:
            self.on[key] = (touched[key], -1)  # not the store's object, maybe not in its place

    # --- reading -----------------------------------------------------------------------------------------

    def state(self, store: Store) -> tuple[ClusterState, dict[str, NodeInfo]]:
        """The ClusterState build_state gives for the store's documents, and its NodeInfos."""
        for key in list(self.stale):
            self.pod(key)
        state = ClusterState(nodes=list(self.nodes.values()), pods=list(self.pods.values()))
        built = self.built
        seen: dict[int, tuple[dict, Any]] = {}
        for kind in store.kinds():
            if kind in ("Pod", "Node"):
                continue
            entry = _OTHER_KINDS.get(kind)
            if entry is None:
                if kind in KINDS or kind == ZONE_KIND or not store.list(kind):
                    continue  # the other controllers' kinds (ClusterVersion, Machine, ...); legacy Zone documents
                raise SimulationError(f"cannot simulate a {kind!r} document")
            docs = store.list(kind)
            field, build = entry
            target = getattr(state, field)
            for doc in docs:
                hit = built.get(id(doc))
                if hit is None or hit[0] is not doc:
                    hit = (doc, self._controller(doc) if field == "controllers" else build(doc))
                seen[id(doc)] = hit
                target.append(hit[1])
        self.built = seen
        if self.infos is None:
            self.infos = state.node_infos()
            self.on = {pod.key: (assigned_node(pod), self.order[pod.key]) for pod in state.pods if assigned_node(pod) in self.infos}
        else:
            before = {key: self.on.get(key) for key in self.dirty_pods}
            for name in self.dirty_nodes:
                self._rebuild(store, name)
            cache = self._cache
            moving: list[NodeInfo] = []
            if cache is not None:  # it follows what the pods' moves change in the NodeInfos it has
                names = {b[0] for b in before.values() if b is not None}
                names.update(assigned_node(self.pod(key)) for key in self.dirty_pods if key in self.pods)
                moving = [self.infos[name] for name in names if name in self.infos]
                cache.attach(moving)
            try:
                # Every pod out of where it was before any goes in where it is now: a pod put
                # in its node's list in store order must not meet one that is gone (no order).
                arriving = [key for key in self.dirty_pods if self._take_out(store, key, before[key])]
                for key in arriving:
                    self._put_in(key)
            finally:
                if cache is not None:
                    cache.detach(moving)
            for name in self.renode - self.dirty_nodes:
                info = self.infos.get(name)
                if info is not None and name in self.nodes:
                    info = self.infos[name] = info.clone()  # the same pods, the new Node
                    info.node = self.nodes[name]
        self.dirty_nodes, self.dirty_pods, self.renode = set(), set(), set()
        return state, self.infos

    def _controller(self, doc: Mapping[str, Any]) -> Controller:
        """Controller.from_doc(doc), kept while the workload's metadata and spec hold the same
        objects (all it reads: a status update makes no new one)."""
        key = (doc.get("kind"), *_ns_name(doc))
        meta, spec = doc.get("metadata") or {}, doc.get("spec") or {}
        hit = self.controllers.get(key)
        if hit is not None and _same_but(meta, hit[0], frozenset()) and _same_but(spec, hit[1], frozenset()):
            return hit[2]
        obj = Controller.from_doc(doc)
        self.controllers[key] = (meta, spec, obj)
        return obj

    def _rebuild(self, store: Store, name: str) -> None:
        """A new NodeInfo for node `name`, with its pods in store order."""
        assert self.infos is not None
        node = self.nodes.get(name)
        if node is None:
            return
        info = NodeInfo(node)
        for doc in store.in_order("Pod", store.pods_on_node(name)):
            key = _key(*_ns_name(doc))
            if not assigned_node(self.pod(key)):
                self.on.pop(key, None)
                continue  # (ran to its end: counts on no node)
            info.add_pod(self.pod(key))
            self.on[key] = (name, self.order[key])
        self.infos[name] = info
        self.dirty_nodes.add(name)

    def _take_out(self, store: Store, key: str, before: tuple[str, int] | None) -> bool:
        """Take pod `key` out of the NodeInfo it was in (`before`), or swap its object there
        when it stayed in place; whether it is still to be put where it is now (_put_in)."""
        assert self.infos is not None
        pod = self.pod(key) if key in self.pods else None
        node = assigned_node(pod) if pod is not None and assigned_node(pod) in self.infos else None
        now = None if node is None else (node, self.order[key])
        if now is None:
            self.on.pop(key, None)
        else:
            self.on[key] = now
        if before is not None and before[0] not in self.dirty_nodes and before[0] in self.infos:
            info = self.infos[before[0]]
            old = next((p for p in info.pods if p.key == key), None)
            if old is None:  # not where it was said to be: build that NodeInfo again
                self._rebuild(store, before[0])
            elif now == before and pod is not None and old.containers == pod.containers:
                if old is not pod:
                    info.replace_pod(old, pod)  # the same requests and ports, in its place
                return False
            else:
                info.remove_pod(old)
        return now is not None and now[0] not in self.dirty_nodes

    def _put_in(self, key: str) -> None:
        """Put pod `key` in the NodeInfo of its node, in store order (as node_infos() does)."""
        assert self.infos is not None
        pod = self.pod(key)
        node, position = self.on[key]
        if node in self.dirty_nodes:
            return  # (built again meanwhile, with the pod in it)
        info = self.infos[node]
        info.add_pod(pod)
        pods, i = info.pods, len(info.pods) - 1
        while i > 0 and self.order[pods[i - 1].key] > position:
            i -= 1
        if i != len(pods) - 1:
            pods.insert(i, pods.pop())

    def positions(self, keys: set[str]) -> dict[str, int]:
        """The positions in store order (in state().pods) of the `keys` that are pods, looked
        for from the newest pod back (pending pods are mostly new)."""
        keys = {key for key in keys if key in self.pods}
        out: dict[str, int] = {}
        if not keys:
            return out
        order = list(self.pods)
        for i in range(len(order) - 1, -1, -1):
            if order[i] in keys:
                out[order[i]] = i
                if len(out) == len(keys):
                    break
        return out

    def pending_keys(self) -> set[str]:
        return set(self.pending)

    def pending_pods(self, store: Store) -> list[Pod]:
        """The pods without a node, not terminating, in store order."""
        return [self.pod(key) for key in sorted(self.pending, key=self.order.__getitem__)]


# The cached properties of a Pod that read only its containers and init containers.
_FROM_CONTAINERS = ("request", "container_request", "non_zero_request", "host_ports", "qos_class")
# What may differ between two versions of a pod for derived_pod (besides the status).
_DERIVED_METADATA = frozenset({"deletionTimestamp", "deletionGracePeriodSeconds"})
_DERIVED_SPEC = frozenset({"nodeName"})


def derived_pod(last_doc: Mapping[str, Any], last: Pod, doc: Mapping[str, Any]) -> Pod | None:
    """Pod.from_doc(doc) made from `last` (= Pod.from_doc(last_doc)) when the two documents
    differ only where a pod's life changes it (bound, started, its deletion requested,
    nominated): the same metadata and spec objects but for the deletion and the node; None
    otherwise. (A document changed by the store shares what did not change.)"""
    meta, last_meta = doc.get("metadata") or {}, last_doc.get("metadata") or {}
    spec, last_spec = doc.get("spec") or {}, last_doc.get("spec") or {}
    if not (_same_but(meta, last_meta, _DERIVED_METADATA) and _same_but(spec, last_spec, _DERIVED_SPEC)):
        return None
    status = doc.get("status") or {}
    return replace_status(
        last,
        node_name=spec.get("nodeName") or "",
        phase=status.get("phase") or ("Running" if spec.get("nodeName") else "Pending"),
        deletion_timestamp=meta.get("deletionTimestamp"),
        nominated_node_name=status.get("nominatedNodeName") or "",
    )


def _same_but(a: Mapping[str, Any], b: Mapping[str, Any], but: frozenset) -> bool:
    """Whether `a` and `b` hold the very same objects under every key not in `but`."""
    return (all(b.get(k, _MISSING) is v for k, v in a.items() if k not in but)
            and all(k in a for k in b if k not in but))


_MISSING = object()


def _namespace_name(doc: Mapping[str, Any]) -> str:
    return (doc.get("metadata") or {}).get("name") or ""


# kind -> (the ClusterState list it goes to, how it is built from its document), Pod and Node aside
_OTHER_KINDS: dict[str, tuple[str, Any]] = {
    "Namespace": ("namespaces", _namespace_name),
    "PriorityClass": ("priority_classes", PriorityClass.from_doc),
    "Service": ("services", Service.from_doc),
    **{kind: ("controllers", Controller.from_doc) for kind in WORKLOAD_KINDS},
    "PodDisruptionBudget": ("pdbs", PodDisruptionBudget.from_doc),
    **{kind: (field, Volume.from_doc) for kind, field in VOLUME_KINDS.items()},
}
