"""RemovePodsViolatingNodeAffinity (pkg/descheduler/strategies/node_affinity.go, v3.11.0).

For each entry of `params.nodeAffinityType` (only
`requiredDuringSchedulingIgnoredDuringExecution` is known; an unknown entry ends the
strategy there): on every node, each evictable pod with a required node affinity that its
node no longer satisfies (nodeSelector and the required terms' matchExpressions, as
pkg/utils/predicates.go reads them) is evicted when another node fits it (PodFitsAnyNode:
the FIRST node whose labels match decides, and only if it is schedulable -- upstream's
quirk, kept). Upstream counts the pod against the node's limit whether or not the
eviction API accepted it; so do we.
"""

from __future__ import annotations

from typing import Sequence

from scheduling.engine.api.objects import Node, Pod
from scheduling.engine.scheduler.predicates.node_selector import (
    SelectorError,
    node_selector_requirements_as_selector,
    selector_from_set,
)
from .common import REMOVE_NODE_AFFINITY, REQUIRED_DURING_SCHEDULING, RunContext, Strategy


def pod_matches_node_labels(pod: Pod, node: Node) -> bool:
    """utils.podMatchesNodeLabels (the descheduler's copy: matchExpressions only)."""
    if pod.node_selector and not selector_from_set(pod.node_selector).matches(node.labels):
        return False
    affinity = pod.affinity
    if affinity is None or affinity.node_affinity is None or affinity.node_affinity.required is None:
        return True
    for term in affinity.node_affinity.required:
        try:
            selector = node_selector_requirements_as_selector(term.match_expressions)
        except SelectorError:
            return False
        if selector.matches(node.labels):
            return True
    return False


def pod_fits_any_node(pod: Pod, nodes: Sequence[Node]) -> bool:
    """PodFitsAnyNode: the first node whose labels match answers (False if cordoned)."""
    for node in nodes:
        if pod_matches_node_labels(pod, node):
            return not node.unschedulable
    return False


def has_required_node_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return a is not None and a.node_affinity is not None and a.node_affinity.required is not None


def run(ctx: RunContext, nodes: Sequence[Node], strategy: Strategy) -> None:
    if not strategy.enabled:
        return
    for affinity_type in strategy.node_affinity_type:
        if affinity_type != REQUIRED_DURING_SCHEDULING:
            return  # glog.Errorf("invalid nodeAffinityType: %v")
        for node in nodes:
            for pod in ctx.evictable_pods_on(node):
                if ctx.limit_reached(node):
                    break
                if not has_required_node_affinity(pod):
                    continue
                if not pod_matches_node_labels(pod, node) and pod_fits_any_node(pod, nodes):
                    reason = f"node {node.name} no longer satisfies its {REQUIRED_DURING_SCHEDULING} node affinity"
                    ctx.evict(pod, node, REMOVE_NODE_AFFINITY, reason)
                    ctx.counts[node.name] = ctx.counts.get(node.name, 0) + 1
