"""Simulated cluster characteristics the update risks query, as Prometheus series.

The user sees and changes `facts` (the Cluster's `facts` JSON, shown on Cluster Settings;
`simulate` reads them from the ClusterVersion annotation `clusterui.io/facts`); the rest is
derived from the objects in the store (ClusterOperators, pods' images, nodes' MCD state).
A metric no fact and no object produces is absent, as on a cluster that does not export
it, so a risk whose query needs it cannot be evaluated (EvaluationFailed).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from scheduling.engine.store import Store, annotations_of, name_of, namespace_of

from .payload import REPOSITORY as G_IMAGE_REPOSITORY
from .promql import Sample, series

FACTS_ANNOTATION = "clusterui.io/facts"
MCO_STATE = "machineconfiguration.openshift.io/state"
MCO_CURRENT = "machineconfiguration.openshift.io/currentConfig"

PLATFORMS = ("AWS", "Azure", "GCP", "BareMetal", "VSphere", "OpenStack", "oVirt", "Nutanix", "IBMCloud", "None", "External")
NETWORK_TYPES = ("OVNKubernetes", "OpenShiftSDN")
CAPABILITIES = ("baremetal", "Build", "Console", "CSISnapshot", "DeploymentConfig", "ImageRegistry", "Insights",
                "MachineAPI", "marketplace", "NodeTuning", "openshift-samples", "Storage")

DEFAULT_FACTS: dict[str, Any] = {
    "platform": "AWS",
    "networkType": "OVNKubernetes",
    "initialVersion": "",  # "": the version the cluster runs now
    "managedBy": "",  # "ARO" adds the aro ClusterOperator the ARO risks look for
    "installer": "openshift-install",  # or "hypershift", "assisted-installer"
    "credentialsMode": "",  # cco_credentials_mode: "mint", "passthrough", "manual"; "" = not exported
    "capabilities": list(CAPABILITIES),
    "cpuVendor": "GenuineIntel",
    "cpuFamily": "6",
    "ipsec": False,
    "ceph": False,
    "sriovOperator": False,
    "imageRegistryStorageUsed": False,  # imageregistry_request_duration_seconds_count (images pushed to the registry)
    "secrets": ["openshift-image-registry/installation-pull-secrets"],
    "storageObjects": {},  # apiserver_storage_objects by resource, e.g. {"networkpolicies.networking.k8s.io": 3}
    "networkAttachmentDefinitions": 0,
    "metrics": [],  # extra series: [{"name": ..., "labels": {...}, "value": 1}]
    "alerts": [],  # alerts the user fires (engine.openshift.alerts.user_alert), as /api/v1/alerts lists them
}


def facts_of(given: Mapping[str, Any] | None) -> dict[str, Any]:
    out = dict(DEFAULT_FACTS)
    out.update({k: v for k, v in (given or {}).items() if v is not None})
    return out


def facts_from_store(store: Store, settings_facts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The facts in force: the cluster settings' facts, else the ClusterVersion annotation."""
    if settings_facts:
        return facts_of(settings_facts)
    cv = store.get("ClusterVersion", "", "version")
    raw = annotations_of(cv or {}).get(FACTS_ANNOTATION)
    if raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = {}
        if isinstance(parsed, dict):
            return facts_of(parsed)
    return facts_of(None)


def _current_version(store: Store) -> str:
    cv = store.get("ClusterVersion", "", "version") or {}
    return ((cv.get("status") or {}).get("desired") or {}).get("version") or ""


