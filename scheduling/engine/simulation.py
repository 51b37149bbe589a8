"""The event loop: one store, one simulated clock, and the controllers of `CONTROLLERS`.

`CONTROLLERS` is a literal list of dotted paths ("module:Class"), in run order; each
class follows the protocol of engine.controller (a `name`, the kinds it `watches`,
`reconcile(ctx) -> actions.Result`) and is made with no arguments. Adding a controller
is one line here (the modules of `scheduling.engine.openshift` are named by path, so this package
never imports them). A path that cannot be imported is an error (ControllerLoadError),
never skipped.

`Simulation(docs, ...)` holds an engine.store.Store and the time. The loop runs a
controller at an instant when a kind it watches changed since it last ran (its first
run: everything is new to it) or when its `next_due` has come:

* `start()`: the initial objects, processed once by every controller in CONTROLLERS
  order, at the current time (what `simulate --until 0` shows);
* `run_until(t)`: plays the clock to `t`, event-driven: at each instant the Timeline
  steps due are played (document order), then rounds of the controllers (in CONTROLLERS
  order, each when it is due or something it watches changed) until a round changes no
  document; then the clock jumps to the earliest time anything is due (a Timeline step, a
  controller's `next_due`). Nothing advances in fixed small steps, so `--until 86400`
  costs what happens, not how long it lasts. A run starts with `start()` at its first
  instant (unless it was resumed), so `--until 0` is the first part of every longer run.

Controllers keep what they must remember (timers, queues, counters) in the store's
controller state (`Store.controller_state`, changed through actions.SetControllerState);
`controller_state` in and `store.controller_state` out is how a stored cluster carries
it from one run to the next, with `due` (each controller's next_due) and `steps_played`.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import threading
from typing import Any, Iterable, Mapping, Sequence

from . import actions as A
from scheduling.engine import oc
from scheduling.engine.api.admission import admit
from scheduling.engine.api.node_selection_admission import NodeSelectionContext, UserInfo
from scheduling.engine.api.objects import Pod, PriorityClass
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.api.validation import go_quote
from scheduling.engine.controller import ANY_KIND, Context, Controller
from scheduling.engine.controllers import garbage_collector, kubelet, legacy
from scheduling.engine.controllers.node_lifecycle import DEFAULT_CONFIG, NodeLifecycleConfig
from scheduling.engine.controllers.scheduling import NAME as SCHEDULER, SimulationError, build_state
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.scheduler.scheduler import ScheduleResult, is_pending
from .store import CONTROLLER_STATE_KIND, Ref, Store, is_terminating, meta, namespace_of, time_value
from .timeline import Step, Timeline

__all__ = ["CONTROLLERS", "ControllerLoadError", "Simulation", "SimulationError", "controller_classes", "pod_key"]

# The controllers, in run order ("module:Class").
CONTROLLERS: list[str] = [
    "scheduling.engine.controllers.scheduling:SchedulerController",
    "scheduling.engine.controllers.node_lifecycle:NodeLifecycleController",
    "scheduling.engine.controllers.taint_manager:TaintManager",
    "scheduling.engine.controllers.kubelet:Kubelet",
    "scheduling.engine.controllers.workloads:WorkloadControllers",
    "scheduling.engine.controllers.job:JobController",
    "scheduling.engine.controllers.cronjob:CronJobController",
    "scheduling.engine.oc.drain:DrainController",
    "scheduling.engine.controllers.descheduler:Descheduler",
    "scheduling.engine.openshift.cvo:ClusterVersionOperator",
    "scheduling.engine.openshift.mco:MCONodeController",
    "scheduling.engine.openshift.mco:MCODaemon",
    # the Machine API (scheduling.engine.openshift: machines, their sets and deletion lifecycle hooks)
    "scheduling.engine.openshift.machinesets:MachineSetController",
    "scheduling.engine.openshift.machinesets:ControlPlaneMachineSetController",
    "scheduling.engine.openshift.machines:MachineController",
    "scheduling.engine.openshift.machines:DrainController",
    "scheduling.engine.openshift.machinehealthcheck:MachineHealthCheckController",
    "scheduling.engine.openshift.etcd_quorum:EtcdQuorumGuard",
    "scheduling.engine.openshift.hook_owners:HookOwners",
    "scheduling.engine.openshift.hook_owners:ClusterAutoscaler",
]

MAX_ROUNDS = 100  # rounds of controllers at one instant before we call it a bug
TIMELINE_SOURCE = "timeline"
EPSILON = 1e-9


class ControllerLoadError(ImportError):
    """An entry of CONTROLLERS that cannot be loaded; str() says which and why."""


def load_controller(path: str) -> type:
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ControllerLoadError(f"controller {path!r} cannot be loaded: {exc}") from exc
    cls = getattr(module, attr, None)
    if cls is None or not isinstance(getattr(cls, "name", None), str):
        raise ControllerLoadError(f"controller {path!r} cannot be loaded: {module_name} has no controller class {attr!r}")
    return cls


def controller_classes(paths: Sequence[str] | None = None) -> list[type]:
    """The classes of CONTROLLERS (or of `paths`), in order."""
    return [load_controller(p) for p in (CONTROLLERS if paths is None else paths)]


def controller_names() -> list[str]:
    return [cls.name for cls in controller_classes()]


def select_controllers(names: Iterable[str] | None) -> list[type]:
    """The classes of the named controllers, in CONTROLLERS order (None: all); an unknown
    name is a SimulationError listing the valid ones."""
    classes = controller_classes()
    if names is None:
        return classes
    wanted = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    valid = [cls.name for cls in classes]
    unknown = [n for n in wanted if n not in valid]
    if unknown:
        raise SimulationError(
            f"--controllers: unknown controller(s) {', '.join(go_quote(n) for n in unknown)}: valid names are {', '.join(valid)}"
        )
    return [cls for cls in classes if cls.name in wanted]


# The cyclic garbage collector during a run: a run keeps every document and the engine objects
# built from them alive to its end (a large cluster: millions of objects) and makes new ones
# by the thousand; with the default threshold (a collection every 700 new objects, a full one
# every 70,000) the collector looks through all of them again and again (a seventh of the
# update bench). What the loop drops is mostly freed at once (documents hold no cycles), so
# the loop runs the collector after 50,000 new objects instead; undone when the last
# concurrent run ends.
GC_FIRST_GENERATION_THRESHOLD = 50_000
_gc_lock = threading.Lock()
_gc_runs = [0, None]  # (runs under way, the threshold before the first)


@contextlib.contextmanager
def fewer_collections():
    with _gc_lock:
        if _gc_runs[0] == 0:
            _gc_runs[1] = gc.get_threshold()
            first, *rest = _gc_runs[1]
            gc.set_threshold(max(first, GC_FIRST_GENERATION_THRESHOLD), *rest)
        _gc_runs[0] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_runs[0] -= 1
            if _gc_runs[0] == 0:
                gc.set_threshold(*_gc_runs[1])


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
        config: NodeLifecycleConfig = DEFAULT_CONFIG,
        explain: bool = True,
        preemption: bool = True,
        steps_played: int = 0,
        controllers: Iterable[str] | None = None,
        controller_state: Mapping[str, Mapping[str, Any]] | None = None,
        due: Mapping[str, float | None] | None = None,
        resumed: bool = False,
        changes: Iterable[Ref] = (),
        settings: Mapping[str, Any] | None = None,
        memo: dict[int, tuple] | None = None,
    ):
        """`steps_played`: how many Timeline steps (in play order) an earlier run of the
        same history already played; a run resumed from stored documents skips them.
        `controllers`: the names of the controllers to run (None: all of CONTROLLERS).
        `controller_state`: the controllers' state a previous run left
        (`store.controller_state`); documents and state still in the old annotation
        form are migrated (engine.controllers.legacy).
        `resumed`: the documents are exactly what a previous run of this loop left
        (only the clock moved since): the controllers then run only when due (`due`, the
        `due` a previous run left, with every controller that ran as a key) instead of all
        at the first instant.
        `changes`: for a resumed run, the objects written since the previous run left
        them (a user's write at the clock: created, replaced or deleted), handed to the
        controllers that watch their kinds as if the write had been played here.
        `settings`: more entries for `ctx.settings` (a controller's own options, e.g. the
        descheduler's policy), beside schedulers, admission, preemption, explain and
        node_lifecycle.
        `memo`: the documents are handed over as they are, not copied (the caller changes
        them no more; the store never changes a document in place), and `memo` holds the
        engine objects already built from them (engine.store.Store.memo): what a stored
        cluster read once keeps from one run to the next."""
        docs, state = legacy.migrate(docs, controller_state or {})
        self.store = Store(docs, state, copy=memo is None, memo=memo)
        build_state(self.store.all(), self.store.memo)  # refuse what cannot be simulated, up front
        self.now = 0.0
        self.seed = seed
        self.admission = admission
        self.settings: dict[str, Any] = {
            "schedulers": list(schedulers),
            "admission": admission,
            "preemption": preemption,
            "explain": explain,
            "node_lifecycle": config,
            **(settings or {}),
        }
        self.controllers: list[Controller] = [cls() for cls in select_controllers(controllers)]
        for c in self.controllers:  # what a controller must see of the store as the run starts
            attach = getattr(c, "attach", None)
            if attach is not None:
                attach(self.store)
        self.pod_keys: list[str] = []
        self.last_docs: dict[str, dict] = {}
        self.document_changes = 0  # documents changed (created, replaced, deleted) by this loop so far
        self._track_pods()
        self.steps: list[tuple[float, int, int, str, Step]] = sorted(
            (s.at, ti, s.index, t.name, s) for ti, t in enumerate(timelines) for s in t.steps
        )
        self._next_step = steps_played
        # Per controller: the refs changed since it last ran (None: everything). A resumed
        # run starts with no changes, except for a controller that never ran here (not in
        # `due`, e.g. one added to CONTROLLERS since): its first run sees everything.
        self._changes: dict[str, list[Ref] | None] = {
            c.name: ([] if resumed and c.name in (due or {}) else None) for c in self.controllers
        }
        self.due: dict[str, float | None] = {c.name: (due or {}).get(c.name) for c in self.controllers}
        if resumed:
            self._note(list(changes))
        self.started = resumed
        self.clock_ran = False
        self.instants: list[float] = []  # the simulated times the clock stopped at (event-driven)

    # --- public ----------------------------------------------------------------------------------------

    @property
    def steps_played(self) -> int:
        return self._next_step

    @property
    def events(self) -> list[A.RecordEvent]:
        return self.store.events

    @property
    def next_due(self) -> float | None:
        """The earliest time a controller asked to run again (None: only on a change)."""
        future = [d for d in self.due.values() if d is not None]
        return min(future) if future else None

    @property
    def next_step_time(self) -> float | None:
        """When the next Timeline step not yet played is due (None: no step left)."""
        return self._step_time()

    @property
    def results(self) -> list[ScheduleResult]:
        scheduler = self.controller(SCHEDULER)
        return scheduler.results if scheduler is not None else []

    def controller(self, name: str) -> Controller | None:
        return next((c for c in self.controllers if c.name == name), None)

    def start(self) -> None:
        """Every controller once, in order, on the objects as they are now, then rounds of
        the controllers with work until nothing more happens at this instant: every
        controller's first sync done (Deployments have their ReplicaSets and pods, the pods
        are scheduled, pools are rendered), which is what `simulate --until 0` shows."""
        self.started = True
        self.instants.append(self.now)
        self._round(force=True)
        self._settle_rounds()

    def schedule(self) -> None:
        """`start()` (kept for callers of the scheduling pass at t=0)."""
        if not self.started:
            self.start()

    def run_until(self, until: float) -> None:
        with fewer_collections():
            self._run_until(until)

    def _run_until(self, until: float) -> None:
        """At each instant the controllers due then run first, then the Timeline steps due
        are played (a write at the clock, as a stored cluster takes it: the loop runs up to
        its clock, then the write), then the controllers with work settle."""
        self.clock_ran = True
        if not self.started:
            self.start()
        else:
            self._settle()
        self._play_steps()
        self._settle()
        while True:
            candidates = [t for t in (self._step_time(), self.next_due) if t is not None and t > self.now + EPSILON]
            if not candidates:
                break
            nxt = min(candidates)
            if nxt > until + EPSILON:
                break
            self.now = nxt
            self._settle()
            self._play_steps()
            self._settle()
        self.now = max(self.now, until)

    def apply(self, actions: Iterable[Any]) -> list[Ref]:
        changed = self.store.apply_all(actions)
        self._note(changed)
        return changed

    def last_results(self) -> dict[str, ScheduleResult]:
        last: dict[str, ScheduleResult] = {}
        for r in self.results:
            last[r.pod.key] = r
        return last

    def admission_context(self, user: UserInfo) -> NodeSelectionContext | None:
        """What the node-selection admission plugins read: their configuration
        (settings["node_selection"], a NodeSelectionConfig; None: off), the current
        Namespace documents and the requesting user (settings["user"])."""
        config = self.settings.get("node_selection")
        if config is None:
            return None
        return NodeSelectionContext.build(config, self.store.list("Namespace"), user)

    def pod_doc(self, key: str) -> tuple[dict | None, bool]:
        """(the pod's document, whether it was deleted)."""
        ns, _, name = key.partition("/")
        doc = self.store.get("Pod", ns, name)
        if doc is not None:
            return doc, False
        return self.last_docs.get(key), True

    def scheduler_names(self) -> set[str]:
        return {name for name, _ in self.settings["schedulers"]}

    def phase(self, key: str) -> str:
        doc, deleted = self.pod_doc(key)
        return "Deleted" if deleted else self.phase_of(doc)

    def phase_of(self, doc: Mapping[str, Any]) -> str:
        """The phase the contract prints for a pod's document: Terminating while its deletion
        runs; Succeeded/Failed as recorded; a bound pod Running once its kubelet said so (or
        with no time run, as the scheduler leaves it); otherwise Pending."""
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

    # --- the loop ----------------------------------------------------------------------------------------

    def _track_pods(self, changed: Sequence[Ref] | None = None) -> None:
        """Note the pods' documents (every pod, or the `changed` ones: a change always puts
        a new document in the store) and the order pods first appeared in."""
        if changed is None:
            docs: Iterable[dict] = self.store.list("Pod")
        else:
            docs = [d for kind, ns, name in changed if kind == "Pod" for d in (self.store.get(kind, ns, name),) if d is not None]
        for doc in docs:
            key = pod_key(doc)
            if key not in self.last_docs:
                self.pod_keys.append(key)
            self.last_docs[key] = doc

    def _note(self, changed: Sequence[Ref]) -> None:
        """Hand the changed documents to the controllers that watch their kinds (a
        controller's own state is its own business: it asks for a run with next_due)."""
        refs = [r for r in changed if r[0] != CONTROLLER_STATE_KIND]
        self.document_changes += len(refs)
        if refs:
            kinds = {r[0] for r in refs}
            for c in self.controllers:
                pending = self._changes[c.name]
                if pending is None:
                    continue
                watched = kinds if ANY_KIND in c.watches else kinds & c.watches  # is_watched
                if watched == kinds:
                    pending.extend(refs)
                elif watched:
                    pending.extend(r for r in refs if r[0] in watched)
        self._track_pods(refs)

    def _round(self, force: bool = False) -> bool:
        """One round of the controllers at the current time; whether a document changed."""
        changed_any = False
        for c in self.controllers:
            pending = self._changes[c.name]
            due = self.due.get(c.name)
            if not force and pending == [] and not (due is not None and due <= self.now + EPSILON):
                continue
            self._changes[c.name] = []
            changed = None if pending is None else list(dict.fromkeys(pending))
            ctx = Context(self.store, self.now, self.seed, self.settings, self.store.state_of(c.name), changed)
            result = c.reconcile(ctx)
            if any(r[0] != CONTROLLER_STATE_KIND for r in self.apply(result.actions)):
                changed_any = True
            nd = result.next_due
            self.due[c.name] = nd if nd is not None and nd > self.now + EPSILON else None
        return changed_any

    def _settle(self) -> None:
        if not self.instants or self.instants[-1] != self.now:
            self.instants.append(self.now)
        self._settle_rounds()

    def _settle_rounds(self) -> None:
        for _ in range(MAX_ROUNDS):
            if not self._round():
                return
        raise RuntimeError(f"the controllers did not settle at t={self.now:g} after {MAX_ROUNDS} rounds")

    # --- Timeline steps ------------------------------------------------------------------------------------

    def _step_time(self) -> float | None:
        return self.steps[self._next_step][0] if self._next_step < len(self.steps) else None

    def _play_steps(self) -> None:
        """The Timeline steps due, in play order; the controllers with work settle after each,
        as after a write to a stored cluster (two writes at one instant are two writes)."""
        while self._next_step < len(self.steps) and self.steps[self._next_step][0] <= self.now + EPSILON:
            _, _, _, name, step = self.steps[self._next_step]
            self._next_step += 1
            self._play(name, step)
            self._settle_rounds()

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
                doc = admit(doc, classes, self.admission, self.admission_context(self.settings.get("user") or UserInfo()))
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
            if old is None:  # the API server stamps every object it creates
                doc.setdefault("metadata", {}).setdefault("creationTimestamp", time_value(now))
            self.apply([A.ReplaceObject(doc, keep_status=not step.has_status and old is not None)] + extra)
        elif step.action == "delete":
            if self.store.get(step.kind, step.namespace, step.name) is None:
                plural = step.kind.lower() + "s"
                self.apply([A.RecordEvent(now, "Warning", "FailedDelete", "Timeline", "", timeline,
                                          f'Error from server (NotFound): {plural} "{step.name}" not found', TIMELINE_SOURCE)])
                return
            self.apply(garbage_collector.cascade_delete(self.store, step.kind, step.namespace, step.name, now))
        else:
            # A Timeline `run:` step: CommandOutput with stdout exactly, or a Warning
            # CommandFailed with stderr, on the object Command/<step index>. A drain that
            # has to wait (PDB retries, grace periods) goes on in the drain controller.
            result = oc.run(self.store, step.command, now)
            ref = str(step.index)
            actions = list(result.actions)
            if result.exit_code == 0:
                actions.append(A.RecordEvent(now, "Normal", "CommandOutput", "Command", "", ref, result.stdout, TIMELINE_SOURCE))
            else:
                actions.append(A.RecordEvent(now, "Warning", "CommandFailed", "Command", "", ref, result.stderr, TIMELINE_SOURCE))
            if result.pending is not None:
                actions.append(A.SetControllerState("drain", f"Command/{ref}", result.pending))
            self.apply(actions)
            if result.pending is not None and "drain" in self.due:
                # State changes wake nobody: tell the drain controller when to resume.
                wake = result.pending.get("next_due")
                wake = now if wake is None else max(float(wake), now)
                current = self.due.get("drain")
                self.due["drain"] = wake if current is None else min(current, wake)
