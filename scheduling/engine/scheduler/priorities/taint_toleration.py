"""TaintTolerationPriority (1.11 `priorities/taint_toleration.go`).

Map: the number of the node's `PreferNoSchedule` taints that none of the pod's
tolerations with an empty or `PreferNoSchedule` effect tolerates (`NoSchedule` and
`NoExecute` taints are the predicates' business and are ignored here).
Reduce: `NormalizeReduce(10, reverse=true)`: all counts 0 -> every node 10, otherwise
`10 - 10 * count / maxCount` (integer division before the subtraction).
"""

from __future__ import annotations

from scheduling.engine.api.objects import PREFER_NO_SCHEDULE
from scheduling.engine.scheduler.priorities.normalize import normalize_reduce, normalize_reduce_array

NAME = "TaintTolerationPriority"


def prefer_no_schedule_tolerations(pod) -> tuple:
    """getAllTolerationPreferNoSchedule: an empty effect means every effect."""
    return tuple(t for t in pod.tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)


def count_intolerable_prefer_no_schedule(taints, tolerations) -> int:
    n = 0
    for taint in taints:
        if taint.effect != PREFER_NO_SCHEDULE:
            continue
        for t in tolerations:
            if t.tolerates(taint):
                break
        else:
            n += 1
    return n


def taint_toleration_priority(pod, ctx, infos) -> list[int]:
    tolerations = None
    counts = []
    for info in infos:
        taints = info.node.taints
        if not taints:
            counts.append(0)
            continue
        if tolerations is None:
            tolerations = prefer_no_schedule_tolerations(pod)
        counts.append(count_intolerable_prefer_no_schedule(taints, tolerations))
    return normalize_reduce(counts, 10, reverse=True)


def _taint_toleration_vector(pod, ctx, cache, idx):
    """taint_toleration_priority on the nodes `idx` (engine.scheduler.cache): the map depends only on
    the node and the pod's PreferNoSchedule tolerations, computed once per run for those."""
    tolerations = prefer_no_schedule_tolerations(pod)
    counts = cache.per_node(
        ("taint_toleration", tolerations),
        lambda info: count_intolerable_prefer_no_schedule(info.node.taints, tolerations) if info.node.taints else 0,
    )
    return normalize_reduce_array(counts[idx], 10, reverse=True)


taint_toleration_priority.vector = _taint_toleration_vector
