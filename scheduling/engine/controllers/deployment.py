"""The Deployment controller (a simple rollout; pkg/controller/deployment, 1.11).

The ReplicaSet whose template equals the Deployment's (ignoring the pod-template-hash
label, as FindNewReplicaSet does) is the new one; if there is none,
`<deployment>-<pod-template-hash>` is created. The rollout follows `spec.strategy`:
RollingUpdate (rolling.go) scales the new ReplicaSet up within maxSurge (a percentage rounds
up) and the old ones down, oldest first, while at least replicas - maxUnavailable (rounds
down; 1 when both are 0) pods are available: 25%/25% on 3 replicas is one pod at a time;
Recreate (recreate.go) scales every old ReplicaSet to 0, waits until none of their pods
runs, then scales the new one to the full count. A paused Deployment (`spec.paused`, oc
rollout pause) is not rolled out; an old ReplicaSet whose template is the Deployment's again
(oc rollout undo) becomes the new one and gets the next revision. Events
`ScalingReplicaSet` `Scaled up replica set <rs> to <n>` / `Scaled down replica set <rs> to
<n>` (deployment-controller). The hash is fnv32a over the template's canonical JSON,
encoded like rand.SafeEncodeString: the same form as Kubernetes' (e.g. `web-5c689d88bb`),
not the same value.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controllers.controller_utils import (
    POD_TEMPLATE_HASH,
    SOURCES,
    WorkloadContext,
    is_controlled_by,
    object_namespace,
    owner_reference,
    status_patch,
    template_hash,
    without_hash,
)
from scheduling.engine.store import meta, name_of, time_value

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"


def scaling_event(ctx: WorkloadContext, deploy: Mapping[str, Any], rs_name: str, old: int, new: int) -> A.RecordEvent:
    direction = "up" if new > old else "down"
    return A.RecordEvent(ctx.now, "Normal", "ScalingReplicaSet", "Deployment", object_namespace(deploy), name_of(deploy),
                         f"Scaled {direction} replica set {rs_name} to {new}", SOURCES["Deployment"])


def _int_or_percent(value: Any, total: int, round_up: bool) -> int:
    """intstr.GetValueFromIntOrPercent."""
    if isinstance(value, str) and value.endswith("%"):
        share = int(value[:-1] or 0) * total
        return -(-share // 100) if round_up else share // 100
    return int(value or 0)


def surge_and_unavailable(deploy: Mapping[str, Any], replicas: int) -> tuple[int, int]:
    """deploymentutil.ResolveFenceposts: (maxSurge, maxUnavailable) in pods."""
    rolling = ((deploy.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}
    surge = _int_or_percent(rolling.get("maxSurge", "25%"), replicas, True)
    unavailable = _int_or_percent(rolling.get("maxUnavailable", "25%"), replicas, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _replicas(rs: Mapping[str, Any] | None) -> int:
    return int(((rs or {}).get("spec") or {}).get("replicas", 0) or 0)


def _available(rs: Mapping[str, Any] | None) -> int:
    status = (rs or {}).get("status") or {}
    return int(status.get("availableReplicas", status.get("readyReplicas", 0)) or 0)


def _creation_order(rs: Mapping[str, Any]) -> tuple:
    return (str(meta(rs).get("creationTimestamp") or ""), name_of(rs))


def reconcile_deployment(ctx: WorkloadContext, deploy: Mapping[str, Any]) -> list:
    spec = deploy.get("spec") or {}
    replicas = int(spec.get("replicas", 1) or 0)
    template = spec.get("template") or {}
    recreate = (spec.get("strategy") or {}).get("type") == "Recreate"
    owned = [rs for rs in ctx.store.list("ReplicaSet") if is_controlled_by(rs, deploy)]
    new_rs = next((rs for rs in owned if without_hash((rs.get("spec") or {}).get("template") or {}) == without_hash(template)), None)
    old = sorted((rs for rs in owned if rs is not new_rs), key=_creation_order)
    actions: list = []
    sizes = {name_of(rs): _replicas(rs) for rs in owned}  # spec.replicas as this run leaves them
    if new_rs is not None and not spec.get("paused"):
        # getNewReplicaSet: an old ReplicaSet taken back (kubectl rollout undo) gets the next revision
        newest_old = max((_revision(rs) for rs in old), default=0)
        if _revision(new_rs) <= newest_old:
            actions.append(A.SetAnnotation("ReplicaSet", object_namespace(new_rs), name_of(new_rs), REVISION_ANNOTATION,
                                           str(newest_old + 1)))
    if spec.get("paused"):
        # a paused Deployment is not rolled out (sync.go: only scaled; the simulator leaves it as it is)
        return actions + _status(owned, new_rs, replicas, deploy)

    def scale(rs_name: str, namespace: str, to: int) -> None:
        actions.append(A.SetReplicas("ReplicaSet", namespace, rs_name, to))
        actions.append(scaling_event(ctx, deploy, rs_name, sizes.get(rs_name, 0), to))
        sizes[rs_name] = to

    if recreate:
        scaled = False
        for rs in old:
            if sizes[name_of(rs)] > 0:
                scale(name_of(rs), object_namespace(rs), 0)
                scaled = True
        running = any(
            (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            for rs in old for _, pod in ctx.owned(object_namespace(rs), "ReplicaSet", name_of(rs))
        )
        if not scaled and not running:
            if new_rs is None:
                actions += _create_new(ctx, deploy, owned, replicas)
            elif sizes[name_of(new_rs)] != replicas:
                scale(name_of(new_rs), object_namespace(new_rs), replicas)
    else:
        surge, unavailable = surge_and_unavailable(deploy, replicas)
        # reconcileNewReplicaSet (NewRSNewReplicas for RollingUpdate)
        current_new = sizes[name_of(new_rs)] if new_rs is not None else 0
        if current_new > replicas:
            target = replicas
        else:
            all_pods = sum(sizes.values())
            room = max(replicas + surge - all_pods, 0)
            target = current_new + min(room, replicas - current_new)
        scaled_up = False
        if new_rs is None:
            actions += _create_new(ctx, deploy, owned, target)
            scaled_up = target > 0
        elif target != current_new:
            scale(name_of(new_rs), object_namespace(new_rs), target)
            scaled_up = target > current_new
        if not scaled_up and new_rs is not None and any(sizes[name_of(rs)] for rs in old):
            # reconcileOldReplicaSets: the unhealthy old pods first, then as many as the
            # available pods allow, oldest ReplicaSet first.
            min_available = replicas - unavailable
            new_unavailable = sizes[name_of(new_rs)] - _available(new_rs)
            budget = sum(sizes.values()) - min_available - new_unavailable
            if budget > 0:
                for rs in old:
                    unhealthy = sizes[name_of(rs)] - _available(rs)
                    if budget <= 0 or unhealthy <= 0 or sizes[name_of(rs)] == 0:
                        continue
                    down = min(budget, unhealthy)
                    scale(name_of(rs), object_namespace(rs), sizes[name_of(rs)] - down)
                    budget -= down
                available = sum(min(_available(rs), sizes[name_of(rs)]) for rs in old) + _available(new_rs)
                total_down = available - min_available
                for rs in old:
                    if total_down <= 0:
                        break
                    if sizes[name_of(rs)] == 0:
                        continue
                    down = min(sizes[name_of(rs)], total_down)
                    scale(name_of(rs), object_namespace(rs), sizes[name_of(rs)] - down)
                    total_down -= down
    return actions + _status(owned, new_rs, replicas, deploy)


def _revision(rs: Mapping[str, Any]) -> int:
    try:
        return int((meta(rs).get("annotations") or {}).get(REVISION_ANNOTATION, "0") or 0)
    except (TypeError, ValueError):
        return 0


def _status(owned: list, new_rs: Mapping[str, Any] | None, replicas: int, deploy: Mapping[str, Any]) -> list:
    total = sum(int((rs.get("status") or {}).get("replicas", 0) or 0) for rs in owned)
    ready = sum(int((rs.get("status") or {}).get("readyReplicas", 0) or 0) for rs in owned)
    updated = int(((new_rs or {}).get("status") or {}).get("replicas", 0) or 0)
    return status_patch(deploy, {"replicas": total, "updatedReplicas": updated, "readyReplicas": ready,
                                 "availableReplicas": ready, "unavailableReplicas": max(replicas - ready, 0)})


def _create_new(ctx: WorkloadContext, deploy: Mapping[str, Any], owned: list, replicas: int) -> list:
    """The new ReplicaSet `<deployment>-<pod-template-hash>` with `replicas`."""
    spec = deploy.get("spec") or {}
    template = spec.get("template") or {}
    h = template_hash(template)
    name = f"{name_of(deploy)}-{h}"
    if ctx.store.get("ReplicaSet", object_namespace(deploy), name) is not None:
        return []
    revisions = [int((meta(rs).get("annotations") or {}).get(REVISION_ANNOTATION, "0") or 0) for rs in owned]
    rs_template = copy.deepcopy(dict(template))
    rs_template.setdefault("metadata", {})
    rs_template["metadata"]["labels"] = {**(rs_template["metadata"].get("labels") or {}), POD_TEMPLATE_HASH: h}
    selector = copy.deepcopy(spec.get("selector") or {})
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH: h}
    desired = int(spec.get("replicas", 1) or 0)
    rs_doc = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": object_namespace(deploy),
            "labels": dict(rs_template["metadata"]["labels"]),
            "annotations": {REVISION_ANNOTATION: str(max(revisions, default=0) + 1),
                            DESIRED_REPLICAS_ANNOTATION: str(desired)},
            "ownerReferences": [owner_reference(deploy)],
            "creationTimestamp": time_value(ctx.now),
        },
        "spec": {"replicas": replicas, "selector": selector, "template": rs_template},
    }
    created = [A.CreateObject(rs_doc)]
    if replicas > 0:  # as getNewReplicaSet: an event only for a ReplicaSet that gets pods
        created.append(scaling_event(ctx, deploy, name, 0, replicas))
    return created
