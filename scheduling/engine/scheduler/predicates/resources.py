"""PodFitsResources (Kubernetes 1.11 `predicates.PodFitsResources`).

* The pod-count check always runs first: `len(nodeInfo.Pods())+1 > allowedPodNumber`
  (allocatable `pods`; a node without it admits nothing) -> `Insufficient pods`.
* A pod that requests nothing (no cpu, memory, ephemeral-storage and no scalar resource
  named at all, even with "0") stops there.
* The pod's request is `GetResourceRequest`: the sum over its containers, then per
  resource the max with each init container (`SetMaxResource`).
* The node's used amount is the sum of its pods' regular containers' requests, without
  the priorities' non-zero defaults (`NodeInfo.requested`).
* Strict comparison: fails when `allocatable < request + used`; equality fits.
* Order: pods, cpu, memory, ephemeral-storage, then the scalar resources (sorted by name
  here; Go iterates a map). Only "scalar" names count (`v1helper.IsScalarResourceName`:
  extended resources such as `example.com/gpu`, `hugepages-*`, `*kubernetes.io/*`,
  `attachable-volumes-*`); a plain name such as `foo` is ignored, as in 1.11. A scalar the
  node does not have counts as allocatable 0.
* Extended resources whose names the scheduler policy's extenders mark
  `ignoredByScheduler` are skipped: the scheduler puts that set of names in
  `ctx.memo[IGNORED_EXTENDED_RESOURCES]` (1.11's `predicateMetadata.ignoredExtendedResources`).
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.cache import SAFE_MAGNITUDE
from scheduling.engine.api.objects import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod, Resource
from scheduling.engine.api.quantity import stored_milli_value, stored_value
from scheduling.engine.scheduler.predicates.node_selector import is_qualified_name

NAME = "PodFitsResources"
ERR_INSUFFICIENT_PODS = "Insufficient pods"
ERR_INSUFFICIENT_CPU = "Insufficient cpu"
ERR_INSUFFICIENT_MEMORY = "Insufficient memory"
ERR_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"
REASONS = (ERR_INSUFFICIENT_PODS, ERR_INSUFFICIENT_CPU, ERR_INSUFFICIENT_MEMORY, ERR_INSUFFICIENT_EPHEMERAL_STORAGE)

# ctx.memo key under which the scheduler may put the ignored extended resource names.
IGNORED_EXTENDED_RESOURCES = "ignored_extended_resources"
_MEMO = "resources"

_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
_REQUESTS_PREFIX = "requests."


def insufficient(resource_name: str) -> str:
    """InsufficientResourceError.GetReason."""
    return f"Insufficient {resource_name}"


def is_native_resource(name: str) -> bool:
    return "/" not in name or _DEFAULT_NAMESPACE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    if is_native_resource(name) or name.startswith(_REQUESTS_PREFIX):
        return False
    return is_qualified_name(_REQUESTS_PREFIX + name)


def is_scalar_resource_name(name: str) -> bool:
    """v1helper.IsScalarResourceName."""
    return (
        is_extended_resource_name(name)
        or name.startswith("hugepages-")
        or _DEFAULT_NAMESPACE_PREFIX in name
        or name.startswith("attachable-volumes-")
    )


def resource_request(pod: Pod) -> Resource:
    """GetResourceRequest: sum(containers), then SetMaxResource with each init container.
    Scalars: every scalar name a container mentions (even with 0); an init container only
    raises (or adds) a scalar whose value is greater than what is there."""
    result = Resource()
    for c in pod.containers:
        for name, q in c.requests.items():
            _add(result, name, q)
    for c in pod.init_containers:
        for name, q in c.requests.items():
            milli = stored_milli_value(q)  # (a quantity that does not parse fails here, whatever its name)
            if name == CPU:
                result.milli_cpu = max(result.milli_cpu, milli)
            elif name == MEMORY:
                result.memory = max(result.memory, stored_value(q))
            elif name == EPHEMERAL_STORAGE:
                result.ephemeral_storage = max(result.ephemeral_storage, stored_value(q))
            elif name != PODS and is_scalar_resource_name(name):
                v = stored_value(q)
                if v > result.scalar.get(name, 0):
                    result.scalar[name] = v
    return result


def _add(result: Resource, name: str, q) -> None:
    if name == CPU:
        result.milli_cpu += stored_milli_value(q)
    elif name == MEMORY:
        result.memory += stored_value(q)
    elif name == EPHEMERAL_STORAGE:
        result.ephemeral_storage += stored_value(q)
    elif name == PODS:
        result.allowed_pods += stored_value(q)
    elif is_scalar_resource_name(name):
        result.scalar[name] = result.scalar.get(name, 0) + stored_value(q)
    else:
        stored_value(q)  # a quantity that does not parse fails whatever its name


def _pod_request(pod: Pod, ctx) -> Resource:
    memo = ctx.memo.setdefault(_MEMO, {}) if ctx is not None else {}
    cached = memo.get(id(pod))
    if cached is not None and cached[0] is pod:
        return cached[1]
    request = resource_request(pod)
    memo[id(pod)] = (pod, request)
    return request


def pod_fits_resources(pod: Pod, ctx, info) -> tuple[str, ...]:
    """PodFitsResources."""
    reasons: list[str] = []
    allocatable = info.allocatable
    if len(info.pods) + 1 > allocatable.allowed_pods:
        reasons.append(ERR_INSUFFICIENT_PODS)

    request = _pod_request(pod, ctx)
    if request.milli_cpu == 0 and request.memory == 0 and request.ephemeral_storage == 0 and not request.scalar:
        return tuple(reasons)

    used = info.requested
    if allocatable.milli_cpu < request.milli_cpu + used.milli_cpu:
        reasons.append(ERR_INSUFFICIENT_CPU)
    if allocatable.memory < request.memory + used.memory:
        reasons.append(ERR_INSUFFICIENT_MEMORY)
    if allocatable.ephemeral_storage < request.ephemeral_storage + used.ephemeral_storage:
        reasons.append(ERR_INSUFFICIENT_EPHEMERAL_STORAGE)

    ignored = (ctx.memo.get(IGNORED_EXTENDED_RESOURCES) if ctx is not None else None) or ()
    for name in sorted(request.scalar):
        if name in ignored and is_extended_resource_name(name):
            continue
        if allocatable.scalar.get(name, 0) < request.scalar[name] + used.scalar.get(name, 0):
            reasons.append(insufficient(name))
    return tuple(reasons)


def fits_resources(cache, nodes, request: Resource) -> np.ndarray:
    """pod_fits_resources passing, on the cache's `nodes` (indexes or a slice), for a
    request without extended resources."""
    fits = cache.pod_count[nodes] + 1 <= cache.allowed_pods[nodes]
    if request.milli_cpu == 0 and request.memory == 0 and request.ephemeral_storage == 0:
        return fits
    fits &= cache.alloc_cpu[nodes] >= cache.req_cpu[nodes] + request.milli_cpu
    fits &= cache.alloc_mem[nodes] >= cache.req_mem[nodes] + request.memory
    fits &= cache.alloc_eph[nodes] >= cache.req_eph[nodes] + request.ephemeral_storage
    return fits


def _fits_resources_mask(pod: Pod, ctx, cache):
    """pod_fits_resources on every node (engine.scheduler.cache): whether a node fits depends only on
    the node and the request, so the mask is kept per request and only the nodes whose
    pods changed are checked again. Declines (None) for extended resources and for
    amounts beyond int64-safe arithmetic."""
    request = _pod_request(pod, ctx)
    if request.scalar or not cache.exact:
        return None
    amounts = (request.milli_cpu, request.memory, request.ephemeral_storage)
    if not all(-SAFE_MAGNITUDE < v < SAFE_MAGNITUDE for v in amounts):
        return None
    return cache.node_local(
        (NAME, amounts),
        lambda nodes: fits_resources(cache, nodes, request),
        lambda info: not pod_fits_resources(pod, ctx, info),
    )


pod_fits_resources.mask = _fits_resources_mask
