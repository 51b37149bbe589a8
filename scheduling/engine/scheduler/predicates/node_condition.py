"""CheckNodeCondition, CheckNodeMemoryPressure, CheckNodeDiskPressure (Kubernetes 1.11).

CheckNodeCondition walks `status.conditions` in order: `Ready` present and not `True` ->
not ready; `OutOfDisk` present and not `False` -> out of disk; `NetworkUnavailable` present
and not `False` -> unavailable network; then `spec.unschedulable` -> unschedulable. A node
without any conditions is schedulable. CheckNodeMemoryPressure blocks only BestEffort pods
on a node whose `MemoryPressure` is `True`; CheckNodeDiskPressure blocks every pod when
`DiskPressure` is `True`. Reason texts from predicates/error.go.
"""

from __future__ import annotations

from scheduling.engine.api.objects import Pod

NAME = "CheckNodeCondition"
MEMORY_PRESSURE_NAME = "CheckNodeMemoryPressure"
DISK_PRESSURE_NAME = "CheckNodeDiskPressure"

ERR_NODE_NOT_READY = "node(s) were not ready"
ERR_NODE_OUT_OF_DISK = "node(s) were out of disk space"
ERR_NODE_NETWORK_UNAVAILABLE = "node(s) had unavailable network"
ERR_NODE_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_NODE_UNDER_MEMORY_PRESSURE = "node(s) had memory pressure"
ERR_NODE_UNDER_DISK_PRESSURE = "node(s) had disk pressure"
REASONS = (
    ERR_NODE_NOT_READY,
    ERR_NODE_OUT_OF_DISK,
    ERR_NODE_NETWORK_UNAVAILABLE,
    ERR_NODE_UNSCHEDULABLE,
    ERR_NODE_UNDER_MEMORY_PRESSURE,
    ERR_NODE_UNDER_DISK_PRESSURE,
)


def check_node_condition(pod: Pod, ctx, info) -> tuple[str, ...]:
    """CheckNodeConditionPredicate."""
    node = info.node
    reasons = []
    for kind, status in node.conditions.items():
        if kind == "Ready" and status != "True":
            reasons.append(ERR_NODE_NOT_READY)
        elif kind == "OutOfDisk" and status != "False":
            reasons.append(ERR_NODE_OUT_OF_DISK)
        elif kind == "NetworkUnavailable" and status != "False":
            reasons.append(ERR_NODE_NETWORK_UNAVAILABLE)
    if node.unschedulable:
        reasons.append(ERR_NODE_UNSCHEDULABLE)
    return tuple(reasons)


# Read only the node: the scheduler's cache (engine.scheduler.cache) computes them once per run.
check_node_condition.static_key = lambda pod: None


def check_node_memory_pressure(pod: Pod, ctx, info) -> tuple[str, ...]:
    """CheckNodeMemoryPressurePredicate: BestEffort pods only."""
    if pod.qos_class != "BestEffort":
        return ()
    if info.node.conditions.get("MemoryPressure") == "True":
        return (ERR_NODE_UNDER_MEMORY_PRESSURE,)
    return ()


check_node_memory_pressure.static_key = lambda pod: pod.qos_class  # ... and of the pod, its QoS class


def check_node_disk_pressure(pod: Pod, ctx, info) -> tuple[str, ...]:
    """CheckNodeDiskPressurePredicate."""
    if info.node.conditions.get("DiskPressure") == "True":
        return (ERR_NODE_UNDER_DISK_PRESSURE,)
    return ()


check_node_disk_pressure.static_key = lambda pod: None
