"""The StatefulSet controller (OrderedReady and Parallel pod management; 1.11).

Pods `<name>-0`, `-1`, ... created one at a time, the next only when every lower ordinal
is Running; a terminating pod is waited for before its name is reused; scale-down deletes
the highest ordinal first, one at a time. Events `SuccessfulCreate` `create Pod <pod> in
StatefulSet <name> successful` and `SuccessfulDelete` `delete Pod <pod> in StatefulSet
<name> successful`.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controllers.controller_utils import (
    CONTROLLER_REVISION_HASH,
    SOURCES,
    WorkloadContext,
    claim_pods,
    failed_create,
    termination_grace_seconds,
    is_active,
    is_running,
    new_pod,
    object_namespace,
    selector_of,
    status_patch,
    template_hash,
)
from scheduling.engine.store import is_terminating, name_of

STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"


def pod_ordinal(sts_name: str, pod_name: str) -> int | None:
    prefix = f"{sts_name}-"
    if not pod_name.startswith(prefix):
        return None
    rest = pod_name[len(prefix):]
    return int(rest) if rest.isdigit() else None


def _delete_condemned(ctx: WorkloadContext, sts: Mapping[str, Any], condemned: list[tuple[int, dict]],
                      by_ordinal: Mapping[int, dict], monotonic: bool) -> list:
    """Scale down: the pods of ordinals beyond the replicas deleted, highest ordinal first;
    with OrderedReady one at a time, waiting for a terminating one, and an unhealthy pod
    only if it is the first unhealthy one."""
    actions: list = []
    source = SOURCES["StatefulSet"]
    unhealthy = [p for _, p in sorted(condemned) if not is_running(p)] + [by_ordinal[i] for i in sorted(by_ordinal) if not is_running(by_ordinal[i])]
    first_unhealthy = unhealthy[0] if unhealthy else None
    for _, pod in sorted(condemned, key=lambda c: -c[0]):
        if is_terminating(pod):
            if monotonic:
                break
            continue
        if not is_running(pod) and monotonic and pod is not first_unhealthy:
            break
        actions.append(A.SetPodDeletion(object_namespace(pod), name_of(pod), ctx.now, termination_grace_seconds(pod), "SuccessfulDelete"))
        actions.append(A.RecordEvent(ctx.now, "Normal", "SuccessfulDelete", "StatefulSet", object_namespace(sts), name_of(sts),
                                     f"delete Pod {name_of(pod)} in StatefulSet {name_of(sts)} successful", source))
        if monotonic:
            break
    return actions


def reconcile_stateful_set(ctx: WorkloadContext, sts: Mapping[str, Any]) -> list:
    spec = sts.get("spec") or {}
    replicas = int(spec.get("replicas", 1) or 0)
    template = spec.get("template") or {}
    monotonic = (spec.get("podManagementPolicy") or "OrderedReady") == "OrderedReady"
    owned, actions = claim_pods(ctx, sts, selector_of(sts))
    by_ordinal: dict[int, dict] = {}
    condemned: list[tuple[int, dict]] = []
    for pod in owned:
        ordinal = pod_ordinal(name_of(sts), name_of(pod))
        if ordinal is None:
            continue
        if ordinal < replicas:
            by_ordinal[ordinal] = pod
        else:
            condemned.append((ordinal, pod))
    source = SOURCES["StatefulSet"]
    revision = f"{name_of(sts)}-{template_hash(template)}"
    blocked = False
    for i in range(replicas):
        pod = by_ordinal.get(i)
        if pod is not None and (pod.get("status") or {}).get("phase") == "Failed" and not is_terminating(pod):
            actions.append(A.SetPodDeletion(object_namespace(pod), name_of(pod), ctx.now, termination_grace_seconds(pod), "SuccessfulDelete"))
            actions.append(A.RecordEvent(ctx.now, "Normal", "SuccessfulDelete", "StatefulSet", object_namespace(sts), name_of(sts),
                                         f"delete Pod {name_of(pod)} in StatefulSet {name_of(sts)} successful", source))
            blocked = monotonic
            if blocked:
                break
            continue
        if pod is None:
            name = f"{name_of(sts)}-{i}"
            labels = {STATEFULSET_POD_NAME: name, CONTROLLER_REVISION_HASH: revision}
            overrides = {"hostname": name}
            if spec.get("serviceName"):
                overrides["subdomain"] = spec["serviceName"]
            try:
                doc = new_pod(ctx, sts, template, name, labels, spec_overrides=overrides)
            except AdmissionError as exc:
                actions += failed_create(ctx, sts, exc)
                blocked = True
                break
            actions.append(A.CreateObject(doc))
            actions.append(A.RecordEvent(ctx.now, "Normal", "SuccessfulCreate", "StatefulSet", object_namespace(sts), name_of(sts),
                                         f"create Pod {name} in StatefulSet {name_of(sts)} successful", source))
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
        actions += _delete_condemned(ctx, sts, condemned, by_ordinal, monotonic)
    active = [p for p in owned if is_active(p)]
    ready = sum(1 for p in active if is_running(p))
    actions += status_patch(sts, {"replicas": len(active), "readyReplicas": ready, "currentReplicas": len(active),
                                   "currentRevision": revision, "updateRevision": revision})
    return actions

