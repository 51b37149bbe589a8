"""Workload controllers, PodDisruptionBudgets and the eviction API (Kubernetes 1.11).

`reconcile(store, now, seed=..., admission=...)` runs, in this order, the controllers of
Deployments, ReplicaSets, ReplicationControllers, StatefulSets and DaemonSets, then the
disruption controller; each only writes what differs from what it wants, so a second run
on the same documents yields nothing (events go with the writes that cause them).

* ReplicaSet / ReplicationController (replica_set.go): the active pods it controls
  (controllerRef; orphans whose labels match its selector are adopted) are counted; too
  few -> new pods `<name>-<5 chars>` (the random suffix alphabet of utilrand,
  "bcdfghjklmnpqrstvwxz2456789", drawn from a generator seeded with the simulation seed,
  the owner and the time, so replays are identical) with `SuccessfulCreate` `Created
  pod: <name>`; too many -> the ActivePods order picks the victims (unassigned first,
  Pending < Unknown < Running, not ready first, newest first) with `SuccessfulDelete`
  `Deleted pod: <name>`. Terminating and finished pods are not active: an evicted pod is
  replaced at once. Sources replicaset-controller / replication-controller.
* Deployment (a simple rollout): the ReplicaSet whose template equals the Deployment's
  (ignoring the pod-template-hash label, as FindNewReplicaSet does) is the new one; if
  there is none, `<deployment>-<pod-template-hash>` is created with the full replica
  count and every older ReplicaSet is scaled to 0 at once (maxSurge/maxUnavailable are not
  honoured). Events `ScalingReplicaSet` `Scaled up replica set <rs> to <n>` / `Scaled
  down replica set <rs> to <n>` (deployment-controller). The hash is fnv32a over the
  template's canonical JSON, encoded like rand.SafeEncodeString: the same form as
  Kubernetes' (e.g. `web-5c689d88bb`), not the same value.
* StatefulSet (OrderedReady): pods `<name>-0`, `-1`, ... created one at a time, the next
  only when every lower ordinal is Running; a terminating pod is waited for before its
  name is reused; scale-down deletes the highest ordinal first, one at a time. Events
  `SuccessfulCreate` `create Pod <pod> in StatefulSet <name> successful` and
  `SuccessfulDelete` `delete Pod <pod> in StatefulSet <name> successful`.
* DaemonSet (1.11, ScheduleDaemonSetPods off: the controller sets spec.nodeName itself,
  no Scheduled event): nodeShouldRunDaemonPod with the pod the controller would create
  (template + the DaemonSet tolerations of engine.admission): PodToleratesNodeTaints and
  GeneralPredicates; node selector/affinity, host name or host port mismatch -> no pod;
  untolerated taints -> no new pod, and an existing one is deleted only when a NoExecute
  taint is not tolerated; insufficient resources -> no new pod (the FailedPlacement event
  is not simulated). One pod per eligible node (`<name>-<5 chars>`), extra ones deleted
  (oldest kept).
* Disruption controller: status currentHealthy (Running, not terminating, not recently
  disrupted), desiredHealthy, expectedPods, disruptionsAllowed (currentHealthy -
  desiredHealthy, 0 when negative or when no pod is expected), disruptedPods
  (getExpectedPodCount: minAvailable int -> the matching pods; a percentage or
  maxUnavailable -> the replicas of the pods' controllers, rounded up; a pod without a
  supported controller -> fail safe: disruptionsAllowed 0).
* `evict(store, namespace, name, now)`: the eviction subresource (registry/core/pod/
  storage/eviction.go): refused with 429 `Cannot evict pod as it would violate the pod's
  disruption budget.` when the pod's PDB allows no disruption; otherwise the PDB's
  disruptionsAllowed is decremented (disruptedPods records the pod) and the pod is
  deleted gracefully.
* `cascade_delete`: deleting a controller deletes what it owns (background propagation).
"""

from __future__ import annotations

import copy
import json
import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from . import actions as A
from . import admission as adm
from .cluster import ClusterState, NodeInfo
from .context import CycleContext
from .defaults import apply_defaults
from .objects import LabelSelector, Node, Pod, PriorityClass
from .predicates import general, host_name, host_ports, label_presence, node_selector, taints as taint_predicates
from .priority import AdmissionError
from .store import (
    Store,
    controller_ref,
    is_terminating,
    labels_of,
    meta,
    sim_time,
    time_text,
    time_value,
)

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # utilrand: no vowels, no confusable digits
RANDOM_LENGTH = 5
MAX_NAME_LENGTH = 63
POD_TEMPLATE_HASH = "pod-template-hash"
CONTROLLER_REVISION_HASH = "controller-revision-hash"
STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"
DAEMONSET_TEMPLATE_GENERATION = "pod-template-generation"
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
DELETION_TIMEOUT = 120.0  # disruption controller: a disrupted pod must be gone within 2 minutes

PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."

SOURCES = {
    "ReplicaSet": "replicaset-controller",
    "ReplicationController": "replication-controller",
    "Deployment": "deployment-controller",
    "StatefulSet": "statefulset-controller",
    "DaemonSet": "daemonset-controller",
    "PodDisruptionBudget": "controllermanager",
}


# --- shared helpers -----------------------------------------------------------------------------------


def _ns(doc: Mapping[str, Any]) -> str:
    return meta(doc).get("namespace") or "default"


def _name(doc: Mapping[str, Any]) -> str:
    return meta(doc).get("name") or ""


def owner_reference(owner: Mapping[str, Any]) -> dict:
    ref = {
        "apiVersion": owner.get("apiVersion") or "v1",
        "kind": owner.get("kind") or "",
        "name": _name(owner),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    uid = meta(owner).get("uid")
    if uid:
        ref["uid"] = uid
    return ref


def is_controlled_by(doc: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    ref = controller_ref(doc)
    if ref is None or ref.get("kind") != owner.get("kind") or ref.get("name") != _name(owner):
        return False
    if _ns(doc) != _ns(owner):
        return False
    uid, owner_uid = ref.get("uid"), meta(owner).get("uid")
    return not (uid and owner_uid and uid != owner_uid)


def selector_of(doc: Mapping[str, Any]) -> LabelSelector | None:
    """The workload's selector (a map for an RC); None or empty selects nothing."""
    spec = doc.get("spec") or {}
    raw = spec.get("selector")
    if doc.get("kind") == "ReplicationController":
        if raw is None:
            raw = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        selector = LabelSelector.from_map(raw)
    else:
        selector = LabelSelector.from_doc(raw)
    if selector is None or selector.is_empty:
        return None
    return selector


def is_active(pod: Mapping[str, Any]) -> bool:
    """controller.IsPodActive: not finished and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not is_terminating(pod)


def is_running(pod: Mapping[str, Any]) -> bool:
    """Running and Ready (the simulated kubelet makes a running pod ready at once)."""
    return bool((pod.get("spec") or {}).get("nodeName")) and (pod.get("status") or {}).get("phase") == "Running"


def _grace(pod: Mapping[str, Any]) -> int:
    value = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    return 30 if value is None else int(value)


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def template_hash(template: Mapping[str, Any]) -> str:
    """The pod-template-hash: fnv32a of the template (without the hash label), encoded."""
    template = _without_hash(template)
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    return safe_encode(str(fnv32a(data)))


def _without_hash(template: Mapping[str, Any]) -> dict:
    t = copy.deepcopy(dict(template))
    labels = (t.get("metadata") or {}).get("labels")
    if labels and POD_TEMPLATE_HASH in labels:
        labels = dict(labels)
        del labels[POD_TEMPLATE_HASH]
        t["metadata"] = {**t["metadata"], "labels": labels}
        if not labels:
            del t["metadata"]["labels"]
    return t


def generate_name(prefix: str, taken: set[str], seed: Any, salt: str) -> str:
    """SimpleNameGenerator: prefix (cut to 58) + 5 random characters, reproducible."""
    base = prefix[: MAX_NAME_LENGTH - RANDOM_LENGTH]
    attempt = 0
    while True:
        rng = random.Random(f"{seed}|{salt}|{attempt}")
        name = base + "".join(rng.choice(ALPHANUMS) for _ in range(RANDOM_LENGTH))
        if name not in taken:
            taken.add(name)
            return name
        attempt += 1


@dataclass
class Context:
    """What the controllers share during one run."""

    store: Store
    now: float
    seed: Any = 0
    admission: Mapping[str, bool] | None = None
    classes: list[PriorityClass] = field(default_factory=list)
    taken: dict[str, set[str]] = field(default_factory=dict)  # namespace -> pod names in use

    @classmethod
    def build(cls, store: Store, now: float, seed: Any = 0, admission: Mapping[str, bool] | None = None) -> "Context":
        ctx = cls(store, now, seed, admission)
        ctx.classes = [PriorityClass.from_doc(d) for d in store.list("PriorityClass")]
        for pod in store.list("Pod"):
            ctx.taken.setdefault(_ns(pod), set()).add(_name(pod))
        return ctx

    def pods_in(self, namespace: str) -> list[dict]:
        return [p for p in self.store.list("Pod") if _ns(p) == namespace]


def new_pod(ctx: Context, owner: Mapping[str, Any], template: Mapping[str, Any], name: str,
            extra_labels: Mapping[str, str] | None = None, node: str = "", generate_name_prefix: str | None = None,
            spec_overrides: Mapping[str, Any] | None = None) -> dict:
    """A pod document from a workload's template, admitted like an API create."""
    tmeta = template.get("metadata") or {}
    pod_meta: dict = {"name": name, "namespace": _ns(owner)}
    if generate_name_prefix is not None:
        pod_meta["generateName"] = generate_name_prefix
    labels = {**(tmeta.get("labels") or {}), **(extra_labels or {})}
    if labels:
        pod_meta["labels"] = labels
    if tmeta.get("annotations"):
        pod_meta["annotations"] = dict(tmeta["annotations"])
    pod_meta["ownerReferences"] = [owner_reference(owner)]
    pod_meta["creationTimestamp"] = time_value(ctx.now)
    spec = copy.deepcopy(dict(template.get("spec") or {}))
    spec.update(copy.deepcopy(dict(spec_overrides or {})))
    if node:
        spec["nodeName"] = node
    doc = apply_defaults({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec})
    return adm.admit(doc, ctx.classes, ctx.admission)


def _create_pod(ctx: Context, owner: Mapping[str, Any], doc: dict, message: str) -> list:
    return [
        A.CreateObject(doc),
        A.RecordEvent(ctx.now, "Normal", "SuccessfulCreate", owner.get("kind") or "", _ns(owner), _name(owner), message,
                      SOURCES.get(owner.get("kind") or "", "")),
    ]


def _delete_pod(ctx: Context, owner: Mapping[str, Any], pod: Mapping[str, Any], message: str) -> list:
    return [
        A.SetPodDeletion(_ns(pod), _name(pod), ctx.now, _grace(pod), "SuccessfulDelete"),
        A.RecordEvent(ctx.now, "Normal", "SuccessfulDelete", owner.get("kind") or "", _ns(owner), _name(owner), message,
                      SOURCES.get(owner.get("kind") or "", "")),
    ]


def _failed_create(ctx: Context, owner: Mapping[str, Any], exc: Exception) -> list:
    """A create the API refused: the ReplicaFailure condition (once) and its event."""
    message = f"Error creating: {exc}"
    conditions = [c for c in (owner.get("status") or {}).get("conditions") or () if c.get("type") == "ReplicaFailure"]
    if conditions and conditions[0].get("message") == message:
        return []
    cond = {"type": "ReplicaFailure", "status": "True", "lastTransitionTime": time_value(ctx.now),
            "reason": "FailedCreate", "message": message}
    return [
        A.PatchStatus(owner.get("kind") or "", _ns(owner), _name(owner), {"conditions": [cond]}),
        A.RecordEvent(ctx.now, "Warning", "FailedCreate", owner.get("kind") or "", _ns(owner), _name(owner), message,
                      SOURCES.get(owner.get("kind") or "", "")),
    ]


def _status_patch(doc: Mapping[str, Any], fields: Mapping[str, Any]) -> list:
    status = doc.get("status") or {}
    if all(status.get(k) == v for k, v in fields.items()):
        return []
    return [A.PatchStatus(doc.get("kind") or "", _ns(doc), _name(doc), dict(fields))]


def _claim(ctx: Context, owner: Mapping[str, Any], selector: LabelSelector | None) -> tuple[list[dict], list]:
    """ClaimPods: the pods `owner` controls, adopting orphans its selector matches."""
    owned: list[dict] = []
    actions: list = []
    for pod in ctx.pods_in(_ns(owner)):
        if is_controlled_by(pod, owner):
            owned.append(pod)
        elif controller_ref(pod) is None and selector is not None and not is_terminating(pod) and selector.matches(labels_of(pod)):
            actions.append(A.SetControllerRef("Pod", _ns(pod), _name(pod), owner_reference(owner)))
            owned.append(pod)
    return owned, actions


def _creation(pod: Mapping[str, Any]) -> float | None:
    return sim_time(meta(pod).get("creationTimestamp"))


def active_pods_order(pods: Sequence[Mapping[str, Any]]) -> list[dict]:
    """controller.ActivePods: the pods to delete first come first."""
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}

    def key(pod):
        assigned = 1 if (pod.get("spec") or {}).get("nodeName") else 0
        phase = phase_rank.get((pod.get("status") or {}).get("phase") or "", 0)
        ready = 1 if is_running(pod) else 0
        created = _creation(pod)
        # empty creation time < newer < older
        age = (0, 0.0) if created is None else (1, -created)
        return (assigned, phase, ready, age)

    return sorted(pods, key=key)


# --- ReplicaSet and ReplicationController -------------------------------------------------------------------


def reconcile_replica_set(ctx: Context, rs: Mapping[str, Any]) -> list:
    selector = selector_of(rs)
    owned, actions = _claim(ctx, rs, selector)
    active = [p for p in owned if is_active(p)]
    replicas = int((rs.get("spec") or {}).get("replicas", 1) or 0)
    template = (rs.get("spec") or {}).get("template") or {}
    diff = len(active) - replicas
    if diff < 0:
        prefix = f"{_name(rs)}-"
        taken = ctx.taken.setdefault(_ns(rs), set())
        for i in range(-diff):
            name = generate_name(prefix, taken, ctx.seed, f"{rs.get('kind')}/{_ns(rs)}/{_name(rs)}/{time_text(ctx.now)}/{i}")
            try:
                doc = new_pod(ctx, rs, template, name, generate_name_prefix=prefix)
            except AdmissionError as exc:
                actions += _failed_create(ctx, rs, exc)
                break
            actions += _create_pod(ctx, rs, doc, f"Created pod: {name}")
    elif diff > 0:
        for pod in active_pods_order(active)[:diff]:
            actions += _delete_pod(ctx, rs, pod, f"Deleted pod: {_name(pod)}")
    template_labels = (template.get("metadata") or {}).get("labels") or {}
    fully = sum(1 for p in active if all(labels_of(p).get(k) == v for k, v in template_labels.items()))
    ready = sum(1 for p in active if is_running(p))
    actions += _status_patch(rs, {"replicas": len(active), "fullyLabeledReplicas": fully,
                                  "readyReplicas": ready, "availableReplicas": ready})
    return actions


# --- Deployment -----------------------------------------------------------------------------------------------


def _scaling_event(ctx: Context, deploy: Mapping[str, Any], rs_name: str, old: int, new: int) -> A.RecordEvent:
    direction = "up" if new > old else "down"
    return A.RecordEvent(ctx.now, "Normal", "ScalingReplicaSet", "Deployment", _ns(deploy), _name(deploy),
                         f"Scaled {direction} replica set {rs_name} to {new}", SOURCES["Deployment"])


def reconcile_deployment(ctx: Context, deploy: Mapping[str, Any]) -> list:
    spec = deploy.get("spec") or {}
    replicas = int(spec.get("replicas", 1) or 0)
    template = spec.get("template") or {}
    owned = [rs for rs in ctx.store.list("ReplicaSet") if is_controlled_by(rs, deploy)]
    new_rs = next((rs for rs in owned if _without_hash((rs.get("spec") or {}).get("template") or {}) == _without_hash(template)), None)
    actions: list = []
    if new_rs is None:
        h = template_hash(template)
        name = f"{_name(deploy)}-{h}"
        revisions = [int((meta(rs).get("annotations") or {}).get(REVISION_ANNOTATION, "0") or 0) for rs in owned]
        rs_template = copy.deepcopy(dict(template))
        rs_template.setdefault("metadata", {})
        rs_template["metadata"]["labels"] = {**(rs_template["metadata"].get("labels") or {}), POD_TEMPLATE_HASH: h}
        selector = copy.deepcopy(spec.get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH: h}
        rs_doc = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": _ns(deploy),
                "labels": dict(rs_template["metadata"]["labels"]),
                "annotations": {REVISION_ANNOTATION: str(max(revisions, default=0) + 1),
                                DESIRED_REPLICAS_ANNOTATION: str(replicas)},
                "ownerReferences": [owner_reference(deploy)],
                "creationTimestamp": time_value(ctx.now),
            },
            "spec": {"replicas": replicas, "selector": selector, "template": rs_template},
        }
        if ctx.store.get("ReplicaSet", _ns(deploy), name) is None:
            actions.append(A.CreateObject(rs_doc))
            actions.append(_scaling_event(ctx, deploy, name, 0, replicas))
        new_name = name
    else:
        new_name = _name(new_rs)
        current = int((new_rs.get("spec") or {}).get("replicas", 0) or 0)
        if current != replicas:
            actions.append(A.SetReplicas("ReplicaSet", _ns(new_rs), new_name, replicas))
            actions.append(_scaling_event(ctx, deploy, new_name, current, replicas))
    for rs in owned:
        if _name(rs) == new_name:
            continue
        current = int((rs.get("spec") or {}).get("replicas", 0) or 0)
        if current > 0:
            actions.append(A.SetReplicas("ReplicaSet", _ns(rs), _name(rs), 0))
            actions.append(_scaling_event(ctx, deploy, _name(rs), current, 0))
    total = sum(int((rs.get("status") or {}).get("replicas", 0) or 0) for rs in owned)
    ready = sum(int((rs.get("status") or {}).get("readyReplicas", 0) or 0) for rs in owned)
    updated = int(((new_rs or {}).get("status") or {}).get("replicas", 0) or 0)
    actions += _status_patch(deploy, {"replicas": total, "updatedReplicas": updated, "readyReplicas": ready,
                                      "availableReplicas": ready, "unavailableReplicas": max(replicas - ready, 0)})
    return actions


