"""The descheduler (OpenShift 3.11's Descheduler documentation; openshift/descheduler v3.11.0) as a
controller of the engine.

`run_descheduler(store, now, policy, flags)` is one run of the binary (the Job the documentation runs it as):
the ready nodes (those matching `--node-selector`), nothing at all with one or fewer of
them; then RemoveDuplicates, LowNodeUtilization, RemovePodsViolatingInterPodAntiAffinity
and RemovePodsViolatingNodeAffinity, in that order, sharing the per-node eviction count
(`--max-pods-to-evict-per-node`). Evictions go through the eviction API
(engine.controllers.eviction.evict: PodDisruptionBudgets may refuse them); each
eviction records a `Descheduled` event naming the strategy, and the run one
`DeschedulerRun` event on `DeschedulerPolicy/<name>`: "<N> pods evicted", or, with
`--dry-run` (nothing evicted), "would evict <N> pods".

`preview(...)` is the dry run that goes further: for every pod the run would evict, the
strategy, the reason, and where the scheduler would then place it (or the
FailedScheduling message), computed on a copy of the store with the engine scheduler:
the pods the eviction API would let go are taken off their nodes and put back unbound,
as the replacements their controllers create would be, and the scheduling queue runs
(every other pending pod competes, as it would). A PodDisruptionBudget's refusal is
reported instead of a landing.

`Descheduler` follows the controller protocol (engine.controller). Its configuration is
`ctx.settings["descheduler"]`, the shape of Cluster.descheduler:
`{"policy": {...DeschedulerPolicy...}, "interval": seconds | null, "flags": {...}}`.
With a policy it runs once when it first sees the cluster (after the scheduler's first
pass: it comes after the scheduler in CONTROLLERS), once more for each run asked for
(`runRequests`, a counter), and every `interval` seconds when one is set. On OpenShift 4
the configuration is instead the stored `KubeDescheduler` object (see `Descheduler`); a
KubeDescheduler document in the setting is not read. Its own state: `lastRun` (simulated
seconds), `runs`, `runRequests` (handled), `lastReport` (the last run as JSON: report_doc)
and `spec` (the KubeDescheduler spec the operator last synced).
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api.objects import DEFAULT_SCHEDULER, Node
from scheduling.engine.controller import Context, rng_for
from scheduling.engine.controllers.scheduling import build_state
from scheduling.engine.oc import OcError, parse_selector
from scheduling.engine.scheduler.policy import Policy, default_policy
from scheduling.engine.scheduler.scheduler import run_queue
from scheduling.engine.store import Store, time_value
from scheduling.engine.controllers import eviction
from scheduling.engine.framework import runtime as framework_runtime
from scheduling.engine.controllers import descheduler_v1alpha2 as v1alpha2
from scheduling.engine.controllers.descheduler_v1alpha2 import operator as kube_operator
from scheduling.engine.controllers.descheduler_strategies import (
    duplicates,
    low_node_utilization,
    node_affinity,
    pod_anti_affinity,
)
from scheduling.engine.controllers.descheduler_strategies.common import (
    ABORT_MESSAGE,
    DEFAULT_POLICY_NAME,
    LOW_NODE_UTILIZATION,
    REMOVE_DUPLICATES,
    REMOVE_NODE_AFFINITY,
    REMOVE_POD_ANTI_AFFINITY,
    SOURCE,
    DeschedulerPolicy,
    DeschedulerPolicyError,
    Flags,
    PlannedEviction,
    RunContext,
    load_policy,
    refresh_pdbs,
)

NAME = "descheduler"

# The strategies in the order pkg/descheduler/descheduler.go runs them.
STRATEGIES = (
    (REMOVE_DUPLICATES, duplicates.run),
    (LOW_NODE_UTILIZATION, low_node_utilization.run),
    (REMOVE_POD_ANTI_AFFINITY, pod_anti_affinity.run),
    (REMOVE_NODE_AFFINITY, node_affinity.run),
)

__all__ = [
    "Descheduler",
    "DeschedulerPolicyError",
    "Flags",
    "RunReport",
    "check_flags",
    "load_policy",
    "node_usages",
    "preview",
    "run_descheduler",
]


@dataclass
class RunReport:
    """One run: the actions to apply, what was evicted, and the nodes' usage (the
    LowNodeUtilization classification, before evictions; empty when it did not run)."""

    policy: DeschedulerPolicy
    flags: Flags
    nodes: list[str]
    aborted: bool
    planned: list[PlannedEviction] = field(default_factory=list)
    usage: list[low_node_utilization.NodeUsage] = field(default_factory=list)
    actions: list = field(default_factory=list)
    work: Store | None = None  # the working copy with the evictions applied

    @property
    def evicted(self) -> list[PlannedEviction]:
        return [p for p in self.planned if p.evicted]

    @property
    def message(self) -> str:
        if self.aborted:
            return ABORT_MESSAGE
        n = len(self.evicted)  # the same wording whatever the number
        if self.flags.dry_run:
            return f"would evict {n} pods"
        return f"{n} pods evicted"


def ready_nodes(store: Store, node_selector: str) -> list[Node]:
    """ReadyNodes: the nodes matching the selector whose Ready condition is True (a node
    without conditions counts as ready). Raises DeschedulerPolicyError for a bad selector."""
    try:
        matches = parse_selector(node_selector or "")
    except OcError as exc:
        raise DeschedulerPolicyError(str(exc)) from exc
    nodes = [Node.from_doc(d) for d in store.list("Node")]
    return [n for n in nodes if matches(n.labels) and n.ready]


def check_flags(flags: Flags) -> None:
    """What the binary refuses at start: a node selector that does not parse, a negative limit."""
    ready_nodes(Store(), flags.node_selector)
    if flags.max_pods_to_evict_per_node < 0:
        raise DeschedulerPolicyError(f"--max-pods-to-evict-per-node: must be 0 (no limit) or more, not {flags.max_pods_to_evict_per_node}")


def run_descheduler(store: Store, now: float, policy: DeschedulerPolicy | Mapping[str, Any], flags: Flags = Flags()) -> RunReport:
    """One run of the descheduler over `store` (not changed: apply `report.actions`)."""
    if not isinstance(policy, DeschedulerPolicy):
        policy = load_policy(policy)
    nodes = ready_nodes(store, flags.node_selector)
    report = RunReport(policy, flags, [n.name for n in nodes], aborted=len(nodes) <= 1)
    if not report.aborted:
        work = store.copy()
        refresh_pdbs(work, now)
        ctx = RunContext(work, now, flags, counts={n.name: 0 for n in nodes})
        for name, strategy_run in STRATEGIES:
            result = strategy_run(ctx, nodes, policy.strategy(name))
            if name == LOW_NODE_UTILIZATION and result:
                report.usage = result
        report.planned = ctx.planned
        report.actions = list(ctx.actions)
        report.work = work
    report.actions.append(A.RecordEvent(now, "Normal", "DeschedulerRun", "DeschedulerPolicy", "", policy.name,
                                        report.message, SOURCE))
    return report


def node_usages(store: Store, policy: DeschedulerPolicy | Mapping[str, Any], flags: Flags = Flags()) -> list[low_node_utilization.NodeUsage]:
    """Every ready node's utilisation as LowNodeUtilization computes it, classified
    against the policy's thresholds when they are valid (the Descheduler page's bars)."""
    if not isinstance(policy, DeschedulerPolicy):
        policy = load_policy(policy)
    nodes = ready_nodes(store, flags.node_selector)
    ctx = RunContext(store, 0.0, flags)
    t = policy.strategy(LOW_NODE_UTILIZATION).thresholds
    if low_node_utilization.valid_thresholds(t.thresholds) and low_node_utilization.valid_target_thresholds(t.target_thresholds):
        return low_node_utilization.classify(ctx, nodes, dict(t.thresholds or {}), dict(t.target_thresholds or {}))
    return [low_node_utilization.node_utilization(n, ctx.pods_on(n)) for n in nodes]


def run_any(store: Store, now: float, policy: Any, flags: Flags = Flags(), scheduler_profile: str = "LowNodeUtilization"):
    """One run of whichever descheduler the document configures: the 3.11 format, a
    v1alpha2 DeschedulerPolicy, or a KubeDescheduler (rendered by the operator first; its
    Predictive mode, or `flags.dry_run`, evicts nothing)."""
    if isinstance(policy, Mapping) and policy.get("kind") == kube_operator.KIND:
        namespaces = [(d.get("metadata") or {}).get("name") or "" for d in store.list("Namespace")]
        rendered = kube_operator.render_policy(policy, namespaces, scheduler_profile)
        meta = policy.get("metadata") or {}
        return v1alpha2.run_cycle(store, now, rendered, flags.dry_run or kube_operator.mode_of(policy) != kube_operator.AUTOMATIC,
                                  event_kind=kube_operator.KIND, event_namespace=meta.get("namespace") or kube_operator.NAMESPACE,
                                  event_name=meta.get("name") or kube_operator.NAME)
    if isinstance(policy, v1alpha2.PolicyV2) or v1alpha2.is_v1alpha2(policy):
        return v1alpha2.run_cycle(store, now, policy, flags.dry_run)
    return run_descheduler(store, now, policy, flags)


# --- the dry run that shows where the pods would land ------------------------------------------------------


@dataclass
class Landing:
    """Where an evicted pod would go: `node` (None: it would stay Pending, `message` says why)."""

    eviction: PlannedEviction
    node: str | None
    message: str | None

    def to_doc(self) -> dict:
        return {**self.eviction.to_doc(), "wouldLandOn": self.node, "message": self.message}


def _unbound(doc: Mapping[str, Any]) -> dict:
    doc = dict(doc)
    meta = dict(doc.get("metadata") or {})
    meta.pop("deletionTimestamp", None)
    meta.pop("deletionGracePeriodSeconds", None)
    doc["metadata"] = meta
    spec = dict(doc.get("spec") or {})
    spec.pop("nodeName", None)
    doc["spec"] = spec
    doc["status"] = {"phase": "Pending"}
    return doc


def landings(report: RunReport, schedulers: Sequence[tuple[str, Policy]], rng: random.Random, now: float,
             preemption: bool = True) -> list[Landing]:
    """Where the scheduler would place each pod of `report` once evicted (see the module doc)."""
    if report.work is None:
        return []
    work = report.work.copy()
    moved: set[str] = set()
    for p in report.planned:
        doc = work.get("Pod", p.namespace, p.name)
        if p.refusal or doc is None:
            continue
        work.put(_unbound(doc))
        moved.add(p.key)
    state = build_state(d for k in work.kinds() for d in work.list(k))
    infos = state.node_infos()
    last = {}
    for name, scheduler in schedulers:
        if isinstance(scheduler, framework_runtime.Profile):  # the OpenShift 4 scheduler
            results, _ = framework_runtime.run_queue(state, scheduler, rng, preemption, scheduler_name=name, now=now,
                                                     explain=False, node_infos=infos)
        else:
            results = run_queue(state, scheduler, rng, preemption, scheduler_name=name, now=now, explain=False, node_infos=infos)
        for r in results:
            last[r.pod.key] = r
    out = []
    for p in report.planned:
        if p.key not in moved:
            out.append(Landing(p, None, f"not evicted: {p.refusal}" if p.refusal else None))
            continue
        r = last.get(p.key)
        if r is None:
            out.append(Landing(p, None, "no running scheduler would try it"))
        else:
            out.append(Landing(p, r.node, None if r.node else r.message))
    return out


@dataclass
class Preview:
    report: RunReport
    landings: list[Landing]

    def to_doc(self) -> dict:
        return {
            "policy": self.report.policy.name,
            "nodes": self.report.nodes,
            "aborted": self.report.aborted,
            "message": self.report.message,
            "evictions": [landing.to_doc() for landing in self.landings],
        }


def preview(store: Store, now: float, policy: DeschedulerPolicy | Mapping[str, Any], flags: Flags = Flags(), *,
            schedulers: Sequence[tuple[str, Policy]] | None = None, seed: int = 0, preemption: bool = True,
            scheduler_profile: str = kube_operator.DEFAULT_SCHEDULER_PROFILE) -> Preview:
    """The dry run: what a run would evict and where each pod would land (a KubeDescheduler
    rendered against the cluster Scheduler's `scheduler_profile`). `store` is not changed."""
    report = run_any(store, now, policy, dataclasses.replace(flags, dry_run=True), scheduler_profile)
    schedulers = list(schedulers) if schedulers is not None else [(DEFAULT_SCHEDULER, default_policy())]
    rng = rng_for(seed, NAME, "preview", time_value(now))
    return Preview(report, landings(report, schedulers, rng, now, preemption))


# --- the controller ---------------------------------------------------------------------------------------------


def _finite(value: float) -> float | None:
    return round(value, 2) if math.isfinite(value) else None


def report_doc(report: RunReport, now: float, landings_: Sequence[Landing] = ()) -> dict:
    """The run as JSON (the controller keeps the last one in its state: simulate prints it,
    the Descheduler page shows it)."""
    by_key = {landing.eviction.key: landing for landing in landings_}
    evictions = []
    for p in report.planned:
        entry = p.to_doc()
        if p.key in by_key:
            entry["wouldLandOn"] = by_key[p.key].node
            entry["message"] = by_key[p.key].message
        evictions.append(entry)
    return {
        "policy": report.policy.name,
        "at": time_value(now),
        "dryRun": report.flags.dry_run,
        "nodes": list(report.nodes),
        "aborted": report.aborted,
        "message": report.message,
        "evictions": evictions,
        "usage": [{"node": u.node.name, "classification": u.classification,
                   **{k: _finite(v) for k, v in u.usage.items()}} for u in report.usage],
    }


class Descheduler:
    """The descheduler Job: once when it first has a policy, again for each run asked
    for (config["runRequests"], a counter the Run button increments), and every
    `interval` seconds when one is set. A dry run also works out where each pod would land.

    On OpenShift 4 the Kube Descheduler Operator drives it instead: the `KubeDescheduler`
    object `cluster` in `openshift-kube-descheduler-operator` (a stored kind, read from the
    store) is synced when its spec changes (its ConfigMap rendered, its status condition
    set, the namespace made when missing: OLM's install of the operator), and the
    descheduler it deploys runs a cycle at once (its pod restarted) and then every
    `deschedulingIntervalSeconds`. A KubeDescheduler elsewhere is ignored, as the operator
    watches only its own."""

    name = NAME
    watches: frozenset[str] = frozenset({kube_operator.KIND})  # otherwise it runs on its own schedule

    def reconcile(self, ctx: Context) -> A.Result:
        config = ctx.settings.get("descheduler") or {}
        kd = ctx.store.get(kube_operator.KIND, kube_operator.NAMESPACE, kube_operator.NAME)
        if kd is not None:
            return self._operator(ctx, kd, config)
        result = A.Result()
        if "spec" in ctx.state:  # the KubeDescheduler is gone: a new one is synced (and run) at once
            result.actions.append(A.SetControllerState(NAME, "spec", None))
        doc = config.get("policy") or {}
        if not doc or doc.get("kind") == kube_operator.KIND:  # the operator reads only the stored object
            return result
        interval = config.get("interval")
        requests = int(config.get("runRequests") or 0)
        if not self._due(ctx, result, interval, requests):
            return result
        flags = Flags.from_doc(config.get("flags"))
        name = str((doc.get("metadata") or {}).get("name") or DEFAULT_POLICY_NAME)
        try:
            if v1alpha2.is_v1alpha2(doc):
                report = v1alpha2.run_cycle(ctx.store, ctx.now, doc, flags.dry_run)
            else:
                report = run_descheduler(ctx.store, ctx.now, doc, flags)
        except DeschedulerPolicyError as exc:
            result.actions.append(A.RecordEvent(ctx.now, "Warning", "FailedDeschedulerRun", "DeschedulerPolicy", "",
                                                name, str(exc), SOURCE))
            report_json: dict = {"policy": name, "at": time_value(ctx.now), "error": str(exc)}
        else:
            result.actions.extend(report.actions)
            report_json = self._report(ctx, report, flags.dry_run)
        self._ran(ctx, result, report_json, requests, interval)
        return result

    @staticmethod
    def _due(ctx: Context, result: A.Result, interval: float | None, requests: int) -> bool:
        """Whether a run is due now: the first, one asked for, or the interval's; if not,
        `result` asks to be woken when the interval's is."""
        last = ctx.state.get("lastRun")
        if last is None or requests > int(ctx.state.get("runRequests") or 0):
            return True
        due = float(last) + float(interval) if interval else None
        if due is None or ctx.now + 1e-9 < due:
            result.due(due)
            return False
        return True

    @staticmethod
    def _report(ctx: Context, report, dry_run: bool) -> dict:
        found = []
        if dry_run:
            schedulers = ctx.settings.get("schedulers") or [(DEFAULT_SCHEDULER, default_policy())]
            rng = ctx.rng(NAME, "landings", time_value(ctx.now))
            found = landings(report, schedulers, rng, ctx.now, bool(ctx.settings.get("preemption", True)))
        report_json = report_doc(report, ctx.now, found)
        if isinstance(report, v1alpha2.RunReportV2):
            report_json["utilization"] = report.utilization
        return report_json

    @staticmethod
    def _ran(ctx: Context, result: A.Result, report_json: dict, requests: int, interval: float | None) -> None:
        handled = int(ctx.state.get("runRequests") or 0)
        result.actions.append(A.SetControllerState(NAME, "lastRun", time_value(ctx.now)))
        result.actions.append(A.SetControllerState(NAME, "runs", int(ctx.state.get("runs") or 0) + 1))
        result.actions.append(A.SetControllerState(NAME, "runRequests", max(requests, handled)))
        result.actions.append(A.SetControllerState(NAME, "lastReport", report_json))
        if interval:
            result.due(ctx.now + float(interval))

    # --- OpenShift's Kube Descheduler Operator ------------------------------------------------------------

    def _operator(self, ctx: Context, kd: dict, config: Mapping[str, Any]) -> A.Result:
        """The operator's sync when the KubeDescheduler's spec changed (or it has no status
        yet), and the descheduler's cycle: at once after a change of spec (the operator rolls
        its Deployment), on a run asked for, and every interval."""
        result = A.Result()
        spec = kd.get("spec") or {}
        changed = ctx.state.get("spec") != spec
        interval = kube_operator.interval_of(kd)
        requests = int(config.get("runRequests") or 0)
        meta = kd.get("metadata") or {}
        if ctx.store.get("Namespace", "", kube_operator.NAMESPACE) is None:
            result.actions.append(A.CreateObject({"apiVersion": "v1", "kind": "Namespace", "metadata": {
                "name": kube_operator.NAMESPACE, "creationTimestamp": time_value(ctx.now)}}))
        try:
            kube_operator.check(kd)
            if interval is None:
                raise kube_operator.OperatorError(kube_operator.NO_INTERVAL)
            namespaces = [(d.get("metadata") or {}).get("name") or "" for d in ctx.store.list("Namespace")]
            policy = kube_operator.render_policy(kd, namespaces, ctx.settings.get("openshift_scheduler_profile")
                                                 or kube_operator.DEFAULT_SCHEDULER_PROFILE)
        except kube_operator.OperatorError as exc:
            error: str | None = str(exc)
        else:
            error = None
        if changed or not (kd.get("status") or {}).get("conditions"):
            result.actions.extend(self._status(ctx, kd, error))
        if changed:
            result.actions.append(A.SetControllerState(NAME, "spec", spec))
        elif not self._due(ctx, result, interval, requests) and error is None:
            return result
        if error is not None:
            if changed or requests > int(ctx.state.get("runRequests") or 0):  # the operator's sync error, once per change
                result.actions.append(A.RecordEvent(ctx.now, "Warning", "FailedDeschedulerRun", kube_operator.KIND,
                                                    kube_operator.NAMESPACE, kube_operator.NAME, error, SOURCE))
                report_json = {"policy": kube_operator.NAME, "at": time_value(ctx.now), "error": error}
                self._ran(ctx, result, report_json, requests, None)
            return result
        config_map = kube_operator.config_map(kd, policy)
        result.actions.extend(self._apply_config_map(ctx, config_map))
        flags = Flags.from_doc(config.get("flags"))
        mode = kube_operator.mode_of(kd)
        dry_run = flags.dry_run or mode != kube_operator.AUTOMATIC
        report = v1alpha2.run_cycle(ctx.store, ctx.now, policy, dry_run, event_kind=kube_operator.KIND,
                                    event_namespace=meta.get("namespace") or kube_operator.NAMESPACE,
                                    event_name=meta.get("name") or kube_operator.NAME)
        result.actions.extend(report.actions)
        report_json = {**self._report(ctx, report, dry_run), "mode": mode}
        self._ran(ctx, result, report_json, requests, interval)
        return result

    @staticmethod
    def _status(ctx: Context, kd: dict, error: str | None) -> list:
        """The operator's status update (library-go's UpdateConditionFn): the condition
        TargetConfigControllerDegraded, False after a sync, True with the error as its
        reason when it scaled the descheduler down; lastTransitionTime moves only when the
        status does. Nothing when the condition already says so."""
        status = dict(kd.get("status") or {})
        conditions = [dict(c) for c in status.get("conditions") or []]
        old = next((c for c in conditions if c.get("type") == kube_operator.DEGRADED), None)
        new = {"type": kube_operator.DEGRADED, "status": "True" if error else "False"}
        if error:
            new["reason"] = error
        if old is not None and {k: v for k, v in old.items() if k != "lastTransitionTime"} == new:
            return []
        new["lastTransitionTime"] = old.get("lastTransitionTime") if old is not None and old.get("status") == new["status"] \
            else time_value(ctx.now)
        conditions = [c for c in conditions if c.get("type") != kube_operator.DEGRADED] + [new]
        return [A.ReplaceObject({**kd, "status": {**status, "conditions": conditions}})]

    @staticmethod
    def _apply_config_map(ctx: Context, config_map: dict) -> list:
        """The operator's ApplyConfigMap: create the ConfigMap, or replace it when its data
        or owner changed (nothing when it is as rendered)."""
        meta = config_map["metadata"]
        existing = ctx.store.get("ConfigMap", meta["namespace"], meta["name"])
        if existing is None:
            return [A.CreateObject({**config_map, "metadata": {**meta, "creationTimestamp": time_value(ctx.now)}})]
        if existing.get("data") == config_map["data"] and \
                (existing.get("metadata") or {}).get("ownerReferences") == meta["ownerReferences"]:
            return []
        return [A.ReplaceObject({**existing, "metadata": {**(existing.get("metadata") or {}), "ownerReferences": meta["ownerReferences"]},
                                 "data": config_map["data"]})]
