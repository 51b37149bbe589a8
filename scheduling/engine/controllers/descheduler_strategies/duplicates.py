"""RemoveDuplicates (pkg/descheduler/strategies/duplicates.go, v3.11.0).

On every node, the evictable pods are grouped by each of their ownerReferences
(`Kind/name`); in a group of more than one, every pod but the first (in the API's list
order) is evicted, while the node's eviction count stays under the per-node limit. A pod
with two owners is counted in both groups (as upstream). The strategy has no parameters.
"""

from __future__ import annotations

from typing import Sequence

from scheduling.engine.api.objects import Node, Pod
from .common import REMOVE_DUPLICATES, RunContext, Strategy


def find_duplicate_pods(pods: Sequence[Pod]) -> dict[str, list[Pod]]:
    """FindDuplicatePods: creator ("Kind/name") -> its pods, creators in first-seen order."""
    groups: dict[str, list[Pod]] = {}
    for pod in pods:
        for ref in pod.owner_references:
            groups.setdefault(f"{ref.kind}/{ref.name}", []).append(pod)
    return groups


def run(ctx: RunContext, nodes: Sequence[Node], strategy: Strategy) -> None:
    if not strategy.enabled:
        return
    for node in nodes:
        for creator, pods in find_duplicate_pods(ctx.evictable_pods_on(node)).items():
            if len(pods) <= 1:
                continue
            for pod in pods[1:]:
                if ctx.limit_reached(node):
                    break
                if ctx.evict(pod, node, REMOVE_DUPLICATES, f"another pod of {creator} ({pods[0].name}) runs on node {node.name}"):
                    ctx.counts[node.name] = ctx.counts.get(node.name, 0) + 1
