"""`oc adm drain` and the drain logic the MCO and the machine controller reuse, as kubectl
does it (k8s.io/kubectl pkg/drain, pkg/cmd/drain), over simulated time.

Pure functions for other controllers:

    p = plan(store, "node1", DrainOptions(ignore_daemonsets=True, delete_emptydir_data=True))
    p.errors      # ["cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): ns/ds-x"]
    p.warnings    # "ignoring DaemonSet-managed Pods: ns/ds-x" (printed as "Warning: ...")
    actions, messages, done = evict_pass(store, p, now)   # p records its progress
    p.next_due    # when to call evict_pass again (a PDB retry 5 s later, a pod's end of grace)

`plan` applies kubectl's pod filters in kubectl's order (skip deleted, DaemonSet, mirror
pods, local storage, unreplicated; the first filter that refuses wins, otherwise the last
one's status counts, exactly as GetPodsForDeletion). `evict_pass` evicts through the
eviction API (engine.controllers.eviction.evict: PDBs, 429 refusals) every pod whose turn
has come, prints `evicting pod ns/x`, the 429 retry line `error when evicting pods/"x" -n
"ns" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption
budget.`, and `pod/x evicted` once an evicted pod is gone; it enforces --timeout as
kubectl's global timeout. The DrainPlan is plain data (to_dict/from_dict) so a controller
can keep it in its own state.

Over simulated time (how the CLI and the console show a drain progressing):
`oc adm drain` (run) cordons, plans and makes the first pass at `now`; when pods are
still to go it returns `OcResult.pending` (a JSON-able DrainRun). The caller lets the
cluster's clock and controllers move (the workload controllers replace evicted pods,
the scheduler places them, the disruption controller raises disruptionsAllowed, the
kubelet removes terminated pods) and calls `resume(store, pending, now)` at
`pending["next_due"]`, which prints what happened since and returns the next `pending`,
until the drain ends with `node/n1 drained` (or kubectl's failure summary and exit 1).
`manage.py oc --cluster` does this by stepping the stored cluster's clock (see
scheduling/store/oc_cli.py); `-f` snapshots have no controllers, so only the pods' own grace
periods pass there. DrainController resumes drains kept in controller state (Timeline
`run:` steps) inside the simulation loop.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.actions import Result
from scheduling.engine.controllers.eviction import evict
from scheduling.engine.store import Scratch, Store, controller_ref, sim_time

from .cordon import cordon_lines, node_names
from .core import DRY_RUN, OUTPUT, SELECTOR, BY_KIND, Flag, OcError, OcResult, dry_run_strategy, go_duration, meta, parse_flags
from .selectors import parse_selector

RETRY_DELAY = 5.0  # EvictErrorRetryDelay
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"  # sic: kubectl prefixes "cannot delete " again
UNMANAGED_WARNING = "deleting Pods that declare no controller"
NODE = BY_KIND["Node"]


@dataclass
class DrainOptions:
    force: bool = False
    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    grace_period: int = -1  # negative: the pod's own terminationGracePeriodSeconds
    timeout: float = 0.0  # seconds; 0 = no limit
    pod_selector: str = ""
    dry_run: str = "none"  # none | client | server
    disable_eviction: bool = False
    skip_wait_for_delete_timeout: int = 0


@dataclass
class PodProgress:
    namespace: str
    name: str
    uid: str = ""
    state: str = "evict"  # evict (next_try) -> wait (until gone) -> done | failed
    next_try: float = 0.0


@dataclass
class DrainPlan:
    node: str
    options: DrainOptions
    pods: list[PodProgress] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # refusals: the drain cannot start
    warnings: str = ""
    started: float | None = None
    failures: list[str] = field(default_factory=list)  # errors during the evictions
    next_due: float | None = None

    def to_dict(self) -> dict:
        """dataclasses.asdict(self), written out (a drain under way is saved often)."""
        return {"node": self.node, "options": {f: getattr(self.options, f) for f in _OPTION_FIELDS},
                "pods": [{"namespace": p.namespace, "name": p.name, "uid": p.uid, "state": p.state, "next_try": p.next_try}
                         for p in self.pods],
                "errors": list(self.errors), "warnings": self.warnings, "started": self.started,
                "failures": list(self.failures), "next_due": self.next_due}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DrainPlan":
        data = dict(data)
        options = DrainOptions(**data.pop("options"))
        pods = [PodProgress(**p) for p in data.pop("pods")]
        return cls(options=options, pods=pods, **data)

    @property
    def done(self) -> bool:
        return all(p.state in ("done", "failed") for p in self.pods)


_OPTION_FIELDS = tuple(f.name for f in fields(DrainOptions))


# --- planning: GetPodsForDeletion ----------------------------------------------------------------------------


def _ok() -> tuple[bool, str, str]:
    return (True, "Okay", "")


def _pod_filters(store: Store, pod: Mapping[str, Any], options: DrainOptions) -> tuple[bool, str, str]:
    """(delete, reason Okay|Skip|Warning|Error, message) after kubectl's filters."""
    phase = (pod.get("status") or {}).get("phase")
    finished = phase in ("Succeeded", "Failed")
    ref = controller_ref(pod)

    def skip_deleted():
        if options.skip_wait_for_delete_timeout > 0 and meta(pod).get("deletionTimestamp") is not None:
            return (False, "Skip", "")
        return _ok()

    def daemon_set():
        if ref is None or ref.get("kind") != "DaemonSet" or ref.get("apiVersion") != "apps/v1" or finished:
            return _ok()
        if store.get("DaemonSet", meta(pod).get("namespace") or "default", ref.get("name") or "") is None:
            message = f'daemonsets.apps "{ref.get("name")}" not found'
            return (True, "Warning", message) if options.force else (False, "Error", message)
        if not options.ignore_daemonsets:
            return (False, "Error", DAEMONSET_FATAL)
        return (False, "Warning", DAEMONSET_WARNING)

    def mirror():
        return (False, "Skip", "") if MIRROR_ANNOTATION in (meta(pod).get("annotations") or {}) else _ok()

    def local_storage():
        if not any("emptyDir" in (v or {}) for v in (pod.get("spec") or {}).get("volumes") or ()) or finished:
            return _ok()
        if not options.delete_emptydir_data:
            return (False, "Error", LOCAL_STORAGE_FATAL)
        return (True, "Warning", LOCAL_STORAGE_WARNING)

    def unreplicated():
        if finished or ref is not None:
            return _ok()
        if options.force:
            return (True, "Warning", UNMANAGED_WARNING)
        return (False, "Error", UNMANAGED_FATAL)

    status = _ok()
    for check in (skip_deleted, daemon_set, mirror, local_storage, unreplicated):
        status = check()
        if not status[0]:
            break
    return status


