"""Helpers the plugins share (pkg/scheduler/framework/plugins/helper): the default score
normalisation and the broken linear function of RequestedToCapacityRatio."""

from __future__ import annotations

from typing import Callable, Sequence

from scheduling.engine.scheduler.priorities.normalize import go_div


def default_normalize_score(max_priority: int, reverse: bool, scores: dict) -> None:
    """DefaultNormalizeScore, in place on `scores` (node name -> score): each score scaled to
    [0, max_priority] by the highest one (Go integer division); `reverse` flips it. All zero:
    unchanged, or every score max_priority when reversed."""
    max_count = 0
    for score in scores.values():
        if score > max_count:
            max_count = score
    if max_count == 0:
        if reverse:
            for name in scores:
                scores[name] = max_priority
        return
    for name, score in scores.items():
        score = go_div(max_priority * score, max_count)
        scores[name] = max_priority - score if reverse else score


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """BuildBrokenLinearFunction over (utilization, score) points sorted by utilization:
    the first score up to the first point, linear in between (Go integer arithmetic), the
    last score beyond the last point."""
    points = tuple(shape)

    def fn(p: int) -> int:
        for i, (utilization, score) in enumerate(points):
            if p <= utilization:
                if i == 0:
                    return points[0][1]
                prev_u, prev_s = points[i - 1]
                return prev_s + go_div((score - prev_s) * (p - prev_u), utilization - prev_u)
        return points[-1][1]

    return fn


# CycleState key under which a PreFilter plugin leaves its PreFilterResult: {plugin name:
# frozenset of node names}; only those nodes can fit (the runtime intersects them and
# gives the others "node(s) didn't satisfy plugin(s) [...]"). A plugin that leaves none
# means all nodes.
PRE_FILTER_RESULT_KEY = "PreFilterResult"


def set_pre_filter_result(cs, plugin: str, node_names) -> None:
    results = cs.get(PRE_FILTER_RESULT_KEY)
    if results is None:
        results = cs[PRE_FILTER_RESULT_KEY] = {}
    results[plugin] = frozenset(node_names)