# --- StatefulSet ---------------------------------------------------------------------------------------------------


def _ordinal(sts_name: str, pod_name: str) -> int | None:
    prefix = f"{sts_name}-"
    if not pod_name.startswith(prefix):
        return None
    rest = pod_name[len(prefix):]
    return int(rest) if rest.isdigit() else None


def reconcile_stateful_set(ctx: Context, sts: Mapping[str, Any]) -> list:
    spec = sts.get("spec") or {}
    replicas = int(spec.get("replicas", 1) or 0)
    template = spec.get("template") or {}
    monotonic = (spec.get("podManagementPolicy") or "OrderedReady") == "OrderedReady"
    owned, actions = _claim(ctx, sts, selector_of(sts))
    by_ordinal: dict[int, dict] = {}
    condemned: list[tuple[int, dict]] = []
    for pod in owned:
        ordinal = _ordinal(_name(sts), _name(pod))
        if ordinal is None:
            continue
        if ordinal < replicas:
            by_ordinal[ordinal] = pod
        else:
            condemned.append((ordinal, pod))
    source = SOURCES["StatefulSet"]
    revision = f"{_name(sts)}-{template_hash(template)}"
    blocked = False
    for i in range(replicas):
        pod = by_ordinal.get(i)
        if pod is not None and (pod.get("status") or {}).get("phase") == "Failed" and not is_terminating(pod):
            actions.append(A.SetPodDeletion(_ns(pod), _name(pod), ctx.now, _grace(pod), "SuccessfulDelete"))
            actions.append(A.RecordEvent(ctx.now, "Normal", "SuccessfulDelete", "StatefulSet", _ns(sts), _name(sts),
                                         f"delete Pod {_name(pod)} in StatefulSet {_name(sts)} successful", source))
            blocked = monotonic
            if blocked:
                break
            continue
        if pod is None:
            name = f"{_name(sts)}-{i}"
            labels = {STATEFULSET_POD_NAME: name, CONTROLLER_REVISION_HASH: revision}
            overrides = {"hostname": name}
            if spec.get("serviceName"):
                overrides["subdomain"] = spec["serviceName"]
            try:
                doc = new_pod(ctx, sts, template, name, labels, spec_overrides=overrides)
            except AdmissionError as exc:
                actions += _failed_create(ctx, sts, exc)
                blocked = True
                break
            actions.append(A.CreateObject(doc))
            actions.append(A.RecordEvent(ctx.now, "Normal", "SuccessfulCreate", "StatefulSet", _ns(sts), _name(sts),
                                         f"create Pod {name} in StatefulSet {_name(sts)} successful", source))
            if monotonic:
                blocked = True
                break
            continue
        if is_terminating(pod) and monotonic:
            blocked = True
            break
        if not is_running(pod) and monotonic:
            blocked = True
            break
    if not blocked:
        unhealthy = [p for _, p in sorted(condemned) if not is_running(p)] + [by_ordinal[i] for i in sorted(by_ordinal) if not is_running(by_ordinal[i])]
        first_unhealthy = unhealthy[0] if unhealthy else None
        for _, pod in sorted(condemned, key=lambda c: -c[0]):
            if is_terminating(pod):
                if monotonic:
                    break
                continue
            if not is_running(pod) and monotonic and pod is not first_unhealthy:
                break
            actions.append(A.SetPodDeletion(_ns(pod), _name(pod), ctx.now, _grace(pod), "SuccessfulDelete"))
            actions.append(A.RecordEvent(ctx.now, "Normal", "SuccessfulDelete", "StatefulSet", _ns(sts), _name(sts),
                                         f"delete Pod {_name(pod)} in StatefulSet {_name(sts)} successful", source))
            if monotonic:
                break
    active = [p for p in owned if is_active(p)]
    ready = sum(1 for p in active if is_running(p))
    actions += _status_patch(sts, {"replicas": len(active), "readyReplicas": ready, "currentReplicas": len(active),
                                   "currentRevision": revision, "updateRevision": revision})
    return actions


