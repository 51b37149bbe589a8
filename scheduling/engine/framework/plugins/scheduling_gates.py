"""SchedulingGates (pkg/scheduler/framework/plugins/schedulinggates): a pod with
`spec.schedulingGates` stays out of the activeQ until every gate is removed."""

from __future__ import annotations

from scheduling.engine.framework.interface import OK, Plugin, Status, UNRESOLVABLE
from scheduling.engine.api.objects import Pod


class SchedulingGates(Plugin):
    name = "SchedulingGates"
    events = frozenset({"Pod/UpdatePodSchedulingGatesEliminated"})

    def pre_enqueue(self, pod: Pod) -> Status:
        if not pod.scheduling_gates:
            return OK
        # fmt.Sprintf("waiting for scheduling gates: %v", gates) of a []string
        return Status(UNRESOLVABLE, (f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]",))
