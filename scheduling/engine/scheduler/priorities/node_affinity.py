"""NodeAffinityPriority (1.11 `priorities/node_affinity.go`).

Map: the sum of `weight` over the pod's `preferredDuringSchedulingIgnoredDuringExecution`
node-affinity terms whose `preference.matchExpressions` match the node's labels
(`count += preferredSchedulingTerm.Weight`). Terms with weight 0 are skipped; only
`matchExpressions` are read (`matchFields` is ignored); an empty `matchExpressions`
matches nothing (`NodeSelectorRequirementsAsSelector`: `if len(nsm) == 0 { return
labels.Nothing() }`). A requirement `labels.NewRequirement` rejects (say a value that is
not a valid label value) makes the priority return an error: `PriorityError`.
Reduce: `NormalizeReduce(10, false)`.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.predicates.node_selector import (
    SelectorError,
    node_selector_requirements_as_selector,
)
from scheduling.engine.scheduler.priorities.normalize import PriorityError, normalize_reduce, normalize_reduce_array

NAME = "NodeAffinityPriority"


def _preferred_terms(pod) -> list[tuple[int, object]]:
    """(weight, built selector) of each preferred term with a non-zero weight."""
    affinity = pod.affinity
    if affinity is None or affinity.node_affinity is None:
        return []
    terms = []
    for term in affinity.node_affinity.preferred:
        if term.weight == 0:
            continue
        try:
            # an empty matchExpressions builds labels.Nothing(); matchFields are not read
            selector = node_selector_requirements_as_selector(term.preference.match_expressions)
        except SelectorError as e:
            raise PriorityError(str(e)) from None
        terms.append((term.weight, selector))
    return terms


def node_affinity_priority(pod, ctx, infos) -> list[int]:
    if not infos:
        return []
    terms = ctx.memo.get("node_affinity")
    if terms is None:
        terms = ctx.memo["node_affinity"] = _preferred_terms(pod)
    if not terms:
        return [0] * len(infos)
    counts = []
    for info in infos:
        labels = info.node.labels
        count = 0
        for weight, selector in terms:
            if selector.matches(labels):
                count += weight
        counts.append(count)
    return normalize_reduce(counts, 10, reverse=False)


def _node_affinity_vector(pod, ctx, cache, idx):
    """node_affinity_priority on the nodes `idx` (engine.scheduler.cache): the map depends only on the
    node and the pod's preferred terms, so it is computed once per run for those terms."""
    terms = ctx.memo.get("node_affinity")
    if terms is None:
        terms = ctx.memo["node_affinity"] = _preferred_terms(pod)
    if not terms:
        return np.zeros(len(idx), dtype=np.int64)
    key = tuple(terms)

    def count(info) -> int:
        labels = info.node.labels
        return sum(weight for weight, selector in key if selector.matches(labels))

    counts = cache.per_node(("node_affinity", key), count)
    return normalize_reduce_array(counts[idx], 10, reverse=False)


node_affinity_priority.vector = _node_affinity_vector
