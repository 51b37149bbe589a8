"""MatchInterPodAffinity (Kubernetes 1.11 `PodAffinityChecker.InterPodAffinityMatches`).

Two checks, in this order; a failure reports the generic reason followed by the specific one:

1. `satisfiesExistingPodsAntiAffinity`: every required anti-affinity term of every pod of the
   cycle (`ctx.all_pods()`; nothing skipped, terminating pods included) whose namespaces
   (the term's, or the owner pod's own namespace) and label selector match the incoming pod
   forbids the nodes that share the term's topology with the owner pod's node
   (`NodesHaveSameTopologyKey`: both nodes carry the label with the same value; an empty
   key never matches). A matching term with an empty topologyKey, or a term whose selector
   apimachinery cannot build, is a 1.11 predicate error: here it fails the node.
   -> `node(s) didn't satisfy existing pods anti-affinity rules`
2. `satisfiesPodsAffinityAntiAffinity`, the incoming pod's own required terms:
   * affinity: some existing pod matching the namespaces and selectors of ALL the terms
     (`podMatchesAffinityTermProperties`) must be on a node sharing the topology of ALL the
     terms with the candidate node (`podMatchesPodAffinityTerms`). If none does, the pod is
     still allowed when NO existing pod matches all the terms' namespaces and selectors
     (`termsSelectorMatchFound` false) and the pod matches its own terms: the first pod of
     a group. -> `node(s) didn't match pod affinity rules`
   * anti-affinity: no existing pod matching ALL the terms' namespaces and selectors may be
     on a node sharing the topology of ALL the terms (1.11 treats the anti-affinity terms as
     one conjunction too). -> `node(s) didn't match pod anti-affinity rules`
   A required term with an empty topologyKey reached for a pod matching the terms, or an
   unbuildable selector, fails the node (1.11: "empty topologyKey is not allowed except for
   PreferredDuringScheduling pod anti-affinity", an error).

Cluster-wide work is done once per cycle (`ctx.memo["inter_pod_affinity"]`, like 1.11's
predicate metadata). The pods of the NodeInfo being checked are always read from that
NodeInfo, so a NodeInfo with pods removed (preemption) or added (nominated pods) is judged
on its own content, as 1.11's `AddPod`/`RemovePod` on the metadata do.

Reusable helpers: `term_namespaces`, `term_selector`, `pod_matches_term`,
`pod_matches_term_namespace_and_selector`, `nodes_have_same_topology_key`,
`required_affinity_terms`, `required_anti_affinity_terms`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import Pod, PodAffinityTerm
from scheduling.engine.scheduler.predicates.node_selector import Selector, SelectorError, label_selector_as_selector
from scheduling.engine.scheduler.priorities.normalize import pods_with_affinity

NAME = "MatchInterPodAffinity"
ERR_POD_AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity"
ERR_POD_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_POD_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_PODS_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
REASONS = (
    ERR_POD_AFFINITY_NOT_MATCH,
    ERR_POD_AFFINITY_RULES_NOT_MATCH,
    ERR_POD_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_EXISTING_PODS_ANTI_AFFINITY_RULES_NOT_MATCH,
)

_MEMO = "inter_pod_affinity"


# --- reusable helpers -------------------------------------------------------------------------------


def required_affinity_terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    """GetPodAffinityTerms: the required pod-affinity terms."""
    a = pod.affinity
    return a.pod_affinity.required if a is not None and a.pod_affinity is not None else ()


def required_anti_affinity_terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    """GetPodAntiAffinityTerms: the required pod-anti-affinity terms."""
    a = pod.affinity
    return a.pod_anti_affinity.required if a is not None and a.pod_anti_affinity is not None else ()


def term_namespaces(owner: Pod, term: PodAffinityTerm) -> frozenset[str]:
    """GetNamespacesFromPodAffinityTerm: the term's namespaces, or the owner pod's namespace."""
    return frozenset(term.namespaces) if term.namespaces else frozenset((owner.namespace,))


def term_selector(term: PodAffinityTerm) -> Selector:
    """metav1.LabelSelectorAsSelector(term.labelSelector); raises SelectorError."""
    return label_selector_as_selector(term.label_selector)


def pod_matches_term_namespace_and_selector(pod: Pod, namespaces: Iterable[str], selector: Selector) -> bool:
    """PodMatchesTermsNamespaceAndSelector."""
    if namespaces and pod.namespace not in namespaces:
        return False
    return selector.matches(pod.labels)


def pod_matches_term(pod: Pod, owner_pod: Pod, term: PodAffinityTerm) -> bool:
    """Does `pod` match the namespaces and selector of `owner_pod`'s `term`? (topology not
    checked; an unbuildable selector matches nothing)."""
    try:
        selector = term_selector(term)
    except SelectorError:
        return False
    return pod_matches_term_namespace_and_selector(pod, term_namespaces(owner_pod, term), selector)


def nodes_have_same_topology_key(node_a, node_b, topology_key: str) -> bool:
    """NodesHaveSameTopologyKey: both nodes have the label, with the same value; an empty key never matches."""
    if not topology_key:
        return False
    a, b = node_a.labels, node_b.labels
    return topology_key in a and topology_key in b and a[topology_key] == b[topology_key]


def _term_properties(owner: Pod, terms: Sequence[PodAffinityTerm]):
    """getAffinityTermProperties: [(namespaces, selector)]; raises SelectorError."""
    return [(term_namespaces(owner, t), term_selector(t)) for t in terms]


def _matches_all_properties(pod: Pod, properties) -> bool:
    """podMatchesAffinityTermProperties: an empty list matches nothing."""
    if not properties:
        return False
    return all(pod_matches_term_namespace_and_selector(pod, ns, sel) for ns, sel in properties)


# --- per-cycle precomputation ---------------------------------------------------------------------------


@dataclass
class _ExistingAntiAffinity:
    """Required anti-affinity terms of existing pods that match the incoming pod."""

    errors: Counter = field(default_factory=Counter)  # node name -> unusable matching terms
    pairs: Counter = field(default_factory=Counter)  # (key, value) -> matching terms
    by_node: dict = field(default_factory=dict)  # node name -> Counter of its (key, value)


@dataclass
class _OwnTerms:
    """The incoming pod's required terms of one kind (affinity or anti-affinity)."""

    terms: tuple = ()
    properties: list | None = None  # None: a selector could not be built
    counts: dict = field(default_factory=dict)  # node name -> pods matching all properties
    topologies: Counter = field(default_factory=Counter)  # topology tuple -> nodes with such pods
    node_topology: dict = field(default_factory=dict)  # node name -> its topology tuple (or None)


