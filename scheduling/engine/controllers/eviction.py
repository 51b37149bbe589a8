"""PodDisruptionBudgets: the disruption controller (their status) and the eviction API.

* Disruption controller (pkg/controller/disruption, 1.11): status currentHealthy
  (Running, not terminating, not recently disrupted), desiredHealthy, expectedPods,
  disruptionsAllowed (currentHealthy - desiredHealthy, 0 when negative or when no pod is
  expected), disruptedPods (getExpectedPodCount: minAvailable int -> the matching pods; a
  percentage or maxUnavailable -> the replicas of the pods' controllers, rounded up; a pod
  without a supported controller -> fail safe: disruptionsAllowed 0). A disrupted pod that
  is not gone within 2 minutes counts again (`pdb_recheck` says when to look).
* `evict(store, namespace, name, now)`: the eviction subresource (registry/core/pod/
  storage/eviction.go): refused with 429 `Cannot evict pod as it would violate the pod's
  disruption budget.` when the pod's PDB allows no disruption; otherwise the PDB's
  disruptionsAllowed is decremented (disruptedPods records the pod) and the pod is
  deleted gracefully. Every caller that evicts (`oc adm drain`, the MCO, the descheduler)
  goes through it.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.controllers.controller_utils import PodFacts, PodGroups, object_namespace, pod_facts, termination_grace_seconds
from scheduling.engine.store import Store, controller_ref, labels_of, name_of, sim_time, time_value

DELETION_TIMEOUT = 120.0  # disruption controller: a disrupted pod must be gone within 2 minutes
PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


def pdb_pods(store: Store, pdb: Mapping[str, Any]) -> list[dict]:
    """getPodsForPdb: the pods of its namespace its (non-empty) selector matches."""
    selector = LabelSelector.from_doc((pdb.get("spec") or {}).get("selector"))
    if selector is None or selector.is_empty:
        return []
    return select_pods(store, object_namespace(pdb), selector)


def select_pods(store: Store, namespace: str, selector: LabelSelector) -> list[dict]:
    """The pods of `namespace` that `selector` matches, in store order (looked up by the
    rarest of its matchLabels when it has some)."""
    if selector.match_labels:
        keys: Iterable[tuple[str, str]] = min((store.pods_labelled(namespace, k, v) for k, v in selector.match_labels), key=len)
    else:
        keys = ((namespace, name) for name in store.names("Pod", namespace))
    return [p for p in store.in_order("Pod", keys) if selector.matches(labels_of(p))]


def pdbs_of(store: Store, pod: Mapping[str, Any], ordered: bool = True) -> list[dict]:
    """getPodDisruptionBudgets: the PodDisruptionBudgets of the pod's namespace whose
    (non-empty) selector matches its labels (none for a pod without labels), in store order
    (in no particular order when not `ordered`)."""
    labels = labels_of(pod)
    if not labels:
        return []
    namespace = object_namespace(pod)
    out = []
    names = store.names("PodDisruptionBudget", namespace)
    pdbs = (store.in_order("PodDisruptionBudget", ((namespace, n) for n in names)) if ordered
            else [store.get("PodDisruptionBudget", namespace, n) for n in names])
    for pdb in pdbs:
        raw = (pdb.get("spec") or {}).get("selector")
        if raw is None:
            continue
        if not raw.get("matchExpressions"):  # LabelSelector.matches on matchLabels alone, without making one
            match_labels = raw.get("matchLabels") or {}
            if match_labels and all(labels.get(k) == str(v) for k, v in match_labels.items()):
                out.append(pdb)
            continue
        selector = LabelSelector.from_doc(raw)
        if selector is None or selector.is_empty or not selector.matches(labels):
            continue
        out.append(pdb)
    return out


def int_or_percent(value: Any, total: int) -> int:
    """intstr.GetValueFromIntOrPercent with roundUp."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int(value[:-1]) * total / 100)
    return int(value)


def controller_scale(store: Store, pod: Mapping[str, Any]) -> tuple[str, int] | None:
    """The finders: the pod's controller (RC, a Deployment through its RS, RS, StatefulSet) and its replicas."""
    ref = controller_ref(pod)
    if ref is None:
        return None
    return _scale(store, object_namespace(pod), ref.get("kind"), ref.get("name") or "")


