"""The volume plugins (pkg/scheduler/framework/plugins/volumerestrictions,
nodevolumelimits, volumebinding, volumezone).

The PV / PVC / StorageClass look-ups and the disk-conflict and PV-matching rules are the
1.11 predicates' (engine.scheduler.predicates.disk_conflict, volume_binding, volume_zone)
where v1.35 decides the same way. Simplifications, all for objects the simulation does not
keep: a claim counts as bound when `spec.volumeName` is set (upstream also wants the
`pv.kubernetes.io/bind-completed` annotation, which nothing here writes); a PV without
`status.phase` counts as Available; there are no CSINode, CSIDriver or CSIStorageCapacity
objects: NodeVolumeLimits reads a driver's attach limit from the node's allocatable
`attachable-volumes-csi-<driver>` (the key kubelets published before CSINode), in-tree
volumes counting under their CSI migration driver, and a driver without such a limit is
unlimited; dynamic provisioning always has capacity.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine.framework.interface import (
    OK,
    SKIPPED,
    Plugin,
    Status,
    error,
    unresolvable,
    unschedulable,
)
from scheduling.engine.api.objects import LabelSelector, Pod, Volume
from scheduling.engine.api.quantity import parse_quantity
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.predicates.disk_conflict import is_volume_conflict
from scheduling.engine.scheduler.predicates.node_selector import (
    SelectorError,
    label_selector_as_selector,
)
from scheduling.engine.scheduler.predicates.volume_binding import (
    WAIT_FOR_FIRST_CONSUMER,
    VolumeIndex,
    claim_class,
    pv_node_affinity_matches,
    volume_class,
)
from scheduling.engine.scheduler.predicates.volume_zone import label_zones_to_set

_INDEX_KEY = "VolumeIndex"


def volume_index(handle, cs=None) -> VolumeIndex:
    """PVCs by (namespace, name), PVs and StorageClasses by name (the informers' listers),
    built once per cycle when a CycleState is given."""
    if cs is not None:
        index = cs.get(_INDEX_KEY)
        if index is not None:
            return index
    state = handle.state
    index = VolumeIndex(
        {(v.namespace or "default", v.name): v for v in state.persistent_volume_claims},
        {v.name: v for v in state.persistent_volumes},
        {v.name: v for v in state.storage_classes},
        list(state.persistent_volumes),
    )
    if cs is not None:
        cs[_INDEX_KEY] = index
    return index


def _meta(v: Volume) -> Mapping[str, Any]:
    return v.doc.get("metadata") or {}


def _not_found(kind: str, name: str) -> str:
    """apierrors.NewNotFound's message as the informers' listers return it."""
    return f'{kind} "{name}" not found'


def _claim_names(pod: Pod):
    for volume in pod.volumes:
        claim = volume.get("persistentVolumeClaim")
        if claim is not None:
            yield claim.get("claimName") or ""


def is_volume_bound_to_claim(pv: Volume, pvc: Volume) -> bool:
    """IsVolumeBoundToClaim: the PV's claimRef names the claim (and its uid, when set)."""
    ref = pv.spec.get("claimRef")
    if not ref:
        return False
    if (ref.get("name") or "") != pvc.name or (ref.get("namespace") or "default") != (pvc.namespace or "default"):
        return False
    uid = ref.get("uid") or ""
    return not uid or uid == (_meta(pvc).get("uid") or "")


def check_access_modes(pvc: Volume, pv: Volume) -> bool:
    """CheckAccessModes: the PV offers every access mode the claim asks for."""
    have = set(pv.spec.get("accessModes") or ())
    return all(mode in have for mode in pvc.spec.get("accessModes") or ())


def _binding_mode(storage_class: Volume) -> str:
    # The API server defaults volumeBindingMode to Immediate.
    return storage_class.doc.get("volumeBindingMode") or "Immediate"


# --- VolumeRestrictions ------------------------------------------------------------------------------

RESTRICTIONS_NAME = "VolumeRestrictions"
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
_RESTRICTED = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
_RESTRICTIONS_KEY = "PreFilter" + RESTRICTIONS_NAME


def needs_restrictions_check(volume: Mapping[str, Any]) -> bool:
    return any(volume.get(k) is not None for k in _RESTRICTED)


class _RestrictionsState:
    __slots__ = ("rwop_claims", "conflicting")

    def __init__(self, rwop_claims: frozenset, conflicting: int):
        self.rwop_claims = rwop_claims  # (namespace, name) of the pod's ReadWriteOncePod claims
        self.conflicting = conflicting

    def clone(self) -> "_RestrictionsState":
        return _RestrictionsState(self.rwop_claims, self.conflicting)


def _pod_rwop_uses(pod: Pod, claims: frozenset) -> int:
    return sum(1 for name in set(_claim_names(pod)) if (pod.namespace, name) in claims)


class VolumeRestrictions(Plugin):
    name = RESTRICTIONS_NAME
    events = frozenset({"AssignedPod/Delete", "Node/Add", "PersistentVolumeClaim/Add"})

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        rwop = set()
        claims = list(_claim_names(pod))
        if claims:
            index = volume_index(self.handle, cs)
            for name in claims:
                pvc = index.pvcs.get((pod.namespace, name))
                if pvc is None:
                    return unresolvable(_not_found("persistentvolumeclaim", name))
                if "ReadWriteOncePod" in (pvc.spec.get("accessModes") or ()):
                    rwop.add((pod.namespace, name))
        conflicting = 0
        if rwop:
            # IsPVCUsedByPods: one per claim some scheduled pod uses.
            used = set()
            for info in self.handle.node_infos.values():
                for other in info.pods:
                    if other.key == pod.key:
                        continue
                    for name in _claim_names(other):
                        if (other.namespace, name) in rwop:
                            used.add((other.namespace, name))
            conflicting = len(used)
        if not needs_check and conflicting == 0:
            return SKIPPED
        cs[_RESTRICTIONS_KEY] = _RestrictionsState(frozenset(rwop), conflicting)
        return OK

    def add_pod(self, cs, pod: Pod, pod_to_add: Pod, info: NodeInfo) -> Status:
        state = cs.get(_RESTRICTIONS_KEY)
        if state is not None and state.rwop_claims:
            state.conflicting += _pod_rwop_uses(pod_to_add, state.rwop_claims)
        return OK

    def remove_pod(self, cs, pod: Pod, pod_to_remove: Pod, info: NodeInfo) -> Status:
        state = cs.get(_RESTRICTIONS_KEY)
        if state is not None and state.rwop_claims:
            state.conflicting -= _pod_rwop_uses(pod_to_remove, state.rwop_claims)
        return OK

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        for volume in pod.volumes:
            if not needs_restrictions_check(volume):
                continue
            for existing in info.pods:
                if is_volume_conflict(volume, existing):
                    return unschedulable(ERR_REASON_DISK_CONFLICT)
        state = cs.get(_RESTRICTIONS_KEY)
        if state is not None and state.conflicting > 0:
            return unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return OK


# --- NodeVolumeLimits (CSILimits) -------------------------------------------------------------------------

LIMITS_NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
CSI_ATTACH_LIMIT_PREFIX = "attachable-volumes-csi-"

# In-tree volume source -> (CSI migration driver, the field naming the volume)
IN_TREE = {
    "awsElasticBlockStore": ("ebs.csi.aws.com", "volumeID"),
    "gcePersistentDisk": ("pd.csi.storage.gke.io", "pdName"),
    "azureDisk": ("disk.csi.azure.com", "diskURI"),
    "cinder": ("cinder.csi.openstack.org", "volumeID"),
    "vsphereVolume": ("csi.vsphere.vmware.com", "volumePath"),
}
IN_TREE_PROVISIONERS = {
    "kubernetes.io/aws-ebs": "ebs.csi.aws.com",
    "kubernetes.io/gce-pd": "pd.csi.storage.gke.io",
    "kubernetes.io/azure-disk": "disk.csi.azure.com",
    "kubernetes.io/cinder": "cinder.csi.openstack.org",
    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
}


def _in_tree(source: Mapping[str, Any]) -> tuple[str, str] | None:
    for field, (driver, key) in IN_TREE.items():
        s = source.get(field)
        if s is not None:
            return driver, str(s.get(key) or "")
    return None


class _LookupError(Exception):
    pass


class NodeVolumeLimits(Plugin):
    name = LIMITS_NAME
    events = frozenset({"CSINode/Add", "CSINode/Update", "AssignedPod/Delete", "PersistentVolumeClaim/Add",
                        "VolumeAttachment/Delete"})

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        for v in pod.volumes:
            if v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None or v.get("csi") is not None \
                    or _in_tree(v) is not None:
                return OK
        return SKIPPED

    def _driver_info(self, index: VolumeIndex, pvc: Volume) -> tuple[str, str]:
        pv_name = pvc.spec.get("volumeName") or ""
        pv = index.pvs.get(pv_name) if pv_name else None
        if pv is not None:
            csi = pv.spec.get("csi")
            if csi is not None:
                return csi.get("driver") or "", csi.get("volumeHandle") or ""
            translated = _in_tree(pv.spec)
            return translated if translated is not None else ("", "")
        # Unbound (or its PV is missing): the StorageClass's provisioner will make it.
        class_name = claim_class(pvc)
        storage_class = index.classes.get(class_name) if class_name else None
        if storage_class is None:
            return "", ""
        provisioner = storage_class.doc.get("provisioner") or ""
        provisioner = IN_TREE_PROVISIONERS.get(provisioner, provisioner)
        return provisioner, f"{pvc.namespace or 'default'}-{pvc.name}"

    def _attachable(self, pod: Pod, index: VolumeIndex, new_pod: bool, out: dict) -> None:
        """filterAttachableVolumes: unique volume name -> driver."""
        for v in pod.volumes:
            csi = v.get("csi")
            if csi is not None:
                driver = csi.get("driver") or ""
                if driver:
                    out[f"{driver}/{pod.namespace}-{pod.name}-{v.get('name') or ''}"] = driver
                continue
            translated = _in_tree(v)
            if translated is not None:
                out[f"{translated[0]}/{translated[1]}"] = translated[0]
                continue
            if v.get("persistentVolumeClaim") is not None:
                name = v["persistentVolumeClaim"].get("claimName") or ""
            elif v.get("ephemeral") is not None:
                name = f"{pod.name}-{v.get('name') or ''}"
            else:
                continue
            if not name:
                raise _LookupError("PersistentVolumeClaim had no name")
            pvc = index.pvcs.get((pod.namespace, name))
            if pvc is None:
                if new_pod:
                    raise _LookupError(f"looking up PVC {pod.namespace}/{name}: "
                                       + _not_found("persistentvolumeclaim", name))
                continue
            driver, handle = self._driver_info(index, pvc)
            if driver and handle:
                out[f"{driver}/{handle}"] = driver

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        if not pod.volumes:
            return OK
        index = volume_index(self.handle, cs)
        new: dict[str, str] = {}
        try:
            self._attachable(pod, index, True, new)
        except _LookupError as e:
            return error(str(e))
        if not new:
            return OK
        limits = {k[len(CSI_ATTACH_LIMIT_PREFIX):]: v for k, v in info.allocatable.scalar.items()
                  if k.startswith(CSI_ATTACH_LIMIT_PREFIX)}
        if not limits:
            return OK
        attached: dict[str, str] = {}
        for existing in info.pods:
            try:
                self._attachable(existing, index, False, attached)
            except _LookupError:
                continue
        attached_count: dict[str, int] = {}
        for driver in attached.values():
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for unique, driver in new.items():
            if unique not in attached:
                new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return OK


# --- VolumeBinding ------------------------------------------------------------------------------------------

BINDING_NAME = "VolumeBinding"
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
_BINDING_KEY = "PreFilter" + BINDING_NAME


def _storage(amounts) -> int:
    q = (amounts or {}).get("storage")
    return parse_quantity(q) if q is not None else 0


class _BindingState:
    """PreFilter's claims, and Filter's decision per node (PodVolumes: the static bindings
    claim -> PV and the claims to provision), which Reserve assumes."""

    __slots__ = ("bound", "delayed", "pvs_by_class", "by_node")

    def __init__(self, bound, delayed, pvs_by_class):
        self.bound = bound
        self.delayed = delayed
        self.pvs_by_class = pvs_by_class
        self.by_node: dict[str, tuple[dict, tuple]] = {}

    def clone(self):
        return self


def _claim_key(pvc: Volume) -> tuple[str, str]:
    return pvc.namespace or "default", pvc.name


def find_matching_volume(pvc: Volume, pvs, node, excluded: set, assumed: Mapping[str, tuple] | None = None) -> Volume | None:
    """persistentvolume util FindMatchingVolume on the scheduler's path (node given).
    `assumed` (PV name -> claim key) are the bindings Reserve assumed: such a PV counts as
    bound to that claim (the assume cache). Raises SelectorError for a claim selector
    apimachinery refuses."""
    requested = _storage((pvc.spec.get("resources") or {}).get("requests"))
    requested_class = claim_class(pvc)
    selector = None
    if pvc.spec.get("selector") is not None:
        selector = label_selector_as_selector(LabelSelector.from_doc(pvc.spec["selector"]))
    claim_mode = pvc.spec.get("volumeMode") or "Filesystem"
    smallest, smallest_qty = None, None
    key = _claim_key(pvc)
    for pv in pvs:
        if pv.name in excluded:
            continue
        if assumed and pv.name in assumed:
            if assumed[pv.name] != key:
                continue
            if _storage(pv.spec.get("capacity")) >= requested and pv_node_affinity_matches(pv, node):
                return pv
            return None
        if pv.spec.get("claimRef") and not is_volume_bound_to_claim(pv, pvc):
            continue
        qty = _storage(pv.spec.get("capacity"))
        if qty < requested:
            continue
        if (pv.spec.get("volumeMode") or "Filesystem") != claim_mode:
            continue
        if _meta(pv).get("deletionTimestamp"):
            continue
        affinity_ok = pv_node_affinity_matches(pv, node)
        if is_volume_bound_to_claim(pv, pvc):
            return pv if affinity_ok else None
        phase = (pv.doc.get("status") or {}).get("phase") or "Available"
        if phase != "Available":
            continue
        if selector is not None and not selector.matches(_meta(pv).get("labels") or {}):
            continue
        if volume_class(pv) != requested_class or not affinity_ok or not check_access_modes(pvc, pv):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest


def _match_topology_terms(terms, labels) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; terms ORed, inside a
    term every `matchLabelExpressions` key must have one of its values."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or ()
        if all(e.get("key") in labels and labels[e.get("key")] in (e.get("values") or ()) for e in exprs):
            return True
    return False


class VolumeBinding(Plugin):
    name = BINDING_NAME
    events = frozenset({"StorageClass/Add", "StorageClass/Update", "PersistentVolume/Add", "PersistentVolume/Update",
                        "PersistentVolumeClaim/Add", "PersistentVolumeClaim/Update", "Node/Add",
                        "Node/UpdateNodeLabel", "Node/UpdateNodeTaint", "CSINode/Add", "CSINode/Update",
                        "CSIDriver/Update", "CSIStorageCapacity/Add", "CSIStorageCapacity/Update",
                        "AssignedPod/Delete"})

    def __init__(self, args, handle):
        super().__init__(args, handle)
        # The assume cache: what Reserve decided before the API objects show it.
        self.assumed_pvs: dict[str, tuple[str, str]] = {}  # PV name -> claim key
        self.assumed_claims: dict[tuple[str, str], str] = {}  # claim key -> PV name
        self.assumed_selected: dict[tuple[str, str], str] = {}  # claim to provision -> node

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        names = []
        for v in pod.volumes:
            if v.get("persistentVolumeClaim") is not None:
                names.append((v["persistentVolumeClaim"].get("claimName") or "", False))
            elif v.get("ephemeral") is not None:
                names.append((f"{pod.name}-{v.get('name') or ''}", True))
        if not names:
            return SKIPPED
        index = volume_index(self.handle, cs)
        claims = []
        for name, ephemeral in names:
            pvc = index.pvcs.get((pod.namespace, name))
            if pvc is None:
                if ephemeral:
                    return unresolvable(f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"')
                return unresolvable(_not_found("persistentvolumeclaim", name))
            if (pvc.doc.get("status") or {}).get("phase") == "Lost":
                return unresolvable(f'persistentvolumeclaim "{pvc.name}" bound to non-existent persistentvolume '
                                    f'"{pvc.spec.get("volumeName") or ""}"')
            if _meta(pvc).get("deletionTimestamp"):
                return unresolvable(f'persistentvolumeclaim "{pvc.name}" is being deleted')
            claims.append(pvc)
        bound, delayed, immediate = [], [], []
        for pvc in claims:
            if pvc.spec.get("volumeName"):
                bound.append(pvc)
                continue
            assumed_pv = self.assumed_claims.get(_claim_key(pvc))
            if assumed_pv is not None:
                bound.append(_with_volume_name(pvc, assumed_pv))
                continue
            class_name = claim_class(pvc)
            storage_class = index.classes.get(class_name) if class_name else None
            if storage_class is not None and _binding_mode(storage_class) == WAIT_FOR_FIRST_CONSUMER:
                delayed.append(pvc)
            else:
                immediate.append(pvc)
        if immediate:
            return unresolvable(ERR_UNBOUND_IMMEDIATE)
        pvs_by_class: dict[str, list[Volume]] = {}
        for pvc in delayed:
            c = claim_class(pvc)
            if c not in pvs_by_class:
                pvs_by_class[c] = [pv for pv in index.pv_list if volume_class(pv) == c]
        cs[_BINDING_KEY] = _BindingState(tuple(bound), tuple(delayed), pvs_by_class)
        return OK

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        state = cs.get(_BINDING_KEY)
        if state is None:
            return OK
        node = info.node
        index = volume_index(self.handle, cs)
        reasons = []
        # Bound claims: their PVs' node affinity.
        bound_ok, pvs_found = True, True
        for pvc in state.bound:
            pv = index.pvs.get(pvc.spec["volumeName"])
            if pv is None:
                pvs_found = False
                break
            if not pv_node_affinity_matches(pv, node):
                bound_ok = False
                break
        unbound_ok = True
        static: dict[tuple[str, str], str] = {}
        to_provision: list[Volume] = []
        if state.delayed:
            to_match = []
            for pvc in state.delayed:
                selected = (_meta(pvc).get("annotations") or {}).get(ANN_SELECTED_NODE)
                if selected is None:
                    selected = self.assumed_selected.get(_claim_key(pvc))
                if selected is not None:
                    if selected != node.name:
                        unbound_ok = False
                        break
                    to_provision.append(pvc)
                else:
                    to_match.append(pvc)
            if unbound_ok:
                chosen: set[str] = set()
                for pvc in sorted(to_match, key=lambda c: _storage((c.spec.get("resources") or {}).get("requests"))):
                    try:
                        pv = find_matching_volume(pvc, state.pvs_by_class.get(claim_class(pvc), ()), node, chosen,
                                                  self.assumed_pvs)
                    except SelectorError as e:
                        return error(f"error creating internal label selector for claim: {pvc.namespace}/{pvc.name}: {e}")
                    if pv is None:
                        to_provision.append(pvc)
                    else:
                        chosen.add(pv.name)
                        static[_claim_key(pvc)] = pv.name
                for pvc in to_provision:
                    class_name = claim_class(pvc)
                    if not class_name:
                        unbound_ok = False
                        break
                    storage_class = index.classes.get(class_name)
                    if storage_class is None:
                        return error(f'failed to find storage class "{class_name}"')
                    provisioner = storage_class.doc.get("provisioner") or ""
                    if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                        unbound_ok = False
                        break
                    if not _match_topology_terms(storage_class.doc.get("allowedTopologies"), node.labels):
                        unbound_ok = False
                        break
        # FindPodVolumes' order: node conflict, bind conflict, (not enough space), PV missing.
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        if reasons:
            return unresolvable(*reasons)
        state.by_node[node.name] = (static, tuple(_claim_key(c) for c in to_provision))
        return OK

    def reserve(self, cs, pod: Pod, node_name: str) -> Status:
        """Reserve (AssumePodVolumes): the node's static bindings and provisioning decisions
        are assumed, so the next pods see those PVs taken and those claims bound."""
        state = cs.get(_BINDING_KEY)
        if state is None or node_name not in state.by_node:
            return OK
        static, provision = state.by_node[node_name]
        for claim, pv_name in static.items():
            self.assumed_pvs[pv_name] = claim
            self.assumed_claims[claim] = pv_name
        for claim in provision:
            self.assumed_selected[claim] = node_name
        return OK

    def unreserve(self, cs, pod: Pod, node_name: str) -> None:
        """Unreserve (RevertAssumedPodVolumes)."""
        state = cs.get(_BINDING_KEY)
        if state is None or node_name not in state.by_node:
            return
        static, provision = state.by_node[node_name]
        for claim, pv_name in static.items():
            if self.assumed_claims.get(claim) == pv_name:
                del self.assumed_claims[claim]
                self.assumed_pvs.pop(pv_name, None)
        for claim in provision:
            if self.assumed_selected.get(claim) == node_name:
                del self.assumed_selected[claim]


def _with_volume_name(pvc: Volume, pv_name: str) -> Volume:
    """The claim as bound to `pv_name` (an assumed binding)."""
    doc = dict(pvc.doc)
    doc["spec"] = dict(pvc.spec, volumeName=pv_name)
    return Volume(pvc.kind, pvc.name, pvc.namespace, doc)


# --- VolumeZone --------------------------------------------------------------------------------------------------

ZONE_NAME = "VolumeZone"
ERR_REASON_ZONE_CONFLICT = "node(s) had no available volume zone"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_TOPOLOGY_ZONE,
                   LABEL_TOPOLOGY_REGION)
_GA_LABEL = {LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION}
_ZONE_KEY = "PreFilter" + ZONE_NAME


class VolumeZone(Plugin):
    name = ZONE_NAME
    events = frozenset({"StorageClass/Add", "Node/Add", "Node/UpdateNodeLabel", "PersistentVolumeClaim/Add",
                        "PersistentVolumeClaim/Update", "PersistentVolume/Add", "PersistentVolume/Update"})

    def _pv_topologies(self, cs, pod: Pod) -> tuple[list, Status]:
        topologies = []
        index = None
        for volume in pod.volumes:
            claim = volume.get("persistentVolumeClaim")
            if claim is None:
                continue
            name = claim.get("claimName") or ""
            if not name:
                return [], unresolvable("PersistentVolumeClaim had no name")
            if index is None:
                index = volume_index(self.handle, cs)
            pvc = index.pvcs.get((pod.namespace, name))
            if pvc is None:
                return [], unresolvable(_not_found("persistentvolumeclaim", name))
            pv_name = pvc.spec.get("volumeName") or ""
            if not pv_name:
                class_name = claim_class(pvc)
                if not class_name:
                    return [], unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                storage_class = index.classes.get(class_name)
                if storage_class is None:
                    return [], unresolvable(_not_found("storageclass.storage.k8s.io", class_name))
                if _binding_mode(storage_class) == WAIT_FOR_FIRST_CONSUMER:
                    continue
                return [], unresolvable("PersistentVolume had no name")
            pv = index.pvs.get(pv_name)
            if pv is None:
                return [], unresolvable(_not_found("persistentvolume", pv_name))
            labels = _meta(pv).get("labels") or {}
            for key in TOPOLOGY_LABELS:
                if key in labels:
                    zones = label_zones_to_set(str(labels[key]))
                    if zones is not None:
                        topologies.append((key, zones))
        return topologies, OK

    def pre_filter(self, cs, pod: Pod, nodes) -> Status:
        topologies, status = self._pv_topologies(cs, pod)
        if not status.is_success:
            return status
        if not topologies:
            return SKIPPED
        cs[_ZONE_KEY] = tuple(topologies)
        return OK

    def filter(self, cs, pod: Pod, info: NodeInfo) -> Status:
        if not pod.volumes:
            return OK
        topologies = cs.get(_ZONE_KEY)
        if topologies is None:
            topologies, status = self._pv_topologies(cs, pod)
            if not status.is_success:
                return status
        labels = info.node.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return OK
        for key, zones in topologies:
            value = labels.get(key)
            if value is None:
                value = labels.get(_GA_LABEL.get(key, key))
            if value is None or value not in zones:
                return unresolvable(ERR_REASON_ZONE_CONFLICT)
        return OK
