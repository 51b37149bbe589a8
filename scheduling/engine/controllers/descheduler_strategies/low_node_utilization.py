"""LowNodeUtilization (pkg/descheduler/strategies/lownodeutilization.go, v3.11.0).

* Parameters: `thresholds` must be non-empty and name only cpu, memory or pods;
  `targetThresholds` must be given and name pods; otherwise the strategy does nothing.
* A node's usage (NodeUtilization): the requests of its pods (not Succeeded/Failed) as
  percentages of Allocatable (Capacity when Allocatable is empty) for cpu and memory --
  BestEffort pods add nothing, non-evictable pods count -- and the number of pods for
  `pods`.
* A schedulable node whose usage is at or below every threshold it names is
  underutilized; a node above any named target threshold is overutilized; the others
  are left alone.
* Nothing happens when no node is underutilized, when fewer than `numberOfNodes` are,
  when every node is, or when none is overutilized.
* The amount to move is what the underutilized nodes can take up to the targets (pods,
  and cpu / memory when the targets name them). Overutilized nodes are visited from the
  most used (cpu + memory + pods percentages; ties keep node order), and from each,
  BestEffort pods first, then Burstable, then Guaranteed, are evicted while the node is
  still above a target, something is left to move, and the per-node limit allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from scheduling.engine.api.objects import CPU, MEMORY, PODS, Node, Pod
from .common import LOW_NODE_UTILIZATION, RunContext, Strategy, is_evictable, node_capacity, percentage, pod_requests

RESOURCES = (CPU, MEMORY, PODS)

LOW = "underutilized"
TARGET = "overutilized"
APPROPRIATE = "appropriately utilized"


@dataclass
class NodeUsage:
    node: Node
    usage: dict[str, float]
    all_pods: list[Pod] = field(default_factory=list)
    non_removable: list[Pod] = field(default_factory=list)
    best_effort: list[Pod] = field(default_factory=list)
    burstable: list[Pod] = field(default_factory=list)
    guaranteed: list[Pod] = field(default_factory=list)
    classification: str = APPROPRIATE


def valid_thresholds(thresholds: Mapping[str, float] | None) -> bool:
    """validateThresholds."""
    return bool(thresholds) and all(name in RESOURCES for name in thresholds)


def valid_target_thresholds(targets: Mapping[str, float] | None) -> bool:
    """validateTargetThresholds."""
    return targets is not None and PODS in targets


def node_utilization(node: Node, pods: Sequence[Pod]) -> NodeUsage:
    """NodeUtilization."""
    result = NodeUsage(node, {}, list(pods))
    cpu = mem = 0
    for pod in pods:
        best_effort = pod.qos_class == "BestEffort"
        if not is_evictable(pod):
            result.non_removable.append(pod)
            if best_effort:
                continue
        elif best_effort:
            result.best_effort.append(pod)
            continue
        elif pod.qos_class == "Burstable":
            result.burstable.append(pod)
        else:
            result.guaranteed.append(pod)
        c, m = pod_requests(pod)
        cpu += c
        mem += m
    cap_cpu, cap_mem, cap_pods = node_capacity(node)
    result.usage = {
        CPU: percentage(cpu, cap_cpu),
        MEMORY: percentage(mem, cap_mem),
        PODS: percentage(len(pods), cap_pods),
    }
    return result


def is_above_target(usage: Mapping[str, float], targets: Mapping[str, float]) -> bool:
    """IsNodeAboveTargetUtilization."""
    return any(name in targets and value > targets[name] for name, value in usage.items() if name in RESOURCES)


def is_low(usage: Mapping[str, float], thresholds: Mapping[str, float]) -> bool:
    """IsNodeWithLowUtilization."""
    return not any(name in thresholds and value > thresholds[name] for name, value in usage.items() if name in RESOURCES)


def classify(ctx: RunContext, nodes: Sequence[Node], thresholds: Mapping[str, float], targets: Mapping[str, float]) -> list[NodeUsage]:
    """classifyNodes (every node, with its classification)."""
    out = []
    for node in nodes:
        nu = node_utilization(node, ctx.pods_on(node))
        if not node.unschedulable and is_low(nu.usage, thresholds):
            nu.classification = LOW
        elif is_above_target(nu.usage, targets):
            nu.classification = TARGET
        out.append(nu)
    return out


def skip_reason(strategy: Strategy, usages: Sequence[NodeUsage]) -> str | None:
    """Why the strategy stops before evicting (upstream's log lines), or None."""
    t = strategy.thresholds
    if not valid_thresholds(t.thresholds):
        return "only cpu, memory, or pods thresholds can be specified" if t.thresholds else "no resource threshold is configured"
    if not valid_target_thresholds(t.target_thresholds):
        if t.target_thresholds is None:
            return "no target resource threshold is configured"
        return "no target resource threshold for pods is configured"
    low = [u for u in usages if u.classification == LOW]
    target = [u for u in usages if u.classification == TARGET]
    if not low:
        return "No node is underutilized, nothing to do here, you might tune your thersholds further"
    if len(low) < t.number_of_nodes:
        return f"number of nodes underutilized ({len(low)}) is less than NumberOfNodes ({t.number_of_nodes}), nothing to do here"
    if len(low) == len(usages):
        return "all nodes are underutilized, nothing to do here"
    if not target:
        return "all nodes are under target utilization, nothing to do here"
    return None


def _fmt(usage: Mapping[str, float]) -> str:
    return ", ".join(f"{name} {usage[name]:.0f}%" for name in RESOURCES if name in usage)


def run(ctx: RunContext, nodes: Sequence[Node], strategy: Strategy) -> list[NodeUsage]:
    """Evict; returns the nodes' usage as classified before any eviction (the preview's bars)."""
    if not strategy.enabled:
        return []
    t = strategy.thresholds
    if not valid_thresholds(t.thresholds) or not valid_target_thresholds(t.target_thresholds):
        return []
    thresholds, targets = dict(t.thresholds or {}), dict(t.target_thresholds or {})
    usages = classify(ctx, nodes, thresholds, targets)
    snapshot = [NodeUsage(u.node, dict(u.usage), classification=u.classification) for u in usages]
    if skip_reason(strategy, usages) is not None:
        return snapshot
    low = [u for u in usages if u.classification == LOW]
    target = sorted((u for u in usages if u.classification == TARGET),
                    key=lambda u: -sum(v for k, v in u.usage.items() if k in RESOURCES))
    totals = {PODS: 0.0, CPU: 0.0, MEMORY: 0.0}
    for u in low:
        cap_cpu, cap_mem, cap_pods = node_capacity(u.node)
        totals[PODS] += (targets[PODS] - u.usage[PODS]) * cap_pods / 100
        if CPU in targets:
            totals[CPU] += (targets[CPU] - u.usage[CPU]) * cap_cpu / 100
        if MEMORY in targets:
            totals[MEMORY] += (targets[MEMORY] - u.usage[MEMORY]) * cap_mem / 100
    for u in target:
        reason = f"node {u.node.name} is above the target utilization ({_fmt(u.usage)})"
        for group in (u.best_effort, u.burstable, u.guaranteed):
            _evict_pods(ctx, u, group, targets, totals, reason)
    return snapshot


def _evict_pods(ctx: RunContext, u: NodeUsage, pods: Sequence[Pod], targets: Mapping[str, float],
                totals: dict[str, float], reason: str) -> None:
    """evictPods."""
    if not (is_above_target(u.usage, targets) and (totals[PODS] > 0 or totals[CPU] > 0 or totals[MEMORY] > 0)):
        return
    cap_cpu, cap_mem, cap_pods = node_capacity(u.node)
    one_pod = percentage(1, cap_pods)
    for pod in pods:
        if ctx.limit_reached(u.node):
            break
        if ctx.terminating(pod):
            continue
        cpu, mem = pod_requests(pod)
        if not ctx.evict(pod, u.node, LOW_NODE_UTILIZATION, reason):
            continue
        ctx.counts[u.node.name] = ctx.counts.get(u.node.name, 0) + 1
        u.usage[PODS] -= one_pod
        totals[PODS] -= 1
        totals[CPU] -= cpu
        u.usage[CPU] -= percentage(cpu, cap_cpu) if cpu else 0.0
        totals[MEMORY] -= mem
        u.usage[MEMORY] -= percentage(mem, cap_mem) if mem else 0.0
        if not is_above_target(u.usage, targets) or (totals[PODS] <= 0 and totals[CPU] <= 0 and totals[MEMORY] <= 0):
            break
