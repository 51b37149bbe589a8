"""What PodTopologySpread and InterPodAffinity read of the bound pods, kept in step with the
snapshot's NodeInfos instead of walked pod by pod in every scheduling cycle.

Upstream's PreFilter and PreScore of both plugins visit every node and count, on each, the
pods a selector matches (countPodsMatchSelector, updateWithAffinityTerms) and the terms of
the pods with (anti-)affinity (HavePodsWithRequiredAntiAffinityList, PodsWithAffinity).
The results depend only on which pods stand on which node, so this index keeps:

* the bound pods grouped by (namespace, label set) with their count per node, twice:
  every pod (inter-pod affinity counts terminating pods) and the pods not terminating
  (PodTopologySpread bypasses them);
* the required anti-affinity terms of the bound pods, per distinct term, with the number
  of pods per (topologyKey, value) of their nodes; and the terms InterPodAffinity's
  scoring reads of the pods with pod (anti-)affinity (required affinity, preferred
  affinity, preferred anti-affinity), the same way.

A selector is matched once per group (and again only for groups new since), so a count
costs the number of nodes holding matching pods, not the number of pods.

Keeping in step: the index registers itself as the NodeInfos' `observer` where none is set
and notes the nodes whose pods changed. Where the scheduler's cache (engine.scheduler.cache,
which the framework's fast path attaches) observes them, its change log (`changes`, the
node of every pod change) names the nodes to read again; with any other observer the
nodes' `generation` is compared in each cycle. A node list other than the one indexed
(another snapshot) gets an index of its own.

AffinityTerm mirrors fwk.AffinityTerm (pkg/scheduler/framework/types.go: newAffinityTerm,
getNamespacesFromPodAffinityTerm, AffinityTerm.Matches), with the term's matchLabelKeys
and mismatchLabelKeys merged into its selector from the owner pod's labels as the API
server does when it admits the pod (applyMatchLabelKeysAndMismatchLabelKeys).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import attrgetter
from typing import Iterable, Mapping, Sequence

from scheduling.engine.api import selectors
from scheduling.engine.api.objects import LabelSelector, Pod, PodAffinityTerm
from scheduling.engine.api.selectors import NOTHING, Requirement, Selector, SelectorError
from scheduling.engine.scheduler.cluster import NodeInfo

GroupKey = tuple  # Pod.label_set: (namespace, frozenset of label items)
Pair = tuple  # (topologyKey, value)


def as_selector(selector: LabelSelector | None) -> Selector:
    """metav1.LabelSelectorAsSelector: None selects nothing, empty everything; raises SelectorError."""
    if selector is None:
        return NOTHING
    return selectors.label_selector_as_selector(
        selector.match_labels, tuple((r.key, r.operator, r.values) for r in selector.match_expressions))


@dataclass(frozen=True)
class AffinityTerm:
    """fwk.AffinityTerm: namespaces, selector, topologyKey, namespaceSelector."""

    namespaces: frozenset
    selector: Selector
    topology_key: str
    namespace_selector: Selector = NOTHING

    def matches(self, pod: Pod, namespace_labels: Mapping[str, str] | None) -> bool:
        """AffinityTerm.Matches: the pod's namespace is one of the term's, or its labels
        match the namespaceSelector; then the label selector matches the pod."""
        if pod.namespace in self.namespaces or self.namespace_selector.matches(namespace_labels or {}):
            return self.selector.matches(pod.labels)
        return False

    def matches_group(self, namespace: str, labels: Mapping[str, str], namespace_labels) -> bool:
        if namespace in self.namespaces or self.namespace_selector.matches(namespace_labels or {}):
            return self.selector.matches(labels)
        return False

    def merged(self, namespace_labels: Mapping[str, Mapping[str, str]]) -> "AffinityTerm":
        """mergeAffinityTermNamespacesIfNotEmpty: a namespaceSelector with requirements
        becomes the namespaces whose labels it matches (then Nothing); an empty one (every
        namespace) stays."""
        if self.namespace_selector.empty():
            return self
        extra = {ns for ns, labels in namespace_labels.items() if self.namespace_selector.matches(labels)}
        return AffinityTerm(self.namespaces | frozenset(extra), self.selector, self.topology_key, NOTHING)


def term_selector(owner: Pod, term: PodAffinityTerm) -> Selector:
    """The term's labelSelector with matchLabelKeys (In) and mismatchLabelKeys (NotIn) of the
    owner pod's labels added; a nil labelSelector stays nil (matches nothing)."""
    selector = as_selector(term.label_selector)
    if term.label_selector is None or not (term.match_label_keys or term.mismatch_label_keys):
        return selector
    added = []
    for keys, op in ((term.match_label_keys, selectors.IN), (term.mismatch_label_keys, selectors.NOT_IN)):
        for key in keys:
            if key in owner.labels:
                added.append(Requirement(key, op, (str(owner.labels[key]),)))
    if not added:
        return selector
    return Selector(tuple(sorted(selector.requirements + tuple(added), key=lambda r: r.key)))


