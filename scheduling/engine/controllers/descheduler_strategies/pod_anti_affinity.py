"""RemovePodsViolatingInterPodAntiAffinity (pkg/descheduler/strategies/pod_antiaffinity.go,
v3.11.0).

On every node, in list order, an evictable pod whose own required pod anti-affinity terms
match another evictable pod on the same node (same namespaces and selector, compared by
name; topology is not looked at) is evicted and leaves the list, so that its partner may
stay. A term whose selector does not parse ends the check for that pod (no eviction).
"""

from __future__ import annotations

from typing import Sequence

from scheduling.engine.api.objects import Node, Pod
from scheduling.engine.scheduler.predicates.inter_pod_affinity import (
    pod_matches_term_namespace_and_selector,
    required_anti_affinity_terms,
    term_namespaces,
    term_selector,
)
from scheduling.engine.scheduler.predicates.node_selector import SelectorError
from .common import REMOVE_POD_ANTI_AFFINITY, RunContext, Strategy


def anti_affinity_partner(pod: Pod, pods: Sequence[Pod]) -> Pod | None:
    """checkPodsWithAntiAffinityExist: the first pod of `pods` one of `pod`'s required
    anti-affinity terms matches (None: none)."""
    for term in required_anti_affinity_terms(pod):
        try:
            selector = term_selector(term)
        except SelectorError:
            return None
        namespaces = term_namespaces(pod, term)
        for existing in pods:
            if existing.name != pod.name and pod_matches_term_namespace_and_selector(existing, namespaces, selector):
                return existing
    return None


def run(ctx: RunContext, nodes: Sequence[Node], strategy: Strategy) -> None:
    if not strategy.enabled:
        return
    for node in nodes:
        pods = ctx.evictable_pods_on(node)
        i = 0
        while i < len(pods):
            if ctx.limit_reached(node):
                break
            partner = anti_affinity_partner(pods[i], pods)
            if partner is not None:
                reason = f"its required pod anti-affinity matches {partner.namespace}/{partner.name} on node {node.name}"
                if ctx.evict(pods[i], node, REMOVE_POD_ANTI_AFFINITY, reason):
                    ctx.counts[node.name] = ctx.counts.get(node.name, 0) + 1
                    del pods[i]
                    continue
            i += 1
