"""CheckVolumeBinding (Kubernetes 1.11 `VolumeBindingChecker.predicate` and the scheduler's
volume binder `FindPodVolumes`), plus the PV/PVC/StorageClass look-ups the other volume
predicates share.

For each PersistentVolumeClaim volume of the pod:
* bound claim (`spec.volumeName` set): the PV's `spec.nodeAffinity.required` terms must match
  the node's labels (`volumeutil.CheckNodeAffinity`; no `metadata.name` field there), else
  `node(s) had volume node affinity conflict`;
* unbound claim whose StorageClass has `volumeBindingMode: WaitForFirstConsumer`: some
  PV must be available for it (`findMatchingVolume`): a PV pre-bound to this claim
  (`claimRef`) with enough capacity wins (if its node affinity fails, no match);
  otherwise the smallest PV with no `claimRef`, the claim's class, matching the claim's
  selector, node affinity and access modes, with capacity >= the request; claims are
  served smallest request first and a PV is used once; else
  `node(s) didn't find available persistent volumes to bind`;
* unbound claim with an immediate class (or none): 1.11 returns an error for the whole
  scheduling attempt ("pod has unbound PersistentVolumeClaims"); here that text fails the
  node, like every other predicate error (see `error_reason`).

Simplifications: a claim counts as bound when `spec.volumeName` is set (the binder also
wants the `pv.kubernetes.io/bind-completed` annotation); alpha features of 1.11 (dynamic
provisioning at scheduling, block volume mode, the alpha node-affinity annotation) are off.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.engine.scheduler.cache import ALL
from scheduling.engine.api.objects import LabelSelector, Pod, Volume
from scheduling.engine.api.quantity import parse_quantity
from scheduling.engine.scheduler.predicates.node_selector import (
    SelectorError,
    label_selector_as_selector,
    match_node_selector_terms,
)

NAME = "CheckVolumeBinding"
ERR_VOLUME_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_VOLUME_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
REASONS = (ERR_VOLUME_NODE_CONFLICT, ERR_VOLUME_BIND_CONFLICT)

_MEMO = "volume_binding"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


def error_reason(message: str) -> tuple[str, ...]:
    """Where 1.11 returns a predicate *error* (the scheduling attempt fails with its text),
    the engine fails the node with that text as the reason."""
    return (message,)


# --- look-ups ----------------------------------------------------------------------------------------


@dataclass
class VolumeIndex:
    pvcs: dict[tuple[str, str], Volume] = field(default_factory=dict)
    pvs: dict[str, Volume] = field(default_factory=dict)
    classes: dict[str, Volume] = field(default_factory=dict)
    pv_list: list[Volume] = field(default_factory=list)


def volume_index(ctx) -> VolumeIndex:
    """PVCs by (namespace, name), PVs and StorageClasses by name, built once per cycle."""
    index = ctx.memo.get(_MEMO)
    if index is None:
        state = ctx.state
        index = VolumeIndex(
            {(v.namespace or "default", v.name): v for v in state.persistent_volume_claims},
            {v.name: v for v in state.persistent_volumes},
            {v.name: v for v in state.storage_classes},
            list(state.persistent_volumes),
        )
        ctx.memo[_MEMO] = index
    return index


def _meta(volume: Volume) -> Mapping[str, Any]:
    return volume.doc.get("metadata") or {}


def claim_class(pvc: Volume) -> str:
    """v1helper.GetPersistentVolumeClaimClass: the beta annotation, then spec.storageClassName."""
    annotations = _meta(pvc).get("annotations") or {}
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION] or ""
    return pvc.spec.get("storageClassName") or ""


def volume_class(pv: Volume) -> str:
    """v1helper.GetPersistentVolumeClass."""
    annotations = _meta(pv).get("annotations") or {}
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION] or ""
    return pv.spec.get("storageClassName") or ""


def binding_mode(storage_class: Volume) -> str:
    """`volumeBindingMode`, defaulted to Immediate by the 1.11 API server."""
    return storage_class.doc.get("volumeBindingMode") or "Immediate"


def delays_binding(pvc: Volume, index: VolumeIndex) -> bool:
    """shouldDelayBinding: the claim's StorageClass exists and waits for the first consumer."""
    name = claim_class(pvc)
    if not name:
        return False
    storage_class = index.classes.get(name)
    return storage_class is not None and binding_mode(storage_class) == WAIT_FOR_FIRST_CONSUMER