def _container_info_series(store: Store, current: str | None, memo: dict | None) -> list[Sample]:
    """kube_pod_container_info: one sample per container of the pods, made once and kept
    in `memo` between calls; the cluster's own pods are not simulated: the CVO's stands for
    them."""
    made: dict = {}
    out: list[Sample] = []
    images = {("openshift-cluster-version", "cluster-version-operator", "cluster-version-operator", "")}
    out.append(series("kube_pod_container_info", 1, namespace="openshift-cluster-version", pod="cluster-version-operator",
                      container="cluster-version-operator", image=G_IMAGE_REPOSITORY + ":" + (current or "unknown")))
    for pod in store.list("Pod"):
        for c in ((pod.get("spec") or {}).get("containers") or []):
            key = (namespace_of(pod), name_of(pod), c.get("name") or "", c.get("image") or "")
            if key not in images:
                images.add(key)
                sample = None if memo is None else memo.get(key)
                if sample is None:
                    sample = series("kube_pod_container_info", 1, namespace=key[0], pod=key[1], container=key[2], image=key[3])
                made[key] = sample
                out.append(sample)
    if memo is not None:
        memo.clear()
        memo.update(made)
    return out


def cluster_series(store: Store, facts: Mapping[str, Any], memo: dict | None = None) -> list[Sample]:
    """The series the risks' queries read. `memo` (the caller's, kept between calls): the
    pods' container series already made, by (namespace, pod, container, image)."""
    facts = facts_of(facts)
    out: list[Sample] = []
    platform = facts["platform"]
    out.append(series("cluster_infrastructure_provider", 1, type=platform))
    current = _current_version(store)
    initial = facts.get("initialVersion") or current
    if current:
        out.append(series("cluster_version", 1, type="current", version=current))
    if initial:
        out.append(series("cluster_version", 1, type="initial", version=initial))
    enabled = set(facts.get("capabilities") or ())
    for cap in CAPABILITIES:
        out.append(series("cluster_version_capability", 1 if cap in enabled else 0, name=cap))
    if facts.get("installer"):
        out.append(series("cluster_installer", 1, invoker=facts["installer"], type="other"))
    operators = [name_of(co) for co in store.list("ClusterOperator")]
    if facts.get("managedBy") == "ARO" and "aro" not in operators:
        operators.append("aro")
    for name in operators:
        out.append(series("cluster_operator_conditions", 1, name=name, condition="Available"))
    if facts.get("credentialsMode"):
        out.append(series("cco_credentials_mode", 1, mode=facts["credentialsMode"]))
    nodes = store.list("Node")
    for node in nodes or [{"metadata": {"name": "node"}}]:
        out.append(series("node_cpu_info", 1, node=name_of(node), vendor=facts.get("cpuVendor") or "",
                          family=str(facts.get("cpuFamily") or "")))
    for node in nodes:
        ann = annotations_of(node)
        if ann.get(MCO_STATE):
            out.append(series("mcd_update_state", 1, node=name_of(node), config=ann.get(MCO_CURRENT, "")))
    out += _container_info_series(store, current, memo)
    for ref in facts.get("secrets") or ():
        ns, _, name = str(ref).partition("/")
        out.append(series("kube_secret_info", 1, namespace=ns, secret=name))
    counts = {"pods": len(store.list("Pod")), "nodes": len(nodes)}
    counts.update(facts.get("storageObjects") or {})
    for resource, count in counts.items():
        out.append(series("apiserver_storage_objects", count, resource=resource))
    if facts.get("networkType") == "OVNKubernetes":
        ipsec = 1 if facts.get("ipsec") else 0
        out.append(series("ovnkube_master_ipsec_enabled", ipsec))
        out.append(series("ovnkube_controller_ipsec_enabled", ipsec))
    if facts.get("ceph"):
        out.append(series("ceph_health_status", 0))
    out.append(series("csv_count", 1 + (1 if facts.get("sriovOperator") else 0)))
    if facts.get("sriovOperator"):
        out.append(series("csv_succeeded", 1, name="sriov-network-operator.v4.14.0"))
    if "ImageRegistry" in enabled:
        out.append(series("imageregistry_http_request_duration_seconds_count", 1, method="get"))
        if facts.get("imageRegistryStorageUsed"):
            out.append(series("imageregistry_request_duration_seconds_count", 1, operation="GetContent"))
    out.append(series("network_attachment_definition_instances", int(facts.get("networkAttachmentDefinitions") or 0)))
    for m in facts.get("metrics") or ():
        out.append(series(m.get("name") or "", m.get("value", 1), **(m.get("labels") or {})))
    return out
