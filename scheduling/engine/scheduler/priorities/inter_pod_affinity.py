"""InterPodAffinityPriority (1.11 `priorities/interpod_affinity.go`).

For every existing pod of the cluster (on any node, not only the filtered ones), with
`fixedNode` the node it runs on, each matching term adds its weight to every candidate node
sharing the term's topology value with `fixedNode` (`NodesHaveSameTopologyKey`: the key
must be non-empty and both nodes must carry it with equal values):

* the incoming pod's preferred podAffinity terms matching the existing pod: `+weight`;
* the incoming pod's preferred podAntiAffinity terms matching the existing pod: `-weight`;
* the existing pod's *required* podAffinity terms matching the incoming pod:
  `+hardPodAffinityWeight` (skipped when the weight is 0);
* the existing pod's preferred podAffinity terms matching the incoming pod: `+weight`;
* the existing pod's preferred podAntiAffinity terms matching the incoming pod: `-weight`.

The existing pods' *required anti-affinity* terms are not counted (that is the predicate's
job). A term matches a pod when the pod's namespace is in the term's `namespaces` (empty:
the namespace of the pod defining the term) and the term's `labelSelector` matches its
labels (a nil selector matches nothing, an empty one everything). A selector that
`LabelSelectorAsSelector` rejects makes the priority fail (`PriorityError`).

Normalisation, over the candidate nodes, starts from zero:

    var maxCount, minCount float64            // both 0
    for each node: maxCount = max(maxCount, count); minCount = min(minCount, count)
    fScore = 0; if (maxCount - minCount) > 0 {
        fScore = 10 * ((count - minCount) / (maxCount - minCount)) }
    score = int(fScore)

Implementation: the matching weights are summed once per cycle into buckets keyed by
(topology key, topology value) (`ctx.memo`), then each candidate node adds up the buckets
of its own label values: O(pods with affinity + matching pods) + O(nodes x keys) per pod,
never nodes x pods. The weights are integers, so summing them as ints and converting at
the end gives exactly Go's float64 sums.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.predicates.node_selector import SelectorError, label_selector_as_selector
from scheduling.engine.scheduler.priorities.normalize import (
    PriorityError,
    cached_node_counts,
    count_pods,
    pods_with_affinity,
)

NAME = "InterPodAffinityPriority"
DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1  # v1.DefaultHardPodAffinitySymmetricWeight


def _selector(term):
    """metav1.LabelSelectorAsSelector(term.LabelSelector); an error fails the priority."""
    try:
        return label_selector_as_selector(term.label_selector)
    except SelectorError as e:
        raise PriorityError(str(e)) from None


def _term_matches(term, defining_namespace: str, pod) -> bool:
    """PodMatchesTermsNamespaceAndSelector(pod, GetNamespacesFromPodAffinityTerm(...), selector)."""
    selector = _selector(term)
    namespaces = term.namespaces or (defining_namespace,)
    if pod.namespace not in namespaces:
        return False
    return selector.matches(pod.labels)


def topology_weights(pod, ctx, hard_pod_affinity_weight: int) -> dict[str, dict[str, int]]:
    """{topology key: {topology value: summed weight}} for this pod, once per cycle."""
    memo_key = f"inter_pod_affinity:{hard_pod_affinity_weight}"
    buckets = ctx.memo.get(memo_key)
    if buckets is not None:
        return buckets
    buckets = {}

    def add(topology_key: str, fixed_labels, weight: int) -> None:
        if not topology_key or weight == 0:
            return
        value = fixed_labels.get(topology_key)
        if value is None:
            return
        b = buckets.get(topology_key)
        if b is None:
            b = buckets[topology_key] = {}
        b[value] = b.get(value, 0) + weight

    infos = list(ctx.node_infos.values())

    # 1. The incoming pod's preferred (anti-)affinity terms against every existing pod.
    own = _own_preferred_terms(pod)
    if own and any(info.pods for info in infos):
        for term, _ in own:
            _selector(term)  # a selector apimachinery refuses fails the priority
        for term, weight in own:
            topology_key = term.topology_key
            selector = term.label_selector
            if weight == 0 or not topology_key or selector is None:
                continue
            namespaces = frozenset(term.namespaces or (pod.namespace,))
            signature = f"affinity\x00{sorted(namespaces)!r}\x00{selector!r}"
            counts = cached_node_counts(
                infos,
                signature,
                lambda info, nss=namespaces, sel=(selector,), memo={}: count_pods(info, nss, sel, memo, live_only=False),
            )
            for info, n in zip(infos, counts):
                if n:
                    add(topology_key, info.node.labels, weight * n)

    # 2. Existing pods' terms against the incoming pod (symmetry).
    term_memo: dict = {}

    def matches(term, defining_namespace: str) -> bool:
        k = (id(term), defining_namespace)
        hit = term_memo.get(k)
        if hit is None:
            hit = term_memo[k] = _term_matches(term, defining_namespace, pod)
        return hit

    for info in infos:
        entry = info.cache.get("pods_with_affinity")  # pods_with_affinity(info), inlined: hot loop
        if entry is not None and entry[0] == info.generation:
            with_affinity = entry[1]
        else:
            with_affinity = pods_with_affinity(info)
        if not with_affinity:
            continue
        node_labels = info.node.labels
        for existing in with_affinity:
            ea = existing.affinity
            ns = existing.namespace
            if ea.pod_affinity is not None:
                if hard_pod_affinity_weight > 0:
                    for term in ea.pod_affinity.required:
                        if matches(term, ns):
                            add(term.topology_key, node_labels, hard_pod_affinity_weight)
                for w in ea.pod_affinity.preferred:
                    if matches(w.term, ns):
                        add(w.term.topology_key, node_labels, w.weight)
            if ea.pod_anti_affinity is not None:
                for w in ea.pod_anti_affinity.preferred:
                    if matches(w.term, ns):
                        add(w.term.topology_key, node_labels, -w.weight)

    ctx.memo[memo_key] = buckets
    return buckets


def new_inter_pod_affinity_priority(hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT):
    def inter_pod_affinity_priority(pod, ctx, infos) -> list[int]:
        buckets = topology_weights(pod, ctx, hard_pod_affinity_weight)
        if not buckets or not infos:
            return [0] * len(infos)
        counts = None
        for key, values in buckets.items():
            # values.get(None, 0) is 0: a node without the topology label gets nothing
            per_node = [values.get(info.node.labels.get(key), 0) for info in infos]
            counts = per_node if counts is None else [a + b for a, b in zip(counts, per_node)]
        max_count = max(0, max(counts))  # var maxCount, minCount float64: both start at 0
        min_count = min(0, min(counts))
        diff = max_count - min_count
        if diff <= 0:
            return [0] * len(infos)
        fdiff = float(diff)
        scores: dict[int, int] = {}
        out = []
        for c in counts:
            score = scores.get(c)
            if score is None:
                score = scores[c] = int(10.0 * (float(c - min_count) / fdiff))
            out.append(score)
        return out

    def inter_pod_affinity_vector(pod, ctx, cache, idx):
        """inter_pod_affinity_priority on the nodes `idx` (engine.scheduler.cache)."""
        buckets = topology_weights_vector(pod, cache, hard_pod_affinity_weight)
        if buckets is None:
            return None
        if not buckets:
            return np.zeros(len(idx), dtype=np.int64)
        counts = np.zeros(len(idx), dtype=np.int64)
        for key, by_value in buckets.items():
            codes = cache.label_codes(key)[0][idx]
            labelled = codes >= 0
            counts[labelled] += by_value[codes[labelled]]
        max_count = max(0, int(counts.max()))  # var maxCount, minCount float64: both start at 0
        min_count = min(0, int(counts.min()))
        diff = max_count - min_count
        if diff <= 0:
            return np.zeros(len(idx), dtype=np.int64)
        return (10.0 * ((counts - min_count).astype(np.float64) / float(diff))).astype(np.int64)

    inter_pod_affinity_priority.vector = inter_pod_affinity_vector
    inter_pod_affinity_priority.hard_pod_affinity_weight = hard_pod_affinity_weight
    return inter_pod_affinity_priority


def _existing_terms(group, hard_pod_affinity_weight: int):
    """(term, weight) of an affinity group's terms that score the incoming pod, in the
    order topology_weights reads them."""
    ea = group.affinity
    terms = []
    if ea.pod_affinity is not None:
        if hard_pod_affinity_weight > 0:
            terms += [(term, hard_pod_affinity_weight) for term in ea.pod_affinity.required]
        terms += [(w.term, w.weight) for w in ea.pod_affinity.preferred]
    if ea.pod_anti_affinity is not None:
        terms += [(w.term, -w.weight) for w in ea.pod_anti_affinity.preferred]
    return terms


def topology_weights_vector(pod, cache, hard_pod_affinity_weight: int) -> dict | None:
    """topology_weights from the cache: {topology key: summed weight per label-value code}.
    The existing pods are the cache's affinity groups (pods with pod affinity, by namespace
    and affinity; a group on k pods of a node weighs k times). None (run the plain form)
    when an existing pod has a term whose selector cannot be built: the plain form raises
    the error of the first one in node order."""
    if not cache.consistent:
        return None
    buckets: dict[str, np.ndarray] = {}

    def add(topology_key: str, nodes: np.ndarray, weights: np.ndarray) -> None:
        if not topology_key:
            return
        codes, values = cache.label_codes(topology_key)
        codes = codes[nodes]
        labelled = codes >= 0
        if not labelled.any():
            return
        bucket = buckets.get(topology_key)
        if bucket is None:
            bucket = buckets[topology_key] = np.zeros(len(values), dtype=np.int64)
        np.add.at(bucket, codes[labelled], weights[labelled])

    # 1. The incoming pod's preferred (anti-)affinity terms against every existing pod.
    own = _own_preferred_terms(pod)
    if own and cache.total_pods:
        for term, _ in own:
            _selector(term)  # a selector apimachinery refuses fails the priority
        for term, weight in own:
            selector = term.label_selector
            if weight == 0 or not term.topology_key or selector is None:
                continue
            namespaces = frozenset(term.namespaces or (pod.namespace,))
            counts = cache.pod_counts.counts(
                ("inter_pod_affinity_priority", namespaces, selector),
                namespaces,
                lambda ns, labels, namespaces=namespaces, selector=selector: ns in namespaces and selector.matches(labels),
                live_only=False,
            )
            nodes = np.flatnonzero(counts)
            add(term.topology_key, nodes, counts[nodes] * weight)

    # 2. Existing pods' terms against the incoming pod (symmetry), a group at a time.
    labels_key = frozenset(pod.labels.items())
    for group in list(cache.affinity_groups.values()):
        memo_key = ("inter_pod_affinity_priority", group, hard_pod_affinity_weight, pod.namespace, labels_key)
        matched = cache.memo.get(memo_key)
        if matched is None:
            matched = []
            for term, weight in _existing_terms(group, hard_pod_affinity_weight):
                try:
                    selector = label_selector_as_selector(term.label_selector)
                except SelectorError:
                    return None
                namespaces = term.namespaces or (group.namespace,)
                if pod.namespace in namespaces and selector.matches(pod.labels) and weight and term.topology_key:
                    matched.append((term.topology_key, weight))
            cache.memo[memo_key] = matched
        if matched:
            nodes, counts = group.node_indexes(), group.node_counts()
            for topology_key, weight in matched:
                add(topology_key, nodes, counts * weight)
    return buckets


def _own_preferred_terms(pod) -> list:
    """The incoming pod's preferred terms with signed weights: + affinity, − anti-affinity."""
    own = []
    affinity = pod.affinity
    if affinity is not None:
        if affinity.pod_affinity is not None:
            own += [(w.term, w.weight) for w in affinity.pod_affinity.preferred]
        if affinity.pod_anti_affinity is not None:
            own += [(w.term, -w.weight) for w in affinity.pod_anti_affinity.preferred]
    return own
