"""Tiny builders for engine tests: objects are built from documents through `from_doc`,
so the tests exercise the same parsing the app uses. Extend by appending functions."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.api.objects import Controller, Node, Pod, Service


def _taint_doc(t: Any) -> dict:
    """A taint from a dict or from "key=value:Effect" / "key:Effect"."""
    if isinstance(t, Mapping):
        return dict(t)
    key_value, _, effect = t.partition(":")
    key, _, value = key_value.partition("=")
    return {"key": key, "value": value, "effect": effect}


def node(
    name: str,
    labels: Mapping[str, str] | None = None,
    taints: Iterable[Any] = (),
    cpu: str | int | None = "4",
    memory: str | int | None = "8Gi",
    pods: str | int | None = 110,
    annotations: Mapping[str, str] | None = None,
    images: Iterable[tuple[Iterable[str], int]] = (),
    conditions: Mapping[str, str] | None = None,
    unschedulable: bool = False,
    uid: str = "",
) -> Node:
    """A node whose capacity (= allocatable) is cpu/memory/pods (None leaves one out);
    images are (names, sizeBytes) pairs; conditions map type -> status."""
    capacity = {k: str(v) for k, v in (("cpu", cpu), ("memory", memory), ("pods", pods)) if v is not None}
    doc: dict = {
        "kind": "Node",
        "metadata": {"name": name, "uid": uid, "labels": dict(labels or {}), "annotations": dict(annotations or {})},
        "spec": {"taints": [_taint_doc(t) for t in taints], "unschedulable": unschedulable},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "images": [{"names": list(names), "sizeBytes": size} for names, size in images],
            "conditions": [{"type": k, "status": v} for k, v in (conditions or {}).items()],
        },
    }
    return Node.from_doc(doc)


def pod(
    name: str,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    cpu: str | None = None,
    memory: str | None = None,
    containers: Iterable[Mapping[str, Any]] | None = None,
    init_containers: Iterable[Mapping[str, Any]] = (),
    node_name: str = "",
    tolerations: Iterable[Mapping[str, Any]] = (),
    affinity: Mapping[str, Any] | None = None,
    node_selector: Mapping[str, str] | None = None,
    owner: tuple[str, str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    deletion_timestamp: float | None = None,
    priority: int | None = None,
    image: str = "busybox",
    uid: str = "",
) -> Pod:
    """A pod with one container requesting cpu/memory (omitted when None), or the given
    container documents; owner is a controller reference (kind, name, uid)."""
    if containers is None:
        requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
        containers = [{"name": "c", "image": image, "resources": {"requests": requests}}]
    meta: dict = {"name": name, "namespace": namespace, "uid": uid, "labels": dict(labels or {}), "annotations": dict(annotations or {})}
    if owner is not None:
        kind, owner_name, owner_uid = owner
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": kind, "name": owner_name, "uid": owner_uid, "controller": True}]
    if deletion_timestamp is not None:
        meta["deletionTimestamp"] = deletion_timestamp
    spec: dict = {
        "containers": [dict(c) for c in containers],
        "initContainers": [dict(c) for c in init_containers],
        "tolerations": [dict(t) for t in tolerations],
        "nodeSelector": dict(node_selector or {}),
    }
    if node_name:
        spec["nodeName"] = node_name
    if affinity is not None:
        spec["affinity"] = affinity
    if priority is not None:
        spec["priority"] = priority
    return Pod.from_doc({"kind": "Pod", "metadata": meta, "spec": spec})


def service(name: str, selector: Mapping[str, str] | None, namespace: str = "default") -> Service:
    return Service.from_doc({"kind": "Service", "metadata": {"name": name, "namespace": namespace}, "spec": {"selector": selector}})


def controller(kind: str, name: str, selector: Mapping[str, Any] | None, namespace: str = "default", uid: str = "") -> Controller:
    """A controller; `selector` is a map for a ReplicationController, a LabelSelector
    document ({"matchLabels": ...}) for the other kinds."""
    return Controller.from_doc({"kind": kind, "metadata": {"name": name, "namespace": namespace, "uid": uid}, "spec": {"selector": selector}})


def cluster(nodes: Iterable[Node], pods: Iterable[Pod] = (), **objects: Any) -> ClusterState:
    return ClusterState(nodes=list(nodes), pods=list(pods), **objects)


def cycle(pod_: Pod, state: ClusterState) -> tuple[CycleContext, list[NodeInfo]]:
    """A cycle context for `pod_` and every node's NodeInfo, in node order."""
    infos = state.node_infos()
    return CycleContext(pod_, state, infos), list(infos.values())


# --- predicates (tests/engine/predicates) -------------------------------------------------------


def evaluate(predicate, pod_: Pod, state: ClusterState) -> dict[str, tuple[str, ...]]:
    """Run one predicate for `pod_` against every node of `state`: node name -> reasons."""
    ctx, infos = cycle(pod_, state)
    return {info.name: predicate(pod_, ctx, info) for info in infos}


