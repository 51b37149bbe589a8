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

The timer lives in the pod annotation `clusterui.io/noexecute-eviction-at` (the time
the pod will be deleted). Events: `TaintManagerEviction` `Marking for deletion Pod
<ns>/<name>` when the pod is deleted, `TaintManagerEviction` `Cancelling deletion of Pod
<ns>/<name>` when a scheduled eviction is cancelled; source `taint-controller`. The
deletion is a graceful one (the pod's terminationGracePeriodSeconds); the kubelet
(engine.kubelet) finishes it.

Differences from upstream: pods that are already terminating are skipped (upstream's
work queue skips pods it deleted itself, but would delete a pod terminating for another
reason again: a no-op for the API server, plus one more event); a pod on a node that no
longer exists keeps its timer (as upstream does) and is deleted when it fires.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from . import actions as A
from .objects import NO_EXECUTE, Taint, Toleration
from .store import EVICTION_AT_ANNOTATION, Store, annotations_of, is_terminating, meta, sim_time, time_text

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


def eviction_time(pod_doc: Mapping[str, Any]) -> float | None:
    """When the taint manager will delete the pod (its timer), or None."""
    return sim_time(annotations_of(pod_doc).get(EVICTION_AT_ANNOTATION))


def _ref(pod_doc: Mapping[str, Any]) -> tuple[str, str]:
    m = meta(pod_doc)
    return m.get("namespace") or "default", m.get("name") or ""


def _grace(pod_doc: Mapping[str, Any]) -> int:
    value = (pod_doc.get("spec") or {}).get("terminationGracePeriodSeconds")
    return 30 if value is None else int(value)


def _cancel(pod_doc: Mapping[str, Any], now: float) -> list:
    ns, name = _ref(pod_doc)
    return [
        A.SetAnnotation("Pod", ns, name, EVICTION_AT_ANNOTATION, None),
        A.RecordEvent(now, "Normal", REASON, "Pod", ns, name, f"Cancelling deletion of Pod {ns}/{name}", SOURCE),
    ]


def _evict(pod_doc: Mapping[str, Any], now: float) -> list:
    ns, name = _ref(pod_doc)
    out: list = []
    if EVICTION_AT_ANNOTATION in annotations_of(pod_doc):
        out.append(A.SetAnnotation("Pod", ns, name, EVICTION_AT_ANNOTATION, None))
    out.append(A.RecordEvent(now, "Normal", REASON, "Pod", ns, name, f"Marking for deletion Pod {ns}/{name}", SOURCE))
    out.append(A.SetPodDeletion(ns, name, now, _grace(pod_doc), REASON))
    return out


def process_pod(pod_doc: Mapping[str, Any], taints: Sequence[Taint] | None, now: float) -> A.Result:
    """processPodOnNode for one pod; `taints` are its node's NoExecute taints (None: the
    node does not exist)."""
    result = A.Result()
    timer = eviction_time(pod_doc)
    if taints is None:  # node deleted: upstream forgets the node but keeps the timer
        if timer is not None:
            if timer <= now:
                result.actions += _evict(pod_doc, now)
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
        result.actions += _evict(pod_doc, now)
        return result
    minimum = min_toleration_time(used)
    if minimum < 0:
        if timer is not None:
            result.actions += _cancel(pod_doc, now)
        return result
    if timer is not None:  # an eviction is scheduled: it keeps its time
        if timer <= now:
            result.actions += _evict(pod_doc, now)
        else:
            result.due(timer)
        return result
    fire = now + minimum
    if fire <= now:
        result.actions += _evict(pod_doc, now)
        return result
    ns, name = _ref(pod_doc)
    result.actions.append(A.SetAnnotation("Pod", ns, name, EVICTION_AT_ANNOTATION, time_text(fire)))
    result.due(fire)
    return result


def reconcile(store: Store, now: float) -> A.Result:
    """One pass of the taint manager over every pod bound to a node."""
    taints_by_node = {meta(n).get("name") or "": no_execute_taints(n) for n in store.list("Node")}
    result = A.Result()
    for pod in store.list("Pod"):
        node = (pod.get("spec") or {}).get("nodeName")
        if not node or is_terminating(pod):
            continue
        result.extend(process_pod(pod, taints_by_node.get(node), now))
    return result


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
            timer = eviction_time(pod)
            if minimum < 0:
                out[f"{ns}/{name}"] = None
            elif timer is not None:
                out[f"{ns}/{name}"] = timer
            else:
                out[f"{ns}/{name}"] = now + minimum
    return out
