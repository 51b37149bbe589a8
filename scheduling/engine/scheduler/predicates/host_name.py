"""HostName (Kubernetes 1.11 `predicates.PodFitsHost`): a pod whose `spec.nodeName` is set
fits only the node of that name."""

from __future__ import annotations

from scheduling.engine.api.objects import Pod

NAME = "HostName"
ERR_POD_NOT_MATCH_HOST_NAME = "node(s) didn't match the requested hostname"
REASONS = (ERR_POD_NOT_MATCH_HOST_NAME,)


def pod_fits_host(pod: Pod, ctx, info) -> tuple[str, ...]:
    """PodFitsHost."""
    if not pod.node_name or pod.node_name == info.node.name:
        return ()
    return (ERR_POD_NOT_MATCH_HOST_NAME,)


# Reads only the node and the pod's nodeName: the scheduler's cache (engine.scheduler.cache) computes it
# once per run for each nodeName.
pod_fits_host.static_key = lambda pod: pod.node_name