def with_volumes(pod_: Pod, *volumes: Mapping[str, Any]) -> Pod:
    """The pod with these volume documents (`{"name": ..., "gcePersistentDisk": {...}}`)."""
    from dataclasses import replace

    return replace(pod_, volumes=tuple(dict(v) for v in volumes))


def pvc(name: str, namespace: str = "default", volume_name: str = "", storage: str = "1Gi",
        storage_class: str | None = None, access_modes: Iterable[str] = ("ReadWriteOnce",),
        selector: Mapping[str, Any] | None = None):
    from scheduling.engine.api.objects import Volume

    spec: dict = {"accessModes": list(access_modes), "resources": {"requests": {"storage": storage}}}
    if volume_name:
        spec["volumeName"] = volume_name
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    if selector is not None:
        spec["selector"] = dict(selector)
    return Volume.from_doc({"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": namespace}, "spec": spec})


def pv(name: str, storage: str = "1Gi", labels: Mapping[str, str] | None = None, storage_class: str | None = None,
       access_modes: Iterable[str] = ("ReadWriteOnce",), node_affinity_terms: Iterable[Mapping[str, Any]] | None = None,
       claim_ref: tuple[str, str] | None = None, source: Mapping[str, Any] | None = None):
    """A PersistentVolume; node_affinity_terms are nodeSelectorTerms documents, claim_ref is
    (namespace, name), source e.g. {"awsElasticBlockStore": {"volumeID": "vol-1"}}."""
    from scheduling.engine.api.objects import Volume

    spec: dict = {"capacity": {"storage": storage}, "accessModes": list(access_modes), **dict(source or {})}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    if node_affinity_terms is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [dict(t) for t in node_affinity_terms]}}
    if claim_ref is not None:
        spec["claimRef"] = {"namespace": claim_ref[0], "name": claim_ref[1]}
    return Volume.from_doc({"kind": "PersistentVolume", "metadata": {"name": name, "labels": dict(labels or {})}, "spec": spec})


def storage_class(name: str, binding_mode: str | None = None):
    from scheduling.engine.api.objects import Volume

    doc: dict = {"kind": "StorageClass", "metadata": {"name": name}, "provisioner": "kubernetes.io/no-provisioner"}
    if binding_mode is not None:
        doc["volumeBindingMode"] = binding_mode
    return Volume.from_doc(doc)


def pdb(name: str, selector: Mapping[str, str] | None, disruptions_allowed: int = 0, namespace: str = "default"):
    """A PodDisruptionBudget whose selector is matchLabels `selector`, with
    status.disruptionsAllowed already computed."""
    from scheduling.engine.api.objects import PodDisruptionBudget

    spec = {} if selector is None else {"selector": {"matchLabels": dict(selector)}}
    return PodDisruptionBudget.from_doc(
        {"kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace}, "spec": spec,
         "status": {"disruptionsAllowed": disruptions_allowed}}
    )


# --- documents for the controllers (tests/engine/controllers/test_taint_manager.py, ...) ----------------------


def node_doc(name: str, labels: Mapping[str, str] | None = None, taints: Iterable[Any] = (),
             conditions: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
             unschedulable: bool = False, cpu: str = "4", memory: str = "8Gi", pods: str = "110") -> dict:
    """A Node document (the shape scheduling/store/kube.py produces); taints as in `node()`;
    conditions map type -> status."""
    doc: dict = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **dict(labels or {})}},
        "spec": {},
        "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": pods},
                   "allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }
    if annotations:
        doc["metadata"]["annotations"] = dict(annotations)
    if taints:
        doc["spec"]["taints"] = [{k: v for k, v in _taint_doc(t).items() if v != ""} for t in taints]
    if unschedulable:
        doc["spec"]["unschedulable"] = True
    if conditions:
        doc["status"]["conditions"] = [
            {"type": k, "status": v, "lastHeartbeatTime": 0, "lastTransitionTime": 0} for k, v in conditions.items()
        ]
    return doc


def pod_doc(name: str, node: str = "", tolerations: Iterable[Mapping[str, Any]] = (), namespace: str = "default",
            labels: Mapping[str, str] | None = None, cpu: str | None = None, grace: int = 30,
            owner: tuple[str, str] | None = None, phase: str | None = None, containers: Iterable[str] = ("c",)) -> dict:
    """A Pod document; owner is a controller reference (kind, name)."""
    requests = {"cpu": cpu} if cpu is not None else {}
    meta: dict = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(labels)
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "controller": True}]
    spec: dict = {
        "containers": [{"name": c, "image": "busybox", "resources": {"requests": dict(requests)}} for c in containers],
        "terminationGracePeriodSeconds": grace,
        "schedulerName": "default-scheduler",
    }
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": phase or ("Running" if node else "Pending")}}


def toleration(key: str, effect: str = "NoExecute", seconds: int | None = None, value: str | None = None,
               operator: str | None = None) -> dict:
    """A toleration document: Equal when a value is given, else Exists."""
    t: dict = {"key": key, "operator": operator or ("Equal" if value is not None else "Exists"), "effect": effect}
    if value is not None:
        t["value"] = value
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t
