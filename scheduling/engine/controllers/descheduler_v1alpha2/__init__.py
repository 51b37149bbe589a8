"""The current descheduler (sigs.k8s.io/descheduler, `DeschedulerPolicy`
`descheduler/v1alpha2`) and OpenShift's Kube Descheduler Operator, as engine code.

`run_cycle(store, now, policy, dry_run)` is one descheduling cycle (descheduler.go
runDeschedulerLoop / runProfiles): the ready nodes matching the policy's `nodeSelector`
(fewer than two: the cycle is skipped), then every profile's `deschedule` plugins, then
every profile's `balance` plugins, in the order the profiles and plugins are written, the
eviction counters shared by the whole cycle. It returns a report shaped like the 3.11
run's (engine.controllers.descheduler.RunReport), so the controller, `simulate` and the
pages treat both alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.objects import Node
from scheduling.engine.controllers.descheduler_strategies.common import DeschedulerPolicyError, PlannedEviction, percentage, refresh_pdbs
from scheduling.engine.oc import OcError, parse_selector
from scheduling.engine.store import Store

from .evictor import Cycle
from .plugins import PLUGINS, node_requests
from .policy import API_VERSION, BALANCE, DESCHEDULE, KIND, PolicyV2, load_policy_v2

__all__ = ["API_VERSION", "KIND", "PolicyV2", "RunReportV2", "is_v1alpha2", "load_policy_v2", "node_usage", "run_cycle"]

SKIP_MESSAGE = "Skipping descheduling cycle: requires >=2 nodes"


def is_v1alpha2(doc: Mapping[str, Any] | None) -> bool:
    return isinstance(doc, Mapping) and doc.get("kind") == KIND and doc.get("apiVersion") == API_VERSION


@dataclass
class _Flags:
    dry_run: bool = False


@dataclass
class RunReportV2:
    policy: PolicyV2
    flags: _Flags
    nodes: list[str]
    aborted: bool
    planned: list[PlannedEviction] = field(default_factory=list)
    usage: list = field(default_factory=list)
    utilization: dict[str, list[dict]] = field(default_factory=dict)  # "<profile>/<plugin>" -> classification
    actions: list = field(default_factory=list)
    work: Store | None = None
    source: str = "DeschedulerPolicy"  # the object the run event is recorded on

    @property
    def evicted(self) -> list[PlannedEviction]:
        return [p for p in self.planned if p.evicted]

    @property
    def message(self) -> str:
        if self.aborted:
            return SKIP_MESSAGE
        n = len(self.evicted)
        return f"would evict {n} pods" if self.flags.dry_run else f"{n} pods evicted"


def ready_nodes(store: Store, selector: str) -> list[Node]:
    try:
        matches = parse_selector(selector or "")
    except OcError as exc:
        raise DeschedulerPolicyError(str(exc)) from exc
    return [n for n in (Node.from_doc(d) for d in store.list("Node")) if matches(n.labels) and n.ready]


def run_cycle(store: Store, now: float, policy: PolicyV2 | Mapping[str, Any], dry_run: bool = False, *,
              event_kind: str = "DeschedulerPolicy", event_namespace: str = "", event_name: str | None = None) -> RunReportV2:
    """One cycle over `store` (not changed: apply `report.actions`)."""
    if not isinstance(policy, PolicyV2):
        policy = load_policy_v2(policy)
    nodes = ready_nodes(store, policy.node_selector)
    report = RunReportV2(policy, _Flags(dry_run), [n.name for n in nodes], aborted=len(nodes) <= 1)
    if not report.aborted:
        work = store.copy()
        refresh_pdbs(work, now)
        cycle = Cycle(work, now, nodes, dry_run, policy.max_per_node, policy.max_per_namespace, policy.max_total,
                      failure_events=policy.failure_events)
        for point in (DESCHEDULE, BALANCE):
            for profile in policy.profiles:
                cycle.use_profile(profile)
                for plugin in profile.enabled(point):
                    result = PLUGINS[plugin](cycle, nodes, profile.args(plugin))
                    if isinstance(result, list):
                        report.utilization[f"{profile.name}/{plugin}"] = result
        report.planned = cycle.planned
        report.actions = list(cycle.actions)
        report.work = work
    report.actions.append(A.RecordEvent(now, "Normal", "DeschedulerRun", event_kind, event_namespace,
                                        event_name or policy.name, report.message, "descheduler"))
    return report


def node_usage(store: Store, node_selector: str = "") -> list[dict]:
    """Every ready node's requests as percentages of its allocatable (cpu, memory, pods), as
    the utilization plugins count them: the Descheduler page's bars when no utilization
    plugin classified the nodes."""
    nodes = ready_nodes(store, node_selector)
    cycle = Cycle(store, 0.0, nodes)
    rows = []
    for n in nodes:
        usage, cap, _ = node_requests(cycle, n)
        rows.append({"node": n.name, "classification": "",
                     **{r: round(percentage(usage[r], cap[r]), 2) for r in ("cpu", "memory", "pods")}})
    return rows