# --- DaemonSet ------------------------------------------------------------------------------------------------------------


INTENTIONAL_REASONS = frozenset({
    node_selector.ERR_NODE_SELECTOR_NOT_MATCH,
    host_name.ERR_POD_NOT_MATCH_HOST_NAME,
    label_presence.ERR_NODE_LABEL_PRESENCE_VIOLATED,
    host_ports.ERR_POD_NOT_FITS_HOST_PORTS,
})


def daemon_pod_doc(ds: Mapping[str, Any], node: str) -> dict:
    """NewPod: the template with spec.nodeName and the DaemonSet tolerations."""
    template = (ds.get("spec") or {}).get("template") or {}
    spec = copy.deepcopy(dict(template.get("spec") or {}))
    spec["nodeName"] = node
    spec["tolerations"] = adm.daemon_pod_tolerations(spec)
    return {"kind": "Pod", "metadata": {"name": f"{_name(ds)}-simulated", "namespace": _ns(ds),
                                        "labels": dict((template.get("metadata") or {}).get("labels") or {})},
            "spec": spec}


def node_should_run_daemon_pod(ds: Mapping[str, Any], node_doc: Mapping[str, Any], pods_on_node: Iterable[Mapping[str, Any]],
                               state: ClusterState | None = None) -> tuple[bool, bool, bool]:
    """nodeShouldRunDaemonPod (1.11): (wantToRun, shouldSchedule, shouldContinueRunning)."""
    template_node = ((ds.get("spec") or {}).get("template") or {}).get("spec", {}).get("nodeName")
    node_name = meta(node_doc).get("name") or ""
    if template_node and template_node != node_name:
        return False, False, False
    pod = Pod.from_doc(daemon_pod_doc(ds, node_name))
    node = Node.from_doc(node_doc)
    info = NodeInfo(node)
    for p in pods_on_node:
        info.add_pod(Pod.from_doc(p))
    state = state if state is not None else ClusterState(nodes=[node])
    ctx = CycleContext(pod, state, {node.name: info})
    reasons = taint_predicates.pod_tolerates_node_taints(pod, ctx, info) + general.general_predicates(pod, ctx, info)
    want, schedule, keep = True, True, True
    for reason in reasons:
        if reason in INTENTIONAL_REASONS:
            return False, False, False
        if reason == taint_predicates.ERR_TAINTS_TOLERATIONS_NOT_MATCH:
            if taint_predicates.pod_tolerates_node_no_execute_taints(pod, ctx, info):
                return False, False, False
            want, schedule = False, False
        elif reason.startswith("Insufficient "):
            schedule = False
        else:
            want, schedule, keep = False, False, False
    return want, schedule, keep


