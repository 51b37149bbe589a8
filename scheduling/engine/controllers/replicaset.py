"""The ReplicaSet and ReplicationController controllers (pkg/controller/replicaset,
replica_set.go, which runs both kinds; 1.11).

The active pods it controls (controllerRef; orphans whose labels match its selector are
adopted) are counted; too few -> new pods `<name>-<5 chars>` (controller_utils.generate_name)
with `SuccessfulCreate` `Created pod: <name>`; too many -> the ActivePods order picks the
victims (unassigned first, Pending < Unknown < Running, not ready first, newest first) with
`SuccessfulDelete` `Deleted pod: <name>`. Terminating and finished pods are not active: an
evicted pod is replaced at once. Sources replicaset-controller / replication-controller.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controllers.controller_utils import (
    WorkloadContext,
    active_pods_order,
    claim_pods,
    create_pod,
    delete_pod,
    failed_create,
    generate_name,
    is_active,
    is_running,
    new_pod,
    selector_of,
    status_patch,
)
from scheduling.engine.store import labels_of, name_of


def reconcile_replica_set(ctx: WorkloadContext, rs: Mapping[str, Any]) -> list:
    selector = selector_of(rs)
    owned, actions = claim_pods(ctx, rs, selector)
    active = [p for p in owned if is_active(p)]
    replicas = int((rs.get("spec") or {}).get("replicas", 1) or 0)
    template = (rs.get("spec") or {}).get("template") or {}
    diff = len(active) - replicas
    if diff < 0:
        prefix = f"{name_of(rs)}-"
        for _ in range(-diff):
            name = generate_name(ctx, rs, prefix)
            try:
                doc = new_pod(ctx, rs, template, name, generate_name_prefix=prefix)
            except AdmissionError as exc:
                actions += failed_create(ctx, rs, exc)
                break
            actions += create_pod(ctx, rs, doc, f"Created pod: {name}")
    elif diff > 0:
        for pod in active_pods_order(active)[:diff]:
            actions += delete_pod(ctx, rs, pod, f"Deleted pod: {name_of(pod)}")
    template_labels = (template.get("metadata") or {}).get("labels") or {}
    fully = sum(1 for p in active if all(labels_of(p).get(k) == v for k, v in template_labels.items()))
    ready = sum(1 for p in active if is_running(p))
    actions += status_patch(rs, {"replicas": len(active), "fullyLabeledReplicas": fully,
                                  "readyReplicas": ready, "availableReplicas": ready})
    return actions

