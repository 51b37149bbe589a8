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
