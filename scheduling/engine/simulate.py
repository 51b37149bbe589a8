"""`simulate()`: the engine behind `python manage.py simulate` (DESIGN, "The command-line
contract"). Documents in, the JSON a user reads out.

Input documents are already validated (scheduling.kube.load_documents). They are admitted
(the ADMISSION_PLUGINS hook list: engine.admission's plugins), put in an
engine.simulation.Simulation, and the pending pods of the default scheduler are scheduled
in queue order with the policy, preempting when allowed. With `until` > 0 the simulated
clock then runs to `until` (engine.simulation): Timeline steps are played and the node
lifecycle controller, the NoExecute taint manager, the kubelets, the workload controllers
and the scheduler run, event-driven. With `until` 0 (the default) the clock does not run:
the result is the scheduling pass at t=0 only (Timeline steps are not played).

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
  does not run here, `scheduler_not_running_message()` (Kubernetes records no event; the
  simulator adds one SchedulerNotRunning warning). The default scheduler always runs; each
  Policy document with `schedulerName: <name>` (our Policy extension) runs one more
  scheduler with that policy, after the default one (engine.policy.schedulers_for).
* `preemption`: null unless preemption was considered for the pod's last attempt
  (`{"victims": {}, "nominatedNode": null}` when it was, but no node could be freed).
* `events`: every event in time order (emission order within a time), `object` being
  `Kind/namespace/name` (`Kind/name` for cluster-scoped objects).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from . import admission as _admission
from .objects import DEFAULT_SCHEDULER, PriorityClass
from .policy import PolicyError, schedulers_for
from .priority import AdmissionError, priority_admission
from .scheduler import scheduler_not_running_message
from .simulation import CONTROLLER_KINDS, VOLUME_KINDS, Simulation, SimulationError, build_state
from .timeline import TIMELINE_KIND, TimelineError, load_timeline

__all__ = [
    "ADMISSION_PLUGINS",
    "CONTROLLER_KINDS",
    "EXPLAIN_CHOICES",
    "VOLUME_KINDS",
    "SimulationError",
    "admit",
    "build_state",
    "simulate",
]

EXPLAIN_CHOICES = ("all", "failed", "none")

# An admission plugin: (document, the PriorityClasses of the input) -> the admitted document.
# Raises AdmissionError to reject it.
AdmissionPlugin = Callable[[Mapping[str, Any], Sequence[PriorityClass]], dict]

# engine.admission's plugins in the API server's order: PodTolerationRestriction (the
# memory-pressure toleration), Priority, DefaultTolerationSeconds, DaemonSetTolerations,
# ControlPlaneTaint.
ADMISSION_PLUGINS: list[AdmissionPlugin] = [fn for _, fn in _admission.PLUGINS]
# What --no-admission leaves on (see simulate()).
NO_ADMISSION = {name: name == "Priority" for name in _admission.PLUGIN_NAMES}


def admit(docs: Iterable[Mapping[str, Any]], plugins: Sequence[AdmissionPlugin] | None = None) -> list[dict]:
    """Run the admission plugins over the cluster documents, in order."""
    docs = [dict(d) for d in docs]
    plugins = ADMISSION_PLUGINS if plugins is None else plugins
    classes = [PriorityClass.from_doc(d) for d in docs if d.get("kind") == "PriorityClass"]
    out = []
    for doc in docs:
        for plugin in plugins:
            doc = plugin(doc, classes)
        out.append(doc)
    return out


def simulate(
    docs: list[dict],
    policy: dict | None = None,
    seed: int = 0,
    explain: str = "all",
    admission: bool = True,
    until: float = 0,
) -> dict:
    """Schedule `docs`, then run the clock to `until`; the DESIGN JSON document (a dict).

    `policy` (the --policy file, loaded) wins over a Policy document among `docs`."""
    if explain not in EXPLAIN_CHOICES:
        raise SimulationError(f"--explain: Unsupported value: {explain!r}: supported values: \"all\", \"failed\", \"none\"")
    if until < 0:
        raise SimulationError(f"--until {until:g}: must be greater than or equal to 0")
    policies = [d for d in docs if d.get("kind") == "Policy"]
    if policy is not None:  # --policy replaces the document for the same scheduler
        name = policy.get("schedulerName", DEFAULT_SCHEDULER) if isinstance(policy, dict) else DEFAULT_SCHEDULER
        policies = [d for d in policies if d.get("schedulerName", DEFAULT_SCHEDULER) != name] + [policy]
    try:
        schedulers = schedulers_for(policies)
    except PolicyError as exc:
        raise SimulationError(f"scheduler Policy: {exc}") from exc
    try:
        timelines = [load_timeline(d) for d in docs if d.get("kind") == TIMELINE_KIND]
    except TimelineError as exc:
        raise SimulationError(str(exc)) from exc

    cluster_docs = [d for d in docs if d.get("kind") not in ("Policy", TIMELINE_KIND)]
    # Priority resolution is part of the input contract (DESIGN: `spec.priority` as given,
    # else from `priorityClassName`), so it runs even when --no-admission turns the other
    # admission plugins off.
    try:
        cluster_docs = admit(cluster_docs, None if admission else [priority_admission])
    except AdmissionError as exc:
        raise SimulationError(str(exc)) from exc

    sim = Simulation(
        cluster_docs,
        schedulers=schedulers,
        seed=seed,
        admission=None if admission else NO_ADMISSION,
        timelines=timelines,
        explain=explain != "none",
    )
    sim.schedule()
    if until > 0:
        sim.run_until(until)
    return output(sim, explain)


def output(sim: Simulation, explain: str = "all") -> dict:
    """The DESIGN JSON document of a simulation (see the module docstring)."""
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
