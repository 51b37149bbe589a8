"""The workload controllers as one controller of the event loop (name `workloads`).

`reconcile(store, now, seed=..., admission=..., state=...)` runs, in this order, the
controllers of Deployments (engine.controllers.deployment), ReplicaSets and
ReplicationControllers (replicaset), StatefulSets (statefulset) and DaemonSets
(daemonset), then the disruption controller (eviction: PodDisruptionBudget status); each
only writes what differs from what it wants, so a second run on the same documents yields
nothing (events go with the writes that cause them).

Its state (persisted with the cluster): `names/<Kind>/<namespace>/<name>` -> how many
pod names the owner generated (controller_utils.generate_name); a counter goes when its
owner does.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.defaults import WORKLOAD_KINDS
from scheduling.engine.api.node_selection_admission import CONTROLLER_USER, NodeSelectionContext
from scheduling.engine.controller import ANY_KIND, Context
from scheduling.engine.controllers.controller_utils import (
    NAMES_PREFIX,
    PodFacts,
    PodGroups,
    WorkloadContext,
    forget_pod,
    object_namespace,
    pod_facts,
)
from scheduling.engine.controllers.daemonset import DaemonMemo, reconcile_daemon_set
from scheduling.engine.controllers.deployment import reconcile_deployment
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.controllers.eviction import DELETION_TIMEOUT, pdb_recheck, reconcile_pdb
from scheduling.engine.controllers.replicaset import reconcile_replica_set
from scheduling.engine.controllers.statefulset import reconcile_stateful_set
from scheduling.engine.store import Store, controller_ref, name_of, namespace_of, sim_time

NAME = "workloads"


@dataclass
class Changes:
    """What an incremental run looks at (WorkloadControllers works it out from the refs
    that changed): the workloads to reconcile, (kind, namespace, name); the nodes whose
    document or pods changed (a DaemonSet looks at these only); the PodDisruptionBudgets
    to recompute, (namespace, name)."""

    owners: set[tuple[str, str, str]] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    pdbs: set[tuple[str, str]] = field(default_factory=set)
    owners_gone: bool = False  # a workload was deleted (its name counter goes)


def reconcile(store: Store, now: float, *, seed: int = 0, admission: Mapping[str, bool] | None = None,
              state: Mapping[str, Any] | None = None, admission_context: Any = None,
              changes: Changes | None = None, daemon_memo: dict | None = None, memo: dict | None = None,
              groups: PodGroups | None = None, disrupted: Mapping[tuple[str, str], list[float]] | None = None,
              pod_limit: int | None = None) -> A.Result:
    """Every workload controller over every object, or (`changes`) over what changed.
    Kept by the caller between runs: `daemon_memo`, what each DaemonSet found on each node;
    `memo`, what was read of each pod (WorkloadContext.memo); `groups`, the pods counted
    (WorkloadContext.groups); `disrupted`, the PDBs' disruption deadlines (disrupted_times);
    `pod_limit`, the cluster's limit on pods (settings["limits"]["pods"]: a create past it
    is refused as by a ResourceQuota)."""
    state = store.state_of(NAME) if state is None else state
    ctx = WorkloadContext.build(store, now, seed, admission, state, admission_context, memo, groups, pod_limit)
    result = A.Result()

    def chosen(kind: str) -> list[dict]:
        if changes is None:
            return store.list(kind)
        return store.in_order(kind, ((ns, name) for k, ns, name in changes.owners if k == kind))

    for deploy in chosen("Deployment"):
        result.actions += reconcile_deployment(ctx, deploy)
    for kind in ("ReplicaSet", "ReplicationController"):
        for rs in chosen(kind):
            result.actions += reconcile_replica_set(ctx, rs)
    for sts in chosen("StatefulSet"):
        result.actions += reconcile_stateful_set(ctx, sts)
    daemon_sets = store.list("DaemonSet")
    if daemon_memo is not None:
        present = {(object_namespace(ds), name_of(ds)) for ds in daemon_sets}
        for key in [k for k in daemon_memo if k not in present]:
            del daemon_memo[key]
    for ds in daemon_sets:
        key = (object_namespace(ds), name_of(ds))
        memo = None if daemon_memo is None else daemon_memo.setdefault(key, DaemonMemo())
        if changes is None or ("DaemonSet", *key) in changes.owners:
            result.actions += reconcile_daemon_set(ctx, ds, None, memo)
        elif changes.nodes:
            result.actions += reconcile_daemon_set(ctx, ds, changes.nodes, memo)
    pdbs = store.list("PodDisruptionBudget") if changes is None else store.in_order("PodDisruptionBudget", changes.pdbs)
    for pdb in pdbs:
        result.actions += reconcile_pdb(store, pdb, now, ctx.facts, groups)
    result.due(pdb_recheck(store, now) if disrupted is None else _recheck(disrupted, now))
    # the name counters: the ones drawn from in this run (every one, when an owner went)
    counters = ctx.counters if changes is None or changes.owners_gone else {k: ctx.counters[k] for k in ctx.drawn}
    for key, n in sorted(counters.items()):
        kind, _, rest = key[len(NAMES_PREFIX):].partition("/")
        ns, _, name = rest.partition("/")
        if kind not in WORKLOAD_KINDS or store.get(kind, ns, name) is None:
            n = None  # the owner is gone: so is its counter (names_key of no workload)
        if state.get(key) != n:
            result.actions.append(A.SetControllerState(NAME, key, n))
    for key in state if changes is None else ():  # (ctx.counters has every counter of the state)
        if key.startswith(NAMES_PREFIX) and key not in ctx.counters:
            result.actions.append(A.SetControllerState(NAME, key, None))
    return result


def disrupted_times(pdb: Mapping[str, Any] | None) -> list[float]:
    """When each disrupted pod of the PDB stops counting as disrupted (its time plus
    DELETION_TIMEOUT), sorted: what pdb_recheck and a run's changes read of a PDB."""
    return sorted((sim_time(when) or 0.0) + DELETION_TIMEOUT
                  for when in (((pdb or {}).get("status") or {}).get("disruptedPods") or {}).values())