def new_affinity_term(owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """newAffinityTerm; raises SelectorError."""
    selector = term_selector(owner, term)
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((owner.namespace,))
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(namespaces, selector, term.topology_key, as_selector(term.namespace_selector))


class PodTerms:
    """A pod's parsed (anti-)affinity terms (fwk.PodInfo's RequiredAffinityTerms, ...)."""

    __slots__ = ("required_affinity", "required_anti_affinity", "preferred_affinity", "preferred_anti_affinity", "error")

    def __init__(self, pod: Pod):
        self.required_affinity: tuple[AffinityTerm, ...] = ()
        self.required_anti_affinity: tuple[AffinityTerm, ...] = ()
        self.preferred_affinity: tuple[tuple[AffinityTerm, int], ...] = ()
        self.preferred_anti_affinity: tuple[tuple[AffinityTerm, int], ...] = ()
        self.error = ""
        a = pod.affinity
        if a is None:
            return
        errors: list[str] = []

        def parse(terms, kind, weighted=False):
            """getAffinityTerms / getWeightedAffinityTerms: the first error ends the list."""
            out = []
            for t in terms:
                try:
                    out.append((new_affinity_term(pod, t.term), t.weight) if weighted else new_affinity_term(pod, t))
                except SelectorError as e:
                    errors.append(f"{kind}: {e}")
                    return ()
            return tuple(out)

        if a.pod_affinity is not None:
            self.required_affinity = parse(a.pod_affinity.required, "requiredAffinityTerms")
        if a.pod_anti_affinity is not None:
            self.required_anti_affinity = parse(a.pod_anti_affinity.required, "requiredAntiAffinityTerms")
        if a.pod_affinity is not None:
            self.preferred_affinity = parse(a.pod_affinity.preferred, "preferredAffinityTerms", True)
        if a.pod_anti_affinity is not None:
            self.preferred_anti_affinity = parse(a.pod_anti_affinity.preferred, "preferredAntiAffinityTerms", True)
        if errors:
            # utilerrors.NewAggregate: one message, or several in [...]
            self.error = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


_terms_cache: dict[int, tuple[Pod, PodTerms]] = {}


def pod_terms(pod: Pod) -> PodTerms:
    """The pod's terms, parsed once per pod object."""
    hit = _terms_cache.get(id(pod))
    if hit is not None and hit[0] is pod:
        return hit[1]
    if len(_terms_cache) > 200_000:
        _terms_cache.clear()
    terms = PodTerms(pod)
    _terms_cache[id(pod)] = (pod, terms)
    return terms


def has_pod_affinity(pod: Pod) -> bool:
    """podWithAffinity: pod affinity or pod anti-affinity, required or preferred."""
    a = pod.affinity
    return a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None)


def has_required_anti_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return a is not None and a.pod_anti_affinity is not None and bool(a.pod_anti_affinity.required)


# Kinds of the existing pods' terms InterPodAffinity scores with.
HARD_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY = "hard", "preferred", "anti"


class _Record:
    """What one node contributes to the index."""

    __slots__ = ("live", "all", "anti", "scored", "pods")

    def __init__(self):
        self.live: Counter = Counter()
        self.all: Counter = Counter()
        self.anti: list = []  # (AffinityTerm, pair)
        self.scored: list = []  # ((AffinityTerm, kind, weight), pair)
        self.pods: tuple = ()  # the node's pods this record counts, in order


class _Observer:
    """NodeInfo.observer: notes the nodes whose pods changed."""

    __slots__ = ("index",)

    def __init__(self, index: "PodIndex"):
        self.index = index

    def pod_changed(self, info: NodeInfo, removed, added) -> None:
        self.index.dirty.add(info.node.name)


_generation = attrgetter("generation")