def pv_node_affinity_matches(pv: Volume, node) -> bool:
    """volumeutil.CheckNodeAffinity: no `spec.nodeAffinity.required` matches every node."""
    affinity = pv.spec.get("nodeAffinity")
    if not affinity or affinity.get("required") is None:
        return True
    terms = (affinity.get("required") or {}).get("nodeSelectorTerms") or ()
    return match_node_selector_terms(terms, node.labels, None)


def _storage(amounts: Mapping[str, Any] | None):
    q = (amounts or {}).get("storage")
    return parse_quantity(q) if q is not None else 0


def _claim_volumes(pod: Pod):
    for volume in pod.volumes:
        source = volume.get("persistentVolumeClaim")
        if source is not None:
            yield source.get("claimName") or ""


# --- the predicate -------------------------------------------------------------------------------------


def is_bound_to_claim(pv: Volume, pvc: Volume) -> bool:
    ref = pv.spec.get("claimRef")
    if not ref:
        return False
    if (ref.get("name") or "") != pvc.name or (ref.get("namespace") or "") != (pvc.namespace or "default"):
        return False
    uid = ref.get("uid") or ""
    return not uid or uid == (_meta(pvc).get("uid") or "")


def access_modes_match(pvc: Volume, pv: Volume) -> bool:
    have = set(pv.spec.get("accessModes") or ())
    return all(mode in have for mode in pvc.spec.get("accessModes") or ())


def find_matching_volume(pvc: Volume, pvs, node, excluded: set[str]) -> Volume | None:
    """pv_controller `findMatchingVolume` on the scheduler path (node given, delayed binding).
    Raises SelectorError for a claim selector apimachinery would refuse."""
    requested = _storage((pvc.spec.get("resources") or {}).get("requests"))
    requested_class = claim_class(pvc)
    selector = None
    if pvc.spec.get("selector") is not None:
        selector = label_selector_as_selector(LabelSelector.from_doc(pvc.spec["selector"]))
    smallest, smallest_qty = None, None
    for pv in pvs:
        if pv.name in excluded:
            continue
        qty = _storage(pv.spec.get("capacity"))
        affinity_ok = pv_node_affinity_matches(pv, node)
        if is_bound_to_claim(pv, pvc):
            if qty < requested:
                continue
            return pv if affinity_ok else None
        if pv.spec.get("claimRef"):
            continue
        if selector is not None and not selector.matches(_meta(pv).get("labels") or {}):
            continue
        if volume_class(pv) != requested_class or not affinity_ok or not access_modes_match(pvc, pv):
            continue
        if qty >= requested and (smallest is None or smallest_qty > qty):
            smallest, smallest_qty = pv, qty
    return smallest


def check_volume_binding(pod: Pod, ctx, info) -> tuple[str, ...]:
    """CheckVolumeBinding."""
    claims = list(_claim_volumes(pod))
    if not claims:
        return ()
    index = volume_index(ctx)
    node = info.node
    bound, to_bind = [], []
    for name in claims:
        pvc = index.pvcs.get((pod.namespace, name))
        if pvc is None:
            return error_reason(f'persistentvolumeclaim "{name}" not found')
        if pvc.spec.get("volumeName"):
            bound.append(pvc)
        elif delays_binding(pvc, index):
            to_bind.append(pvc)
        else:
            return error_reason("pod has unbound PersistentVolumeClaims")

    bound_ok = True
    for pvc in bound:
        pv = index.pvs.get(pvc.spec["volumeName"])
        if pv is None:
            return error_reason(f'PersistentVolume "{pvc.spec["volumeName"]}" not found')
        if not pv_node_affinity_matches(pv, node):
            bound_ok = False
            break

    unbound_ok = True
    chosen: set[str] = set()
    # Sort by increasing size request to get the smallest fits (stable here).
    for pvc in sorted(to_bind, key=lambda c: _storage((c.spec.get("resources") or {}).get("requests"))):
        try:
            pv = find_matching_volume(pvc, index.pv_list, node, chosen)
        except SelectorError as e:
            return error_reason(f"error creating internal label selector for claim: {pvc.namespace}/{pvc.name}: {e}")
        if pv is None:
            unbound_ok = False
            continue
        chosen.add(pv.name)

    reasons = []
    if not bound_ok:
        reasons.append(ERR_VOLUME_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_VOLUME_BIND_CONFLICT)
    return tuple(reasons)


# A pod without claims passes everywhere; otherwise node by node (engine.scheduler.cache).
check_volume_binding.mask = lambda pod, ctx, cache: None if any(True for _ in _claim_volumes(pod)) else ALL
