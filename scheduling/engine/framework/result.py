"""What one scheduling attempt of the framework returns, and the FailedScheduling message
(FitError.Error()). Shared by the node-by-node cycle (engine.framework.runtime), the
vector one (engine.framework.fast) and DefaultPreemption."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping

from scheduling.engine.framework.interface import CycleState, Status
from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.scheduler import Event, ScheduleResult

# The PodScheduled condition of a pod held by its scheduling gates (reason SchedulingGated).
SCHEDULING_GATED_REASON = "SchedulingGated"
SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


@dataclass
class FrameworkResult(ScheduleResult):
    """A scheduling attempt under the framework: `filters` has each node's reasons as for
    1.11, `statuses` the Status behind them (plugin and code; success for a node that fits)."""

    statuses: dict[str, Status] = field(default_factory=dict)
    evaluated: tuple[str, ...] = ()  # the nodes the decision looked at (numFeasibleNodesToFind)
    prefilter_message: str = ""
    postfilter_message: str = ""
    domain_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # PodTopologySpread, for the reader
    gated: bool = False  # held by PreEnqueue (scheduling gates): no attempt was made

    def events(self):
        """Scheduled or FailedScheduling, and a Preempted event on each victim (v1.35 words:
        `Preempted by pod <uid> on node <node>`; a pod without a UID, as a file may give one, by its
        namespace/name)."""
        if self.gated:
            return []
        pod = self.pod
        obj = f"Pod/{pod.namespace}/{pod.name}"
        if self.node is not None:
            return [Event(self.time, "Normal", "Scheduled", obj, f"Successfully assigned {pod.namespace}/{pod.name} to {self.node}")]
        events = [Event(self.time, "Warning", "FailedScheduling", obj, self.message or "")]
        pr = self.preemption
        if pr is not None and pr.nominated_node is not None:
            for victim in pr.victims:
                events.append(Event(self.time, "Normal", "Preempted", f"Pod/{victim.namespace}/{victim.name}",
                                    f"Preempted by pod {pod.uid or pod.key} on node {pr.nominated_node}"))
        return events


# --- the message -----------------------------------------------------------------------------------


def fit_error_message(num_all_nodes: int, statuses: Mapping[str, Status], prefilter_message: str = "",
                      postfilter_message: str = "", absent: Status | None = None) -> str:
    """FitError.Error(): `0/N nodes are available: <reasons counted and sorted>.` and the
    PostFilter message (` preemption: ...`). `absent` is the status of the nodes not in
    `statuses` (none evaluated them)."""
    message = f"0/{num_all_nodes} nodes are available:"
    if prefilter_message:
        message += f" {prefilter_message}."
    else:
        counts: Counter[str] = Counter()
        for status in statuses.values():
            counts.update(status.reasons)
        if absent is not None and len(statuses) < num_all_nodes:
            for reason in absent.reasons:
                counts[reason] += num_all_nodes - len(statuses)
        histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
        if histogram:
            message += f" {', '.join(histogram)}."
    if postfilter_message:
        message += f" {postfilter_message}" + ("" if postfilter_message.endswith(".") else ".")
    return message


def fit_error(framework, cs: CycleState, pod: Pod, result: FrameworkResult, num_nodes: int,
               preemption: bool) -> FrameworkResult:
    if preemption and framework.points["postFilter"]:
        outcome, message = framework.run_post_filter(cs, pod, result.statuses)
        result.preemption = outcome
        result.postfilter_message = message
    result.message = fit_error_message(num_nodes, result.statuses, result.prefilter_message, result.postfilter_message)
    return result