@dataclass
class _Meta:
    pod: Pod
    existing: _ExistingAntiAffinity
    affinity: _OwnTerms
    anti_affinity: _OwnTerms
    pod_counts: dict  # node name -> number of pods


def _existing_terms_on(pod: Pod, pods: Iterable[Pod], node):
    """(ok, topology key or None) for each required anti-affinity term of `pods` matching `pod`;
    ok False marks a 1.11 error (unbuildable selector, or a matching term with an empty key).
    Callers hand a node's pods with affinity (NodeInfo.PodsWithAffinity(), as 1.11's
    getMatchingAntiAffinityTopologyPairsOfPods does): the others have no terms."""
    for existing in pods:
        for term in required_anti_affinity_terms(existing):
            try:
                selector = term_selector(term)
            except SelectorError:
                yield False, None
                continue
            if not pod_matches_term_namespace_and_selector(pod, term_namespaces(existing, term), selector):
                continue
            if not term.topology_key:
                yield False, None
                continue
            yield True, term.topology_key


def _topology(node, terms) -> tuple | None:
    """The node's values for all the terms' topology keys; None if a key is empty or missing."""
    values = []
    for t in terms:
        if not t.topology_key or t.topology_key not in node.labels:
            return None
        values.append(node.labels[t.topology_key])
    return tuple(values)