def _grouped(entries: Sequence[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    for message, pod in entries:
        groups.setdefault(message, []).append(pod)
    return list(groups.items())


def plan(store: Store, node: str, options: DrainOptions) -> DrainPlan:
    """The pods a drain of `node` evicts, the refusals (errors) and the warnings."""
    match = parse_selector(options.pod_selector) if options.pod_selector else (lambda labels: True)
    pods = sorted(
        (p for p in store.in_order("Pod", store.pods_on_node(node)) if match(meta(p).get("labels") or {})),
        key=lambda p: (meta(p).get("namespace") or "default", meta(p).get("name") or ""),
    )
    result = DrainPlan(node, options)
    warnings: list[tuple[str, str]] = []
    errors: list[tuple[str, str]] = []
    for pod in pods:
        ns, name = meta(pod).get("namespace") or "default", meta(pod).get("name") or ""
        delete, reason, message = _pod_filters(store, pod, options)
        if delete:
            result.pods.append(PodProgress(ns, name, str(meta(pod).get("uid") or "")))
        if reason == "Warning":
            warnings.append((message, f"{ns}/{name}"))
        elif reason == "Error":
            errors.append((message or "unexpected error", f"{ns}/{name}"))
    result.warnings = "; ".join(f"{m}: {', '.join(p)}" for m, p in _grouped(warnings))
    result.errors = [f"cannot delete {m}: {', '.join(p)}" for m, p in _grouped(errors)]
    return result


# --- evicting -----------------------------------------------------------------------------------------------------


def _gone(store: Store, p: PodProgress) -> bool:
    doc = store.get("Pod", p.namespace, p.name)
    return doc is None or (bool(p.uid) and str(meta(doc).get("uid") or "") not in ("", p.uid))


def evict_pass(store: Store, p: DrainPlan, now: float) -> tuple[list, list[tuple[str, str]], bool]:
    """One pass of the evictions due at `now` (kubectl's per-pod goroutines, in pod order).
    Returns (actions, messages as (stdout|stderr, line), done) and updates `p`."""
    opts = p.options
    if p.started is None:
        p.started = now
    deadline = p.started + opts.timeout if opts.timeout > 0 else None
    timed_out = deadline is not None and now >= deadline - 1e-9
    scratch = Scratch(store)  # evictions in one pass see each other's PDB updates
    actions: list = []
    messages: list[tuple[str, str]] = []
    verb = "deleted" if opts.disable_eviction else "evicted"
    for pod in p.pods:
        if pod.state == "wait":
            if _gone(scratch, pod):
                pod.state = "done"
                messages.append(("stdout", f"pod/{pod.name} {verb}\n"))
            elif timed_out:
                pod.state = "failed"
                p.failures.append(f'error when waiting for pod "{pod.name}" in namespace "{pod.namespace}" to terminate: '
                                  "context deadline exceeded")
            continue
        if pod.state != "evict" or pod.next_try > now + 1e-9:
            continue
        if opts.disable_eviction:
            if scratch.get("Pod", pod.namespace, pod.name) is not None:
                doc = scratch.get("Pod", pod.namespace, pod.name)
                grace = opts.grace_period if opts.grace_period >= 0 else int((doc.get("spec") or {}).get("terminationGracePeriodSeconds", 30) or 0)
                action = A.SetPodDeletion(pod.namespace, pod.name, now, grace, "Deleted")
                scratch.apply(action)
                actions.append(action)
            pod.state = "wait"
            continue
        suffix = " (server dry run)" if opts.dry_run == "server" else ""
        messages.append(("stdout", f"evicting pod {pod.namespace}/{pod.name}{suffix}\n"))
        if timed_out:
            pod.state = "failed"
            p.failures.append(f'error when evicting pods/"{pod.name}" -n "{pod.namespace}": global timeout reached: '
                              f"{go_duration(opts.timeout)}")
            continue
        if _gone(scratch, pod):
            pod.state = "done"  # NotFound: nothing to evict
            continue
        eviction = evict(scratch, pod.namespace, pod.name, now, None if opts.grace_period < 0 else opts.grace_period)
        if eviction.allowed:
            if opts.dry_run == "server":
                pod.state = "done"
                continue
            scratch.apply_all(eviction.actions)
            actions.extend(eviction.actions)
            pod.state = "wait"
        elif eviction.code == 429:
            messages.append(("stderr", f'error when evicting pods/"{pod.name}" -n "{pod.namespace}" (will retry after '
                                       f"{go_duration(RETRY_DELAY)}): {eviction.message}\n"))
            pod.next_try = now + RETRY_DELAY
        else:
            pod.state = "failed"
            p.failures.append(f'error when evicting pods/"{pod.name}" -n "{pod.namespace}": {eviction.message}')
    p.next_due = _next_due(scratch, p, deadline, now)
    return actions, messages, p.done


def _next_due(store: Store, p: DrainPlan, deadline: float | None, now: float) -> float | None:
    times: list[float] = []
    for pod in p.pods:
        if pod.state == "evict":
            times.append(pod.next_try)
        elif pod.state == "wait":
            doc = store.get("Pod", pod.namespace, pod.name)
            gone_at = sim_time(meta(doc).get("deletionTimestamp")) if doc is not None else None
            times.append(gone_at if gone_at is not None and gone_at > now else now + 1.0)
    if deadline is not None and times:
        times.append(deadline)
    future = [t for t in times if t > now + 1e-9]
    return min(future) if future else (now if times else None)


def aggregate(errors: Sequence[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message, or `[a, b]` (duplicates once)."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# --- the command: a drain of one or more nodes, resumable -----------------------------------------------------------


FLAGS = (
    SELECTOR, DRY_RUN, OUTPUT,
    Flag("force", "bool", "", False),
    Flag("ignore-daemonsets", "bool", "", False),
    Flag("delete-emptydir-data", "bool", "", False),
    Flag("grace-period", "int", "", -1),
    Flag("timeout", "duration", "", 0.0),
    Flag("pod-selector", "string", "", ""),
    Flag("disable-eviction", "bool", "", False),
    Flag("skip-wait-for-delete-timeout", "int", "", 0),
    Flag("chunk-size", "int", "", 500),
)


def _start_node(store: Store, state: dict, now: float, out: list[tuple[str, str]]) -> None:
    """GetPodsForDeletion for the next node: refusals end it at once."""
    options = DrainOptions(**state["options"])
    node = state["nodes"][state["index"]]
    p = plan(store, node, options)
    if p.errors:
        _node_failed(state, node, aggregate(p.errors), out)
        state["index"] += 1
        return
    if p.warnings:
        out.append(("stderr", f"Warning: {p.warnings}\n"))
    if options.dry_run == "client":
        out.extend(("stdout", f"evicting pod {pod.namespace}/{pod.name} (dry run)\n") for pod in p.pods)
        out.append(("stdout", f"node/{node} drained (dry run)\n"))
        state["index"] += 1
        return
    state["plan"] = p.to_dict()


def _node_failed(state: dict, node: str, error: str, out: list[tuple[str, str]]) -> None:
    out.append(("stderr", f'error: unable to drain node "{node}" due to error: {error}, continuing command...\n'))
    state["failed"].append([node, error])


def _advance(store: Store, state: dict, now: float) -> tuple[list, list[tuple[str, str]]]:
    """Drive the drain as far as it goes at `now`."""
    actions: list = []
    out: list[tuple[str, str]] = []
    scratch = store
    while True:
        if state.get("plan") is None:
            if state["index"] >= len(state["nodes"]):
                break
            _start_node(scratch, state, now, out)
            continue
        p = DrainPlan.from_dict(state["plan"])
        acts, messages, done = evict_pass(scratch, p, now)
        if acts:
            scratch = scratch.copy() if scratch is store else scratch
            scratch.apply_all(acts)
            actions.extend(acts)
        out.extend(messages)
        if not done:
            state["plan"] = p.to_dict()
            break
        state["plan"] = None
        state["index"] += 1
        if p.failures:
            error = aggregate(p.failures)
            left = [pod for pod in plan(scratch, p.node, p.options).pods]
            if left:
                out.append(("stderr", f'There are pending pods in node "{p.node}" when an error occurred: {error}\n'))
                out.extend(("stderr", f"pod/{pod.name}\n") for pod in left)
            _node_failed(state, p.node, error, out)
        else:
            dry = " (server dry run)" if p.options.dry_run == "server" else ""
            out.append(("stdout", f"node/{p.node} drained{dry}\n"))
    return actions, out


def _result(actions: list, out: list[tuple[str, str]], state: dict) -> OcResult:
    finished = state.get("plan") is None and state["index"] >= len(state["nodes"])
    exit_code = 0
    if finished and state["failed"]:
        out.append(("stderr", "There are pending nodes to be drained:\n"))
        out.extend(("stderr", f" {node}\n") for node, _ in state["failed"])
        out.append(("stderr", f"error: {aggregate([e for _, e in state['failed']])}\n"))
        exit_code = 1
    if not finished:
        state["next_due"] = DrainPlan.from_dict(state["plan"]).next_due
    result = OcResult("".join(t for s, t in out if s == "stdout"), "".join(t for s, t in out if s == "stderr"), exit_code,
                      actions, pending=None if finished else state, lines=out)
    return result


def resume(store: Store, pending: Mapping[str, Any], now: float) -> OcResult:
    """Continue a drain `run` left pending: what it prints and does at `now`."""
    state = {**pending, "failed": [list(f) for f in pending["failed"]]}
    actions, out = _advance(store, state, now)
    return _result(actions, out, state)


def run(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    if not positional and not flags.changed("selector"):
        raise OcError("USAGE: drain NODE [flags]", usage=True)
    if positional and flags.selector:
        raise OcError("error: cannot specify both a node name and a --selector option", usage=True)
    dry_run = dry_run_strategy(flags.dry_run)
    if flags.pod_selector:
        try:
            parse_selector(flags.pod_selector)
        except OcError:
            raise OcError("--pod-selector=<pod_selector> must be a valid label selector") from None
    names = node_names(store, positional, flags.selector)
    options = DrainOptions(
        force=flags.force, ignore_daemonsets=flags.ignore_daemonsets,
        delete_emptydir_data=flags.delete_emptydir_data, grace_period=flags.grace_period,
        timeout=flags.timeout, pod_selector=flags.pod_selector, dry_run=dry_run, disable_eviction=flags.disable_eviction,
        skip_wait_for_delete_timeout=flags.skip_wait_for_delete_timeout,
    )
    cordoned, cordon_actions = cordon_lines(store, names, True, "", dry_run)
    out: list[tuple[str, str]] = []
    out.extend(("stdout", line) for line in cordoned)
    scratch = store
    actions: list = []
    if dry_run == "none" and cordon_actions:
        scratch = store.copy()
        scratch.apply_all(cordon_actions)
        actions.extend(cordon_actions)
    state = {"options": asdict(options), "nodes": names, "index": 0, "plan": None, "failed": [], "next_due": None}
    more, lines = _advance(scratch, state, now)
    result = _result(actions + more, out + lines, state)
    if dry_run == "server":
        result.would = cordon_actions  # the what-if preview of a server dry run
    return result


run.help_text = """Drain node in preparation for maintenance.

 The given node will be marked unschedulable to prevent new pods from arriving. 'drain' evicts the pods if the API server supports https://kubernetes.io/docs/concepts/workloads/pods/disruptions/ eviction https://kubernetes.io/docs/concepts/workloads/pods/disruptions/ . Otherwise, it will use normal DELETE to delete the pods. The 'drain' evicts or deletes all pods except mirror pods (which cannot be deleted through the API server).  If there are daemon set-managed pods, drain will not proceed without --ignore-daemonsets, and regardless it will not delete any daemon set-managed pods, because those pods would be immediately replaced by the daemon set controller, which ignores unschedulable markings.  If there are any pods that are neither mirror pods nor managed by a replication controller, replica set, daemon set, stateful set, or job, then drain will not delete any pods unless you use --force.  --force will also allow deletion to proceed if the managing resource of one or more pods is missing.

 'drain' waits for graceful termination. You should not operate on the machine until the command completes.

 When you are ready to put the node back into service, use kubectl uncordon, which will make the node schedulable again.

Examples:
  # Drain node "foo", even if there are pods not managed by a replication controller, replica set, job, daemon set, or stateful set on it
  kubectl drain foo --force

  # As above, but abort if there are pods not managed by a replication controller, replica set, job, daemon set, or stateful set, and use a grace period of 15 minutes
  kubectl drain foo --grace-period=900

Usage:
  kubectl drain NODE [options]
"""


# --- a controller that continues drains kept in its state ---------------------------------------------------------------


class DrainController:
    """Continues drains started by Timeline `run:` steps (state key: the step's object,
    e.g. "Command/3"; value: the pending DrainRun). Each resumption that prints something
    records a CommandOutput event (or a Warning CommandFailed when the drain failed) on
    that object. Add it to the simulation's CONTROLLERS after the workload controllers."""

    name = "drain"
    watches = frozenset({"Pod", "Node", "PodDisruptionBudget"})

    def reconcile(self, ctx) -> Result:
        result = Result()
        for key, pending in sorted(ctx.state.items()):
            due = pending.get("next_due")
            if due is not None and due > ctx.now + 1e-9:
                result.due(due)
                continue
            step = resume(ctx.store, pending, ctx.now)
            result.actions.extend(step.actions)
            kind, _, name = key.partition("/")
            if step.stdout:
                result.actions.append(A.RecordEvent(ctx.now, "Normal", "CommandOutput", kind, "", name, step.stdout, "timeline"))
            if step.exit_code != 0:
                result.actions.append(A.RecordEvent(ctx.now, "Warning", "CommandFailed", kind, "", name, step.stderr, "timeline"))
            result.actions.append(A.SetControllerState(self.name, key, step.pending))
            if step.pending is not None:
                result.due(step.pending.get("next_due"))
        return result
