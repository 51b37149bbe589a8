"""MostRequestedPriority (1.11 `priorities/most_requested.go` + `resource_allocation.go`).

Same inputs as LeastRequested (non-zero requests of the pod plus the node's, against
`status.allocatable`):

    mostRequestedScore(requested, capacity):
        if capacity == 0 { return 0 }; if requested > capacity { return 0 }
        return (requested * 10) / capacity
    score = (mostRequestedScore(cpu) + mostRequestedScore(memory)) / 2

An over-committed resource scores 0, not 10. No reduce.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.cache import per_request_vector

NAME = "MostRequestedPriority"


def most_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return requested * 10 // capacity


def most_requested_priority(pod, ctx, infos) -> list[int]:
    pod_cpu, pod_mem = pod.non_zero_request
    out = []
    for info in infos:
        alloc = info.node.allocatable_resource
        cap_cpu = alloc.milli_cpu
        cap_mem = alloc.memory
        cpu = pod_cpu + info.non_zero_cpu
        mem = pod_mem + info.non_zero_memory
        s_cpu = 0 if cap_cpu <= 0 or cpu > cap_cpu else cpu * 10 // cap_cpu
        s_mem = 0 if cap_mem <= 0 or mem > cap_mem else mem * 10 // cap_mem
        out.append((s_cpu + s_mem) // 2)
    return out


def most_requested_scores(cache, nodes, pod_cpu: int, pod_mem: int) -> np.ndarray:
    """most_requested_priority's scores of the cache's `nodes` (indexes or a slice)."""
    out = None
    for cap, used, request in ((cache.alloc_cpu[nodes], cache.nz_cpu[nodes], pod_cpu), (cache.alloc_mem[nodes], cache.nz_mem[nodes], pod_mem)):
        requested = used + request
        score = np.where((cap <= 0) | (requested > cap), 0, requested * 10 // np.maximum(cap, 1))
        out = score if out is None else out + score
    return out // 2


most_requested_priority.vector = per_request_vector(NAME, most_requested_priority, most_requested_scores)
