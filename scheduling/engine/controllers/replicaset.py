"""The ReplicaSet and ReplicationController controllers (pkg/controller/replicaset,
replica_set.go, which runs both kinds; 1.11).

The active pods it controls (controllerRef; orphans whose labels match its selector are
adopted) are counted; too few -> new pods `<name>-<5 chars>` (controller_utils.generate_name)
with `SuccessfulCreate` `Created pod: <name>`; too many -> the ActivePods order picks the
victims (unassigned first, Pending < Unknown < Running, not ready first, newest first) with
`SuccessfulDelete` `Deleted pod: <name>`. One sync creates or deletes at most
BURST_REPLICAS (500) pods, creations in slow-start batches of 1, 2, 4, ... (slowStartBatch):
a batch with a refused create (say the cluster's pod quota, `exceeded quota`) ends the
sync, one FailedCreate event per refused pod. Terminating and finished pods are not active: an
evicted pod is replaced at once. Sources replicaset-controller / replication-controller.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from scheduling.engine.api.priority import AdmissionError
from scheduling.engine import actions as A
from scheduling.engine.controllers.controller_utils import (
    BURST_REPLICAS,
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
    object_namespace,
    selector_of,
    slow_start_batch,
    status_patch,
)
from scheduling.engine.store import labels_of, meta, name_of


def reconcile_replica_set(ctx: WorkloadContext, rs: Mapping[str, Any]) -> list:
    selector = selector_of(rs)
    replicas = int((rs.get("spec") or {}).get("replicas", 1) or 0)
    template = (rs.get("spec") or {}).get("template") or {}
    template_labels = (template.get("metadata") or {}).get("labels") or {}
    namespace = object_namespace(rs)
    if selector is None or not ctx.store.orphan_pods(namespace):
        # nothing to adopt: the pods it controls, counted (from the caller's groups, or
        # from their facts); listed only when some are to go
        if ctx.groups is not None:
            uid = meta(rs).get("uid")
            active = fully = ready = 0
            groups = ctx.groups.owned.get((namespace, rs.get("kind") or "", name_of(rs))) or {}
            for (pod_uid, is_active_, running, labels), n in groups.items():
                if not is_active_ or (pod_uid and uid and pod_uid != uid):
                    continue
                active += n
                fully += n if all(item in labels for item in template_labels.items()) else 0
                ready += n if running else 0
        else:
            controlled = [f for _, f in ctx.controlled(rs) if f.active]
            active = len(controlled)
            fully = sum(1 for f in controlled if all(f.labels.get(k) == v for k, v in template_labels.items()))
            ready = sum(1 for f in controlled if f.running)
        pods: list[dict] = []
        if active > replicas:
            pods = ctx.store.in_order("Pod", ((namespace, name_of(p)) for p, f in ctx.controlled(rs) if f.active))
        return _replicas(ctx, rs, template, active - replicas, active, pods, [], fully, ready)
    owned, actions = claim_pods(ctx, rs, selector)
    pods = [p for p in owned if is_active(p)]
    fully = sum(1 for p in pods if all(labels_of(p).get(k) == v for k, v in template_labels.items()))
    ready = sum(1 for p in pods if is_running(p))
    return _replicas(ctx, rs, template, len(pods) - replicas, len(pods), pods, actions, fully, ready)


def _replicas(ctx: WorkloadContext, rs: Mapping[str, Any], template: Mapping[str, Any], diff: int, active: int,
              pods: list[dict], actions: list, fully: int, ready: int) -> list:
    """Create or delete pods to make up `diff` (`active` pods minus replicas; `pods`: the
    active ones, in store order, when some are to go), then the status."""
    if diff < 0:
        # manageReplicas: at most burstReplicas pods per sync, created in slow-start batches
        # (the rest at the next sync, once these are observed); a failed batch ends the sync
        prefix = f"{name_of(rs)}-"
        failed: list = []

        def create() -> bool:
            name = generate_name(ctx, rs, prefix)
            try:
                doc = new_pod(ctx, rs, template, name, generate_name_prefix=prefix)
            except AdmissionError as exc:
                failed.append(exc)
                return False
            actions.extend(create_pod(ctx, rs, doc, f"Created pod: {name}"))
            return True

        slow_start_batch(min(-diff, BURST_REPLICAS), create)
        if failed:
            # the ReplicaFailure condition once, one FailedCreate event per refused pod
            # (none when the condition already says so: the sync before recorded it)
            first = failed_create(ctx, rs, failed[0])
            actions += first
            event = next((a for a in first if isinstance(a, A.RecordEvent)), None)
            if event is not None:
                actions += [dataclasses.replace(event, message=f"Error creating: {exc}") for exc in failed[1:]]
    elif diff > 0:
        for pod in active_pods_order(pods)[:min(diff, BURST_REPLICAS)]:
            actions += delete_pod(ctx, rs, pod, f"Deleted pod: {name_of(pod)}")
    actions += status_patch(rs, {"replicas": active, "fullyLabeledReplicas": fully,
                                  "readyReplicas": ready, "availableReplicas": ready})
    return actions


