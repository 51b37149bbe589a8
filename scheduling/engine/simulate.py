"""`simulate()`: the engine behind `python manage.py simulate` (DESIGN, "The command-line
contract"). Documents in, the JSON a user reads out.

Input documents are already validated (scheduling.kube.load_documents). They are admitted
(the ADMISSION_PLUGINS hook list; only Priority for now), turned into a ClusterState, and
the pending pods of the default scheduler are scheduled in queue order with the policy,
preempting when allowed. The simulated clock is not there yet: `until` must be 0, and a
Timeline document is refused.

Output decisions:
* `pods`: every Pod in input order. `phase` is "Running" for a pod on a node (the
  simulated kubelet starts it at once; Succeeded/Failed are kept), "Pending" for an
  unbound one, and "Terminating" for a pod with a deletionTimestamp (a preemption victim:
  what `oc get pods` shows in STATUS; it stays on its node until its grace period ends,
  which the clock will play).
* `filters`/`scores`/`preemption` describe the pod's last scheduling attempt; a pod that
  was never attempted (bound in the input, or waiting for another scheduler) has
  `filters` and `scores` null. `--explain failed` drops the `filters` and `scores` keys of
  pods that were scheduled, `--explain none` drops them for every pod.
* `message`: the FailedScheduling text of a pending pod; for a pod whose schedulerName
  does not run here, `scheduler_not_running_message()` (no event: Kubernetes records
  none). The default scheduler runs; a policy with `schedulerName: <name>` (our Policy
  extension) runs as that second scheduler, after the default one, which then keeps the
  default policy.
* `preemption`: null unless preemption was considered for the pod's last attempt
  (`{"victims": {}, "nominatedNode": null}` when it was, but no node could be freed).
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Mapping, Sequence

from .cluster import ClusterState
from .objects import (
    DEFAULT_SCHEDULER,
    Controller,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    Volume,
)
from .policy import Policy, PolicyError, default_policy, load_policy
from .priority import AdmissionError, priority_admission
from .scheduler import is_pending, last_results, run_queue, scheduler_not_running_message

EXPLAIN_CHOICES = ("all", "failed", "none")
CONTROLLER_KINDS = ("ReplicationController", "ReplicaSet", "StatefulSet", "Deployment", "DaemonSet")
VOLUME_KINDS = {
    "PersistentVolume": "persistent_volumes",
    "PersistentVolumeClaim": "persistent_volume_claims",
    "StorageClass": "storage_classes",
}


class SimulationError(ValueError):
    """The input cannot be simulated; str() is the message for the user."""


# An admission plugin: (document, the PriorityClasses of the input) -> the admitted document.
# Raises AdmissionError to reject it. The controllers issue adds DefaultTolerationSeconds etc.
AdmissionPlugin = Callable[[Mapping[str, Any], Sequence[PriorityClass]], dict]

ADMISSION_PLUGINS: list[AdmissionPlugin] = [priority_admission]


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


def build_state(docs: Iterable[Mapping[str, Any]]) -> ClusterState:
    """A ClusterState from cluster documents (Policy/Timeline documents excluded)."""
    state = ClusterState()
    for doc in docs:
        kind = doc.get("kind")
        if kind == "Node":
            state.nodes.append(Node.from_doc(doc))
        elif kind == "Pod":
            state.pods.append(Pod.from_doc(doc))
        elif kind == "Namespace":
            state.namespaces.append((doc.get("metadata") or {}).get("name") or "")
        elif kind == "PriorityClass":
            state.priority_classes.append(PriorityClass.from_doc(doc))
        elif kind == "Service":
            state.services.append(Service.from_doc(doc))
        elif kind in CONTROLLER_KINDS:
            state.controllers.append(Controller.from_doc(doc))
        elif kind == "PodDisruptionBudget":
            state.pdbs.append(PodDisruptionBudget.from_doc(doc))
        elif kind in VOLUME_KINDS:
            getattr(state, VOLUME_KINDS[kind]).append(Volume.from_doc(doc))
        else:
            raise SimulationError(f"cannot simulate a {kind!r} document")
    return state


def _phase(pod: Pod) -> str:
    if pod.is_terminating:
        return "Terminating"
    if pod.node_name:
        return pod.phase if pod.phase in ("Succeeded", "Failed") else "Running"
    return pod.phase if pod.phase in ("Succeeded", "Failed") else "Pending"


def simulate(
    docs: list[dict],
    policy: dict | None = None,
    seed: int = 0,
    explain: str = "all",
    admission: bool = True,
    until: float = 0,
) -> dict:
    """Run the scheduler over `docs`; the DESIGN JSON document (a dict).

    `policy` (the --policy file, loaded) wins over a Policy document among `docs`."""
    if explain not in EXPLAIN_CHOICES:
        raise SimulationError(f"--explain: Unsupported value: {explain!r}: supported values: \"all\", \"failed\", \"none\"")
    if until:
        raise SimulationError(
            f"--until {until:g}: running the simulated clock is not supported yet (only --until 0: schedule, then stop)"
        )
    policies = [d for d in docs if d.get("kind") == "Policy"]
    if any(d.get("kind") == "Timeline" for d in docs):
        name = next((d.get("metadata") or {}).get("name") for d in docs if d.get("kind") == "Timeline")
        raise SimulationError(
            f'Timeline "{name or ""}": Timeline documents are not supported yet (they need the simulated clock)'
        )
    if policy is None and len(policies) > 1:
        raise SimulationError(f"{len(policies)} scheduler Policy documents given; give one (or use --policy)")
    policy_doc = policy if policy is not None else (policies[0] if policies else None)
    try:
        active_policy: Policy = load_policy(policy_doc)
    except PolicyError as exc:
        raise SimulationError(f"scheduler Policy: {exc}") from exc

    cluster_docs = [d for d in docs if d.get("kind") not in ("Policy", "Timeline")]
    # Priority resolution is part of the input contract (DESIGN: `spec.priority` as given,
    # else from `priorityClassName`), so it runs even when --no-admission turns the other
    # admission plugins off.
    try:
        cluster_docs = admit(cluster_docs, None if admission else [priority_admission])
    except AdmissionError as exc:
        raise SimulationError(str(exc)) from exc
    state = build_state(cluster_docs)

    rng = random.Random(seed)
    # The default scheduler runs; a policy naming another scheduler (schedulerName) adds
    # that scheduler, and the default one keeps the default policy. They run one after
    # the other (default first) over the same cluster.
    schedulers = [(DEFAULT_SCHEDULER, active_policy)]
    if active_policy.scheduler_name != DEFAULT_SCHEDULER:
        schedulers = [(DEFAULT_SCHEDULER, default_policy()), (active_policy.scheduler_name, active_policy)]
    infos = state.node_infos()
    results = []
    for name, scheduler_policy in schedulers:
        results += run_queue(state, scheduler_policy, rng, scheduler_name=name, explain=explain != "none", node_infos=infos)
    running = {name for name, _ in schedulers}
    last = last_results(results)

    pods_out = []
    for pod in state.pods:
        attempt = last.get(pod.key)
        entry: dict[str, Any] = {
            "pod": pod.key,
            "node": pod.node_name or None,
            "phase": _phase(pod),
            "nominatedNode": pod.nominated_node_name or None,
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
        if attempt is not None and attempt.node is None:
            message = attempt.message
        elif attempt is None and pod.scheduler_name not in running and is_pending(pod, pod.scheduler_name):
            message = scheduler_not_running_message(pod.scheduler_name)
        entry["message"] = message
        entry["preemption"] = attempt.preemption.to_doc() if attempt is not None and attempt.preemption else None
        pods_out.append(entry)

    events = [e for r in results for e in r.events()]
    events.sort(key=lambda e: e.time)  # stable: emission order within a time
    return {"pods": pods_out, "events": [e.to_doc() for e in events]}