def _recheck(disrupted: Mapping[tuple[str, str], list[float]], now: float) -> float | None:
    """pdb_recheck from the PDBs' disrupted_times."""
    due = None
    for times in disrupted.values():
        i = bisect.bisect_right(times, now)
        if i < len(times) and (due is None or times[i] < due):
            due = times[i]
    return due


def _node_of(doc: Mapping[str, Any]) -> str:
    return (doc.get("spec") or {}).get("nodeName") or ""


def _scale_facts(doc: Mapping[str, Any] | None) -> tuple | None:
    """What the disruption controller reads of a workload (engine.controllers.eviction.controller_scale)
    and whom it belongs to."""
    if doc is None:
        return None
    ref = controller_ref(doc)
    return (doc.get("spec") or {}).get("replicas", 1), None if ref is None else (ref.get("kind"), ref.get("name"))


class WorkloadControllers:
    """Runs `reconcile` over what the refs changed since its last run can affect (the
    first run, and a change of the kinds admission reads, PriorityClass and Namespace:
    over everything): a pod's controller (before and after the change; every workload of
    the namespace when the pod is or was an orphan, which they may adopt) and the
    Deployments of its namespace when it belongs to a ReplicaSet; the nodes of changed
    pods and changed nodes (the DaemonSets look at those nodes only, with their pods from
    the store's index by node); the PodDisruptionBudgets whose selector
    matches the pod's labels (before or after). A changed workload: itself, the
    Deployments of its namespace when it is a ReplicaSet, and, when what the disruption
    controller reads of it changed, every PodDisruptionBudget of its namespace. And the
    PodDisruptionBudgets with a disrupted pod whose time is up."""

    name = NAME
    watches = frozenset({ANY_KIND})

    def __init__(self) -> None:
        self._pods: dict[tuple[str, str], tuple[str, PodFacts]] | None = None  # (node, facts) of every pod
        self._groups = PodGroups()
        self._scales: dict[tuple[str, str, str], tuple | None] = {}
        self._daemon_memo: dict = {}
        self._memo: dict = {}
        self._selectors: dict = {}  # PDB -> (its spec.selector, the LabelSelector)
        self._matching: dict = {}  # (namespace, label set) -> (the namespace's PDB epoch then, the matching ones)
        self._pdb_selectors: dict[tuple[str, str], Any] = {}  # PDB -> its spec.selector (the object), as last seen
        self._pdb_epoch: dict[str, int] = {}  # namespace -> changes of its PDBs' names or selectors seen
        self._disrupted: dict[tuple[str, str], list[float]] = {}  # PDB -> disrupted_times (PDBs with some)

    def reconcile(self, ctx: Context) -> A.Result:
        store = ctx.store
        changes = None if ctx.changed is None or self._pods is None else self._changes(store, ctx.changed, ctx.now)
        if changes is None:
            self._pods, self._groups = {}, PodGroups()
            for pod in store.list("Pod"):
                facts = pod_facts(pod)
                self._pods[(namespace_of(pod), name_of(pod))] = (_node_of(pod), facts)
                self._groups.count(namespace_of(pod), facts, 1)
            self._scales = {(kind, namespace_of(d), name_of(d)): _scale_facts(d) for kind in WORKLOAD_KINDS for d in store.list(kind)}
            self._daemon_memo = {}
            self._memo = {}
            self._disrupted = {}
            self._matching, self._pdb_epoch = {}, {}
            self._pdb_selectors = {}
            for pdb in store.list("PodDisruptionBudget"):
                self._set_disrupted(store, namespace_of(pdb), name_of(pdb))
                self._pdb_selectors[(namespace_of(pdb), name_of(pdb))] = (pdb.get("spec") or {}).get("selector")
        return reconcile(store, ctx.now, seed=ctx.seed, admission=ctx.settings.get("admission"), state=ctx.state,
                         admission_context=controller_admission_context(ctx), changes=changes,
                         daemon_memo=self._daemon_memo, memo=self._memo, groups=self._groups, disrupted=self._disrupted,
                         pod_limit=pod_limit(ctx.settings))

    def _set_disrupted(self, store: Store, ns: str, name: str) -> None:
        times = disrupted_times(store.get("PodDisruptionBudget", ns, name))
        if times:
            self._disrupted[(ns, name)] = times
        else:
            self._disrupted.pop((ns, name), None)

    def _changes(self, store: Store, changed: Iterable[tuple[str, str, str]], now: float) -> Changes | None:
        assert self._pods is not None
        out = Changes()
        every_owner: set[str] = set()  # namespaces
        deployments: set[str] = set()  # namespaces
        every_pdb: set[str] = set()  # namespaces
        labels: list[tuple[str, Mapping[str, str]]] = []
        for kind, ns, name in changed:
            if kind == "Pod":
                doc = store.get(kind, ns, name)
                before = self._pods.pop((ns, name), None)
                after = None if doc is None else (_node_of(doc), pod_facts(doc))
                if after is not None:
                    self._pods[(ns, name)] = after
                else:
                    forget_pod(self._memo, ns, name)
                same = before is not None and after is not None and before[1] == after[1]
                for entry, delta in ((before, -1), (after, 1)):
                    if entry is None:
                        continue
                    node, facts = entry
                    if node:
                        out.nodes.add(node)
                    if same:
                        continue  # bound, or changed in what no owner or PDB reads
                    self._groups.count(ns, facts, delta)
                    owner = facts.controller_kind
                    if owner is None:
                        every_owner.add(ns)
                    elif owner != "DaemonSet":  # a DaemonSet looks at the pod's node
                        if after is not None or facts.active or owner not in ("ReplicaSet", "ReplicationController"):
                            out.owners.add((owner, ns, facts.controller_name or ""))  # (an inactive pod gone: no count changes)
                        if owner == "ReplicaSet":
                            deployments.add(ns)
                    labels.append((ns, facts.labels))
            elif kind == "Node":
                out.nodes.add(name)
            elif kind in WORKLOAD_KINDS:
                out.owners.add((kind, ns, name))
                if store.get(kind, ns, name) is None:
                    out.owners_gone = True
                if kind == "ReplicaSet":
                    deployments.add(ns)
                facts = _scale_facts(store.get(kind, ns, name))
                if facts != self._scales.get((kind, ns, name)):
                    every_pdb.add(ns)
                    if facts is None:
                        self._scales.pop((kind, ns, name), None)
                    else:
                        self._scales[(kind, ns, name)] = facts
            elif kind == "PodDisruptionBudget":
                out.pdbs.add((ns, name))
                self._set_disrupted(store, ns, name)
                doc = store.get(kind, ns, name)
                selector = _GONE if doc is None else (doc.get("spec") or {}).get("selector")
                if self._pdb_selectors.get((ns, name), _GONE) is not selector:  # one came, went or has a new selector
                    self._pdb_epoch[ns] = self._pdb_epoch.get(ns, 0) + 1
                    if doc is None:
                        del self._pdb_selectors[(ns, name)]
                    else:
                        self._pdb_selectors[(ns, name)] = selector
            elif kind in ("PriorityClass", "Namespace"):
                return None  # what admission reads: every workload may create differently
        for ns in every_owner:
            out.owners.update((kind, ns, name) for kind in WORKLOAD_KINDS for name in store.names(kind, ns))
        for ns in deployments:
            out.owners.update(("Deployment", ns, name) for name in store.names("Deployment", ns))
        for ns in every_pdb:
            out.pdbs.update((ns, name) for name in store.names("PodDisruptionBudget", ns))
        looked: set[tuple[str, frozenset]] = set()  # (namespace, label set): pods share them
        for ns, pod_labels in labels:
            label_set = (ns, frozenset(pod_labels.items()))
            if label_set not in looked:
                looked.add(label_set)
                out.pdbs.update((ns, name) for name in self._pdbs_for(store, ns, pod_labels))
        out.pdbs.update(key for key, times in self._disrupted.items() if times[0] < now)  # a disrupted pod's time is up
        return out

    def _pdbs_for(self, store: Store, ns: str, labels: Mapping[str, str]) -> tuple[str, ...]:
        """The PDBs of `ns` whose (non-empty) selector matches `labels`, kept by label set
        while the namespace's PDBs and their selectors stay the same."""
        epoch = self._pdb_epoch.get(ns, 0)
        key = (ns, frozenset(labels.items()))
        hit = self._matching.get(key)
        if hit is not None and hit[0] == epoch:
            return hit[1]
        found = []
        for name in store.names("PodDisruptionBudget", ns):
            selector = self._selector(store.get("PodDisruptionBudget", ns, name))
            if selector is not None and not selector.is_empty and selector.matches(labels):
                found.append(name)
        self._matching[key] = (epoch, tuple(found))
        return tuple(found)

    def _selector(self, pdb: Mapping[str, Any] | None) -> LabelSelector | None:
        """The PDB's selector, made once for as long as its spec says the same."""
        raw = ((pdb or {}).get("spec") or {}).get("selector")
        key = (namespace_of(pdb), name_of(pdb)) if pdb is not None else None
        hit = self._selectors.get(key)
        if hit is not None and hit[0] is raw:
            return hit[1]
        selector = LabelSelector.from_doc(raw)
        self._selectors[key] = (raw, selector)
        return selector


_GONE = object()


def pod_limit(settings: Mapping[str, Any]) -> int | None:
    """The cluster's limit on pods from its settings (`limits`: {"pods": n}; None: none)."""
    value = (settings.get("limits") or {}).get("pods")
    return None if value is None else int(value)


def controller_admission_context(ctx: Context) -> NodeSelectionContext | None:
    """The node-selection admission plugins' view for the pods the controllers create
    (settings["node_selection"]: their configuration, None: off); new_pod admits each pod
    as its owner's controller (node_selection_admission.controller_user)."""
    config = ctx.settings.get("node_selection")
    if config is None:
        return None
    return NodeSelectionContext.build(config, ctx.store.list("Namespace"), CONTROLLER_USER)
