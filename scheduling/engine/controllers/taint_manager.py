"""The NoExecute taint manager (pkg/controller/nodelifecycle/scheduler/taint_manager.go, 1.11).

For every pod bound to a node, against the node's NoExecute taints
(`processPodOnNode`, scheduler-semantics items 29-31):

* no NoExecute taint: a scheduled eviction is cancelled;
* a NoExecute taint no toleration matches: the pod is deleted at once (a scheduled
  eviction is cancelled first, with its event, as upstream does);
* all tolerated: `GetMatchingTolerations` takes, for each taint, the FIRST toleration that
  tolerates it; `getMinTolerationTime` over those: none sets tolerationSeconds -> never
  evicted (a scheduled eviction is cancelled); a value <= 0 -> deleted at once; else the
  pod is deleted min(tolerationSeconds) after the taint manager first processes it (the
  timer starts now, not at the taint's timeAdded).
* An eviction already scheduled keeps its time: upstream re-adds it only when it was
  created at this very instant (`if startTime.Add(minTolerationTime).Before(triggerTime)
  { return }` with startTime = the existing timer's CreatedAt), so a later, longer
  toleration does not postpone it ("lengthening toleration shouldn't work") and a later,
  shorter one does not bring it forward either. Only removing the taints, or making
  them untolerated, changes it.

The timers are the controller's state (name `taint-manager`, persisted with the
cluster): `<namespace>/<name>` -> the time the pod will be deleted. Like upstream's
TimedWorkerQueue they are keyed by the pod's namespace and name, not kept in the pod, so
replacing the pod (a Timeline `apply`, an edit of its tolerations, an import) keeps the
timer; a timer whose pod is gone is dropped. Events: `TaintManagerEviction` `Marking for deletion Pod
<ns>/<name>` when the pod is deleted, `TaintManagerEviction` `Cancelling deletion of Pod
<ns>/<name>` when a scheduled eviction is cancelled; source `taint-controller`. The
deletion is a graceful one (the pod's terminationGracePeriodSeconds); the kubelet
(engine.controllers.kubelet) finishes it.

Differences from upstream: pods that are already terminating are skipped (upstream's
work queue skips pods it deleted itself, but would delete a pod terminating for another
reason again: a no-op for the API server, plus one more event); a pod on a node that no
longer exists keeps its timer (as upstream does) and is deleted when it fires.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api.objects import NO_EXECUTE, Taint, Toleration
from scheduling.engine.controller import ANY_KIND, Context
from scheduling.engine.controllers.controller_utils import termination_grace_seconds
from scheduling.engine.store import Store, is_terminating, meta, sim_time

NAME = "taint-manager"
SOURCE = "taint-controller"
REASON = "TaintManagerEviction"


def no_execute_taints(node_doc: Mapping[str, Any]) -> list[Taint]:
    return [t for t in (Taint.from_doc(d) for d in (node_doc.get("spec") or {}).get("taints") or ()) if t.effect == NO_EXECUTE]


def matching_tolerations(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> tuple[bool, list[Toleration]]:
    """GetMatchingTolerations: (all taints tolerated, the first toleration of each taint)."""
    if not taints:
        return True, []
    used: list[Toleration] = []
    for taint in taints:
        for toleration in tolerations:
            if toleration.tolerates(taint):
                used.append(toleration)
                break
        else:
            return False, []
    return True, used


def min_toleration_time(tolerations: Sequence[Toleration]) -> float:
    """getMinTolerationTime: 0 for no toleration, -1 (forever) when none sets
    tolerationSeconds, 0 as soon as one is <= 0, else the smallest value."""
    if not tolerations:
        return 0
    minimum: int | None = None
    for t in tolerations:
        if t.toleration_seconds is None:
            continue
        if t.toleration_seconds <= 0:
            return 0
        if minimum is None or t.toleration_seconds < minimum:
            minimum = t.toleration_seconds
    return -1 if minimum is None else minimum


def pod_key(namespace: str, name: str) -> str:
    """The key of a pod's timer in the taint manager's state."""
    return f"{namespace}/{name}"


def eviction_time(store: Store, namespace: str, name: str) -> float | None:
    """When the taint manager will delete the pod (its timer), or None."""
    return sim_time(store.state_of(NAME).get(pod_key(namespace, name)))


def _ref(pod_doc: Mapping[str, Any]) -> tuple[str, str]:
    m = meta(pod_doc)
    return m.get("namespace") or "default", m.get("name") or ""


def _set_timer(pod_doc: Mapping[str, Any], at: float | None) -> A.SetControllerState:
    return A.SetControllerState(NAME, pod_key(*_ref(pod_doc)), at)


def _cancel(pod_doc: Mapping[str, Any], now: float) -> list:
    ns, name = _ref(pod_doc)
    return [
        _set_timer(pod_doc, None),
        A.RecordEvent(now, "Normal", REASON, "Pod", ns, name, f"Cancelling deletion of Pod {ns}/{name}", SOURCE),
    ]


def _evict(pod_doc: Mapping[str, Any], now: float, timer: float | None) -> list:
    ns, name = _ref(pod_doc)
    out: list = []
    if timer is not None:
        out.append(_set_timer(pod_doc, None))
    out.append(A.RecordEvent(now, "Normal", REASON, "Pod", ns, name, f"Marking for deletion Pod {ns}/{name}", SOURCE))
    out.append(A.SetPodDeletion(ns, name, now, termination_grace_seconds(pod_doc), REASON))
    return out


def process_pod(pod_doc: Mapping[str, Any], taints: Sequence[Taint] | None, now: float, timer: float | None) -> A.Result:
    """processPodOnNode for one pod; `taints` are its node's NoExecute taints (None: the
    node does not exist); `timer` its scheduled eviction (None: none)."""
    result = A.Result()
    if taints is None:  # node deleted: upstream forgets the node but keeps the timer
        if timer is not None:
            if timer <= now:
                result.actions += _evict(pod_doc, now, timer)
            else:
                result.due(timer)
        return result
    if not taints:
        if timer is not None:
            result.actions += _cancel(pod_doc, now)
        return result
    tolerations = tuple(Toleration.from_doc(t) for t in (pod_doc.get("spec") or {}).get("tolerations") or ())
    all_tolerated, used = matching_tolerations(taints, tolerations)
    if not all_tolerated:
        if timer is not None and timer > now:
            result.actions += _cancel(pod_doc, now)
        result.actions += _evict(pod_doc, now, timer)
        return result
    minimum = min_toleration_time(used)
    if minimum < 0:
        if timer is not None:
            result.actions += _cancel(pod_doc, now)
        return result
    if timer is not None:  # an eviction is scheduled: it keeps its time
        if timer <= now:
            result.actions += _evict(pod_doc, now, timer)
        else:
            result.due(timer)
        return result
    fire = now + minimum
    if fire <= now:
        result.actions += _evict(pod_doc, now, timer)
        return result
    result.actions.append(_set_timer(pod_doc, fire))
    result.due(fire)
    return result


def reconcile(store: Store, now: float, pods: Iterable[tuple[str, str]] | None = None) -> A.Result:
    """One pass of the taint manager over every pod bound to a node, or over the `pods`
    ((namespace, name)) given: the ones whose pod or node changed and the ones with a
    timer, when the others are known to need nothing."""
    taints_by_node: dict[str, list[Taint] | None] = {}
    timers = store.state_of(NAME)
    result = A.Result()
    for key in timers:
        ns, _, name = key.partition("/")
        if store.get("Pod", ns, name) is None:
            result.actions.append(A.SetControllerState(NAME, key, None))  # the pod is gone
    for pod in (store.list("Pod") if pods is None else store.in_order("Pod", pods)):
        node = (pod.get("spec") or {}).get("nodeName")
        if not node or is_terminating(pod):
            continue
        if node not in taints_by_node:
            node_doc = store.get("Node", "", node)
            taints_by_node[node] = None if node_doc is None else no_execute_taints(node_doc)
        timer = sim_time(timers.get(pod_key(*_ref(pod))))
        result.extend(process_pod(pod, taints_by_node[node], now, timer))
    return result


class TaintManager:
    """Runs `reconcile` over the pods that changed, the pods on nodes that changed and the
    pods with a timer: any other pod is where it was when nothing needed doing for it."""

    name = NAME
    watches = frozenset({ANY_KIND})

    def reconcile(self, ctx: Context) -> A.Result:
        store = ctx.store
        if ctx.changed is None:
            return reconcile(store, ctx.now)
        pods: set[tuple[str, str]] = set()
        for kind, ns, name in ctx.changed:
            if kind == "Pod":
                pods.add((ns, name))
            elif kind == "Node":
                pods.update(store.pods_on_node(name))
        for key in store.state_of(NAME):
            ns, _, name = key.partition("/")
            pods.add((ns, name))
        return reconcile(store, ctx.now, pods)


def preview(store: Store, node: str, taints: Sequence[Mapping[str, Any]], now: float = 0.0) -> dict[str, float | None]:
    """What-if: for each pod on `node`, when it would be evicted if the node's taints were
    `taints` (None: never; a time <= now: at once). Reads only; no actions."""
    new_taints = [t for t in (Taint.from_doc(d) for d in taints) if t.effect == NO_EXECUTE]
    out: dict[str, float | None] = {}
    for pod in store.list("Pod"):
        if (pod.get("spec") or {}).get("nodeName") != node or is_terminating(pod):
            continue
        ns, name = _ref(pod)
        tolerations = tuple(Toleration.from_doc(t) for t in (pod.get("spec") or {}).get("tolerations") or ())
        all_tolerated, used = matching_tolerations(new_taints, tolerations)
        if not new_taints:
            out[f"{ns}/{name}"] = None
        elif not all_tolerated:
            out[f"{ns}/{name}"] = now
        else:
            minimum = min_toleration_time(used)
            timer = eviction_time(store, ns, name)
            if minimum < 0:
                out[f"{ns}/{name}"] = None
            elif timer is not None:
                out[f"{ns}/{name}"] = timer
            else:
                out[f"{ns}/{name}"] = now + minimum
    return out