def reconcile_daemon_set(ctx: Context, ds: Mapping[str, Any]) -> list:
    owned, actions = _claim(ctx, ds, selector_of(ds))
    template = (ds.get("spec") or {}).get("template") or {}
    h = template_hash(template)
    generation = str(meta(ds).get("generation") or 1)
    by_node: dict[str, list[dict]] = {}
    for pod in owned:
        by_node.setdefault((pod.get("spec") or {}).get("nodeName") or "", []).append(pod)
    others: dict[str, list[dict]] = {}
    for pod in ctx.store.list("Pod"):
        node = (pod.get("spec") or {}).get("nodeName")
        if node and not is_terminating(pod) and is_active(pod) and not is_controlled_by(pod, ds):
            others.setdefault(node, []).append(pod)
    prefix = f"{_name(ds)}-"
    taken = ctx.taken.setdefault(_ns(ds), set())
    desired = current = misscheduled = ready = 0
    for i, node_doc in enumerate(ctx.store.list("Node")):
        node = meta(node_doc).get("name") or ""
        want, schedule, keep = node_should_run_daemon_pod(ds, node_doc, others.get(node, ()))
        pods = by_node.get(node, [])
        running = [p for p in pods if not is_terminating(p)]
        if want:
            desired += 1
            if running:
                current += 1
                if any(is_running(p) for p in running):
                    ready += 1
        elif running:
            misscheduled += 1
        if schedule and not pods:
            name = generate_name(prefix, taken, ctx.seed, f"DaemonSet/{_ns(ds)}/{_name(ds)}/{node}/{time_text(ctx.now)}")
            labels = {CONTROLLER_REVISION_HASH: h, DAEMONSET_TEMPLATE_GENERATION: generation}
            overrides = {"tolerations": adm.daemon_pod_tolerations(template.get("spec") or {})}
            try:
                doc = new_pod(ctx, ds, template, name, labels, node=node, generate_name_prefix=prefix, spec_overrides=overrides)
            except AdmissionError as exc:
                actions += _failed_create(ctx, ds, exc)
                continue
            actions += _create_pod(ctx, ds, doc, f"Created pod: {name}")
        elif keep:
            alive = []
            for p in running:
                if (p.get("status") or {}).get("phase") == "Failed":
                    actions += _delete_pod(ctx, ds, p, f"Deleted pod: {_name(p)}")
                else:
                    alive.append(p)
            alive.sort(key=lambda p: (_creation(p) is None, _creation(p) or 0.0))
            for p in alive[1:]:
                actions += _delete_pod(ctx, ds, p, f"Deleted pod: {_name(p)}")
        elif not keep and running:
            for p in running:
                actions += _delete_pod(ctx, ds, p, f"Deleted pod: {_name(p)}")
    actions += _status_patch(ds, {"desiredNumberScheduled": desired, "currentNumberScheduled": current,
                                  "numberMisscheduled": misscheduled, "numberReady": ready, "numberAvailable": ready})
    return actions


