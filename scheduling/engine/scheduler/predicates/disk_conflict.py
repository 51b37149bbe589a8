"""NoDiskConflict (Kubernetes 1.11 `predicates.NoDiskConflict` / `isVolumeConflict`).

For each volume of the pod against each volume of each pod already on the node:
* GCE PD: same `pdName` conflicts unless both mounts are read-only;
* AWS EBS: same `volumeID` always conflicts;
* iSCSI: same `iqn` conflicts unless both are read-only;
* RBD: monitors overlap (`haveOverlap`), same pool (default `rbd`) and same image conflict
  unless both are read-only.
Only inline pod volumes are compared (PVCs are not resolved), as upstream.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import Pod

NAME = "NoDiskConflict"
ERR_DISK_CONFLICT = "node(s) had no available disk"
REASONS = (ERR_DISK_CONFLICT,)

_CHECKED = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


def _read_only(source: Mapping[str, Any]) -> bool:
    return bool(source.get("readOnly"))


def _rbd_pool(source: Mapping[str, Any]) -> str:
    return source.get("pool") or "rbd"  # API default of RBDVolumeSource.pool


def is_volume_conflict(volume: Mapping[str, Any], pod: Pod) -> bool:
    """isVolumeConflict: does `volume` (a pod volume document) conflict with any volume of `pod`?"""
    if not any(volume.get(k) is not None for k in _CHECKED):
        return False
    gce, ebs, iscsi, rbd = (volume.get(k) for k in ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd"))
    for existing in pod.volumes:
        other = existing.get("gcePersistentDisk")
        if gce is not None and other is not None:
            if (gce.get("pdName") or "") == (other.get("pdName") or "") and not (_read_only(gce) and _read_only(other)):
                return True
        other = existing.get("awsElasticBlockStore")
        if ebs is not None and other is not None:
            if (ebs.get("volumeID") or "") == (other.get("volumeID") or ""):
                return True
        other = existing.get("iscsi")
        if iscsi is not None and other is not None:
            if (iscsi.get("iqn") or "") == (other.get("iqn") or "") and not (_read_only(iscsi) and _read_only(other)):
                return True
        other = existing.get("rbd")
        if rbd is not None and other is not None:
            if (
                set(rbd.get("monitors") or ()) & set(other.get("monitors") or ())
                and _rbd_pool(rbd) == _rbd_pool(other)
                and (rbd.get("image") or "") == (other.get("image") or "")
                and not (_read_only(rbd) and _read_only(other))
            ):
                return True
    return False


def no_disk_conflict(pod: Pod, ctx, info) -> tuple[str, ...]:
    """NoDiskConflict."""
    for volume in pod.volumes:
        for existing in info.pods:
            if is_volume_conflict(volume, existing):
                return (ERR_DISK_CONFLICT,)
    return ()


def _disk_conflict_mask(pod: Pod, ctx, cache):
    """Every node passes unless the pod has a volume of a checked kind; then node by node."""
    if not any(volume.get(k) is not None for volume in pod.volumes for k in _CHECKED):
        return ALL
    return None


no_disk_conflict.mask = _disk_conflict_mask