def _own_terms(pod: Pod, terms, node_infos) -> _OwnTerms:
    own = _OwnTerms(terms=tuple(terms))
    if not terms:
        return own
    try:
        own.properties = _term_properties(pod, terms)
    except SelectorError:
        return own
    for name, info in node_infos.items():
        n = sum(1 for p in info.pods if _matches_all_properties(p, own.properties))
        if n:
            own.counts[name] = n
            topo = _topology(info.node, terms)
            own.node_topology[name] = topo
            if topo is not None:
                own.topologies[topo] += 1
    return own


def _meta(pod: Pod, ctx) -> _Meta:
    meta = ctx.memo.get(_MEMO)
    if meta is not None and meta.pod is pod:
        return meta
    existing = _ExistingAntiAffinity()
    for name, info in ctx.node_infos.items():
        mine = Counter()
        for ok, key in _existing_terms_on(pod, pods_with_affinity(info), info.node):
            if not ok:
                existing.errors[name] += 1
            elif key in info.node.labels:
                mine[(key, info.node.labels[key])] += 1
        if mine:
            existing.by_node[name] = mine
            existing.pairs.update(mine)
    meta = _Meta(
        pod,
        existing,
        _own_terms(pod, required_affinity_terms(pod), ctx.node_infos),
        _own_terms(pod, required_anti_affinity_terms(pod), ctx.node_infos),
        {name: len(info.pods) for name, info in ctx.node_infos.items()},
    )
    ctx.memo[_MEMO] = meta
    return meta


# --- the checks --------------------------------------------------------------------------------------------


def _satisfies_existing_pods_anti_affinity(pod: Pod, meta: _Meta, info) -> bool:
    existing = meta.existing
    node = info.node
    if any(n for name, n in existing.errors.items() if name != info.name):
        return False
    own = existing.by_node.get(info.name, Counter())
    for (key, value), n in existing.pairs.items():
        if n - own.get((key, value), 0) > 0 and node.labels.get(key) == value and key in node.labels:
            return False
    # The checked node's own pods, read from its NodeInfo.
    for ok, key in _existing_terms_on(pod, pods_with_affinity(info), node):
        if not ok or key in node.labels:
            return False
    return True


def _own_node_count(own: _OwnTerms, info) -> int:
    return sum(1 for p in info.pods if _matches_all_properties(p, own.properties))


def _matching_node_elsewhere(own: _OwnTerms, info, ctx) -> bool:
    """Is there, on a node other than `info`'s, a pod matching all the terms' properties whose
    node shares all the terms' topologies with `info.node`?"""
    target = _topology(info.node, own.terms)
    if target is None:
        return False
    n = own.topologies.get(target, 0)
    if info.name in own.counts and own.node_topology.get(info.name) == target:
        n -= 1
    return n > 0


def _any_matching_pod_elsewhere(own: _OwnTerms, info) -> bool:
    return any(n for name, n in own.counts.items() if name != info.name)


def _anti_affinity_error(own: _OwnTerms, info, ctx) -> bool:
    """1.11 `podMatchesPodAffinityTerms` errors when, for a pod matching the properties, the
    topologies of the terms before an empty-key term all match. Only possible with an
    empty topologyKey; evaluated pod by pod (rare, never valid input)."""
    empty_at = next((i for i, t in enumerate(own.terms) if not t.topology_key), None)
    if empty_at is None:
        return False
    before = own.terms[:empty_at]
    for name, n in own.counts.items():
        if name == info.name or not n:
            continue
        other = ctx.node_infos[name].node if name in ctx.node_infos else None
        if other is not None and all(nodes_have_same_topology_key(info.node, other, t.topology_key) for t in before):
            return True
    if _own_node_count(own, info):
        return all(nodes_have_same_topology_key(info.node, info.node, t.topology_key) for t in before)
    return False


