"""DefaultPreemption (plugins/defaultpreemption and framework/preemption, v1.35): the
PostFilter plugin that frees a node for a pod that fits nowhere.

* Eligibility: `preemptionPolicy: Never` never preempts; a pod whose nominated node has a
  lower-priority pod terminating waits for it.
* Candidates: the nodes whose Filter status was Unschedulable (not
  UnschedulableAndUnresolvable), tried from an offset (random upstream, drawn from the
  cluster's generator here only when it matters: more potential nodes than candidates
  wanted) until enough candidates are found (`minCandidateNodesPercentage` 10,
  `minCandidateNodesAbsolute` 100).
* Victims on a node: every lower-priority pod removed, the pod must then fit; the victims
  are reprieved most important first (higher priority, then earlier start), PDB-violating
  ones before the others.
* The node: fewest PDB violations, then the lowest highest-priority victim, the lowest sum
  of priorities, the fewest victims, the latest start among the highest-priority victims,
  then the first in candidate order.
* Messages as upstream: `preemption: not eligible due to preemptionPolicy=Never.`,
  `preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.api.objects import Pod
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import CycleState, Plugin, Status
from scheduling.engine.framework.result import fit_error_message
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.preemption import MAX_INT32, PreemptionResult

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NEVER = "not eligible due to preemptionPolicy=Never."
TERMINATING = "not eligible due to a terminating pod on the nominated node."


def validate_args(args: Mapping[str, Any]) -> None:
    pct = args.get("minCandidateNodesPercentage", 10)
    absolute = args.get("minCandidateNodesAbsolute", 100)
    if not isinstance(pct, int) or not 0 <= pct <= 100:
        raise fw.ArgsError(f"minCandidateNodesPercentage: Invalid value: {pct}: not in valid range [0, 100]")
    if not isinstance(absolute, int) or absolute < 0:
        raise fw.ArgsError(f"minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)")
    if pct == 0 and absolute == 0:
        raise fw.ArgsError("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                           "minCandidateNodesAbsolute")


def _start_key(pod: Pod):
    """For MoreImportantPod and the latest-start rule: a pod without a start time counts as
    starting now (later than any that started)."""
    return (1, "") if not pod.start_time else (0, str(pod.start_time))


def more_important(a: Pod, b: Pod) -> bool:
    """MoreImportantPod: higher priority, then the earlier start."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return _start_key(a) < _start_key(b)


def sort_by_importance(pods: list[Pod]) -> list[Pod]:
    return sorted(pods, key=lambda p: (-p.priority, _start_key(p)))


