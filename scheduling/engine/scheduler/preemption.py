"""Preemption as Kubernetes 1.11 does it (genericScheduler.Preempt, generic_scheduler.go).

When a pod fits nowhere (a FitError), `preempt()`:
1. gives up if the pod already preempted and lower-priority pods are still terminating on
   its nominated node (podEligibleToPreemptOthers);
2. keeps the nodes where removing pods might help: a node that failed for a reason no
   removal can fix (node selector, host name, taints, label presence, node conditions,
   volume zone/node/binding conflicts: nodesWherePreemptionMightHelp) is skipped;
3. on each such node removes every pod of lower priority; if the pod still does not fit,
   the node is not a candidate; otherwise puts the removed pods back one at a time, from
   the highest priority down, PodDisruptionBudget-violating ones first, keeping each that
   still lets the pod fit (selectVictimsOnNode); the rest are the node's victims;
4. picks one candidate (pickOneNodeForPreemption): a node with no victims; else fewest
   PDB violations; else the lowest priority of the first victim; else the lowest sum of
   victim priorities each shifted by 2^31; else the fewest victims; else the first.

Candidates are examined and ties resolved in node order (1.11 walks a Go map, so its
"first" is arbitrary; ours is reproducible). The victims are not deleted here: the caller
marks them terminating and records the nomination (engine.scheduler.scheduler.run_queue).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.api.objects import Pod, PodDisruptionBudget
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.scheduler.predicates import (
    host_name,
    label_presence,
    node_condition,
    node_selector,
    taints,
    volume_binding,
    volume_zone,
)
from scheduling.engine.scheduler.framework import nominated_pods_for, pod_fits_on_node

# Failure reasons preemption cannot resolve (nodesWherePreemptionMightHelp, 1.11).
UNRESOLVABLE_REASONS = frozenset(
    {
        node_selector.ERR_NODE_SELECTOR_NOT_MATCH,
        host_name.ERR_POD_NOT_MATCH_HOST_NAME,
        taints.ERR_TAINTS_TOLERATIONS_NOT_MATCH,
        label_presence.ERR_NODE_LABEL_PRESENCE_VIOLATED,
        node_condition.ERR_NODE_NOT_READY,
        node_condition.ERR_NODE_NETWORK_UNAVAILABLE,
        node_condition.ERR_NODE_UNSCHEDULABLE,
        "node(s) had unknown conditions",  # ErrNodeUnknownCondition (a node without its Node object)
        volume_zone.ERR_VOLUME_ZONE_CONFLICT,
        volume_binding.ERR_VOLUME_NODE_CONFLICT,
        volume_binding.ERR_VOLUME_BIND_CONFLICT,
    }
)

MAX_INT32 = 2**31 - 1


@dataclass
class PreemptionResult:
    """What preemption found for one pod."""

    candidates: dict[str, tuple[Pod, ...]] = field(default_factory=dict)  # node -> victims, node order
    pdb_violations: dict[str, int] = field(default_factory=dict)
    nominated_node: str | None = None
    # Lower-priority pods nominated to the chosen node: their nomination is cleared.
    lower_priority_nominated: tuple[Pod, ...] = ()
    # No node where preemption might help: 1.11 also clears the preemptor's own nomination
    # ("In this case, we should clean-up any existing nominated node name of the pod").
    clear_nomination: bool = False

    @property
    def victims(self) -> tuple[Pod, ...]:
        if self.nominated_node is None:
            return ()
        return self.candidates[self.nominated_node]

    def to_doc(self) -> dict:
        return {
            "victims": {node: [p.key for p in pods] for node, pods in self.candidates.items()},
            "nominatedNode": self.nominated_node,
        }


def pod_eligible_to_preempt_others(pod: Pod, node_infos: Mapping[str, NodeInfo]) -> bool:
    """podEligibleToPreemptOthers: not while lower-priority pods terminate on the nominated node."""
    info = node_infos.get(pod.nominated_node_name) if pod.nominated_node_name else None
    if info is None:
        return True
    return not any(p.is_terminating and p.priority < pod.priority for p in info.pods)


def nodes_where_preemption_might_help(
    node_infos: Mapping[str, NodeInfo], filters: Mapping[str, Sequence[str]]
) -> list[NodeInfo]:
    return [
        info
        for name, info in node_infos.items()
        if not any(reason in UNRESOLVABLE_REASONS for reason in filters.get(name, ()))
    ]


def pdb_violated_by(pod: Pod, pdbs: Iterable[PodDisruptionBudget]) -> bool:
    """filterPodsWithPDBViolation: a matching PDB (same namespace, non-empty selector)
    that allows no more disruptions."""
    if not pod.labels:  # "A pod with no labels will not match any PDB."
        return False
    for pdb in pdbs:
        if pdb.namespace != pod.namespace or pdb.selector is None or pdb.selector.is_empty:
            continue
        if not pdb.selector.matches(pod.labels):
            continue
        if pdb.disruptions_allowed <= 0:
            return True
    return False


def select_victims_on_node(
    pod: Pod,
    ctx: CycleContext,
    info: NodeInfo,
    policy: Policy,
    pdbs: Sequence[PodDisruptionBudget],
    nominated: Mapping[str, Sequence[Pod]] | None = None,
) -> tuple[tuple[Pod, ...], int, bool]:
    """selectVictimsOnNode: (victims, number of PDB-violating victims, fits)."""
    copy = info.clone()
    infos = dict(ctx.node_infos)
    infos[info.name] = copy

    def fits() -> bool:
        # A fresh context: the cycle's precomputation must see the node as it is now.
        return not pod_fits_on_node(pod, ctx.without(infos), copy, policy, nominated)

    potential = [p for p in info.pods if p.priority < pod.priority]
    for p in potential:
        copy.remove_pod(p)
    potential.sort(key=lambda p: -p.priority)  # stable: node order among equals
    if not fits():
        return (), 0, False
    violating = [p for p in potential if pdb_violated_by(p, pdbs)]
    non_violating = [p for p in potential if not pdb_violated_by(p, pdbs)]
    victims: list[Pod] = []
    num_violating = 0
    for group, is_violating in ((violating, True), (non_violating, False)):
        for p in group:
            copy.add_pod(p)
            if not fits():
                copy.remove_pod(p)
                victims.append(p)
                if is_violating:
                    num_violating += 1
    return tuple(victims), num_violating, True


def pick_one_node_for_preemption(candidates: Mapping[str, tuple[Sequence[Pod], int]]) -> str | None:
    """pickOneNodeForPreemption over {node: (victims, pdb violations)} in node order."""
    if not candidates:
        return None
    for node, (victims, _) in candidates.items():
        if not victims:
            return node
    nodes = list(candidates)

    def keep_min(nodes: list[str], key) -> list[str]:
        best = min(key(n) for n in nodes)
        return [n for n in nodes if key(n) == best]

    nodes = keep_min(nodes, lambda n: candidates[n][1])
    # "highestPodPriority := util.GetPodPriority(victims.pods[0])": the first victim, which
    # is the highest one unless a PDB-violating victim of lower priority comes first.
    nodes = keep_min(nodes, lambda n: candidates[n][0][0].priority)
    nodes = keep_min(nodes, lambda n: sum(p.priority + MAX_INT32 + 1 for p in candidates[n][0]))
    nodes = keep_min(nodes, lambda n: len(candidates[n][0]))
    return nodes[0]


def preempt(
    pod: Pod,
    state: ClusterState,
    node_infos: Mapping[str, NodeInfo],
    policy: Policy,
    filters: Mapping[str, Sequence[str]],
    *,
    nominated: Mapping[str, Sequence[Pod]] | None = None,
    pdbs: Sequence[PodDisruptionBudget] | None = None,
) -> PreemptionResult | None:
    """Preempt for `pod`, which failed with `filters` (node -> reasons) in this cycle.

    None when the pod may not preempt again yet (preemption not considered); otherwise the
    candidates and the chosen node (None when no node can be made to fit)."""
    if not pod_eligible_to_preempt_others(pod, node_infos):
        return None
    pdbs = state.pdbs if pdbs is None else pdbs
    ctx = CycleContext(pod, state, dict(node_infos))
    result = PreemptionResult()
    potential = nodes_where_preemption_might_help(node_infos, filters)
    if not potential:
        result.clear_nomination = True
        return result
    for info in potential:
        victims, violations, fits = select_victims_on_node(pod, ctx, info, policy, pdbs, nominated)
        if fits:
            result.candidates[info.name] = victims
            result.pdb_violations[info.name] = violations
    chosen = pick_one_node_for_preemption(
        {n: (v, result.pdb_violations[n]) for n, v in result.candidates.items()}
    )
    result.nominated_node = chosen
    if chosen is not None:
        result.lower_priority_nominated = tuple(
            p for p in nominated_pods_for(pod, chosen, nominated) if p.priority < pod.priority
        )
    return result
