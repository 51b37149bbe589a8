"""`simulate()`: the engine behind `python manage.py simulate` (its command-line
contract in docs/commands.md). Documents in, the JSON a user reads out.

Input documents are already validated (scheduling.store.kube.load_documents). They are admitted
(the ADMISSION_PLUGINS hook list: engine.api.admission's plugins), put in an
engine.simulation.Simulation, and every controller of its CONTROLLERS list (or those
`controllers` names) processes them once, in order: the scheduler first (the pending
pods of the default scheduler in queue order with the policy, preempting when allowed),
then the node lifecycle controller, the NoExecute taint manager, the kubelets, the
workload controllers. With `until` 0 (the default) that is all: no simulated time passes
and Timeline steps are not played. With `until` > 0 the simulated clock then runs to
`until` (engine.simulation), event-driven, playing the Timeline steps.

Output decisions:
* `pods`: every Pod in input order, then the pods created during the run (by
  controllers or Timeline steps) in creation order. `phase` is "Running" for a pod on a
  node (the simulated kubelet starts it at once; a pod bound to a node whose kubelet does
  not report stays "Pending"; Succeeded/Failed are kept), "Pending" for an unbound one,
  "Terminating" for a pod with a deletionTimestamp (a preemption or taint-manager victim:
  what `oc get pods` shows in STATUS; it stays on its node until its grace period ends),
  and "Deleted" for a pod that no longer exists at the end (its `node` is the one it was
  on).
* `filters`/`scores`/`preemption` describe the pod's last scheduling attempt; a pod that
  was never attempted (bound in the input or by a DaemonSet, or waiting for another
  scheduler) has `filters` and `scores` null. `--explain failed` drops the `filters` and
  `scores` keys of pods that were scheduled, `--explain none` drops them for every pod.
* `message`: the FailedScheduling text of a pending pod; for a pod whose schedulerName
  does not run here, `scheduler_not_running_message()` (no event: Kubernetes records none,
  such a pod just stays Pending). The default scheduler always runs; each Policy document
  with `schedulerName: <name>` (our Policy extension) runs one more scheduler with that
  policy, after the default one (engine.scheduler.policy.schedulers_for); under the
  OpenShift 4 scheduler each profile of the KubeSchedulerConfiguration is one scheduler.
* `preemption`: null unless preemption was considered for the pod's last attempt
  (`{"victims": {}, "nominatedNode": null}` when it was, but no node could be freed).
* `events`: every event in time order (emission order within a time), `object` being
  `Kind/namespace/name` (`Kind/name` for cluster-scoped objects).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from scheduling.engine.api import admission as _admission
from scheduling.engine.api.objects import DEFAULT_SCHEDULER, PriorityClass
from scheduling.engine.framework.config import CONFIG_KINDS as SCHEDULER_CONFIG_KINDS, ConfigError, select_schedulers
from scheduling.engine.api.priority import AdmissionError, priority_admission
from scheduling.engine.scheduler.scheduler import scheduler_not_running_message
from scheduling.engine.api import node_selection_admission as node_selection
from scheduling.engine.controllers.descheduler import NAME as DESCHEDULER
from scheduling.engine.controllers.descheduler import DeschedulerPolicyError, Flags, check_flags, load_policy
from scheduling.engine.controllers.descheduler_strategies.common import KIND as DESCHEDULER_POLICY_KIND
from scheduling.engine.controllers.descheduler_v1alpha2 import is_v1alpha2, load_policy_v2
from scheduling.engine.controllers.descheduler_v1alpha2 import operator as kube_operator
from scheduling.engine.bulk import gc_paused
from .controllers.scheduling import build_state
from .oc.output import api_document
from .simulation import Simulation, SimulationError
from .store import time_value
from .timeline import TIMELINE_KIND, TimelineError, load_timeline

__all__ = [
    "ADMISSION_PLUGINS",
    "EXPLAIN_CHOICES",
    "SimulationError",
    "admit",
    "build_state",
    "simulate",
]

EXPLAIN_CHOICES = ("all", "failed", "none")

# An admission plugin: (document, the PriorityClasses of the input) -> the admitted document.
# Raises AdmissionError to reject it.
AdmissionPlugin = Callable[[Mapping[str, Any], Sequence[PriorityClass]], dict]

# engine.api.admission's plugins in the API server's order: PodTolerationRestriction (the
# memory-pressure toleration), Priority, DefaultTolerationSeconds, DaemonSetTolerations,
# ControlPlaneTaint.
ADMISSION_PLUGINS: list[AdmissionPlugin] = [fn for _, fn in _admission.PLUGINS]
# What --no-admission leaves on (see simulate()).
NO_ADMISSION = {name: name == "Priority" for name in _admission.PLUGIN_NAMES}


# The kinds simulate reads besides the cluster's objects: the scheduler Policy, Timelines,
# the descheduler's policy and the admission plugins' configuration documents. (A
# KubeDescheduler is a cluster object: the operator reads it from the store.)
EXTRA_KINDS = ("Policy", *SCHEDULER_CONFIG_KINDS, TIMELINE_KIND, DESCHEDULER_POLICY_KIND) + node_selection.CONFIG_KINDS


def admit(docs: Iterable[Mapping[str, Any]], plugins: Sequence[AdmissionPlugin] | None = None,
          context: node_selection.NodeSelectionContext | None = None) -> list[dict]:
    """Run the admission plugins over the cluster documents, in order (the node-selection
    plugins first, when a context is given)."""
    docs = [dict(d) for d in docs]
    plugins = ADMISSION_PLUGINS if plugins is None else plugins
    classes = [PriorityClass.from_doc(d) for d in docs if d.get("kind") == "PriorityClass"]
    out = []
    for doc in docs:
        if context is not None:
            for _, context_plugin in node_selection.PLUGINS:
                doc = context_plugin(doc, context)
        for plugin in plugins:
            doc = plugin(doc, classes)
        out.append(doc)
    return out


def created_at(doc: Mapping[str, Any], now: float) -> dict:
    """`doc` as the API server creates it: `metadata.creationTimestamp` stamped `now` (the
    simulated second it enters the cluster) unless it has one (a snapshot's, kept as given)."""
    meta = doc.get("metadata")
    if not isinstance(meta, Mapping) or meta.get("creationTimestamp") is not None:
        return dict(doc)
    return {**doc, "metadata": {**meta, "creationTimestamp": time_value(now)}}


@gc_paused()
def simulate(
    docs: list[dict],
    policy: dict | None = None,
    seed: int = 0,
    explain: str = "all",
    admission: bool = True,
    until: float = 0,
    controllers: Sequence[str] | None = None,
    descheduler_flags: Flags | None = None,
    user: node_selection.UserInfo = node_selection.UserInfo(),
    settings: Mapping[str, Any] | None = None,
    objects: bool = False,
) -> dict:
    """Schedule `docs`, then run the clock to `until`; the JSON document `manage.py simulate` prints (a dict).

    `policy` (the --policy file, loaded) wins over a Policy document among `docs`.
    `controllers`: the names of the controllers to run (None: every one of
    engine.simulation.CONTROLLERS); an unknown name is a SimulationError.
    A DeschedulerPolicy document configures the descheduler controller, which then runs
    once at time 0 after the scheduler's first pass (the Job OpenShift 3.11's documentation runs it as), with
    `descheduler_flags` (the --descheduler-* flags); the output then has a `descheduler`
    entry: the run's report (what it evicted, by which strategy and why; with dry run,
    what it would evict and where each pod would land). PodNodeConstraintsConfig /
    PodNodeSelectorConfig / MasterConfig documents configure the node-selection admission
    plugins; `user` is who creates the objects (--as, --as-group, --user-can-bind).
    `settings`: more entries for the controllers' ctx.settings (Simulation).
    `objects`: the output gains "objects", every object at the end of the run as the API
    returns it (status included, times as RFC 3339), sorted by kind, namespace, name."""
    if explain not in EXPLAIN_CHOICES:
        raise SimulationError(f"--explain: Unsupported value: {explain!r}: supported values: \"all\", \"failed\", \"none\"")
    if until < 0:
        raise SimulationError(f"--until {until:g}: must be greater than or equal to 0")
    policies = [d for d in docs if d.get("kind") in ("Policy", *SCHEDULER_CONFIG_KINDS)]
    if policy is not None and isinstance(policy, dict) and policy.get("kind") in SCHEDULER_CONFIG_KINDS:
        # --policy with a KubeSchedulerConfiguration (or Scheduler) replaces the configuration
        policies = [d for d in policies if d.get("kind") not in SCHEDULER_CONFIG_KINDS] + [policy]
    elif policy is not None:  # --policy replaces the document for the same scheduler
        name = policy.get("schedulerName", DEFAULT_SCHEDULER) if isinstance(policy, dict) else DEFAULT_SCHEDULER
        policies = [d for d in policies if d.get("kind") in SCHEDULER_CONFIG_KINDS
                    or d.get("schedulerName", DEFAULT_SCHEDULER) != name] + [policy]
    try:
        schedulers = select_schedulers(policies, docs)
    except ConfigError as exc:
        raise SimulationError(str(exc)) from exc
    try:
        timelines = [load_timeline(d) for d in docs if d.get("kind") == TIMELINE_KIND]
    except TimelineError as exc:
        raise SimulationError(str(exc)) from exc

    descheduler_docs = [d for d in docs if d.get("kind") in (DESCHEDULER_POLICY_KIND, kube_operator.KIND)]
    if len(descheduler_docs) > 1:
        raise SimulationError("only one DeschedulerPolicy or KubeDescheduler document may be given")
    flags = descheduler_flags or Flags()
    try:
        descheduler_policy = None
        operator = bool(descheduler_docs) and descheduler_docs[0].get("kind") == kube_operator.KIND
        if descheduler_docs and not operator:  # a KubeDescheduler: validated as every object is
            first = descheduler_docs[0]
            if is_v1alpha2(first):
                descheduler_policy = load_policy_v2(first)
            else:
                descheduler_policy = load_policy(first)
        node_selection_config = node_selection.NodeSelectionConfig.from_documents(docs)
    except (DeschedulerPolicyError, kube_operator.OperatorError, node_selection.NodeSelectorError) as exc:
        raise SimulationError(str(exc)) from exc
    try:
        check_flags(flags)
    except DeschedulerPolicyError as exc:
        raise SimulationError(f"descheduler flags: {exc}") from exc

    cluster_docs = [d for d in docs if d.get("kind") not in EXTRA_KINDS]
    context = node_selection.NodeSelectionContext.build(node_selection_config, cluster_docs, user) if admission else None
    # Priority resolution is part of the input contract (`spec.priority` as given,
    # else from `priorityClassName`), so it runs even when --no-admission turns the other
    # admission plugins off.
    try:
        cluster_docs = admit(cluster_docs, None if admission else [priority_admission], context)
    except AdmissionError as exc:
        raise SimulationError(str(exc)) from exc
    cluster_docs = [created_at(d, 0) for d in cluster_docs]

    sim = Simulation(
        cluster_docs,
        memo={},  # the admitted documents are this run's own: no copy
        schedulers=schedulers,
        seed=seed,
        admission=None if admission else NO_ADMISSION,
        timelines=timelines,
        explain=explain != "none",
        controllers=controllers,
        settings={
            **(settings or {}),
            "node_selection": node_selection_config if admission else None,
            "user": user,
            "descheduler": None if descheduler_policy is None and not operator else {
                "policy": None if operator else dict(descheduler_docs[0]), "interval": None, "flags": flags.to_doc()},
            "openshift_scheduler_profile": kube_operator.scheduler_profile(policies),
        },
    )
    if until > 0:
        sim.run_until(until)
    else:
        sim.start()
    out = output(sim, explain)
    if descheduler_policy is not None or operator:
        out["descheduler"] = sim.store.state_of(DESCHEDULER).get("lastReport")
    if objects:
        docs_out = list(sim.store.all())
        out["objects"] = [api_document(d) for d in sorted(docs_out, key=_object_key)]
    return out


def _object_key(doc: Mapping[str, Any]) -> tuple[str, str, str]:
    m = doc.get("metadata") or {}
    return (doc.get("kind") or "", m.get("namespace") or "", m.get("name") or "")


def output(sim: Simulation, explain: str = "all") -> dict:
    """The JSON document of a simulation (see the module docstring)."""
    running = sim.scheduler_names()
    last = sim.last_results()
    pods_out = []
    for key in sim.pod_keys:
        doc, _ = sim.pod_doc(key)
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}
        attempt = last.get(key)
        entry: dict[str, Any] = {
            "pod": key,
            "node": spec.get("nodeName") or None,
            "phase": sim.phase(key),
            "nominatedNode": status.get("nominatedNodeName") or None,
        }
        scheduled = attempt is not None and attempt.node is not None
        if explain == "all" or (explain == "failed" and not scheduled):
            if attempt is None:
                entry["filters"] = None
                entry["scores"] = None
            else:
                statuses = getattr(attempt, "statuses", None)
                if statuses:  # the framework: the plugin that rejected each node, and its code
                    entry["filters"] = {
                        node: {"fits": st.is_success, "reasons": list(st.reasons), "plugin": st.plugin or None,
                               "code": None if st.is_success else st.code}
                        for node, st in statuses.items()
                    }
                else:
                    entry["filters"] = {
                        node: {"fits": not reasons, "reasons": list(reasons)} for node, reasons in attempt.filters.items()
                    }
                entry["scores"] = {node: dict(s) for node, s in attempt.scores.items()}
        message = None
        scheduler_name = spec.get("schedulerName") or DEFAULT_SCHEDULER
        if attempt is not None and attempt.node is None:
            message = attempt.message
        elif attempt is None and scheduler_name not in running and sim.is_pending(key):
            message = scheduler_not_running_message(scheduler_name)
        entry["message"] = message
        entry["preemption"] = attempt.preemption.to_doc() if attempt is not None and attempt.preemption else None
        pods_out.append(entry)

    events = sorted(sim.events, key=lambda e: e.time)  # stable: emission order within a time
    return {"pods": pods_out, "events": [e.to_doc() for e in events]}
