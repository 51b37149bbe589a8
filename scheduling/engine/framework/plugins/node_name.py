"""NodeName (pkg/scheduler/framework/plugins/nodename): a pod with `spec.nodeName` fits
only the node of that name."""

from __future__ import annotations

from scheduling.engine.framework.interface import OK, Plugin, Status, unresolvable
from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.cluster import NodeInfo

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, info: NodeInfo) -> bool:
    return not pod.node_name or pod.node_name == info.node.name


class NodeName(Plugin):
    name = NAME
    events = frozenset({"Node/Add"})

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        return OK if fits(pod, info) else unresolvable(ERR_REASON)
