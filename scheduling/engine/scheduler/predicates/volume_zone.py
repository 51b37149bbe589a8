"""NoVolumeZoneConflict (Kubernetes 1.11 `VolumeZoneChecker.predicate`).

Only PVC volumes bound to a PV are checked, against the node's
`failure-domain.beta.kubernetes.io/zone` and `failure-domain.beta.kubernetes.io/region`
labels. A node with neither label fits at once. For each of those two labels on the PV, its
value is a `__`-separated set of zones (`volumeutil.LabelZonesToSet`; a value with an empty
member is ignored) and the node's value (empty when missing) must be in it. An unbound PVC
whose StorageClass binds on first consumer is skipped; any other unbound, missing or
dangling claim is a 1.11 predicate error (its text fails the node here).
"""

from __future__ import annotations

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.predicates.volume_binding import (
    binding_mode,
    claim_class,
    error_reason,
    volume_index,
    WAIT_FOR_FIRST_CONSUMER,
)

NAME = "NoVolumeZoneConflict"
ERR_VOLUME_ZONE_CONFLICT = "node(s) had no available volume zone"
REASONS = (ERR_VOLUME_ZONE_CONFLICT,)

LABEL_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_REGION = "failure-domain.beta.kubernetes.io/region"
MULTI_ZONE_DELIMITER = "__"


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """volumeutil.LabelZonesToSet; None where Go returns an error (an empty member)."""
    zones = set()
    for zone in value.split(MULTI_ZONE_DELIMITER):
        zone = zone.strip()
        if not zone:
            return None
        zones.add(zone)
    return frozenset(zones)


def no_volume_zone_conflict(pod: Pod, ctx, info) -> tuple[str, ...]:
    """NoVolumeZoneConflict."""
    if not pod.volumes:
        return ()
    node = info.node
    constraints = {k: v for k, v in node.labels.items() if k in (LABEL_ZONE, LABEL_REGION)}
    if not constraints:
        return ()
    index = volume_index(ctx)
    for volume in pod.volumes:
        claim = volume.get("persistentVolumeClaim")
        if claim is None:
            continue
        name = claim.get("claimName") or ""
        if not name:
            return error_reason("PersistentVolumeClaim had no name")
        pvc = index.pvcs.get((pod.namespace, name))
        if pvc is None:
            return error_reason(f'PersistentVolumeClaim was not found: "{name}"')
        pv_name = pvc.spec.get("volumeName") or ""
        if not pv_name:
            class_name = claim_class(pvc)
            storage_class = index.classes.get(class_name) if class_name else None
            if storage_class is not None and binding_mode(storage_class) == WAIT_FOR_FIRST_CONSUMER:
                continue
            return error_reason(f'PersistentVolumeClaim is not bound: "{name}"')
        pv = index.pvs.get(pv_name)
        if pv is None:
            return error_reason(f'PersistentVolume not found: "{pv_name}"')
        labels = (pv.doc.get("metadata") or {}).get("labels") or {}
        for key, value in labels.items():
            if key not in (LABEL_ZONE, LABEL_REGION):
                continue
            zones = label_zones_to_set(value)
            if zones is None:
                continue
            if constraints.get(key, "") not in zones:
                return (ERR_VOLUME_ZONE_CONFLICT,)
    return ()


# A pod without volumes passes everywhere; otherwise node by node (engine.scheduler.cache).
no_volume_zone_conflict.mask = lambda pod, ctx, cache: None if pod.volumes else ALL
