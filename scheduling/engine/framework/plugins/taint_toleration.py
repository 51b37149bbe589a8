"""TaintToleration (pkg/scheduler/framework/plugins/tainttoleration).

Filter: a NoSchedule or NoExecute taint no toleration matches rejects the node,
UnschedulableAndUnresolvable, `node(s) had untolerated taint(s)` (v1.35's wording).
Score: the number of PreferNoSchedule taints the pod's PreferNoSchedule (or effect-less)
tolerations don't tolerate; NormalizeScore reverses it (fewest untolerated: 100).
The `Gt`/`Lt` toleration operators (alpha TaintTolerationComparisonOperators, off by
default) tolerate nothing, as with the gate off.
"""

from __future__ import annotations

from scheduling.engine.framework.interface import MAX_NODE_SCORE, OK, Plugin, Status, unresolvable
from scheduling.engine.framework.plugins.helper import default_normalize_score
from scheduling.engine.api.objects import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, Pod
from scheduling.engine.scheduler.cluster import NodeInfo

NAME = "TaintToleration"
ERR_REASON_NOT_MATCH = "node(s) had untolerated taint(s)"
PRE_SCORE_STATE_KEY = "PreScore" + NAME


def _untolerated(taints, tolerations, effects) -> bool:
    for taint in taints:
        if taint.effect in effects and not any(t.tolerates(taint) for t in tolerations):
            return True
    return False


def count_intolerable_taints_prefer_no_schedule(taints, tolerations) -> int:
    count = 0
    for taint in taints:
        if taint.effect == PREFER_NO_SCHEDULE and not any(t.tolerates(taint) for t in tolerations):
            count += 1
    return count


class TaintToleration(Plugin):
    name = NAME
    events = frozenset({"Node/Add", "Node/UpdateNodeTaint", "Pod/UpdatePodToleration"})

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        taints = info.node.taints
        if taints and _untolerated(taints, pod.tolerations, (NO_SCHEDULE, NO_EXECUTE)):
            return unresolvable(ERR_REASON_NOT_MATCH)
        return OK

    def pre_score(self, cs, pod: Pod, nodes) -> Status:
        cs[PRE_SCORE_STATE_KEY] = tuple(
            t for t in pod.tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)
        return OK

    def score(self, cs, pod: Pod, info: NodeInfo) -> int:
        taints = info.node.taints
        if not taints:
            return 0
        tolerations = cs.get(PRE_SCORE_STATE_KEY)
        if tolerations is None:
            tolerations = tuple(t for t in pod.tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)
        return count_intolerable_taints_prefer_no_schedule(taints, tolerations)

    def normalize_score(self, cs, pod: Pod, scores: dict) -> None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
