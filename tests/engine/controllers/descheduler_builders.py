"""Document builders for the descheduler tests (the descheduler reads store documents)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

SEED_POLICY: dict = {
    "apiVersion": "descheduler/v1alpha1",
    "kind": "DeschedulerPolicy",
    "strategies": {
        "RemoveDuplicates": {"enabled": False},
        "LowNodeUtilization": {
            "enabled": True,
            "params": {
                "nodeResourceUtilizationThresholds": {
                    "thresholds": {"cpu": 20, "memory": 20, "pods": 20},
                    "targetThresholds": {"cpu": 50, "memory": 50, "pods": 50},
                    "numberOfNodes": 3,
                }
            },
        },
        "RemovePodsViolatingInterPodAntiAffinity": {"enabled": True},
        "RemovePodsViolatingNodeAffinity": {
            "enabled": True,
            "params": {"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]},
        },
    },
}


def policy(**strategies: Any) -> dict:
    """A DeschedulerPolicy with the given strategies (name -> body)."""
    return {"apiVersion": "descheduler/v1alpha1", "kind": "DeschedulerPolicy", "strategies": dict(strategies)}


def lnu(thresholds: Mapping[str, float] | None, targets: Mapping[str, float] | None, number_of_nodes: int | None = None) -> dict:
    nrut: dict = {}
    if thresholds is not None:
        nrut["thresholds"] = dict(thresholds)
    if targets is not None:
        nrut["targetThresholds"] = dict(targets)
    if number_of_nodes is not None:
        nrut["numberOfNodes"] = number_of_nodes
    return {"enabled": True, "params": {"nodeResourceUtilizationThresholds": nrut}}


def node(name: str, labels: Mapping[str, str] | None = None, cpu: str = "4", memory: str = "8Gi", pods: int = 10,
         ready: str | None = "True", unschedulable: bool = False) -> dict:
    capacity = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    status: dict = {"capacity": capacity, "allocatable": dict(capacity)}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    doc: dict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})}, "status": status}
    if unschedulable:
        doc["spec"] = {"unschedulable": True}
    return doc


def pod(name: str, node_name: str = "", *, namespace: str = "default", owner: tuple[str, str] | None = ("ReplicaSet", "web"),
        labels: Mapping[str, str] | None = None, cpu: str | None = None, memory: str | None = None,
        limits: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
        volumes: Iterable[Mapping[str, Any]] = (), affinity: Mapping[str, Any] | None = None,
        node_selector: Mapping[str, str] | None = None, phase: str = "Running") -> dict:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    resources: dict = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = dict(limits)
    meta: dict = {"name": name, "namespace": namespace, "labels": dict(labels or {"app": "web"}), "annotations": dict(annotations or {})}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "uid": f"uid-{owner[1]}", "controller": True}]
    spec: dict = {"containers": [{"name": "c", "image": "busybox", "resources": resources}]}
    if node_name:
        spec["nodeName"] = node_name
    if volumes:
        spec["volumes"] = [dict(v) for v in volumes]
    if affinity is not None:
        spec["affinity"] = dict(affinity)
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": phase if node_name else "Pending"}}


def pdb(name: str, min_available: int, labels: Mapping[str, str], namespace: str = "default") -> dict:
    return {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": dict(labels)}}}


def anti_affinity(labels: Mapping[str, str]) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": dict(labels)}, "topologyKey": "kubernetes.io/hostname"}]}}


def node_affinity(key: str, values: Iterable[str]) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}}}
