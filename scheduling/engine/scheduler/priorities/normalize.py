"""Helpers shared by the priorities.

* `normalize_reduce`: `NormalizeReduce` of 1.11 `priorities/reduce.go`.
* `go_div`: Go's int64 division (truncates toward zero; Python's `//` floors).
* `PriorityError`: a priority failed the way a 1.11 priority returns an error.
* per-node derived data cached across cycles (`node_cached`, `cached_node_counts`) and
  the per-node index of pods by namespace and label set (`pod_index`, `count_pods`) that
  keep the spreading and inter-pod affinity priorities O(nodes) per pod.

Label selectors are built (and refused) by `engine.scheduler.predicates.node_selector`, shared with
the predicates.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np

MAX_PRIORITY = 10  # schedulerapi.MaxPriority


class PriorityError(Exception):
    """A 1.11 priority returned an error: `PrioritizeNodes` fails, so the scheduling
    attempt fails with this message (a FailedScheduling event, no preemption)."""


def go_div(a: int, b: int) -> int:
    """Go integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def normalize_reduce(scores: Sequence[int | float], max_priority: int = MAX_PRIORITY, reverse: bool = False) -> list[int]:
    """`NormalizeReduce(maxPriority, reverse)` (reduce.go):

        var maxCount int; for ... if result[i].Score > maxCount { maxCount = result[i].Score }
        if maxCount == 0 { if reverse { every score = maxPriority }; return }
        score = maxPriority * score / maxCount; if reverse { score = maxPriority - score }

    Scores are Go ints (a float is truncated first, as Go's int conversion would).
    """
    ints = [s if type(s) is int else int(s) for s in scores]
    max_count = 0
    for s in ints:
        if s > max_count:
            max_count = s
    if max_count == 0:
        return [max_priority] * len(ints) if reverse else ints
    out = []
    for s in ints:
        score = go_div(max_priority * s, max_count)
        out.append(max_priority - score if reverse else score)
    return out


def normalize_reduce_array(scores: np.ndarray, max_priority: int = MAX_PRIORITY, reverse: bool = False) -> np.ndarray:
    """`normalize_reduce` over an int64 array (the scheduler's fast path)."""
    max_count = int(scores.max(initial=0))
    if max_count == 0:
        return np.full(len(scores), max_priority, dtype=np.int64) if reverse else scores
    scaled = max_priority * scores
    if scores.min() >= 0:
        out = scaled // max_count  # floor is Go's truncation for non-negative operands
    else:
        q = np.abs(scaled) // max_count
        out = np.where(scaled >= 0, q, -q)  # go_div, elementwise
    return max_priority - out if reverse else out


# --- per-node derived data, cached across cycles ----------------------------------------
#
# NodeInfo.cache (engine.scheduler.cluster) keeps data derived from a node's pods between scheduling
# cycles, each entry tagged with the generation it was computed for (add_pod/remove_pod
# bump it; a clone starts with an empty cache). This is what keeps the priorities that
# look at the pods of every node O(nodes) per pod instead of O(pods).

_CACHE_LIMIT = 512  # entries per node; the cache is emptied (and rebuilt lazily) beyond


def node_cached(info, key: str, build: Callable[[Any], Any], token: Any = None) -> Any:
    """`build(info)`, cached on the NodeInfo while `token` (default: its generation)
    stays the same."""
    if token is None:
        token = info.generation
    cache = info.cache
    entry = cache.get(key)
    if entry is not None and (entry[0] is token or entry[0] == token):
        return entry[1]
    value = build(info)
    cache[key] = (token, value)
    return value


def cached_node_counts(infos: Iterable, signature: str, count: Callable[[Any], int]) -> list[int]:
    """`[count(info) for info in infos]`, each cached on its NodeInfo under `signature`
    (a string naming what is counted, e.g. the namespace and selectors) for the node's
    current generation: after a pod is bound only that node is counted again."""
    out = []
    append = out.append
    for info in infos:
        cache = info.cache
        entry = cache.get(signature)
        if entry is not None and entry[0] == info.generation:
            append(entry[1])
            continue
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        n = count(info)
        cache[signature] = (info.generation, n)
        append(n)
    return out