def split_pdb_violations(pods: Sequence[Pod], pdbs) -> tuple[list[Pod], list[Pod]]:
    """filterPodsWithPDBViolation: (violating, non-violating), each budget's allowed
    disruptions spent as its pods are counted."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating, non_violating = [], []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or pdb.selector is None or pdb.selector.is_empty:
                    continue
                if not pdb.selector.matches(pod.labels):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


class DefaultPreemption(Plugin):
    name = "DefaultPreemption"

    def __init__(self, args, handle):
        super().__init__(args, handle)
        validate_args(self.args)
        self.min_pct = int(self.args.get("minCandidateNodesPercentage", 10))
        self.min_abs = int(self.args.get("minCandidateNodesAbsolute", 100))
        self.rng = None  # set by the runtime for the offset draw

    # --- eligibility ------------------------------------------------------------------------------

    def eligible(self, pod: Pod, statuses: Mapping[str, Status]) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, NEVER
        node = pod.nominated_node_name
        if node:
            status = statuses.get(node)
            # The nominated node was rejected for good: preemption may look elsewhere.
            if status is not None and status.code == fw.UNRESOLVABLE:
                return True, ""
            info = self.handle.node_infos.get(node)
            if info is not None and any(p.priority < pod.priority and p.is_terminating for p in info.pods):
                return False, TERMINATING
        return True, ""

    # --- PostFilter -------------------------------------------------------------------------------

    def post_filter(self, cs: CycleState, pod: Pod, statuses: Mapping[str, Status]):
        ok, message = self.eligible(pod, statuses)
        if not ok:
            return None, fw.unschedulable("preemption: " + message)
        infos = self.handle.node_infos
        potential = [infos[name] for name, st in statuses.items() if st.code == fw.UNSCHEDULABLE and name in infos]
        result = PreemptionResult()
        if not potential:
            result.clear_nomination = True
            return result, fw.unschedulable("preemption: " + self._fit_error(len(infos), {}))
        offset, wanted = self._offset_and_count(len(potential))
        pdbs = self.handle.state.pdbs
        node_statuses: dict[str, Status] = {}
        non_violating: list[tuple[str, tuple[Pod, ...], int]] = []
        violating: list[tuple[str, tuple[Pod, ...], int]] = []
        for i in range(len(potential)):
            info = potential[(offset + i) % len(potential)]
            victims, violations, status = self.select_victims_on_node(cs.clone(), pod, info.clone(), pdbs)
            if status.is_success and not victims:
                status = fw.error(f'expected at least one victim pod on node "{info.name}"')
            if status.is_success:
                (non_violating if violations == 0 else violating).append((info.name, victims, violations))
                if non_violating and len(non_violating) + len(violating) >= wanted:
                    break
            else:
                node_statuses[info.name] = status
        candidates = non_violating + violating
        if not candidates:
            return result, fw.unschedulable("preemption: " + self._fit_error(len(infos), node_statuses))
        for name, victims, violations in candidates:
            result.candidates[name] = victims
            result.pdb_violations[name] = violations
        best = self.pick_one_node(candidates)
        result.nominated_node = best
        result.lower_priority_nominated = tuple(
            p for p in self.handle.nominated.get(best, ()) if p.priority < pod.priority and p.key != pod.key)
        return result, fw.OK

    def _fit_error(self, num_nodes: int, node_statuses: Mapping[str, Status]) -> str:
        return fit_error_message(num_nodes, node_statuses, absent=fw.unresolvable(NOT_HELPFUL))

    def _offset_and_count(self, num_nodes: int) -> tuple[int, int]:
        """GetOffsetAndNumCandidates."""
        n = num_nodes * self.min_pct // 100
        if n < self.min_abs:
            n = self.min_abs
        if n > num_nodes:
            n = num_nodes
        offset = 0
        if n < num_nodes and self.rng is not None:
            offset = self.rng.randrange(num_nodes)
        return offset, n

    def select_victims_on_node(self, cs: CycleState, pod: Pod, info: NodeInfo, pdbs) -> tuple[tuple[Pod, ...], int, Status]:
        """SelectVictimsOnNode on a copy of the node and of the cycle state."""
        framework = self.handle.framework
        potential = [p for p in info.pods if p.priority < pod.priority]
        if not potential:
            return (), 0, fw.unresolvable(NO_VICTIMS)
        for victim in potential:
            info.remove_pod(victim)
            framework.remove_pod(cs, pod, victim, info)
        status = framework.run_filter_with_nominated_pods(cs, pod, info)
        if not status.is_success:
            return (), 0, status
        potential = sort_by_importance(potential)
        violating, non_violating = split_pdb_violations(potential, pdbs)
        victims: list[Pod] = []
        num_violating = 0

        def reprieve(p: Pod) -> bool:
            info.add_pod(p)
            framework.add_pod(cs, pod, p, info)
            fits = framework.run_filter_with_nominated_pods(cs, pod, info).is_success
            if not fits:
                info.remove_pod(p)
                framework.remove_pod(cs, pod, p, info)
                victims.append(p)
            return fits

        for p in violating:
            if not reprieve(p):
                num_violating += 1
        for p in non_violating:
            reprieve(p)
        if violating and non_violating:
            victims = sort_by_importance(victims)
        return tuple(victims), num_violating, fw.OK

    @staticmethod
    def pick_one_node(candidates: Sequence[tuple[str, tuple[Pod, ...], int]]) -> str:
        """pickOneNodeForPreemption: each rule keeps the candidates with the best score."""
        if not candidates:
            return ""
        by_name = {name: (victims, violations) for name, victims, violations in candidates}
        nodes = [name for name, _, _ in candidates]

        def earliest_start_of_highest(name: str):
            victims = by_name[name][0]
            top = max(p.priority for p in victims)
            starts = [_start_key(p) for p in victims if p.priority == top]
            return min(starts)

        rules = [
            lambda n: -by_name[n][1],
            lambda n: -(by_name[n][0][0].priority if by_name[n][0] else -MAX_INT32 - 1),
            lambda n: -sum(p.priority + MAX_INT32 + 1 for p in by_name[n][0]),
            lambda n: -len(by_name[n][0]),
        ]
        for rule in rules:
            best = max(rule(n) for n in nodes)
            nodes = [n for n in nodes if rule(n) == best]
            if len(nodes) == 1:
                return nodes[0]
        latest = max(earliest_start_of_highest(n) for n in nodes)
        nodes = [n for n in nodes if earliest_start_of_highest(n) == latest]
        return nodes[0]
