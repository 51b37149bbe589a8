"""NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable): a node with
`spec.unschedulable` takes only the pods that tolerate the
`node.kubernetes.io/unschedulable:NoSchedule` taint."""

from __future__ import annotations

from scheduling.engine.framework.interface import OK, Plugin, Status, unresolvable
from scheduling.engine.api.objects import NO_SCHEDULE, Pod, Taint, tolerations_tolerate_taint
from scheduling.engine.scheduler.cluster import NodeInfo

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = Taint(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE)


class NodeUnschedulable(Plugin):
    name = NAME
    events = frozenset({"Node/Add", "Node/UpdateNodeTaint", "Pod/UpdatePodToleration"})

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        if not info.node.unschedulable:
            return OK
        # If the pod tolerates the unschedulable taint, it tolerates spec.unschedulable too.
        if tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return OK
        return unresolvable(ERR_REASON_UNSCHEDULABLE)
