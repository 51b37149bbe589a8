"""PodToleratesNodeTaints and PodToleratesNodeNoExecuteTaints (Kubernetes 1.11).

Every taint that passes the filter must be tolerated by some toleration
(`v1helper.TolerationsTolerateTaintsWithFilter`, `Toleration.ToleratesTaint`).
PodToleratesNodeTaints looks at NoSchedule and NoExecute taints ("PodToleratesNodeTaints
is only interested in NoSchedule and NoExecute taints"); PreferNoSchedule never blocks.
PodToleratesNodeNoExecuteTaints looks at NoExecute taints only. Both report the same reason.
"""

from __future__ import annotations

from scheduling.engine.api.objects import NO_EXECUTE, NO_SCHEDULE, Pod

NAME = "PodToleratesNodeTaints"
NO_EXECUTE_NAME = "PodToleratesNodeNoExecuteTaints"
ERR_TAINTS_TOLERATIONS_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
REASONS = (ERR_TAINTS_TOLERATIONS_NOT_MATCH,)


def tolerations_tolerate_taints(tolerations, taints, effects) -> bool:
    """TolerationsTolerateTaintsWithFilter with a filter on the taint's effect."""
    for taint in taints:
        if taint.effect not in effects:
            continue
        if not any(t.tolerates(taint) for t in tolerations):
            return False
    return True


def pod_tolerates_node_taints(pod: Pod, ctx, info) -> tuple[str, ...]:
    """PodToleratesNodeTaints: NoSchedule and NoExecute taints."""
    if tolerations_tolerate_taints(pod.tolerations, info.node.taints, (NO_SCHEDULE, NO_EXECUTE)):
        return ()
    return (ERR_TAINTS_TOLERATIONS_NOT_MATCH,)


def pod_tolerates_node_no_execute_taints(pod: Pod, ctx, info) -> tuple[str, ...]:
    """PodToleratesNodeNoExecuteTaints: NoExecute taints only."""
    if tolerations_tolerate_taints(pod.tolerations, info.node.taints, (NO_EXECUTE,)):
        return ()
    return (ERR_TAINTS_TOLERATIONS_NOT_MATCH,)


# Both read only the node and the pod's tolerations: the scheduler's cache (engine.scheduler.cache)
# computes them once per run for each set of tolerations.
pod_tolerates_node_taints.static_key = lambda pod: pod.tolerations
pod_tolerates_node_no_execute_taints.static_key = lambda pod: pod.tolerations