# --- PodDisruptionBudget -----------------------------------------------------------------------------------------------------


def pdb_pods(store: Store, pdb: Mapping[str, Any]) -> list[dict]:
    """getPodsForPdb: the pods of its namespace its (non-empty) selector matches."""
    selector = LabelSelector.from_doc((pdb.get("spec") or {}).get("selector"))
    if selector is None or selector.is_empty:
        return []
    return [p for p in store.list("Pod") if _ns(p) == _ns(pdb) and selector.matches(labels_of(p))]


def _int_or_percent(value: Any, total: int) -> int:
    """intstr.GetValueFromIntOrPercent with roundUp."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int(value[:-1]) * total / 100)
    return int(value)


def _controller_scale(store: Store, pod: Mapping[str, Any]) -> tuple[str, int] | None:
    """The finders: the pod's controller (RC, a Deployment through its RS, RS, StatefulSet) and its replicas."""
    ref = controller_ref(pod)
    if ref is None:
        return None
    ns = _ns(pod)
    kind, name = ref.get("kind"), ref.get("name") or ""
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
                return f"Deployment/{_name(deploy)}", int((deploy.get("spec") or {}).get("replicas", 1) or 0)
            return None
        return f"ReplicaSet/{name}", int((rs.get("spec") or {}).get("replicas", 1) or 0)
    return None


