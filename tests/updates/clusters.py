"""The small clusters the update tests start from, as YAML: a ClusterVersion at 4.13.19 on
stable-4.14 whose administrator has acknowledged the 4.13 admin gate (the admin-acks
ConfigMap), nodes by role, and (for the drain tests) a ReplicaSet of two pods behind a
PodDisruptionBudget that allows none to go."""

from __future__ import annotations

import re
from pathlib import Path

CLUSTER_VERSION = """
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {channel: stable-4.14, clusterID: 5a4c3e2f-0000-4000-8000-000000000001}
status: {desired: {version: 4.13.19}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: admin-acks, namespace: openshift-config}
data: {ack-4.13-kube-1.27-api-removals-in-4.14: "true"}
"""

WEB_BEHIND_A_PDB = """---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: registry.example/web:1, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, namespace: shop}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
"""


def node(name: str, role: str, created: int | None = None) -> str:
    """A Node document with 8 CPUs, 32Gi and 110 pods, labelled with its role."""
    stamp = "" if created is None else f"creationTimestamp: {created}, "
    return f"""---
apiVersion: v1
kind: Node
metadata: {{name: {name}, {stamp}labels: {{node-role.kubernetes.io/{role}: ""}}}}
status: {{capacity: {{cpu: "8", memory: 32Gi, pods: "110"}}}}
"""


def update_cluster(*docs: str) -> str:
    return CLUSTER_VERSION + "".join(docs)


# A master and a worker: the smallest cluster an update walks through.
ONE_WORKER = update_cluster(node("master-0", "master"), node("worker-0", "worker"))


def scenario_objects(name: str) -> str:
    """A built-in scenario's objects without its Timeline: the cluster as the scenario starts,
    with nothing scripted to happen (a preview then shows only what the change does)."""
    from scheduling.engine import scenarios

    scenario = next(s for s in scenarios.SCENARIOS if s.name == name)
    docs = re.split(r"(?m)^---\n", Path(scenarios.path(scenario)).read_text())
    return "---\n".join(d for d in docs if not re.search(r"(?m)^kind: Timeline$", d))
