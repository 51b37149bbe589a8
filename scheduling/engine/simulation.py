"""The Simulation driver: a document store, a simulated clock and every controller.

`Simulation(docs, ...)` holds an engine.store.Store and the time. `schedule()` is the
scheduling pass at the current time (what `simulate --until 0` shows); `run_until(t)`
plays the clock to `t`, event-driven: at each instant it plays the Timeline steps due,
then runs, round after round until no document changes, the scheduler (when pods or
nodes changed), the node lifecycle controller, the taint manager, the kubelets and the
workload controllers, applying their actions to the store; then it jumps to the earliest
time anything is due (a Timeline step, or a controller's `next_due`). Nothing advances in
fixed small steps, so `--until 86400` costs what happens, not how long it lasts.

Order inside an instant (all at the same simulated time): Timeline steps (document
order) -> scheduler -> node lifecycle -> taint manager -> kubelet -> workloads, repeated
while anything changes. At t=0 the first scheduling pass comes before the steps at 0,
so `--until 0` (scheduling only) is the first part of every longer run.

The scheduler re-runs pending pods the way the 1.11 scheduling queue does: a pod that
did not fit waits (unschedulable queue) until a node changes, a bound pod is removed, or
a volume/service object changes (MoveAllToActiveQueue); new pods are tried at once. A
pod nominated by preemption is tried again with every run.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Iterable, Mapping, Sequence

from . import actions as A
from . import kubelet, node_lifecycle, oc, taint_manager, workloads
from .admission import admit
from .cluster import ClusterState
from .defaults import ZONE_KIND
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
from .policy import Policy
from .priority import AdmissionError
from .scheduler import ScheduleResult, is_pending, run_queue, scheduler_not_running_message
from .store import Store, is_terminating, meta, namespace_of, time_value
from .timeline import Step, Timeline

CONTROLLER_KINDS = ("ReplicationController", "ReplicaSet", "StatefulSet", "Deployment", "DaemonSet")
VOLUME_KINDS = {
    "PersistentVolume": "persistent_volumes",
    "PersistentVolumeClaim": "persistent_volume_claims",
    "StorageClass": "storage_classes",
}
MOVE_ALL_KINDS = frozenset({"Node", "Service", "PersistentVolume", "PersistentVolumeClaim", "StorageClass"})
MAX_ROUNDS = 100  # rounds of controllers at one instant before we call it a bug
_HELD = "\x00held"  # scheduler name given to pods kept in the unschedulable queue for a run
TIMELINE_SOURCE = "timeline"
SIMULATOR_SOURCE = "clusterui"  # events the simulator adds where Kubernetes is silent
NO_SCHEDULER_REASON = "SchedulerNotRunning"


class SimulationError(ValueError):
    """The input cannot be simulated; str() is the message for the user."""


def build_state(docs: Iterable[Mapping[str, Any]]) -> ClusterState:
    """A ClusterState from cluster documents (Zone documents are skipped)."""
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
        elif kind == ZONE_KIND:
            continue
        else:
            raise SimulationError(f"cannot simulate a {kind!r} document")
    return state


def _one_line(text: str) -> str:
    return "; ".join(line for line in text.strip().splitlines() if line)


def pod_key(doc: Mapping[str, Any]) -> str:
    m = meta(doc)
    return f"{m.get('namespace') or 'default'}/{m.get('name') or ''}"


class Simulation:
    def __init__(
        self,
        docs: Iterable[Mapping[str, Any]],
        *,
        schedulers: Sequence[tuple[str, Policy]],
        seed: int = 0,
        admission: Mapping[str, bool] | None = None,
        timelines: Sequence[Timeline] = (),
        config: node_lifecycle.NodeLifecycleConfig = node_lifecycle.DEFAULT_CONFIG,
        explain: bool = True,
        preemption: bool = True,
        steps_played: int = 0,
    ):
        """`steps_played`: how many Timeline steps (in play order) an earlier run of the
        same history already played; a run resumed from stored documents skips them."""
        self.store = Store(docs)
        build_state(self.store.all())  # refuse what cannot be simulated, up front
        self.now = 0.0
        self.seed = seed
        self.rng = random.Random(seed)
        self.schedulers = list(schedulers)
        self.admission = admission
        self.config = config
        self.explain = explain
        self.preemption = preemption
        self.results: list[ScheduleResult] = []
        self.pod_keys: list[str] = []
        self.last_docs: dict[str, dict] = {}
        self._track_pods()
        self.steps: list[tuple[float, int, int, str, Step]] = sorted(
            (s.at, ti, s.index, t.name, s) for ti, t in enumerate(timelines) for s in t.steps
        )
        self._next_step = steps_played
        self.unschedulable: set[str] = set()
        self._move_all = True
        self._schedule_needed = True
        self.next_due: float | None = None
        self.clock_ran = False
        self.instants: list[float] = []  # the simulated times the clock stopped at (event-driven)

    # --- public ----------------------------------------------------------------------------------------

    @property
    def steps_played(self) -> int:
        return self._next_step

    @property
    def events(self) -> list[A.RecordEvent]:
        return self.store.events

    def schedule(self) -> list:
        """One scheduling pass at the current time; returns the changed refs."""
        return self._schedule()

    def run_until(self, until: float) -> None:
        self.clock_ran = True
        self._play_steps()
        self._settle()
        while True:
            candidates = [t for t in (self._step_time(), self.next_due) if t is not None and t > self.now + 1e-9]
            if not candidates:
                break
            nxt = min(candidates)
            if nxt > until + 1e-9:
                break
            self.now = nxt
            self._play_steps()
            self._settle()
        self.now = max(self.now, until)

    def apply(self, actions: Iterable[Any]) -> list:
        changed = self.store.apply_all(actions)
        self._note(changed)
        return changed

    def last_results(self) -> dict[str, ScheduleResult]:
        last: dict[str, ScheduleResult] = {}
        for r in self.results:
            last[r.pod.key] = r
        return last

    def pod_doc(self, key: str) -> tuple[dict | None, bool]:
        """(the pod's document, whether it was deleted)."""
        ns, _, name = key.partition("/")
        doc = self.store.get("Pod", ns, name)
        if doc is not None:
            return doc, False
        return self.last_docs.get(key), True

    # --- internals --------------------------------------------------------------------------------------

    def _track_pods(self) -> None:
        for doc in self.store.list("Pod"):
            key = pod_key(doc)
            if key not in self.last_docs:
                self.pod_keys.append(key)
            self.last_docs[key] = doc

    def _note(self, changed: Sequence[tuple[str, str, str]]) -> None:
        for kind, ns, name in changed:
            if kind in MOVE_ALL_KINDS:
                self._move_all = True
                self._schedule_needed = True
            elif kind == "Pod":
                key = f"{ns}/{name}"
                doc = self.store.get("Pod", ns, name)
                old = self.last_docs.get(key)
                if doc is None:
                    if old is not None and (old.get("spec") or {}).get("nodeName"):
                        self._move_all = True
                        self._schedule_needed = True
                    self.unschedulable.discard(key)
                elif not (doc.get("spec") or {}).get("nodeName") and not is_terminating(doc):
                    if old is None or key not in self.unschedulable:
                        self._schedule_needed = True
        self._track_pods()

    def _step_time(self) -> float | None:
        return self.steps[self._next_step][0] if self._next_step < len(self.steps) else None

    def _play_steps(self) -> None:
        while self._next_step < len(self.steps) and self.steps[self._next_step][0] <= self.now + 1e-9:
            _, _, _, name, step = self.steps[self._next_step]
            self._next_step += 1
            self._play(name, step)

    def _play(self, timeline: str, step: Step) -> None:
        now = self.now
        if step.action == "apply":
            doc = dict(step.object)
            kind = doc["kind"]
            ns = namespace_of(doc)
            name = meta(doc).get("name") or ""
            old = self.store.get(kind, ns, name)
            classes = [PriorityClass.from_doc(d) for d in self.store.list("PriorityClass")]
            try:
                doc = admit(doc, classes, self.admission)
            except AdmissionError as exc:
                self.apply([A.RecordEvent(now, "Warning", "FailedApply", "Timeline", "", timeline,
                                          f"{step.describe()}: {exc}", TIMELINE_SOURCE)])
                return
            extra: list = []
            if kind == "Node" and step.has_status:
                doc, extra = kubelet.normalize_node_status(old, doc, now)
            if kind == "Pod" and old is not None:
                node = (old.get("spec") or {}).get("nodeName")
                if node and not (doc.get("spec") or {}).get("nodeName"):
                    doc.setdefault("spec", {})["nodeName"] = node
            if kind == "Pod" and old is None:
                doc.setdefault("metadata", {}).setdefault("creationTimestamp", time_value(now))
            self.apply([A.ReplaceObject(doc, keep_status=not step.has_status and old is not None)] + extra)
        elif step.action == "delete":
            if self.store.get(step.kind, step.namespace, step.name) is None:
                plural = step.kind.lower() + "s"
                self.apply([A.RecordEvent(now, "Warning", "FailedDelete", "Timeline", "", timeline,
                                          f'Error from server (NotFound): {plural} "{step.name}" not found', TIMELINE_SOURCE)])
                return
            self.apply(workloads.cascade_delete(self.store, step.kind, step.namespace, step.name, now))
        else:
            result = oc.run(self.store, step.command, now)
            self.apply(result.actions)
            if result.exit_code == 0:
                event = A.RecordEvent(now, "Normal", "CommandRun", "Timeline", "", timeline,
                                      f"{step.command}: {_one_line(result.stdout)}", TIMELINE_SOURCE)
            else:
                event = A.RecordEvent(now, "Warning", "CommandFailed", "Timeline", "", timeline,
                                      f"{step.command}: {_one_line(result.stderr)}", TIMELINE_SOURCE)
            self.apply([event])

    def _settle(self) -> None:
        self.instants.append(self.now)
        for _ in range(MAX_ROUNDS):
            changed: list = []
            if self._schedule_needed:
                changed += self._schedule()
            dues: list[float | None] = []
            for run in (
                lambda: node_lifecycle.reconcile(self.store, self.now, self.config),
                lambda: taint_manager.reconcile(self.store, self.now),
                lambda: kubelet.reconcile(self.store, self.now),
                lambda: workloads.reconcile(self.store, self.now, seed=self.seed, admission=self.admission),
            ):
                result = run()
                changed += self.apply(result.actions)
                dues.append(result.next_due)
            if not changed and not self._schedule_needed:
                future = [d for d in dues if d is not None and d > self.now + 1e-9]
                self.next_due = min(future) if future else None
                return
        raise RuntimeError(f"the controllers did not settle at t={self.now:g} after {MAX_ROUNDS} rounds")

    def _schedule(self) -> list:
        self._schedule_needed = False
        move_all, self._move_all = self._move_all, False
        state = build_state(d for k in self.store.kinds() for d in self.store.list(k))
        held: dict[int, Pod] = {}
        if not move_all:
            for i, pod in enumerate(state.pods):
                if pod.key in self.unschedulable and not pod.nominated_node_name and not pod.node_name:
                    held[i] = pod
                    state.pods[i] = dataclasses.replace(pod, scheduler_name=_HELD)
        before = list(state.pods)
        infos = state.node_infos()
        results: list[ScheduleResult] = []
        for name, policy in self.schedulers:
            results += run_queue(state, policy, self.rng, self.preemption, scheduler_name=name, now=self.now,
                                 explain=self.explain, node_infos=infos)
        for i, pod in held.items():
            state.pods[i] = pod
            before[i] = pod
        actions: list = []
        for old, new in zip(before, state.pods):
            if new.node_name and not old.node_name:
                actions.append(A.Bind(new.namespace, new.name, new.node_name))
            elif new.nominated_node_name != old.nominated_node_name:
                actions.append(A.SetNominatedNode(new.namespace, new.name, new.nominated_node_name))
            if new.deletion_timestamp is not None and old.deletion_timestamp is None:
                actions.append(A.SetPodDeletion(new.namespace, new.name, self.now, old.termination_grace_period_seconds, "Preempted"))
        actions += self._no_scheduler(state)
        for r in results:
            source = r.pod.scheduler_name or DEFAULT_SCHEDULER
            for e in r.events():
                kind, ns, name = e.object.split("/", 2)
                actions.append(A.RecordEvent(e.time, e.type, e.reason, kind, ns, name, e.message, source))
            if r.node is None:
                self.unschedulable.add(r.pod.key)
            else:
                self.unschedulable.discard(r.pod.key)
        self.results += results
        return self.apply(actions)

    def _no_scheduler(self, state: ClusterState) -> list:
        """A pending pod that names a scheduler that does not run stays Pending. Kubernetes
        says nothing about it (no scheduler looks at it); the simulator says so once, with
        a Warning event and the pod's PodScheduled condition (which also makes it said
        only once: the condition is the memory)."""
        running = self.scheduler_names() | {_HELD}
        actions: list = []
        for pod in state.pods:
            if pod.node_name or pod.is_terminating or pod.scheduler_name in running:
                continue
            doc = self.store.get("Pod", pod.namespace, pod.name)
            conditions = list(((doc or {}).get("status") or {}).get("conditions") or [])
            if any(c.get("type") == "PodScheduled" and c.get("reason") == NO_SCHEDULER_REASON for c in conditions):
                continue
            message = scheduler_not_running_message(pod.scheduler_name)
            conditions = [c for c in conditions if c.get("type") != "PodScheduled"] + [
                {"type": "PodScheduled", "status": "False", "reason": NO_SCHEDULER_REASON, "message": message,
                 "lastTransitionTime": time_value(self.now)}
            ]
            actions.append(A.PatchStatus("Pod", pod.namespace, pod.name, {"conditions": conditions}))
            actions.append(A.RecordEvent(self.now, "Warning", NO_SCHEDULER_REASON, "Pod", pod.namespace, pod.name,
                                         message, SIMULATOR_SOURCE))
        return actions

    def scheduler_names(self) -> set[str]:
        return {name for name, _ in self.schedulers}

    def phase(self, key: str) -> str:
        doc, deleted = self.pod_doc(key)
        if deleted:
            return "Deleted"
        if is_terminating(doc):
            return "Terminating"
        status_phase = (doc.get("status") or {}).get("phase")
        if status_phase in ("Succeeded", "Failed"):
            return status_phase
        if (doc.get("spec") or {}).get("nodeName"):
            if not self.clock_ran:
                return "Running"
            return "Running" if status_phase == "Running" else "Pending"
        return "Pending"

    def is_pending(self, key: str) -> bool:
        doc, deleted = self.pod_doc(key)
        if deleted or doc is None:
            return False
        pod = Pod.from_doc(doc)
        return is_pending(pod, pod.scheduler_name)
