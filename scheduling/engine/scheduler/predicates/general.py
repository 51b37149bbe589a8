"""GeneralPredicates (Kubernetes 1.11): the non-critical predicate (PodFitsResources), then
the essential ones (HostName, PodFitsHostPorts, MatchNodeSelector), every sub-check run and
ALL their reasons accumulated in that order (`GeneralPredicates`, `noncriticalPredicates`,
`EssentialPredicates` in predicates.go)."""

from __future__ import annotations

from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.predicates.host_name import pod_fits_host
from scheduling.engine.scheduler.predicates.host_ports import pod_fits_host_ports
from scheduling.engine.scheduler.predicates.node_selector import pod_match_node_selector
from scheduling.engine.scheduler.predicates.resources import pod_fits_resources

NAME = "GeneralPredicates"


def noncritical_predicates(pod: Pod, ctx, info) -> tuple[str, ...]:
    return pod_fits_resources(pod, ctx, info)


def essential_predicates(pod: Pod, ctx, info) -> tuple[str, ...]:
    return pod_fits_host(pod, ctx, info) + pod_fits_host_ports(pod, ctx, info) + pod_match_node_selector(pod, ctx, info)


def general_predicates(pod: Pod, ctx, info) -> tuple[str, ...]:
    """GeneralPredicates."""
    return noncritical_predicates(pod, ctx, info) + essential_predicates(pod, ctx, info)


def _general_mask(pod: Pod, ctx, cache):
    """Where all four checks pass (engine.scheduler.cache)."""
    return cache.all_of((pod_fits_resources, pod_fits_host, pod_fits_host_ports, pod_match_node_selector), pod, ctx)


general_predicates.mask = _general_mask
