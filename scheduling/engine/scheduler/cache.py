"""The scheduler's cache: the NodeInfos of a scheduling run seen as arrays, kept in step.

`engine.scheduler` checks a pod against every node. Done node by node in Python that is
O(nodes x predicates) calls per pod; with this cache the scheduler does the same work a
node *vector* at a time (numpy) and remembers what does not change from one pod to the
next. It plays the part of kube-scheduler's schedulercache and equivalence cache.

The protocol, next to each plain function in its own module (the plain function stays the
definition; the scheduler falls back to it node by node when a form is missing or declines):

* `predicate.static_key(pod)` / `priority.static_key(pod)`: the function reads only the
  Node and what this key names of the pod (tolerations, node selector, ...); a priority
  with a static key has no reduce step. Its result on every node is computed once per
  distinct key *with the plain function itself* and shared by every pod with that key:
  the pods of a controller, and many more (most pods have no node selector).
* `predicate.mask(pod, ctx, cache)`: where the predicate passes, every node at once (a
  bool array, `ALL`, or None to decline).
* `priority.vector(pod, ctx, cache, idx)`: the raw scores of the nodes `idx` (the feasible
  ones, node order), map and reduce included (an int64 array, or None to decline).

What the cache holds:

1. **Node arrays** (`alloc_*`, `req_*`, `nz_*`, `pod_count`), one entry per node in node
   order: allocatable, the requests of the node's pods as PodFitsResources sums them, and
   the priorities' non-zero requests.
2. **Static results** (`static_mask`, `static_scores`, `per_node`, `label_codes`,
   `label_mask`): computed once per key, kept for the run.
3. **Node-local results** (`node_local`): arrays whose entry for a node depends only on
   that node and a key, such as PodFitsResources, LeastRequested or
   BalancedResourceAllocation for one pod request. After pods are bound only the entries
   of the changed nodes are computed again (with the plain function when they are few).
4. **Pod counts** (`pod_counts`): the bound pods grouped by (namespace, label set); a count
   query (per node, the pods matching some selectors) is answered from the groups once and
   then kept up to date as pods come and go. SelectorSpread, ServiceAntiAffinity,
   CheckServiceAffinity and the inter-pod affinity predicate and priority read these
   instead of walking every pod of every node.
5. **Pods with pod (anti-)affinity**, grouped by (namespace, affinity) with the nodes they
   are on (`affinity_groups`): the only existing pods whose terms can matter to another pod.

Invalidation. Nodes (labels, taints, allocatable, conditions) and the cluster objects
other than pods (services, controllers, volumes) are fixed while a cache lives: one
`run_queue` call, or one `schedule` call. Pods change only through `NodeInfo.add_pod`,
`remove_pod` and `replace_pod`, which call `pod_changed` while the cache is attached
(`attach`/`detach`): it rewrites that node's array entries, moves the pod between its
count and affinity groups and notes the node in `changes`, the log `node_local` refreshes
from. Nothing is recomputed for the other nodes. What-if copies made by preemption
(`NodeInfo.clone`) are not attached; they go through the plain path.

A form declines when its preconditions do not hold (a quantity too large for exact int64
arithmetic, a pod found on a NodeInfo its nodeName does not name, an error path of 1.11).
tests/engine/scheduler/test_scheduler_equivalence.py checks the forms against the plain functions.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Hashable, Iterable, Mapping

import numpy as np

from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.api.objects import Pod

# Every amount the vector forms compute with stays below this: int64 sums and products by
# 10 cannot overflow, and the float64 conversions the priorities make are exact.
SAFE_MAGNITUDE = 2**53

ALL = True  # what a mask function returns when every node passes
NODE_LOCAL_ENTRIES = 512  # node-local arrays kept (`SchedulerCache.node_local`), least recently used dropped
FEW_CHANGES = 8  # up to this many changed nodes, `node_local` refreshes them one by one


def _has_pod_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None)


class _Group:
    """Bound pods sharing a namespace and a label set: {node index: [pods, pods not terminating]}."""

    __slots__ = ("namespace", "labels", "nodes", "views")

    def __init__(self, namespace: str, labels: Mapping[str, str]):
        self.namespace = namespace
        self.labels = labels
        self.nodes: dict[int, list[int]] = {}
        self.views: list[_View] = []


class _View:
    """A pod-count query: per node, the bound pods whose (namespace, labels) `match`."""

    __slots__ = ("match", "live_only", "counts")

    def __init__(self, match: Callable[[str, Mapping[str, str]], bool], live_only: bool, n: int):
        self.match = match
        self.live_only = live_only
        self.counts = np.zeros(n, dtype=np.int64)


class PodCounts:
    """Count queries over the bound pods, maintained incrementally (see the module doc)."""

    def __init__(self, n: int):
        self.n = n
        self.groups: dict[tuple[str, frozenset], _Group] = {}
        self.groups_by_namespace: dict[str, list[_Group]] = defaultdict(list)
        self.views: dict[Hashable, _View] = {}
        self.views_by_namespace: dict[str, list[_View]] = defaultdict(list)
        self.views_any_namespace: list[_View] = []

    def group(self, pod: Pod) -> _Group:
        """The group of the pod's namespace and label set (made, and joined to the views
        that match it, the first time)."""
        key = pod.label_set
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = _Group(pod.namespace, pod.labels)
            self.groups_by_namespace[pod.namespace].append(group)
            for view in self.views_by_namespace.get(pod.namespace, ()):
                if view.match(group.namespace, group.labels):
                    group.views.append(view)
            for view in self.views_any_namespace:
                if view.match(group.namespace, group.labels):
                    group.views.append(view)
        return group

    def change(self, i: int, pod: Pod, delta: int) -> None:
        group = self.group(pod)
        live = pod.deletion_timestamp is None
        entry = group.nodes.get(i)
        if entry is None:
            entry = group.nodes[i] = [0, 0]
        entry[0] += delta
        if live:
            entry[1] += delta
        if entry[0] == 0:
            del group.nodes[i]
        for view in group.views:
            if live or not view.live_only:
                view.counts[i] += delta

    def counts(
        self,
        key: Hashable,
        namespaces: Iterable[str] | None,
        match: Callable[[str, Mapping[str, str]], bool],
        live_only: bool,
    ) -> np.ndarray:
        """Per node, the bound pods (only those not terminating when `live_only`) whose
        namespace and labels `match`. `key` must name the query completely (it is the
        cache key); `namespaces` lists the only namespaces `match` can accept (None: any).
        The array is the cache's own: read it, never write it."""
        view = self.views.get(key)
        if view is not None:
            return view.counts
        view = self.views[key] = _View(match, live_only, self.n)
        if namespaces is None:
            self.views_any_namespace.append(view)
            groups: Iterable[_Group] = list(self.groups.values())
        else:
            namespaces = list(dict.fromkeys(namespaces))
            for ns in namespaces:
                self.views_by_namespace[ns].append(view)
            groups = [g for ns in namespaces for g in self.groups_by_namespace.get(ns, ())]
        slot = 1 if live_only else 0
        for group in groups:
            if not match(group.namespace, group.labels):
                continue
            group.views.append(view)
            for i, entry in group.nodes.items():
                view.counts[i] += entry[slot]
        return view.counts


