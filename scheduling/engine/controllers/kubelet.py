"""The simulated kubelets: node status reporting and the pods on each node.

* A pod bound to a node whose kubelet reports is started at once (status.phase Running).
* A terminating pod (metadata.deletionTimestamp set, = deletion request + grace period)
  on a reporting node: its containers are stopped (`Killing` events, one per container,
  `Killing container with id docker://<container>:Need to kill Pod`, the 1.11 wording,
  source kubelet, once: the kubelet's state `<namespace>/<name>` -> when it sent the stop
  signal) and the pod object is removed at its deletionTimestamp. On a node that
  does not report (`clusterui.io/heartbeat-stopped-at`) nothing happens: the pod stays
  Terminating until the node reports again (as with a real unreachable node). A
  terminating pod that is not bound, or bound to a node that no longer exists, is removed
  at once (the API server deletes unscheduled pods without grace; the pod GC removes
  orphans). So is any pod bound to a node that does not exist (the pod GC's gcOrphaned).
* A node whose kubelet reports again after the node controller set its conditions to
  Unknown posts a fresh status: Ready True, MemoryPressure/DiskPressure/PIDPressure
  False, with the kubelet's events (`NodeReady` `Node <name> status is now: NodeReady`,
  `NodeHasSufficientMemory`, ...).

* A pod whose containers run to an end (restartPolicy Never or OnFailure: a Job's pods, or a
  pod that asks for it) is finished by its kubelet on the simulated clock (`run_model`):
  its containers run `clusterui.io/run-seconds` seconds (the pod's annotation), else the
  N of a `sleep N` in their command or args, else RUN_SECONDS for a pod a Job controls;
  they exit with `clusterui.io/exit-code` (annotation), else the N of an `exit N` in their
  command or args, else 0. Exit 0: phase Succeeded, each container terminated `Completed`;
  another code: with Never, phase Failed, terminated `Error`; with OnFailure the containers
  are restarted at once (restartCount + 1, lastState terminated `Error`) and run again. A
  pod with restartPolicy Always runs until it is deleted.

`set_condition` is how a user (the dashboard) changes a condition "as the kubelet": the
condition with the kubelet's reason and message, and the kubelet's event;
`normalize_node_status` does the same for a whole Node document a Timeline applies.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import re
from typing import Any, Iterable, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controller import ANY_KIND, Context
from scheduling.engine.controllers.node_lifecycle import NODE_STATUS_UNKNOWN, conditions_of, is_reporting
from scheduling.engine.store import Store, is_terminating, meta, name_of, namespace_of, sim_time, time_value

NAME = "kubelet"
SOURCE = "kubelet"

# (type, status) -> (reason, message, event reason) as the 1.11 kubelet sets them
# (pkg/kubelet/kubelet_node_status.go; NetworkUnavailable is the route controller's).
KUBELET_CONDITIONS: dict[tuple[str, str], tuple[str, str, str | None]] = {
    ("Ready", "True"): ("KubeletReady", "kubelet is posting ready status", "NodeReady"),
    ("Ready", "False"): ("KubeletNotReady", "container runtime is down", "NodeNotReady"),
    ("MemoryPressure", "True"): ("KubeletHasInsufficientMemory", "kubelet has insufficient memory available", "NodeHasInsufficientMemory"),
    ("MemoryPressure", "False"): ("KubeletHasSufficientMemory", "kubelet has sufficient memory available", "NodeHasSufficientMemory"),
    ("DiskPressure", "True"): ("KubeletHasDiskPressure", "kubelet has disk pressure", "NodeHasDiskPressure"),
    ("DiskPressure", "False"): ("KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"),
    ("PIDPressure", "True"): ("KubeletHasInsufficientPID", "kubelet has insufficient PID available", "NodeHasInsufficientPID"),
    ("PIDPressure", "False"): ("KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"),
    ("OutOfDisk", "True"): ("KubeletOutOfDisk", "out of disk space", "NodeOutOfDisk"),
    ("OutOfDisk", "False"): ("KubeletHasSufficientDisk", "kubelet has sufficient disk space available", "NodeHasSufficientDisk"),
    ("NetworkUnavailable", "True"): ("NoRouteCreated", "Node created without a route", None),
    ("NetworkUnavailable", "False"): ("RouteCreated", "RouteController created a route", None),
}
# What a condition is when the node does not list it (a healthy kubelet).
IMPLICIT_STATUS = {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False",
                   "OutOfDisk": "False", "NetworkUnavailable": "False"}
HEALTHY = {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False", "OutOfDisk": "False"}


RUN_SECONDS_ANNOTATION = "clusterui.io/run-seconds"
EXIT_CODE_ANNOTATION = "clusterui.io/exit-code"
RUN_SECONDS = 10.0  # how long a Job's pod runs when nothing says
_SLEEP = re.compile(r"\bsleep\s+(\d+(?:\.\d+)?)\b")
_EXIT = re.compile(r"\bexit\s+(\d+)\b")


def _words(pod: Mapping[str, Any]) -> str:
    return " ".join(str(w) for c in (pod.get("spec") or {}).get("containers") or ()
                    for w in [*(c.get("command") or ()), *(c.get("args") or ())])


def run_model(pod: Mapping[str, Any]) -> tuple[float, int] | None:
    """(how long the pod's containers run, their exit code), or None: they run until stopped."""
    if ((pod.get("spec") or {}).get("restartPolicy") or "Always") == "Always":
        return None
    annotations = meta(pod).get("annotations") or {}
    words = _words(pod)
    try:
        seconds = float(annotations[RUN_SECONDS_ANNOTATION])
    except (KeyError, TypeError, ValueError):
        sleep = _SLEEP.search(words)
        if sleep is not None:
            seconds = float(sleep.group(1))
        elif any(r.get("kind") == "Job" and r.get("controller") for r in meta(pod).get("ownerReferences") or ()):
            seconds = RUN_SECONDS
        else:
            return None
    try:
        code = int(annotations[EXIT_CODE_ANNOTATION])
    except (KeyError, TypeError, ValueError):
        exits = _EXIT.findall(words)
        code = int(exits[-1]) if exits else 0
    return max(seconds, 0.0), code


def run_started(pod: Mapping[str, Any]) -> float | None:
    """When the pod's containers last started (a restart's startedAt, else status.startTime)."""
    status = pod.get("status") or {}
    for c in status.get("containerStatuses") or ():
        started = ((c.get("state") or {}).get("running") or {}).get("startedAt")
        if started is not None:
            return sim_time(started)
    return sim_time(status.get("startTime"))


def run_end(pod: Mapping[str, Any]) -> float | None:
    """When a running pod's containers exit (None: they do not, or it is not running)."""
    if (pod.get("status") or {}).get("phase") != "Running" or is_terminating(pod):
        return None
    model = run_model(pod)
    start = run_started(pod) if model is not None else None
    return None if start is None else start + model[0]


def _finish(pod: Mapping[str, Any], end: float, now: float) -> A.PatchStatus:
    """The containers exited at `end`: the pod's new status (see the module's docstring)."""
    model = run_model(pod)
    code = model[1] if model is not None else 0
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    restarts = {c.get("name"): int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or ()}
    began = run_started(pod)
    started = time_value(end if began is None else began)
    terminated = {"exitCode": code, "reason": "Completed" if code == 0 else "Error", "startedAt": started,
                  "finishedAt": time_value(end)}
    restart = code != 0 and spec.get("restartPolicy") == "OnFailure"
    statuses = []
    for c in spec.get("containers") or ():
        name = c.get("name") or ""
        entry = {"name": name, "image": c.get("image") or "", "imageID": "", "ready": restart, "started": restart,
                 "restartCount": restarts.get(name, 0) + (1 if restart else 0)}
        if restart:
            entry["lastState"] = {"terminated": terminated}
            entry["state"] = {"running": {"startedAt": time_value(now)}}
        else:
            entry["lastState"] = {}
            entry["state"] = {"terminated": terminated}
        statuses.append(entry)
    fields: dict = {"containerStatuses": statuses}
    if not restart:
        fields["phase"] = "Succeeded" if code == 0 else "Failed"
    return A.PatchStatus("Pod", namespace_of(pod), name_of(pod), fields)


def killing_message(container: str) -> str:
    return f"Killing container with id docker://{container}:Need to kill Pod"


def _event(now: float, node: str, reason: str) -> A.RecordEvent:
    return A.RecordEvent(now, "Normal", reason, "Node", "", node, f"Node {node} status is now: {reason}", SOURCE)


def set_condition(node_doc: Mapping[str, Any], ctype: str, status: str, now: float,
                  reason: str | None = None, message: str | None = None) -> list:
    """The kubelet reports condition `ctype` = `status`: the SetNodeCondition action, and
    the kubelet's event when the status changes."""
    name = meta(node_doc).get("name") or ""
    default_reason, default_message, event = KUBELET_CONDITIONS.get((ctype, status), ("", "", None))
    old = conditions_of(node_doc).get(ctype)
    old_status = old.get("status") if old is not None else IMPLICIT_STATUS.get(ctype)
    out: list = [A.SetNodeCondition(name, ctype, status, default_reason if reason is None else reason,
                                    default_message if message is None else message, now)]
    if old_status != status and event is not None:
        out.append(_event(now, name, event))
    return out


def normalize_node_status(old: Mapping[str, Any] | None, new: Mapping[str, Any], now: float) -> tuple[dict, list]:
    """A Node document applied at `now` (Timeline `apply`) as the kubelet would post it:
    each condition whose status changed gets lastTransitionTime `now` (unless given) and
    lastHeartbeatTime, reason and message defaults; returns (document, kubelet events)."""
    doc = copy.deepcopy(dict(new))
    name = meta(doc).get("name") or ""
    before = conditions_of(old) if old is not None else {}
    events: list = []
    listed = set(conditions_of(doc))
    for ctype, prev in before.items():
        # A condition the new document leaves out is the healthy implicit one.
        if ctype not in listed and ctype in IMPLICIT_STATUS and prev.get("status") != IMPLICIT_STATUS[ctype] and "status" in doc:
            event = KUBELET_CONDITIONS.get((ctype, IMPLICIT_STATUS[ctype]), ("", "", None))[2]
            if event is not None:
                events.append(_event(now, name, event))
    for cond in (doc.get("status") or {}).get("conditions") or ():
        ctype, status = cond.get("type"), cond.get("status")
        prev = before.get(ctype)
        prev_status = prev.get("status") if prev is not None else IMPLICIT_STATUS.get(ctype)
        reason, message, event = KUBELET_CONDITIONS.get((ctype, status), ("", "", None))
        cond.setdefault("reason", reason)
        cond.setdefault("message", message)
        cond.setdefault("lastHeartbeatTime", time_value(now))
        if prev_status != status:
            cond.setdefault("lastTransitionTime", time_value(now))
            if event is not None:
                events.append(_event(now, name, event))
        else:
            cond.setdefault("lastTransitionTime", prev.get("lastTransitionTime", time_value(now)) if prev else time_value(now))
    return doc, events


def _grace_done(pod: Mapping[str, Any]) -> float:
    return sim_time(meta(pod).get("deletionTimestamp")) or 0.0


def killed_at(store: Store, namespace: str, name: str) -> float | None:
    """When the kubelet stopped the terminating pod's containers (None: not yet)."""
    return sim_time(store.state_of(NAME).get(f"{namespace}/{name}"))


def _nodes_reporting_again(node_docs: Iterable[Mapping[str, Any]], now: float) -> list:
    """Nodes reporting again after the node lifecycle controller marked them Unknown: their
    kubelet sets each Unknown condition back to its healthy status."""
    actions: list = []
    for node in node_docs:
        if not is_reporting(node):
            continue
        conds = conditions_of(node)
        if not any(c.get("reason") == NODE_STATUS_UNKNOWN for c in conds.values()):
            continue
        for ctype, healthy in HEALTHY.items():
            cond = conds.get(ctype)
            if cond is not None and cond.get("reason") == NODE_STATUS_UNKNOWN:
                actions += set_condition(node, ctype, healthy, now)
    return actions


def reconcile(store: Store, now: float, *, nodes: Iterable[str] | None = None,
              pods: Iterable[tuple[str, str]] | None = None) -> A.Result:
    """One pass over every node and pod, or over the `nodes` (names) and `pods`
    ((namespace, name)) given, when the others are known to need nothing (nor their entries
    in the state to go): the ones that changed and the terminating pods whose time is up."""
    result = A.Result()
    node_docs = store.list("Node") if nodes is None else store.in_order("Node", (("", n) for n in nodes))
    killed = store.state_of(NAME)

    result.actions += _nodes_reporting_again(node_docs, now)

    # pods gone or no longer terminating (of the `pods` given: the others did not change)
    if pods is not None:
        pods = set(pods)
        gone = [(key, ns, name) for ns, name in pods for key in (f"{ns}/{name}",) if key in killed]
    else:
        gone = [(key, *key.partition("/")[::2]) for key in killed]
    for key, ns, name in gone:
        pod = store.get("Pod", ns, name)
        if pod is None or not is_terminating(pod):
            result.actions.append(A.SetControllerState(NAME, key, None))
    for pod in (store.list("Pod") if pods is None else store.in_order("Pod", pods)):
        m = meta(pod)
        ns, name = m.get("namespace") or "default", m.get("name") or ""
        key = f"{ns}/{name}"
        node_name = (pod.get("spec") or {}).get("nodeName") or ""
        node = store.get("Node", "", node_name) if node_name else None
        if is_terminating(pod):
            if node is None:
                result.actions.append(A.DeleteObject("Pod", ns, name))
                continue
            if not is_reporting(node):
                continue
            if key not in killed:
                for c in (pod.get("spec") or {}).get("containers") or ():
                    result.actions.append(A.RecordEvent(now, "Normal", "Killing", "Pod", ns, name, killing_message(c.get("name") or ""), SOURCE))
                result.actions.append(A.SetControllerState(NAME, key, time_value(now)))
            deadline = _grace_done(pod)
            if now + 1e-9 >= deadline:
                result.actions.append(A.DeleteObject("Pod", ns, name))
                result.actions.append(A.SetControllerState(NAME, key, None))
            else:
                result.due(deadline)
            continue
        if node_name and node is None:
            # The pod GC (gcOrphaned): a pod bound to a node that does not exist is deleted.
            result.actions.append(A.DeleteObject("Pod", ns, name))
            continue
        if node is not None and is_reporting(node) and (pod.get("status") or {}).get("phase", "Pending") == "Pending":
            result.actions.append(A.PatchStatus("Pod", ns, name, {"phase": "Running", "startTime": time_value(now)}))
            model = run_model(pod)
            if model is not None:
                result.due(now + model[0])
            continue
        end = run_end(pod) if node is not None and is_reporting(node) else None
        if end is not None:
            if now + 1e-9 >= end:
                result.actions.append(_finish(pod, end, now))
            else:
                result.due(end)
    return result


class Kubelet:
    """Runs `reconcile` over what changed since its last run (nodes, pods, and the pods on
    changed nodes) and the terminating pods whose grace period is over: a pod that is not
    terminating and did not change, on a node that did not change, has nothing more to
    do; a terminating one (its containers already stopped) only waits for its time."""

    name = NAME
    watches = frozenset({ANY_KIND})

    def __init__(self) -> None:
        # the terminating pods, as of the last run: (namespace, name) -> (node, end of grace)
        self._terminating: dict[tuple[str, str], tuple[str, float]] | None = None
        self._deadlines: list[tuple[float, tuple[str, str]]] = []  # (end of grace, pod) of those, sorted
        self._ends: dict[tuple[str, str], float] = {}  # running pods whose containers exit: when (run_end)

    def _set(self, key: tuple[str, str], doc: Mapping[str, Any] | None) -> None:
        assert self._terminating is not None
        old = self._terminating.pop(key, None)
        if old is not None:
            del self._deadlines[bisect.bisect_left(self._deadlines, (old[1], key))]
        if doc is not None and is_terminating(doc):
            self._terminating[key] = ((doc.get("spec") or {}).get("nodeName") or "", _grace_done(doc))
            bisect.insort(self._deadlines, (self._terminating[key][1], key))
        end = None if doc is None else run_end(doc)
        if end is None:
            self._ends.pop(key, None)
        else:
            self._ends[key] = end

    def reconcile(self, ctx: Context) -> A.Result:
        store, now = ctx.store, ctx.now
        if ctx.changed is None or self._terminating is None:
            self._terminating = {(namespace_of(p), name_of(p)): ((p.get("spec") or {}).get("nodeName") or "", _grace_done(p))
                                 for p in store.list("Pod") if is_terminating(p)}
            self._deadlines = sorted((deadline, key) for key, (_, deadline) in self._terminating.items())
            self._ends = {(namespace_of(p), name_of(p)): end for p in store.list("Pod") for end in (run_end(p),) if end is not None}
            return reconcile(store, now)
        nodes: set[str] = set()
        pods: set[tuple[str, str]] = set()
        for kind, ns, name in ctx.changed:
            if kind == "Pod":
                pods.add((ns, name))
                self._set((ns, name), store.get("Pod", ns, name))
            elif kind == "Node":
                nodes.add(name)
        for node in nodes:
            pods.update(store.pods_on_node(node))
        up = bisect.bisect_right(self._deadlines, now + 1e-9, key=_first)  # the pods whose time is up
        pods.update(key for _, key in self._deadlines[:up])
        pods.update(key for key, end in self._ends.items() if end <= now + 1e-9)  # and whose containers exit
        result = reconcile(store, now, nodes=nodes, pods=pods)
        self._due_at_the_next_end_of_grace(store, result, up, pods)
        later = [end for key, end in self._ends.items() if key not in pods and end > now + 1e-9]
        if later:
            result.due(min(later))  # (on a node that does not report, that run finds nothing to do)
        return result

    def _due_at_the_next_end_of_grace(self, store, result: A.Result, up: int, pods: set[tuple[str, str]]) -> None:
        """What reconcile would say of the pods it did not look at: due at the earliest end
        of a grace period on a reporting node."""
        reporting: dict[str, bool] = {}
        for deadline, key in itertools.islice(self._deadlines, up, None):
            if key in pods:
                continue
            node = self._terminating[key][0]
            if node not in reporting:
                doc = store.get("Node", "", node) if node else None
                reporting[node] = doc is not None and is_reporting(doc)
            if reporting[node]:
                result.due(deadline)
                break


def _first(item: tuple) -> Any:
    return item[0]
