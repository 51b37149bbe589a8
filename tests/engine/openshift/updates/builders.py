"""Builders for the updates engine tests: nodes with roles, a ClusterVersion, pools."""

from __future__ import annotations

from typing import Any, Mapping

CAPACITY = {"cpu": "8", "memory": "32Gi", "pods": "110"}


def node(name: str, role: str = "worker", created: float = 0, zone: str | None = None,
         annotations: Mapping[str, str] | None = None) -> dict:
    labels = {f"node-role.kubernetes.io/{role}": "", "kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "creationTimestamp": created, "labels": labels,
                         "annotations": dict(annotations or {})},
            "status": {"capacity": dict(CAPACITY), "allocatable": dict(CAPACITY)}}


def cluster_version(version: str, channel: str = "stable-4.14", **status: Any) -> dict:
    return {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
            "spec": {"channel": channel, "clusterID": "5a4c3e2f-0000-4000-8000-000000000001"},
            "status": {"desired": {"version": version}, **status}}


def machine_config(name: str, role: str, files: int = 1) -> dict:
    return {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
            "metadata": {"name": name, "labels": {"machineconfiguration.openshift.io/role": role}},
            "spec": {"config": {"ignition": {"version": "3.2.0"},
                                "storage": {"files": [{"path": f"/etc/{name}-{i}", "mode": 420} for i in range(files)]}}}}


def replica_set(name: str, replicas: int, labels: Mapping[str, str], namespace: str = "default") -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)},
                                  "spec": {"terminationGracePeriodSeconds": 30,
                                           "containers": [{"name": "app", "image": "registry.example/app:1",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}


def pdb(name: str, labels: Mapping[str, str], min_available: int, namespace: str = "default") -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": dict(labels)}}}