def _scale(store: Store, ns: str, kind: str | None, name: str) -> tuple[str, int] | None:
    if kind in ("ReplicationController", "StatefulSet"):
        owner = store.get(kind, ns, name)
        if owner is not None:
            return f"{kind}/{name}", int((owner.get("spec") or {}).get("replicas", 1) or 0)
    if kind == "ReplicaSet":
        rs = store.get("ReplicaSet", ns, name)
        if rs is None:
            return None
        deploy_ref = controller_ref(rs)
        if deploy_ref is not None and deploy_ref.get("kind") == "Deployment":
            deploy = store.get("Deployment", ns, deploy_ref.get("name") or "")
            if deploy is not None:
                return f"Deployment/{name_of(deploy)}", int((deploy.get("spec") or {}).get("replicas", 1) or 0)
            return None
        return f"ReplicaSet/{name}", int((rs.get("spec") or {}).get("replicas", 1) or 0)
    return None


def _facts(key: tuple[str, str], pod: Mapping[str, Any]) -> PodFacts:
    return pod_facts(pod)


def _still_disrupted(old: Mapping[str, Any], by_name: Mapping[str, PodFacts], now: float) -> dict[str, Any]:
    """The status' disruptedPods still counted: pods evicted less than DELETION_TIMEOUT ago
    that exist and are not yet terminating."""
    disrupted: dict[str, Any] = {}
    for name, when in (old.get("disruptedPods") or {}).items():
        pod = by_name.get(name)
        if pod is None or pod.terminating:
            continue
        t = sim_time(when) or 0.0
        if t + DELETION_TIMEOUT >= now:
            disrupted[name] = when
    return disrupted