def _satisfies_pod_affinity(pod: Pod, meta: _Meta, info, ctx) -> bool:
    own = meta.affinity
    if not own.terms:
        return True
    if own.properties is None:
        return False
    here = _own_node_count(own, info)
    if here and _topology(info.node, own.terms) is not None:
        return True  # a pod on the node itself shares every topology
    if _matching_node_elsewhere(own, info, ctx):
        return True
    if here or _any_matching_pod_elsewhere(own, info):
        return False  # termsSelectorMatchFound
    # The first pod of a group: allowed if it matches its own terms.
    return _matches_all_properties(pod, own.properties)


def _satisfies_pod_anti_affinity(pod: Pod, meta: _Meta, info, ctx) -> bool:
    own = meta.anti_affinity
    if not own.terms:
        return True
    if own.properties is None:
        # Every pod of the cycle would raise the selector error.
        pods_elsewhere = any(n for name, n in meta.pod_counts.items() if name != info.name)
        return not (pods_elsewhere or info.pods)
    if _anti_affinity_error(own, info, ctx):
        return False
    if _own_node_count(own, info) and _topology(info.node, own.terms) is not None:
        return False
    return not _matching_node_elsewhere(own, info, ctx)


def match_inter_pod_affinity(pod: Pod, ctx, info) -> tuple[str, ...]:
    """MatchInterPodAffinity."""
    meta = _meta(pod, ctx)
    if not _satisfies_existing_pods_anti_affinity(pod, meta, info):
        return (ERR_POD_AFFINITY_NOT_MATCH, ERR_EXISTING_PODS_ANTI_AFFINITY_RULES_NOT_MATCH)
    a = pod.affinity
    if a is None or (a.pod_affinity is None and a.pod_anti_affinity is None):
        return ()
    if not _satisfies_pod_affinity(pod, meta, info, ctx):
        return (ERR_POD_AFFINITY_NOT_MATCH, ERR_POD_AFFINITY_RULES_NOT_MATCH)
    if not _satisfies_pod_anti_affinity(pod, meta, info, ctx):
        return (ERR_POD_AFFINITY_NOT_MATCH, ERR_POD_ANTI_AFFINITY_RULES_NOT_MATCH)
    return ()


# --- all nodes at once (engine.scheduler.cache) -------------------------------------------------------------
#
# The same checks over node vectors. The existing pods come from the cache's affinity groups
# (pods with pod affinity, by namespace and affinity) and its pod counts, never from a walk
# over every pod; the topology of a node is its codes for the terms' label keys.


def _topology_ids(terms, cache) -> np.ndarray:
    """Per node an id of its values for all the terms' topology keys (equal ids: same
    topology); -1 where a key is empty or missing (`_topology` None)."""
    keys = tuple(t.topology_key for t in terms)
    memo_key = ("inter_pod_affinity:topology", keys)
    ids = cache.memo.get(memo_key)
    if ids is not None:
        return ids
    if not all(keys):
        ids = np.full(cache.n, -1, dtype=np.int64)
    else:
        ids = None
        for key in keys:
            codes, values = cache.label_codes(key)
            if ids is None:
                ids = codes.copy()
            else:
                ids = np.where((ids >= 0) & (codes >= 0), ids * len(values) + codes, -1)
                valid = ids >= 0
                ids[valid] = np.unique(ids[valid], return_inverse=True)[1]  # keep ids small
    cache.memo[memo_key] = ids
    return ids


def _matching_counts(pod: Pod, properties, cache) -> np.ndarray:
    """Per node, the pods matching all the properties (`_own_terms`' counts)."""
    namespaces = frozenset.intersection(*(ns for ns, _ in properties))
    return cache.pod_counts.counts(
        ("inter_pod_affinity", tuple(properties)),
        namespaces,
        lambda namespace, labels: all(namespace in ns and sel.matches(labels) for ns, sel in properties),
        live_only=False,
    )


