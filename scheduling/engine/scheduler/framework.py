"""The scheduling framework's shared steps: the predicates of a policy on one node
(podFitsOnNode, with nominated pods) and the FitError message.

Both the generic scheduler (engine.scheduler.scheduler) and preemption
(engine.scheduler.preemption) build on these; neither imports the other's internals.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Mapping, Sequence

from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.scheduler.policy import Policy


def fit_error_message(num_nodes: int, filters: Mapping[str, Sequence[str]]) -> str:
    """FitError.Error(): reasons counted over nodes, "<count> <reason>" sorted as strings."""
    counts: Counter[str] = Counter()
    for reasons in filters.values():
        counts.update(reasons)
    histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
    return f"0/{num_nodes} nodes are available: {', '.join(histogram)}."


def run_predicates(pod: Pod, ctx: CycleContext, info: NodeInfo, policy: Policy) -> tuple[str, ...]:
    """The policy's predicates on one node, in 1.11 order; the failure reasons."""
    reasons: list[str] = []
    for entry in policy.predicates:
        failed = entry.fn(pod, ctx, info)
        if failed:
            reasons.extend(failed)
            if not policy.always_check_all_predicates:
                break
    return tuple(reasons)


def nominated_pods_for(pod: Pod, node: str, nominated: Mapping[str, Sequence[Pod]] | None) -> list[Pod]:
    """Pods nominated to `node` other than `pod` (the queue's WaitingPodsForNode)."""
    if not nominated:
        return []
    return [p for p in nominated.get(node, ()) if p.key != pod.key]


def pod_fits_on_node(
    pod: Pod,
    ctx: CycleContext,
    info: NodeInfo,
    policy: Policy,
    nominated: Mapping[str, Sequence[Pod]] | None = None,
) -> tuple[str, ...]:
    """podFitsOnNode: the reasons the pod does not fit `info` (empty: it fits).

    With pods nominated to the node, the first pass adds those of equal or higher priority
    (to the NodeInfo and to a fresh cycle context, as 1.11 adds them to the predicate
    metadata); the second pass, only if the first found nothing, runs without them."""
    waiting = nominated_pods_for(pod, info.name, nominated)
    if waiting:
        added = [p for p in waiting if p.priority >= pod.priority]
        if added:
            augmented = info.clone()
            for p in added:
                augmented.add_pod(dataclasses.replace(p, node_name=info.name))
            infos = dict(ctx.node_infos)
            infos[info.name] = augmented
            reasons = run_predicates(pod, ctx.without(infos), augmented, policy)
            if reasons:
                return reasons
    return run_predicates(pod, ctx, info, policy)
