"""MaxEBSVolumeCount, MaxGCEPDVolumeCount, MaxAzureDiskVolumeCount (Kubernetes 1.11
`MaxPDVolumeCountChecker`).

Counts the unique volumes of one kind on the node, the pod's own included: volumes written
in the pod (`awsElasticBlockStore.volumeID`, `gcePersistentDisk.pdName`,
`azureDisk.diskName`) and PVC volumes resolved PVC -> PV. A PVC that is missing, unbound, or
whose PV is missing counts as one volume of the kind, identified by namespace/claim name
("assuming PVC matches predicate when counting limits"). The pod fails when
`existing + new (not already mounted on the node) > max`. Defaults 39 (EBS), 16 (GCE PD),
16 (Azure Disk); the KUBE_MAX_PD_VOLS environment override is not read.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.predicates.volume_binding import error_reason, volume_index

EBS_NAME = "MaxEBSVolumeCount"
GCE_PD_NAME = "MaxGCEPDVolumeCount"
AZURE_DISK_NAME = "MaxAzureDiskVolumeCount"
ERR_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
REASONS = (ERR_MAX_VOLUME_COUNT_EXCEEDED,)

DEFAULT_MAX_EBS_VOLUMES = 39  # aws.DefaultMaxEBSVolumes
DEFAULT_MAX_GCE_PD_VOLUMES = 16
DEFAULT_MAX_AZURE_DISK_VOLUMES = 16

# volume kind -> (source field, id field)
EBS = ("awsElasticBlockStore", "volumeID")
GCE_PD = ("gcePersistentDisk", "pdName")
AZURE_DISK = ("azureDisk", "diskName")


class _NoClaimName(Exception):
    pass


def _filter(source_doc: Mapping[str, Any], kind) -> tuple | None:
    source = source_doc.get(kind[0])
    if source is None:
        return None
    return ("id", source.get(kind[1]) or "")


def _filter_volumes(volumes, namespace: str, kind, index, out: set) -> None:
    """MaxPDVolumeCountChecker.filterVolumes."""
    for volume in volumes:
        vid = _filter(volume, kind)
        if vid is not None:
            out.add(vid)
            continue
        claim = volume.get("persistentVolumeClaim")
        if claim is None:
            continue
        name = claim.get("claimName") or ""
        if not name:
            raise _NoClaimName()
        substitute = ("pvc", namespace, name)
        pvc = index.pvcs.get((namespace, name))
        if pvc is None or not pvc.spec.get("volumeName"):
            out.add(substitute)
            continue
        pv = index.pvs.get(pvc.spec["volumeName"])
        if pv is None:
            out.add(substitute)
            continue
        vid = _filter(pv.spec, kind)
        if vid is not None:
            out.add(vid)


def new_max_pd_volume_count_predicate(kind, max_volumes: int):
    """NewMaxPDVolumeCountPredicate for one volume kind (EBS, GCE_PD, AZURE_DISK)."""

    def max_pd_volume_count(pod: Pod, ctx, info) -> tuple[str, ...]:
        if not pod.volumes:
            return ()
        index = volume_index(ctx)
        new: set = set()
        existing: set = set()
        try:
            _filter_volumes(pod.volumes, pod.namespace, kind, index, new)
            if not new:
                return ()
            for other in info.pods:
                _filter_volumes(other.volumes, other.namespace, kind, index, existing)
        except _NoClaimName:
            return error_reason("PersistentVolumeClaim had no name")
        if len(existing) + len(new - existing) > max_volumes:
            return (ERR_MAX_VOLUME_COUNT_EXCEEDED,)
        return ()

    # A pod without volumes passes everywhere; otherwise node by node (engine.scheduler.cache).
    max_pd_volume_count.mask = lambda pod, ctx, cache: None if pod.volumes else ALL
    return max_pd_volume_count


max_ebs_volume_count = new_max_pd_volume_count_predicate(EBS, DEFAULT_MAX_EBS_VOLUMES)
max_gce_pd_volume_count = new_max_pd_volume_count_predicate(GCE_PD, DEFAULT_MAX_GCE_PD_VOLUMES)
max_azure_disk_volume_count = new_max_pd_volume_count_predicate(AZURE_DISK, DEFAULT_MAX_AZURE_DISK_VOLUMES)