def _existing_anti_affinity_mask(pod: Pod, cache):
    """`_satisfies_existing_pods_anti_affinity` on every node: a node fails when a matching
    required anti-affinity term of an existing pod has the same topology value on the
    node of that pod; an unusable term (selector error, empty key) fails every node."""
    fits = ALL
    for group in list(cache.affinity_groups.values()):
        anti = group.affinity.pod_anti_affinity
        if anti is None or not anti.required:
            continue
        for term in anti.required:
            try:
                selector = term_selector(term)
            except SelectorError:
                return np.zeros(cache.n, dtype=bool)
            if not pod_matches_term_namespace_and_selector(pod, term_namespaces(group.pod, term), selector):
                continue
            if not term.topology_key:
                return np.zeros(cache.n, dtype=bool)
            codes, _ = cache.label_codes(term.topology_key)
            owners = codes[group.node_indexes()]
            owners = owners[owners >= 0]
            if owners.size:
                taken = np.isin(codes, owners)
                fits = ~taken if fits is ALL else fits & ~taken
    return fits


def _own_terms_state(pod: Pod, terms, cache):
    """(properties, has, valid, elsewhere) for the pod's own terms of one kind: nodes with
    a matching pod, nodes whose topology is usable, and per node the number of OTHER nodes
    with a matching pod and the same topology. None for properties: a selector error."""
    try:
        properties = _term_properties(pod, terms)
    except SelectorError:
        return None, None, None, None
    has = _matching_counts(pod, properties, cache) > 0
    ids = _topology_ids(terms, cache)
    valid = ids >= 0
    counted = has & valid
    per_topology = np.bincount(ids[counted], minlength=int(ids.max(initial=-1)) + 1)
    elsewhere = np.zeros(cache.n, dtype=np.int64)
    elsewhere[valid] = per_topology[ids[valid]] - counted[valid]
    return properties, has, valid, elsewhere


def _pod_affinity_mask(pod: Pod, terms, cache):
    """`_satisfies_pod_affinity` on every node."""
    properties, has, valid, elsewhere = _own_terms_state(pod, terms, cache)
    if properties is None:
        return np.zeros(cache.n, dtype=bool)
    near = (has & valid) | (valid & (elsewhere > 0))
    if _matches_all_properties(pod, properties):  # the first pod of a group
        total = int(has.sum())
        near |= ~has & (total - has == 0)
    return near


def _pod_anti_affinity_mask(pod: Pod, terms, cache):
    """`_satisfies_pod_anti_affinity` on every node; None (node by node) when a term has an
    empty topologyKey (1.11's error path)."""
    if not all(t.topology_key for t in terms):
        return None
    properties, has, valid, elsewhere = _own_terms_state(pod, terms, cache)
    if properties is None:
        return np.full(cache.n, cache.total_pods == 0, dtype=bool)
    return ~(has & valid) & ~(valid & (elsewhere > 0))


def _inter_pod_affinity_mask(pod: Pod, ctx, cache):
    """match_inter_pod_affinity on every node (engine.scheduler.cache). Declines when a pod sits on a
    NodeInfo its nodeName does not name."""
    if not cache.consistent:
        return None
    fits = _existing_anti_affinity_mask(pod, cache)
    a = pod.affinity
    if a is None or (a.pod_affinity is None and a.pod_anti_affinity is None):
        return fits
    for terms, check in (
        (required_affinity_terms(pod), _pod_affinity_mask),
        (required_anti_affinity_terms(pod), _pod_anti_affinity_mask),
    ):
        if not terms:
            continue
        own = check(pod, terms, cache)
        if own is None:
            return None
        fits = own if fits is ALL else fits & own
    return fits


match_inter_pod_affinity.mask = _inter_pod_affinity_mask