def pdb_status(store: Store, pdb: Mapping[str, Any], now: float,
               facts: Callable[[tuple[str, str], Mapping[str, Any]], PodFacts] = _facts,
               groups: PodGroups | None = None) -> dict:
    """The status the disruption controller computes for `pdb` at `now`. `facts(key,
    pod)`: how the pods are read (a caller may remember them, WorkloadContext.facts);
    `groups`: the pods counted by labels (a caller keeps them), so they are not read one
    by one."""
    spec = pdb.get("spec") or {}
    namespace = object_namespace(pdb)
    selector = LabelSelector.from_doc(spec.get("selector"))
    if groups is not None:
        return _pdb_status_counted(store, pdb, now, facts, groups.labelled.get(namespace, {}), selector)
    pods: list[tuple[str, PodFacts]] = []  # getPodsForPdb, as (name, facts), in no particular order
    if selector is not None and not selector.is_empty:
        if selector.match_labels:
            keys: Iterable[tuple[str, str]] = min((store.pods_labelled(namespace, k, v) for k, v in selector.match_labels), key=len)
        else:
            keys = [(namespace, name) for name in store.names("Pod", namespace)]
        for key in keys:
            f = facts(key, store.get("Pod", *key))
            if selector.matches(f.labels):
                pods.append((key[1], f))
    old = pdb.get("status") or {}
    disrupted = _still_disrupted(old, dict(pods), now)
    expected = desired = 0
    failed = False
    if spec.get("maxUnavailable") is not None or (isinstance(spec.get("minAvailable"), str)):
        scales: dict[str, int] = {}
        found_for: dict[tuple, tuple[str, int] | None] = {}
        for _, f in pods:
            controller = (f.controller_kind, f.controller_name)
            if controller not in found_for:
                found_for[controller] = None if f.controller_kind is None else _scale(store, namespace, f.controller_kind, f.controller_name or "")
            found = found_for[controller]
            if found is None:
                failed = True
                break
            scales[found[0]] = found[1]
        expected = sum(scales.values())
        if not failed:
            if spec.get("maxUnavailable") is not None:
                desired = max(expected - int_or_percent(spec["maxUnavailable"], expected), 0)
            else:
                desired = int_or_percent(spec["minAvailable"], expected)
    elif spec.get("minAvailable") is not None:
        desired = int(spec["minAvailable"])
        expected = len(pods)
    healthy = sum(1 for name, f in pods if not f.terminating and name not in disrupted and f.running)
    if failed:
        return {**old, "disruptionsAllowed": 0}
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status = {"currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected, "disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = disrupted
    return status


def _pdb_status_counted(store: Store, pdb: Mapping[str, Any], now: float,
                        facts: Callable[[tuple[str, str], Mapping[str, Any]], PodFacts],
                        labelled: Mapping[frozenset, tuple[Mapping[str, str], Counter]],
                        selector: LabelSelector | None) -> dict:
    """pdb_status from the pods of the namespace counted by labels (PodGroups.labelled):
    the same status, reading only the disrupted pods one by one."""
    spec = pdb.get("spec") or {}
    namespace = object_namespace(pdb)
    selected: Counter = Counter()  # ((controller kind, name) or None, terminating, running) -> pods
    if selector is not None and not selector.is_empty:
        for labels, counted in labelled.values():
            if selector.matches(labels):
                selected.update(counted)
    old = pdb.get("status") or {}
    disrupted: dict[str, Any] = {}
    disrupted_running = 0
    for name, when in (old.get("disruptedPods") or {}).items():
        doc = store.get("Pod", namespace, name)
        if doc is None or selector is None or selector.is_empty:
            continue
        f = facts((namespace, name), doc)
        if not selector.matches(f.labels) or f.terminating:
            continue
        t = sim_time(when) or 0.0
        if t + DELETION_TIMEOUT >= now:
            disrupted[name] = when
            disrupted_running += f.running
    expected = desired = 0
    failed = False
    if spec.get("maxUnavailable") is not None or (isinstance(spec.get("minAvailable"), str)):
        scales: dict[str, int] = {}
        for owner in {owner for owner, _, _ in selected}:
            found = None if owner is None else _scale(store, namespace, owner[0], owner[1] or "")
            if found is None:
                failed = True
                break
            scales[found[0]] = found[1]
        expected = sum(scales.values())
        if not failed:
            if spec.get("maxUnavailable") is not None:
                desired = max(expected - int_or_percent(spec["maxUnavailable"], expected), 0)
            else:
                desired = int_or_percent(spec["minAvailable"], expected)
    elif spec.get("minAvailable") is not None:
        desired = int(spec["minAvailable"])
        expected = sum(selected.values())
    healthy = sum(n for (_, terminating, running), n in selected.items() if not terminating and running) - disrupted_running
    if failed:
        return {**old, "disruptionsAllowed": 0}
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status = {"currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected, "disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = disrupted
    return status


def reconcile_pdb(store: Store, pdb: Mapping[str, Any], now: float,
                  facts: Callable[[tuple[str, str], Mapping[str, Any]], PodFacts] = _facts,
                  groups: PodGroups | None = None) -> list:
    """The disruption controller for one PodDisruptionBudget: its status, when it changed."""
    status = pdb_status(store, pdb, now, facts, groups)
    fields = {k: status.get(k) for k in ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed", "disruptedPods")}
    old = pdb.get("status") or {}
    if all(old.get(k) == v for k, v in fields.items()):
        return []
    return [A.PatchStatus("PodDisruptionBudget", object_namespace(pdb), name_of(pdb), fields)]


def pdb_recheck(store: Store, now: float) -> float | None:
    due = None
    for pdb in store.list("PodDisruptionBudget"):
        for when in ((pdb.get("status") or {}).get("disruptedPods") or {}).values():
            t = (sim_time(when) or 0.0) + DELETION_TIMEOUT
            if t > now and (due is None or t < due):
                due = t
    return due


# --- the eviction API ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Eviction:
    """The eviction subresource's answer: allowed (with the actions to apply) or refused
    with the API status code and message (and the StatusCause messages)."""

    allowed: bool
    code: int
    message: str
    actions: tuple = ()
    causes: tuple[str, ...] = ()


def evict(store: Store, namespace: str, name: str, now: float, grace_seconds: int | None = None) -> Eviction:
    pod = store.get("Pod", namespace, name)
    if pod is None:
        return Eviction(False, 404, f'pods "{name}" not found')
    pdbs = pdbs_of(store, pod, ordered=False)  # (only how many, and the one when one)
    actions: list = []
    if len(pdbs) > 1:
        return Eviction(False, 500, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
    if pdbs:
        pdb = pdbs[0]
        status = pdb.get("status") or {}
        allowed = int(status.get("disruptionsAllowed") or 0)
        if allowed < 0:
            return Eviction(False, 403, f'poddisruptionbudgets.policy "{name_of(pdb)}" is forbidden: pdb disruptions allowed is negative')
        if allowed == 0:
            cause = (f"The disruption budget {name_of(pdb)} needs {int(status.get('desiredHealthy') or 0)} healthy pods "
                     f"and has {int(status.get('currentHealthy') or 0)} currently")
            return Eviction(False, 429, PDB_VIOLATION, causes=(cause,))
        disrupted = dict(status.get("disruptedPods") or {})
        disrupted[name] = time_value(now)
        actions.append(A.PatchStatus("PodDisruptionBudget", namespace, name_of(pdb),
                                     {"disruptionsAllowed": allowed - 1, "disruptedPods": disrupted}))
    grace = termination_grace_seconds(pod) if grace_seconds is None else int(grace_seconds)
    actions.append(A.SetPodDeletion(namespace, name, now, grace, "Evicted"))
    return Eviction(True, 201, "", tuple(actions))

