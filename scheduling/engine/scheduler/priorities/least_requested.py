"""LeastRequestedPriority (1.11 `priorities/least_requested.go` + `resource_allocation.go`).

Per node, with the pod's and the node's *non-zero* requests (unset cpu/memory requests
count as 100m/200Mi, `priorities/util/non_zero.go`) against `status.allocatable`:

    leastRequestedScore(requested, capacity):
        if capacity == 0 { return 0 }; if requested > capacity { return 0 }
        return ((capacity - requested) * 10) / capacity
    score = (leastRequestedScore(cpu) + leastRequestedScore(memory)) / 2

Integer division twice (per resource, then the average). No reduce.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.cache import per_request_vector

NAME = "LeastRequestedPriority"


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * 10 // capacity  # both >= 0 here: floor == Go truncation


def least_requested_priority(pod, ctx, infos) -> list[int]:
    pod_cpu, pod_mem = pod.non_zero_request
    out = []
    for info in infos:
        alloc = info.node.allocatable_resource
        cap_cpu = alloc.milli_cpu
        cap_mem = alloc.memory
        cpu = pod_cpu + info.non_zero_cpu
        mem = pod_mem + info.non_zero_memory
        s_cpu = 0 if cap_cpu <= 0 or cpu > cap_cpu else (cap_cpu - cpu) * 10 // cap_cpu
        s_mem = 0 if cap_mem <= 0 or mem > cap_mem else (cap_mem - mem) * 10 // cap_mem
        out.append((s_cpu + s_mem) // 2)
    return out


def least_requested_scores(cache, nodes, pod_cpu: int, pod_mem: int) -> np.ndarray:
    """least_requested_priority's scores of the cache's `nodes` (indexes or a slice)."""
    out = None
    for cap, used, request in ((cache.alloc_cpu[nodes], cache.nz_cpu[nodes], pod_cpu), (cache.alloc_mem[nodes], cache.nz_mem[nodes], pod_mem)):
        requested = used + request
        score = np.where((cap <= 0) | (requested > cap), 0, (cap - requested) * 10 // np.maximum(cap, 1))
        out = score if out is None else out + score
    return out // 2


least_requested_priority.vector = per_request_vector(NAME, least_requested_priority, least_requested_scores)
