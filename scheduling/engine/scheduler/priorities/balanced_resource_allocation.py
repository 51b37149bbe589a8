"""BalancedResourceAllocation (1.11 `priorities/balanced_resource_allocation.go`).

Non-zero requests of the pod plus the node's, against `status.allocatable`:

    fractionOfCapacity(requested, capacity): if capacity == 0 { return 1 }
                                             return float64(requested) / float64(capacity)
    if cpuFraction >= 1 || memoryFraction >= 1 { return 0 }
    diff := math.Abs(cpuFraction - memoryFraction)
    return int64((1 - diff) * float64(10))

A node with zero allocatable cpu or memory scores 0. The BalanceAttachedNodeVolumes
feature gate is off in 1.11, so volumes are not counted. No reduce.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine.scheduler.cache import per_request_vector

NAME = "BalancedResourceAllocation"


def fraction_of_capacity(requested: int, capacity: int) -> float:
    if capacity == 0:
        return 1.0
    return float(requested) / float(capacity)  # float64(a) / float64(b), not a correctly rounded a/b


def balanced_score(cpu: int, cap_cpu: int, mem: int, cap_mem: int) -> int:
    cpu_fraction = fraction_of_capacity(cpu, cap_cpu)
    mem_fraction = fraction_of_capacity(mem, cap_mem)
    if cpu_fraction >= 1 or mem_fraction >= 1:
        return 0
    diff = abs(cpu_fraction - mem_fraction)
    return int((1 - diff) * 10.0)


def balanced_resource_allocation(pod, ctx, infos) -> list[int]:
    pod_cpu, pod_mem = pod.non_zero_request
    out = []
    for info in infos:
        alloc = info.node.allocatable_resource
        cap_cpu = alloc.milli_cpu
        cap_mem = alloc.memory
        # balanced_score, inlined (hot loop)
        cpu_fraction = float(pod_cpu + info.non_zero_cpu) / float(cap_cpu) if cap_cpu != 0 else 1.0
        mem_fraction = float(pod_mem + info.non_zero_memory) / float(cap_mem) if cap_mem != 0 else 1.0
        if cpu_fraction >= 1 or mem_fraction >= 1:
            out.append(0)
        else:
            out.append(int((1 - abs(cpu_fraction - mem_fraction)) * 10.0))
    return out


def _fractions(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """fraction_of_capacity elementwise: float64(requested) / float64(capacity), 1 where capacity is 0."""
    out = np.ones(len(capacity), dtype=np.float64)
    np.divide(requested.astype(np.float64), capacity.astype(np.float64), out=out, where=capacity != 0)
    return out


def balanced_scores(cache, nodes, pod_cpu: int, pod_mem: int) -> np.ndarray:
    """balanced_resource_allocation's scores of the cache's `nodes` (indexes or a slice)."""
    cpu_fraction = _fractions(cache.nz_cpu[nodes] + pod_cpu, cache.alloc_cpu[nodes])
    mem_fraction = _fractions(cache.nz_mem[nodes] + pod_mem, cache.alloc_mem[nodes])
    score = ((1 - np.abs(cpu_fraction - mem_fraction)) * 10.0).astype(np.int64)
    return np.where((cpu_fraction >= 1) | (mem_fraction >= 1), 0, score)


balanced_resource_allocation.vector = per_request_vector(NAME, balanced_resource_allocation, balanced_scores)