def pdb_status(store: Store, pdb: Mapping[str, Any], now: float) -> dict:
    """The status the disruption controller computes for `pdb` at `now`."""
    spec = pdb.get("spec") or {}
    pods = pdb_pods(store, pdb)
    old = pdb.get("status") or {}
    by_name = {_name(p): p for p in pods}
    disrupted: dict[str, Any] = {}
    for name, when in (old.get("disruptedPods") or {}).items():
        pod = by_name.get(name)
        if pod is None or is_terminating(pod):
            continue
        t = sim_time(when) or 0.0
        if t + DELETION_TIMEOUT >= now:
            disrupted[name] = when
    expected = desired = 0
    failed = False
    if spec.get("maxUnavailable") is not None or (isinstance(spec.get("minAvailable"), str)):
        scales: dict[str, int] = {}
        for pod in pods:
            found = _controller_scale(store, pod)
            if found is None:
                failed = True
                break
            scales[found[0]] = found[1]
        expected = sum(scales.values())
        if not failed:
            if spec.get("maxUnavailable") is not None:
                desired = max(expected - _int_or_percent(spec["maxUnavailable"], expected), 0)
            else:
                desired = _int_or_percent(spec["minAvailable"], expected)
    elif spec.get("minAvailable") is not None:
        desired = int(spec["minAvailable"])
        expected = len(pods)
    healthy = sum(1 for p in pods if not is_terminating(p) and _name(p) not in disrupted and is_running(p))
    if failed:
        return {**old, "disruptionsAllowed": 0}
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status = {"currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected, "disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = disrupted
    return status


def reconcile_pdb(ctx: Context, pdb: Mapping[str, Any]) -> list:
    status = pdb_status(ctx.store, pdb, ctx.now)
    fields = {k: status.get(k) for k in ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed", "disruptedPods")}
    old = pdb.get("status") or {}
    if all(old.get(k) == v for k, v in fields.items()):
        return []
    return [A.PatchStatus("PodDisruptionBudget", _ns(pdb), _name(pdb), fields)]


def _pdb_recheck(store: Store, now: float) -> float | None:
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
    pdbs = []
    if labels_of(pod):
        for pdb in store.list("PodDisruptionBudget"):
            if _ns(pdb) != namespace:
                continue
            selector = LabelSelector.from_doc((pdb.get("spec") or {}).get("selector"))
            if selector is None or selector.is_empty or not selector.matches(labels_of(pod)):
                continue
            pdbs.append(pdb)
    actions: list = []
    if len(pdbs) > 1:
        return Eviction(False, 500, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
    if pdbs:
        pdb = pdbs[0]
        status = pdb.get("status") or {}
        allowed = int(status.get("disruptionsAllowed") or 0)
        if allowed < 0:
            return Eviction(False, 403, f'poddisruptionbudgets.policy "{_name(pdb)}" is forbidden: pdb disruptions allowed is negative')
        if allowed == 0:
            cause = (f"The disruption budget {_name(pdb)} needs {int(status.get('desiredHealthy') or 0)} healthy pods "
                     f"and has {int(status.get('currentHealthy') or 0)} currently")
            return Eviction(False, 429, PDB_VIOLATION, causes=(cause,))
        disrupted = dict(status.get("disruptedPods") or {})
        disrupted[name] = time_value(now)
        actions.append(A.PatchStatus("PodDisruptionBudget", namespace, _name(pdb),
                                     {"disruptionsAllowed": allowed - 1, "disruptedPods": disrupted}))
    grace = _grace(pod) if grace_seconds is None else int(grace_seconds)
    actions.append(A.SetPodDeletion(namespace, name, now, grace, "Evicted"))
    return Eviction(True, 201, "", tuple(actions))


# --- deletion with dependents ---------------------------------------------------------------------------------------------------


def cascade_delete(store: Store, kind: str, namespace: str, name: str, now: float) -> list:
    """Delete an object; a workload's pods (and a Deployment's ReplicaSets) go with it
    (background propagation: the owner at once, the pods gracefully)."""
    owner = store.get(kind, namespace, name)
    if owner is None:
        return []
    actions: list = [A.DeleteObject(kind, namespace, name)]
    if kind == "Pod":
        return [A.SetPodDeletion(namespace, name, now, _grace(owner), "Deleted")]
    dependents: list[Mapping[str, Any]] = [owner]
    if kind == "Deployment":
        for rs in store.list("ReplicaSet"):
            if is_controlled_by(rs, owner):
                actions.append(A.DeleteObject("ReplicaSet", _ns(rs), _name(rs)))
                dependents.append(rs)
    for pod in store.list("Pod"):
        if any(is_controlled_by(pod, d) for d in dependents) and not is_terminating(pod):
            actions.append(A.SetPodDeletion(_ns(pod), _name(pod), now, _grace(pod), "GarbageCollected"))
    return actions


# --- all of them ------------------------------------------------------------------------------------------------------------------


def reconcile(store: Store, now: float, *, seed: Any = 0, admission: Mapping[str, bool] | None = None) -> A.Result:
    ctx = Context.build(store, now, seed, admission)
    result = A.Result()
    for deploy in store.list("Deployment"):
        result.actions += reconcile_deployment(ctx, deploy)
    for kind in ("ReplicaSet", "ReplicationController"):
        for rs in store.list(kind):
            result.actions += reconcile_replica_set(ctx, rs)
    for sts in store.list("StatefulSet"):
        result.actions += reconcile_stateful_set(ctx, sts)
    for ds in store.list("DaemonSet"):
        result.actions += reconcile_daemon_set(ctx, ds)
    for pdb in store.list("PodDisruptionBudget"):
        result.actions += reconcile_pdb(ctx, pdb)
    result.due(_pdb_recheck(store, now))
    return result