class AffinityGroup:
    """Bound pods with pod (anti-)affinity sharing a namespace and an affinity:
    `nodes` {node index: pods}; `pod` is one of them (they all read the same)."""

    __slots__ = ("namespace", "affinity", "pod", "nodes")

    def __init__(self, pod: Pod):
        self.namespace = pod.namespace
        self.affinity = pod.affinity
        self.pod = pod
        self.nodes: dict[int, int] = {}

    def node_indexes(self) -> np.ndarray:
        return np.fromiter(self.nodes, dtype=np.int64, count=len(self.nodes))

    def node_counts(self) -> np.ndarray:
        return np.fromiter(self.nodes.values(), dtype=np.int64, count=len(self.nodes))


class SchedulerCache:
    """The NodeInfos of one scheduling run as arrays and indexes (see the module doc)."""

    def __init__(self, node_infos: Mapping[str, NodeInfo], state: ClusterState):
        self.node_infos = node_infos
        self.state = state
        # Another observer of the same NodeInfos, told of every change after the cache (a
        # NodeInfo has one observer: the framework's pod index rides along this way).
        self.forward = None
        self.names: list[str] = list(node_infos)
        self.infos: list[NodeInfo] = list(node_infos.values())
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        n = self.n = len(self.infos)
        # False once a quantity leaves the int64-safe range: the resource vector forms
        # then decline and the plain functions run.
        self.exact = True
        # False once a pod sits on a NodeInfo other than the one its nodeName names: the
        # forms that locate pods by NodeInfo then decline.
        self.consistent = True

        allocatable = [info.allocatable for info in self.infos]
        self.alloc_cpu = self._array([a.milli_cpu for a in allocatable])
        self.alloc_mem = self._array([a.memory for a in allocatable])
        self.alloc_eph = self._array([a.ephemeral_storage for a in allocatable])
        self.allowed_pods = self._array([a.allowed_pods for a in allocatable])
        self.pod_count = np.zeros(n, dtype=np.int64)
        self.req_cpu = np.zeros(n, dtype=np.int64)
        self.req_mem = np.zeros(n, dtype=np.int64)
        self.req_eph = np.zeros(n, dtype=np.int64)
        self.nz_cpu = np.zeros(n, dtype=np.int64)
        self.nz_mem = np.zeros(n, dtype=np.int64)
        self.nodes_with_ports: set[int] = set()
        self.total_pods = 0

        self.pod_counts = PodCounts(n)
        self.affinity_groups: dict[tuple[str, Any], AffinityGroup] = {}

        # static results: key -> (array over the nodes, how one node's entry is computed)
        self._static: dict[tuple[Callable, Hashable], tuple[np.ndarray, Callable[[NodeInfo], Any]]] = {}
        # Node-local results (`node_local`): [array, position in `changes` when refreshed].
        self._local: dict[Hashable, list] = {}
        self.changes: list[int] = []  # the node of every pod change, in order
        self._label_codes: dict[str, tuple[np.ndarray, dict[str, int]]] = {}
        self._domain_codes: dict[str, tuple[np.ndarray, int]] = {}
        self._label_masks: dict[tuple, np.ndarray] = {}
        self.memo: dict[Hashable, Any] = {}  # per-run look-ups of the vector forms, by their own keys
        self.by_labels: dict[Hashable, Any] = {}  # the vector forms' results that read only the nodes' labels

        self._index_all()

    def _index_all(self) -> None:
        """`_read_node` and `_index_pod` of every node and pod, in one pass: the pods are
        counted per (label set, node) first, the count groups made after."""
        counted: dict[tuple, dict[int, list[int]]] = {}
        first: dict[tuple, Pod] = {}
        for i, info in enumerate(self.infos):
            self._read_node(i, info)
            name = info.name
            for pod in info.pods:
                if pod.node_name and pod.node_name != name:
                    self.consistent = False
                key = pod.label_set
                per_node = counted.get(key)
                if per_node is None:
                    per_node = counted[key] = {}
                    first[key] = pod
                entry = per_node.get(i)
                if entry is None:
                    entry = per_node[i] = [0, 0]
                entry[0] += 1
                if pod.deletion_timestamp is None:
                    entry[1] += 1
                if _has_pod_affinity(pod):
                    group_key = (pod.namespace, pod.affinity)
                    group = self.affinity_groups.get(group_key)
                    if group is None:
                        group = self.affinity_groups[group_key] = AffinityGroup(pod)
                    group.nodes[i] = group.nodes.get(i, 0) + 1
            self.total_pods += len(info.pods)
        counts = self.pod_counts
        for key, per_node in counted.items():
            group = counts.group(first[key])
            group.nodes.update(per_node)

    def refresh(self, node_infos: Mapping[str, NodeInfo], state: ClusterState) -> bool:
        """Make this cache, kept from an earlier run, the cache of `node_infos` and `state`,
        with the same answers as `SchedulerCache(node_infos, state)`: the NodeInfos that
        are not the objects it has are read again (their old pods uncounted, the new ones
        counted, node-local arrays told through `changes`); where the Node itself changed,
        the static results are computed again for that node (they read only the Node and
        the pod), the label codes from scratch; the look-ups of the other cluster objects
        (`memo`) are dropped. False (nothing changed) when the nodes are not the same names
        in the same order: make a new one."""
        if len(node_infos) != self.n or list(node_infos) != self.names:
            return False
        self.node_infos = node_infos
        self.state = state
        moved: list[int] = []  # nodes whose Node changed
        relabelled = False  # and whether the labels of one of them changed
        for i, info in enumerate(node_infos.values()):
            old = self.infos[i]
            if old is info:
                continue
            if old.pods != info.pods:  # (a NodeInfo with a new Node and the same pods: nothing to count again)
                for pod in old.pods:
                    self._index_pod(i, old, pod, -1)
                for pod in info.pods:
                    self._index_pod(i, info, pod, 1)
            self.infos[i] = info
            if info.node is not old.node and info.node != old.node:
                moved.append(i)
                relabelled = relabelled or info.node.labels != old.node.labels
                a = info.allocatable
                values = (a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pods)
                if any(not -SAFE_MAGNITUDE < v < SAFE_MAGNITUDE for v in values):
                    self.exact = False
                else:
                    self.alloc_cpu[i], self.alloc_mem[i], self.alloc_eph[i], self.allowed_pods[i] = values
            self._read_node(i, info)
            self.changes.append(i)
        if moved:
            for values, one in self._static.values():
                for i in moved:
                    values[i] = one(self.infos[i])
            if relabelled:  # (what they hold reads the nodes' labels only)
                self._label_codes.clear()
                self._label_masks.clear()
                self.by_labels.clear()
        self.memo.clear()
        return True

    # --- keeping in step ----------------------------------------------------------------------------

    def _array(self, values: list[int]) -> np.ndarray:
        if any(not -SAFE_MAGNITUDE < v < SAFE_MAGNITUDE for v in values):
            self.exact = False
            values = [0] * len(values)
        return np.array(values, dtype=np.int64)

    def _read_node(self, i: int, info: NodeInfo) -> None:
        if info.used_ports:
            self.nodes_with_ports.add(i)
        else:
            self.nodes_with_ports.discard(i)
        requested = info.requested
        values = (len(info.pods), requested.milli_cpu, requested.memory, requested.ephemeral_storage,
                  info.non_zero_cpu, info.non_zero_memory)
        if any(not -SAFE_MAGNITUDE < v < SAFE_MAGNITUDE for v in values):
            self.exact = False
            return
        self.pod_count[i], self.req_cpu[i], self.req_mem[i], self.req_eph[i], self.nz_cpu[i], self.nz_mem[i] = values

    def _index_pod(self, i: int, info: NodeInfo, pod: Pod, delta: int) -> None:
        if pod.node_name and pod.node_name != info.name:
            self.consistent = False
        self.total_pods += delta
        self.pod_counts.change(i, pod, delta)
        if _has_pod_affinity(pod):
            key = (pod.namespace, pod.affinity)
            group = self.affinity_groups.get(key)
            if group is None:
                group = self.affinity_groups[key] = AffinityGroup(pod)
            count = group.nodes.get(i, 0) + delta
            if count:
                group.nodes[i] = count
            else:
                del group.nodes[i]
                if not group.nodes:
                    del self.affinity_groups[key]

    def pod_changed(self, info: NodeInfo, removed: Pod | None, added: Pod | None) -> None:
        """NodeInfo's observer hook: `removed` left the node, `added` joined it (either may
        be None; both for a pod replaced by an updated copy)."""
        if self.forward is not None:
            self.forward.pod_changed(info, removed, added)
        i = self.index.get(info.name)
        if i is None or self.infos[i] is not info:
            return  # not one of ours
        if removed is not None:
            self._index_pod(i, info, removed, -1)
        if added is not None:
            self._index_pod(i, info, added, 1)
        self._read_node(i, info)
        self.changes.append(i)

    def attach(self, infos: Iterable[NodeInfo] | None = None) -> None:
        """Observe the NodeInfos (every one, or `infos`: the ones about to change)."""
        for info in self.infos if infos is None else infos:
            info.observer = self

    def detach(self, infos: Iterable[NodeInfo] | None = None) -> None:
        for info in self.infos if infos is None else infos:
            if info.observer is self:
                info.observer = None

    # --- static results -----------------------------------------------------------------------------

    def node_local(
        self, key: Hashable, compute: Callable[[Any], np.ndarray], compute_one: Callable[[NodeInfo], Any]
    ) -> np.ndarray:
        """An array over every node whose entry for a node depends only on that node (its
        Node and its pods) and on `key`, say a resource score for one pod request:
        `compute(nodes)` returns the entries of `nodes` (an index array, or slice(None)
        for all) at once, `compute_one(info)` the entry of one node (the plain function).
        Kept across cycles: after pods are bound, only the entries of the nodes whose pods
        changed are computed again. The array is the cache's own: read it only."""
        entry = self._local.pop(key, None)
        if entry is None:
            entry = [compute(slice(None)), len(self.changes)]
            if len(self._local) >= NODE_LOCAL_ENTRIES:
                del self._local[next(iter(self._local))]  # the least recently used
        elif entry[1] < len(self.changes):
            dirty = self.changes[entry[1]:]
            if len(dirty) <= FEW_CHANGES:
                values = entry[0]
                for i in set(dirty):
                    values[i] = compute_one(self.infos[i])
            elif len(dirty) * 8 > self.n:
                entry[0] = compute(slice(None))
            else:
                nodes = np.array(sorted(set(dirty)), dtype=np.int64)  # what np.unique gives, without its sort of the repeats
                entry[0][nodes] = compute(nodes)
            entry[1] = len(self.changes)
        self._local[key] = entry
        return entry[0]

    def static_mask(self, fn: Callable, key: Hashable, pod: Pod, ctx) -> np.ndarray:
        """Where the static predicate `fn` passes, for pods with `fn.static_key(pod) == key`;
        computed once per key with `fn` itself on every node."""
        cache_key = (fn, key)
        entry = self._static.get(cache_key)
        if entry is None:
            mask = np.fromiter((not fn(pod, ctx, info) for info in self.infos), dtype=bool, count=self.n)
            entry = self._static[cache_key] = (mask, lambda info: not fn(pod, ctx, info))
        return entry[0]

    def static_scores(self, fn: Callable, key: Hashable, pod: Pod, ctx) -> np.ndarray:
        """The raw scores of the static priority `fn` (one without reduce step) on every
        node, for pods with `fn.static_key(pod) == key`; computed once per key."""
        cache_key = (fn, key)
        entry = self._static.get(cache_key)
        if entry is None:
            scores = np.array(fn(pod, ctx, self.infos), dtype=np.int64)
            entry = self._static[cache_key] = (scores, lambda info: fn(pod, ctx, [info])[0])
        return entry[0]

    def per_node(self, key: Hashable, compute: Callable[[NodeInfo], Any], dtype=np.int64) -> np.ndarray:
        """`compute(info)` for every node, cached under `key` for the run: only for what
        depends on the Node objects alone."""
        cache_key = ("per_node", key)
        entry = self._static.get(cache_key)
        if entry is None:
            values = np.fromiter((compute(info) for info in self.infos), dtype=dtype, count=self.n)
            entry = self._static[cache_key] = (values, compute)
        return entry[0]

    def label_codes(self, key: str) -> tuple[np.ndarray, dict[str, int]]:
        """(per node the code of its value of label `key`, -1 without it; value -> code)."""
        entry = self._label_codes.get(key)
        if entry is None:
            values: dict[str, int] = {}
            codes = np.full(self.n, -1, dtype=np.int64)
            for i, info in enumerate(self.infos):
                value = info.node.labels.get(key)
                if value is not None:
                    codes[i] = values.setdefault(value, len(values))
            entry = self._label_codes[key] = (codes, values)
        return entry

    def domain_codes(self, key: str) -> tuple[np.ndarray, int]:
        """(per node the code of its value of label `key`, a node without it reading as one
        more value; how many codes there are)."""
        entry = self._domain_codes.get(key)
        if entry is None:
            codes, values = self.label_codes(key)
            entry = self._domain_codes[key] = (np.where(codes < 0, len(values), codes), len(values) + 1)
        return entry

    def label_mask(self, items: tuple[tuple[str, str], ...]) -> np.ndarray:
        """Nodes carrying every (label, value) of `items`."""
        mask = self._label_masks.get(items)
        if mask is None:
            mask = np.ones(self.n, dtype=bool)
            for key, value in items:
                codes, values = self.label_codes(key)
                code = values.get(value)
                if code is None:
                    mask[:] = False
                    break
                mask &= codes == code
            self._label_masks[items] = mask
        return mask

    # --- per-run look-ups of cluster objects (fixed during a run) ------------------------------------

    def services_for(self, pod: Pod) -> list:
        """CycleContext.services_for_pod, shared by the pods of one namespace and label set."""
        key = ("services", pod.label_set)
        services = self.memo.get(key)
        if services is None:
            services = self.memo[key] = [
                s
                for s in self.state.services
                if s.namespace == pod.namespace and s.selector is not None and s.selector.matches(pod.labels)
            ]
        return services

    def controllers_for(self, pod: Pod, kinds: tuple[str, ...]) -> list:
        """CycleContext.controllers_for_pod, shared the same way."""
        key = ("controllers", kinds, pod.label_set)
        controllers = self.memo.get(key)
        if controllers is None:
            by_namespace = self.memo.get(("controllers by namespace", kinds))
            if by_namespace is None:  # the controllers of those kinds with a selector, by namespace, in order
                by_namespace = self.memo[("controllers by namespace", kinds)] = {}
                for c in self.state.controllers:
                    if c.kind in kinds and c.selector is not None and not c.selector.is_empty:
                        by_namespace.setdefault(c.namespace, []).append(c)
            controllers = self.memo[key] = [c for c in by_namespace.get(pod.namespace, ()) if c.selector.matches(pod.labels)]
        return controllers

    # --- combining predicates -----------------------------------------------------------------------------

    def predicate_mask(self, fn: Callable, pod: Pod, ctx) -> np.ndarray | bool | None:
        """Where predicate `fn` passes, from its static key or its vector form; None when
        it has neither (or its vector form declines): evaluate it node by node."""
        key_of = getattr(fn, "static_key", None)
        if key_of is not None:
            return self.static_mask(fn, key_of(pod), pod, ctx)
        vector = getattr(fn, "mask", None)
        if vector is not None:
            return vector(pod, ctx, self)
        return None

    def all_of(self, predicates: Iterable[Callable], pod: Pod, ctx) -> np.ndarray:
        """Where every predicate passes (a fresh array). Predicates without a static or
        vector form run node by node, on the nodes still feasible only."""
        mask = np.ones(self.n, dtype=bool)
        plain = []
        for fn in predicates:
            m = self.predicate_mask(fn, pod, ctx)
            if m is None:
                plain.append(fn)
            elif m is not ALL:
                mask &= m
        for fn in plain:
            infos = self.infos
            for i in np.flatnonzero(mask).tolist():
                if fn(pod, ctx, infos[i]):
                    mask[i] = False
        return mask


def per_request_vector(name: str, plain, array_scores):
    """The fast form (`fn.vector`) of a priority whose score on a node depends only on that
    node and on the pod's non-zero request (LeastRequested, MostRequested,
    BalancedResourceAllocation): the scores are kept per request and only the nodes whose
    pods changed are scored again. `array_scores(cache, nodes, pod_cpu, pod_mem)` scores
    many nodes at once; `plain` is the priority itself, used for a few nodes."""

    def vector(pod, ctx, cache, idx):
        pod_cpu, pod_mem = pod.non_zero_request
        if not cache.exact or not (abs(pod_cpu) < SAFE_MAGNITUDE and abs(pod_mem) < SAFE_MAGNITUDE):
            return None
        scores = cache.node_local(
            (name, pod_cpu, pod_mem),
            lambda nodes: array_scores(cache, nodes, pod_cpu, pod_mem),
            lambda info: plain(pod, ctx, [info])[0],
        )
        return scores[idx]

    return vector
