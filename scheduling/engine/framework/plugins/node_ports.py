"""NodePorts (pkg/scheduler/framework/plugins/nodeports): the pod's host ports
(regular containers' `hostPort` > 0) must be free on the node, as
HostPortInfo.CheckConflict decides (0.0.0.0 conflicts with every IP). Unschedulable,
`node(s) didn't have free ports for the requested pod ports`.

Restartable init containers' (sidecars') ports are not counted: the engine's Container has
no `restartPolicy`.
"""

from __future__ import annotations

from scheduling.engine.framework.interface import OK, SKIPPED, Plugin, Status, unschedulable
from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.predicates.host_ports import ports_conflict

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME


def fits_ports(wanted, info: NodeInfo) -> bool:
    used = info.used_ports
    if not used:
        return True
    for p in wanted:
        if ports_conflict(used, p.host_ip, p.protocol, p.host_port):
            return False
    return True


class NodePorts(Plugin):
    name = NAME
    events = frozenset({"AssignedPod/Delete", "Node/Add"})

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        wanted = pod.host_ports
        if not wanted:
            return SKIPPED
        cs[PRE_FILTER_STATE_KEY] = wanted
        return OK

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        wanted = cs.get(PRE_FILTER_STATE_KEY)
        if wanted is None:
            wanted = pod.host_ports
        if wanted and not fits_ports(wanted, info):
            return unschedulable(ERR_REASON)
        return OK