Group = tuple  # (labels_key: frozenset, labels: Mapping[str, str], pods: int, pods_not_terminating: int)


def _build_pod_index(info) -> tuple[dict[str, tuple[Group, ...]], dict[tuple[str, str, str], tuple[Group, ...]]]:
    by_ns: dict[str, dict[frozenset, list]] = {}
    for p in info.pods:
        key = frozenset(p.labels.items())
        groups = by_ns.get(p.namespace)
        if groups is None:
            groups = by_ns[p.namespace] = {}
        g = groups.get(key)
        if g is None:
            g = groups[key] = [key, p.labels, 0, 0]
        g[2] += 1
        if p.deletion_timestamp is None:
            g[3] += 1
    grouped = {ns: tuple(tuple(g) for g in groups.values()) for ns, groups in by_ns.items()}
    index: dict[tuple[str, str, str], list[Group]] = {}
    for ns, groups in grouped.items():
        for g in groups:
            for k, v in g[1].items():
                index.setdefault((ns, k, v), []).append(g)
    return grouped, {k: tuple(v) for k, v in index.items()}


def pod_index(info) -> tuple[dict[str, tuple[Group, ...]], dict[tuple[str, str, str], tuple[Group, ...]]]:
    """The node's pods grouped by namespace, then by label set:
    ({namespace: ((labels_key, labels, pods, pods_not_terminating), ...)},
     {(namespace, label key, label value): (the groups carrying that label, ...)})."""
    return node_cached(info, "pod_index", _build_pod_index)


def pod_groups(info) -> dict[str, tuple[Group, ...]]:
    """{namespace: ((labels_key, labels, pods, pods_not_terminating), ...)} for the node."""
    return pod_index(info)[0]


def count_pods(info, namespaces, selectors: Sequence, memo: dict, live_only: bool) -> int:
    """The pods of `info` in `namespaces` (one namespace as a str, a container of them, or
    None for all) whose labels match *any* of `selectors` (LabelSelectors, not None);
    only the pods not being deleted when `live_only`. `memo` caches, per (namespace,
    label set), whether the selectors match: pass the same dict for the same selectors.
    Selectors with matchLabels only look at the groups carrying their first label."""
    idx = 3 if live_only else 2
    by_ns, index = pod_index(info)
    if isinstance(namespaces, str):
        names = (namespaces,) if namespaces in by_ns else ()
    elif namespaces is None:
        names = by_ns
    else:
        names = [ns for ns in by_ns if ns in namespaces]
    indexed = all(s.match_labels for s in selectors)
    n = 0
    for ns in names:
        if indexed:
            candidates: dict[frozenset, Group] = {}
            for s in selectors:
                k, v = s.match_labels[0]
                for g in index.get((ns, k, v), ()):
                    candidates[g[0]] = g
            groups = candidates.values()
        else:
            groups = by_ns[ns]
        for g in groups:
            if not g[idx]:
                continue
            mk = (ns, g[0])
            hit = memo.get(mk)
            if hit is None:
                labels = g[1]
                hit = memo[mk] = any(s.matches(labels) for s in selectors)
            if hit:
                n += g[idx]
    return n


def has_pod_affinity(pod) -> bool:
    """schedulercache `hasPodAffinityConstraints`."""
    a = pod.affinity
    return a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None)


def _build_pods_with_affinity(info) -> list:
    return [p for p in info.pods if has_pod_affinity(p)]


def pods_with_affinity(info) -> list:
    """NodeInfo.PodsWithAffinity()."""
    return node_cached(info, "pods_with_affinity", _build_pods_with_affinity)


# --- the same counts from the scheduler's cache (engine.scheduler.cache) -------------------------------------


def live_pods_matching_any(cache, namespace: str, selectors: Sequence):
    """Per node (every node, node order), the pods of `namespace` not being deleted whose
    labels match any of `selectors` (LabelSelectors): `count_pods(info, namespace,
    selectors, ..., live_only=True)` for all nodes, kept up to date by the cache."""
    selectors = tuple(selectors)
    return cache.pod_counts.counts(
        ("live_pods_matching_any", namespace, selectors),
        (namespace,),
        lambda ns, labels: any(s.matches(labels) for s in selectors),
        live_only=True,
    )
