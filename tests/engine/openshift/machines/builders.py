"""Documents for the machine tests: MachineSets, Machines, MachineHealthChecks, workloads."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scheduling.engine.openshift import machine_api as M

CLUSTER = "ci-7xk2p"


def machineset(name: str = "worker-a", replicas: int = 2, *, taints: Iterable[Mapping[str, Any]] = (),
               node_labels: Mapping[str, str] | None = None, instance_type: str = "m6i.xlarge",
               delete_policy: str | None = None, hooks: Mapping[str, list] | None = None,
               simulated_owners: bool = False, annotations: Mapping[str, str] | None = None,
               role: str = "worker") -> dict:
    labels = {M.CLUSTER_ID_LABEL: CLUSTER, M.MACHINESET_LABEL: name}
    template_labels = {**labels, M.ROLE_LABEL: role, M.TYPE_LABEL: role}
    spec: dict = {
        "providerSpec": {"value": {"instanceType": instance_type, "placement": {"region": "us-east-1", "availabilityZone": "us-east-1a"}}},
    }
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if node_labels:
        spec["metadata"] = {"labels": dict(node_labels)}
    if hooks:
        spec["lifecycleHooks"] = {k: [dict(h) for h in v] for k, v in hooks.items()}
    tmeta: dict = {"labels": template_labels}
    if simulated_owners:
        tmeta["annotations"] = {M.HOOK_OWNERS_ANNOTATION: "true"}
    doc = {
        "apiVersion": M.API_VERSION,
        "kind": "MachineSet",
        "metadata": {"name": name, "namespace": M.NAMESPACE, "labels": {M.CLUSTER_ID_LABEL: CLUSTER},
                     "annotations": dict(annotations or {})},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": {"metadata": tmeta, "spec": spec}},
    }
    if delete_policy:
        doc["spec"]["deletePolicy"] = delete_policy
    return doc


def mhc(name: str = "workers", *, max_unhealthy: Any = None, timeout: str = "300s", selector: Mapping[str, str] | None = None,
        node_startup_timeout: str | None = None) -> dict:
    spec: dict = {
        "selector": {"matchLabels": dict(selector or {M.ROLE_LABEL: "worker"})},
        "unhealthyConditions": [
            {"type": "Ready", "status": "False", "timeout": timeout},
            {"type": "Ready", "status": "Unknown", "timeout": timeout},
        ],
    }
    if max_unhealthy is not None:
        spec["maxUnhealthy"] = max_unhealthy
    if node_startup_timeout is not None:
        spec["nodeStartupTimeout"] = node_startup_timeout
    return {"apiVersion": M.API_VERSION, "kind": "MachineHealthCheck", "metadata": {"name": name, "namespace": M.NAMESPACE}, "spec": spec}


def deployment(name: str, replicas: int, *, cpu: str = "100m", labels: Mapping[str, str] | None = None,
               grace: int = 30, node_selector: Mapping[str, str] | None = None, tolerations: Iterable[Mapping[str, Any]] = ()) -> dict:
    labels = dict(labels or {"app": name})
    pod_spec: dict = {"terminationGracePeriodSeconds": grace,
                      "containers": [{"name": "c", "image": "registry.example/app:1", "resources": {"requests": {"cpu": cpu}}}]}
    if node_selector:
        pod_spec["nodeSelector"] = dict(node_selector)
    if tolerations:
        pod_spec["tolerations"] = [dict(t) for t in tolerations]
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": pod_spec}}}


def pdb(name: str, labels: Mapping[str, str], min_available: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": dict(labels)}}}


def control_plane(count: int = 3, cluster: str = CLUSTER) -> list[dict]:
    """A running control plane: Machines `<cluster>-master-<i>` (provisioned, linked) and
    their Nodes, as an installed cluster has them."""
    docs: list[dict] = []
    for i in range(count):
        ip = f"10.0.{10 + i}.{20 + i}"
        node = f"ip-{ip.replace('.', '-')}.ec2.internal"
        name = f"{cluster}-master-{i}"
        docs.append({
            "apiVersion": M.API_VERSION, "kind": "Machine",
            "metadata": {"name": name, "namespace": M.NAMESPACE, "creationTimestamp": 0,
                         "finalizers": [M.FINALIZER],
                         "labels": {M.CLUSTER_ID_LABEL: cluster, M.ROLE_LABEL: "master", M.TYPE_LABEL: "master",
                                    M.INSTANCE_TYPE_LABEL: "m6i.xlarge", M.REGION_LABEL: "us-east-1", M.ZONE_LABEL: "us-east-1a"},
                         "annotations": {M.INSTANCE_STATE_ANNOTATION: "running"}},
            "spec": {"providerID": f"aws:///us-east-1a/i-0master{i:011d}",
                     "providerSpec": {"value": {"instanceType": "m6i.xlarge",
                                                "placement": {"region": "us-east-1", "availabilityZone": "us-east-1a"}}}},
            "status": {"phase": "Running", "nodeRef": {"kind": "Node", "name": node},
                       "addresses": [{"type": "InternalIP", "address": ip}]},
        })
        docs.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": node, "creationTimestamp": 0,
                         "labels": {"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": "",
                                    "kubernetes.io/hostname": node.split(".")[0]},
                         "annotations": {M.NODE_MACHINE_ANNOTATION: f"{M.NAMESPACE}/{name}"}},
            "spec": {"providerID": f"aws:///us-east-1a/i-0master{i:011d}",
                     "taints": [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "250"},
                       "addresses": [{"type": "InternalIP", "address": ip}],
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status", "lastHeartbeatTime": 0, "lastTransitionTime": 0}]},
        })
    return docs