class PodIndex:
    """The bound pods of a node list, as the plugins count them (see the module doc)."""

    def __init__(self, nodes: Sequence[NodeInfo]):
        self.nodes = list(nodes)
        self.by_name = {info.node.name: info for info in self.nodes}
        self.live: dict[GroupKey, dict[str, int]] = {}
        self.all: dict[GroupKey, dict[str, int]] = {}
        self.group_labels: dict[GroupKey, Mapping[str, str]] = {}
        self.ns_groups: dict[str, list[GroupKey]] = {}
        self.all_groups: list[GroupKey] = []
        self.anti: dict[AffinityTerm, Counter] = {}
        self.scored: dict[tuple, Counter] = {}
        self.records: dict[str, _Record] = {}
        self.dirty: set[str] = set()
        self._match_memo: dict = {}
        self.observer = _Observer(self)
        self.observing = True
        self._log_source = None  # a cache observing the NodeInfos whose change log is read (see refresh)
        self._log_cursor = 0
        for info in self.nodes:
            current = info.observer
            if current is None or isinstance(current, _Observer):
                info.observer = self.observer
            else:
                self.observing = False
        self.generations = list(map(_generation, self.nodes))
        for info in self.nodes:
            self._update(info)

    # --- keeping in step ---------------------------------------------------------------------------

    def same_nodes(self, nodes: Sequence[NodeInfo]) -> bool:
        mine = self.nodes
        return len(nodes) == len(mine) and (not mine or (nodes[0] is mine[0] and nodes[-1] is mine[-1]))

    def refresh(self) -> None:
        """Bring the index up to date with the NodeInfos' pods."""
        nodes = self.nodes
        if not nodes:
            return
        observer = nodes[0].observer
        if self.observing:
            if observer is self.observer or getattr(observer, "forward", None) is self.observer:
                if self.dirty:
                    dirty, self.dirty = self.dirty, set()
                    for name in dirty:
                        info = self.by_name.get(name)
                        if info is not None:
                            self._update(info)
                return
            self.observing = False  # another observer took over
            self.generations = [-1] * len(nodes)
        if observer is not None and observer is self._log_source:
            # The scheduler's cache observes these NodeInfos: its change log names the nodes.
            log = observer.changes
            if len(log) > self._log_cursor:
                for i in set(log[self._log_cursor:]):
                    self._update(nodes[i])
                self._log_cursor = len(log)
            return
        generations = list(map(_generation, nodes))
        if generations != self.generations:
            old = self.generations
            for i, g in enumerate(generations):
                if g != old[i]:
                    self._update(nodes[i])
            self.generations = generations
        self._log_source = None
        log = getattr(observer, "changes", None)
        infos = getattr(observer, "infos", None)
        if (isinstance(log, list) and isinstance(infos, list) and len(infos) == len(nodes)
                and infos[0] is nodes[0] and infos[-1] is nodes[-1]):
            self._log_source = observer
            self._log_cursor = len(log)

    def _update(self, info: NodeInfo) -> None:
        name = info.node.name
        old = self.records.get(name)
        pods = info.pods
        seen = old.pods if old is not None else None
        if seen is not None and len(pods) == len(seen) + 1 and all(a is b for a, b in zip(pods, seen)):
            # one pod bound to the node (the common change): count it alone
            delta = _Record()
            self._count(delta, pods[-1], info.node.labels)
            self._apply(name, delta, 1)
            old.live.update(delta.live)
            old.all.update(delta.all)
            old.anti.extend(delta.anti)
            old.scored.extend(delta.scored)
            old.pods = tuple(pods)
            return
        new = _Record()
        labels = info.node.labels
        for pod in pods:
            self._count(new, pod, labels)
        new.pods = tuple(pods)
        if old is not None:
            self._apply(name, old, -1)
        self._apply(name, new, 1)
        self.records[name] = new

    def _count(self, record: _Record, pod: Pod, labels: Mapping[str, str]) -> None:
        """Add what `pod`, on a node with these labels, contributes to `record`."""
        key = pod.label_set
        record.all[key] += 1
        if pod.deletion_timestamp is None:
            record.live[key] += 1
        if key not in self.group_labels:
            self.group_labels[key] = pod.labels
            self.ns_groups.setdefault(pod.namespace, []).append(key)
            self.all_groups.append(key)
        a = pod.affinity
        if a is None or (a.pod_affinity is None and a.pod_anti_affinity is None):
            return
        terms = pod_terms(pod)
        for t in terms.required_anti_affinity:
            if t.topology_key in labels:
                record.anti.append((t, (t.topology_key, labels[t.topology_key])))
        if labels:
            for t in terms.required_affinity:
                if t.topology_key in labels:
                    record.scored.append(((t, HARD_AFFINITY, 1), (t.topology_key, labels[t.topology_key])))
            for t, w in terms.preferred_affinity:
                if t.topology_key in labels:
                    record.scored.append(((t, PREFERRED_AFFINITY, w), (t.topology_key, labels[t.topology_key])))
            for t, w in terms.preferred_anti_affinity:
                if t.topology_key in labels:
                    record.scored.append(((t, PREFERRED_ANTI_AFFINITY, w), (t.topology_key, labels[t.topology_key])))

    def _apply(self, name: str, record: _Record, sign: int) -> None:
        for table, counts in ((self.live, record.live), (self.all, record.all)):
            for key, n in counts.items():
                per_node = table.get(key)
                if per_node is None:
                    per_node = table[key] = {}
                value = per_node.get(name, 0) + sign * n
                if value:
                    per_node[name] = value
                else:
                    per_node.pop(name, None)
        for table, items in ((self.anti, record.anti), (self.scored, record.scored)):
            for key, pair in items:
                counter = table.get(key)
                if counter is None:
                    counter = table[key] = Counter()
                value = counter[pair] + sign
                if value:
                    counter[pair] = value
                else:
                    del counter[pair]
                    if not counter:
                        del table[key]

    # --- queries ---------------------------------------------------------------------------------

    def _groups(self, selector: Selector, namespace: str | None) -> list[GroupKey]:
        """The groups of `namespace` (None: every namespace) whose labels `selector` matches."""
        source = self.all_groups if namespace is None else self.ns_groups.get(namespace, ())
        memo_key = (selector, namespace)
        hit = self._match_memo.get(memo_key)
        if hit is None:
            hit = self._match_memo[memo_key] = [[], 0]
        matched, checked = hit
        if checked < len(source):
            labels = self.group_labels
            for key in source[checked:]:
                if selector.matches(labels[key]):
                    matched.append(key)
            hit[1] = len(source)
        return matched

    def live_counts(self, selector: Selector, namespace: str) -> dict[str, int]:
        """Per node name, the pods not terminating of `namespace` that `selector` matches
        (countPodsMatchSelector; an empty selector counts nothing). Nodes without any are absent."""
        if selector.empty() or selector.nothing:
            return {}
        return self.sum_counts(self.live, self._groups(selector, namespace))

    def term_counts(self, term: AffinityTerm, namespace_labels: Mapping[str, Mapping[str, str]]) -> dict[str, int]:
        """Per node name, the pods (terminating ones too) a merged incoming-pod term matches."""
        return self.sum_counts(self.all, self.term_groups(term, namespace_labels))

    def term_groups(self, term: AffinityTerm, namespace_labels) -> list[GroupKey]:
        if term.selector.nothing:
            return []
        if not term.namespace_selector.nothing:
            # A namespaceSelector left on the term (an empty one: every namespace).
            groups = self._groups(term.selector, None)
            return [g for g in groups if term.matches_group(g[0], self.group_labels[g], namespace_labels.get(g[0]))]
        out: list[GroupKey] = []
        for ns in sorted(term.namespaces):
            out.extend(self._groups(term.selector, ns))
        return out

    def sum_counts(self, table, groups: Iterable[GroupKey]) -> dict[str, int]:
        out: dict[str, int] = {}
        for key in groups:
            per_node = table.get(key)
            if not per_node:
                continue
            if not out:
                out = dict(per_node)
                continue
            for name, n in per_node.items():
                out[name] = out.get(name, 0) + n
        return out


def index_for(handle, nodes: Sequence[NodeInfo]) -> PodIndex:
    """The index of `nodes`, shared by the plugins of one Handle and refreshed: the
    handle's own when `nodes` are its NodeInfos, a new one otherwise."""
    index = getattr(handle, "_pod_index", None)
    if index is None and nodes and isinstance(nodes[0].observer, _Observer):
        # The same NodeInfos indexed for an earlier pass (a new Handle): keep that index, if
        # every NodeInfo is still the one it indexed (a node that changed between passes
        # gets a new NodeInfo, which the index never saw).
        earlier = nodes[0].observer.index
        if len(earlier.nodes) == len(nodes) and all(a is b for a, b in zip(earlier.nodes, nodes)):
            index = earlier
    if index is not None and index.same_nodes(nodes):
        index.refresh()
        if handle is not None and getattr(handle, "_pod_index", None) is not index and len(nodes) == len(handle.node_infos):
            try:
                handle._pod_index = index
            except AttributeError:
                pass
        return index
    index = PodIndex(nodes)
    if handle is not None and len(nodes) == len(handle.node_infos):
        try:
            handle._pod_index = index
        except AttributeError:
            pass
    return index
