"""An in-memory document store the controllers' actions (engine.actions) are applied to.

Documents are kept per kind, keyed by (namespace, name), in insertion order; `apply`
returns the (kind, namespace, name) of the documents that changed (empty: the action
was a no-op, which is what makes the controllers idempotent). Events go to `events`.
Resource versions are not kept here (the Django side has them).

Controller state is not kept in documents: each controller has its own JSON dict,
`controller_state[<controller name>]`, changed only by actions.SetControllerState and
persisted with the cluster (engine.controller). The one controller input kept in a
document is a user's:

* `clusterui.io/heartbeat-stopped-at` (Node annotation, simulated seconds): the node's
  kubelet stopped posting status at that time (upstream: the kubelet simply stops; the
  controller notices that lastHeartbeatTime no longer moves). Any non-numeric value is
  stamped with the current time by the node lifecycle controller. Removing the
  annotation makes the kubelet report again.

Earlier versions kept the taint manager's timers in the Pod annotation
`clusterui.io/noexecute-eviction-at`, the kubelet's "containers stopped" time in
`clusterui.io/killed-at` and the node lifecycle controller's zones in `Zone` documents;
documents that still carry them are migrated when a Simulation reads them
(engine.controllers.legacy).

Taints' `timeAdded`, conditions' `lastHeartbeatTime` / `lastTransitionTime`, pods'
`metadata.deletionTimestamp` (= deletion request + grace period, as the API server sets
it) and `metadata.creationTimestamp` are simulated seconds (numbers).
"""

from __future__ import annotations

import copy as _copy
from typing import Any, Iterable, Iterator, Mapping

from . import actions as A
from scheduling.engine.api.defaults import is_namespaced
from scheduling.engine.api.documents import document_copy


HEARTBEAT_STOPPED_ANNOTATION = "clusterui.io/heartbeat-stopped-at"
# Legacy (migrated on read, engine.controllers.legacy): where controller state used to be.
EVICTION_AT_ANNOTATION = "clusterui.io/noexecute-eviction-at"
KILLED_AT_ANNOTATION = "clusterui.io/killed-at"

Ref = tuple[str, str, str]  # (kind, namespace, name)


# --- simulated time in documents -----------------------------------------------------------


def sim_time(value: Any) -> float | None:
    """A time read from a document: a number of simulated seconds, a numeric string, or
    None. Any other string (an RFC 3339 timestamp of an imported object) is taken as
    "before the simulation started": 0.0."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return 0.0
    return None


def time_value(t: float) -> int | float:
    """A time as stored in a document: whole seconds as an int (300, not 300.0)."""
    return int(t) if float(t).is_integer() else float(t)


def time_text(t: float) -> str:
    """A time as stored in an annotation (annotations are strings): "300", "300.5"."""
    return str(time_value(t))


# --- document helpers ------------------------------------------------------------------------


def meta(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    return doc.get("metadata") or {}


def name_of(doc: Mapping[str, Any]) -> str:
    return meta(doc).get("name") or ""


def namespace_of(doc: Mapping[str, Any]) -> str:
    if not is_namespaced(doc.get("kind") or ""):
        return ""
    return meta(doc).get("namespace") or "default"


def ref_of(doc: Mapping[str, Any]) -> Ref:
    return (doc.get("kind") or "", namespace_of(doc), name_of(doc))


def annotations_of(doc: Mapping[str, Any]) -> Mapping[str, str]:
    return meta(doc).get("annotations") or {}


def labels_of(doc: Mapping[str, Any]) -> Mapping[str, str]:
    return meta(doc).get("labels") or {}


def controller_ref(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in meta(doc).get("ownerReferences") or ():
        if ref.get("controller"):
            return ref
    return None


def is_terminating(doc: Mapping[str, Any]) -> bool:
    return meta(doc).get("deletionTimestamp") is not None


# --- the store ------------------------------------------------------------------------------------


class Store:
    """Documents by kind; `apply(action)` -> the refs that changed.

    A document in the store is never changed in place: an action that changes one puts a
    changed copy in its place (sharing the parts it did not change), so a document read
    from the store stays what it was when read. That makes `memo` possible: the engine
    objects built from the documents (engine.controllers.scheduling.build_state), by the
    identity of the document, valid as long as the document is the one in the store.
    Whoever reads documents must not change them either (copy first: `document_copy`).

    `copy=False` takes the documents as they are (the caller hands them over and changes
    them no more), with `memo` the objects already built from them."""

    def __init__(self, docs: Iterable[Mapping[str, Any]] = (), controller_state: Mapping[str, Mapping[str, Any]] | None = None,
                 *, copy: bool = True, memo: dict[int, tuple] | None = None):
        self._docs: dict[str, dict[tuple[str, str], dict]] = {}
        self.events: list[A.RecordEvent] = []
        # Each controller's own state (engine.controller): controller name -> {key: value}.
        self.controller_state: dict[str, dict[str, Any]] = _copy.deepcopy(
            {name: dict(values) for name, values in (controller_state or {}).items()}
        )
        # id(document) -> (document, what was built from it, ...): see build_state.
        self.memo: dict[int, tuple] = {} if memo is None else memo
        for doc in docs:
            self.put(document_copy(dict(doc)) if copy else doc)

    # reading -----------------------------------------------------------------------------

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        return self._docs.get(kind, {}).get((namespace, name))

    def list(self, kind: str) -> list[dict]:
        return list(self._docs.get(kind, {}).values())

    def kinds(self) -> list[str]:
        return list(self._docs)

    def all(self) -> Iterator[dict]:
        for docs in self._docs.values():
            yield from docs.values()

    def copy(self) -> "Store":
        other = Store()
        other._docs = {k: {key: document_copy(d) for key, d in docs.items()} for k, docs in self._docs.items()}
        other.events = list(self.events)
        other.controller_state = _copy.deepcopy(self.controller_state)
        return other

    def state_of(self, controller: str) -> Mapping[str, Any]:
        """A controller's own state (read only; change it with SetControllerState)."""
        return self.controller_state.get(controller, {})

    # writing -------------------------------------------------------------------------------

    def put(self, doc: dict) -> Ref:
        """Insert or overwrite `doc` as is (no copy)."""
        ref = ref_of(doc)
        self._docs.setdefault(ref[0], {})[(ref[1], ref[2])] = doc
        return ref

    def remove(self, kind: str, namespace: str, name: str) -> dict | None:
        return self._docs.get(kind, {}).pop((namespace, name), None)

    def apply_all(self, actions: Iterable[Any]) -> list[Ref]:
        changed: list[Ref] = []
        for action in actions:
            changed.extend(self.apply(action))
        return changed

    def apply(self, action: Any) -> list[Ref]:
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise TypeError(f"not an action: {action!r}")
        return handler(self, action)


# --- handlers: each returns the refs it changed ------------------------------------------------


def _changed(store: Store, kind: str, namespace: str, name: str, mutate) -> list[Ref]:
    """`mutate` a copy of the document and put the copy in its place if it differs.

    The copy shares everything below the document's top-level mappings (metadata, spec,
    status): every `mutate` here only sets, replaces or deletes keys of those mappings (a
    list or mapping inside them is replaced by a new one, never changed in place)."""
    doc = store.get(kind, namespace, name)
    if doc is None:
        return []
    new = {k: (dict(v) if type(v) is dict else v) for k, v in doc.items()}
    mutate(new)
    if new == doc:
        return []
    store.put(new)
    return [(kind, namespace, name)]


def _create(store: Store, a: A.CreateObject) -> list[Ref]:
    doc = document_copy(dict(a.doc))
    ref = ref_of(doc)
    if store.get(*ref) is not None:
        return []
    store.put(doc)
    return [ref]


def _replace(store: Store, a: A.ReplaceObject) -> list[Ref]:
    doc = document_copy(dict(a.doc))
    ref = ref_of(doc)
    old = store.get(*ref)
    if old is not None:
        old_meta = old.get("metadata") or {}
        new_meta = doc.setdefault("metadata", {})
        # what a replace cannot change: the identity and a deletion already requested
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
            if key in old_meta and key not in new_meta:
                new_meta[key] = old_meta[key]
        if a.keep_status:
            if "status" in old:
                doc["status"] = document_copy(old["status"])
            else:
                doc.pop("status", None)
        if doc == old:
            return []
    store.put(doc)
    return [ref]


def _delete(store: Store, a: A.DeleteObject) -> list[Ref]:
    return [(a.kind, a.namespace, a.name)] if store.remove(a.kind, a.namespace, a.name) is not None else []


def _bind(store: Store, a: A.Bind) -> list[Ref]:
    def mutate(doc: dict) -> None:
        doc.setdefault("spec", {})["nodeName"] = a.node
        status = doc.get("status")
        if status and "nominatedNodeName" in status:
            del status["nominatedNodeName"]

    return _changed(store, "Pod", a.namespace, a.name, mutate)


def _nominate(store: Store, a: A.SetNominatedNode) -> list[Ref]:
    def mutate(doc: dict) -> None:
        status = doc.setdefault("status", {})
        if a.node:
            status["nominatedNodeName"] = a.node
        else:
            status.pop("nominatedNodeName", None)

    return _changed(store, "Pod", a.namespace, a.name, mutate)


def _delete_pod(store: Store, a: A.SetPodDeletion) -> list[Ref]:
    def mutate(doc: dict) -> None:
        m = doc.setdefault("metadata", {})
        if m.get("deletionTimestamp") is not None:
            return
        m["deletionTimestamp"] = time_value(a.at + a.grace_seconds)
        m["deletionGracePeriodSeconds"] = int(a.grace_seconds)

    return _changed(store, "Pod", a.namespace, a.name, mutate)


def _map_setter(field: str, key: str, value: str | None):
    def mutate(doc: dict) -> None:
        m = doc.setdefault("metadata", {})
        values = m.get(field) or {}
        if value is None:
            if key in values:
                values = dict(values)
                del values[key]
        else:
            values = {**values, key: value}
        if values:
            m[field] = values
        else:
            m.pop(field, None)

    return mutate


def _annotate(store: Store, a: A.SetAnnotation) -> list[Ref]:
    return _changed(store, a.kind, a.namespace, a.name, _map_setter("annotations", a.key, a.value))


def _label(store: Store, a: A.SetLabel) -> list[Ref]:
    return _changed(store, a.kind, a.namespace, a.name, _map_setter("labels", a.key, a.value))


def _adopt(store: Store, a: A.SetControllerRef) -> list[Ref]:
    def mutate(doc: dict) -> None:
        if controller_ref(doc) is not None:
            return
        m = doc.setdefault("metadata", {})
        m["ownerReferences"] = list(m.get("ownerReferences") or []) + [dict(a.owner)]

    return _changed(store, a.kind, a.namespace, a.name, mutate)


def _add_taint(store: Store, a: A.AddTaint) -> list[Ref]:
    taint = {k: v for k, v in a.taint.items() if v is not None}

    def mutate(doc: dict) -> None:
        spec = doc.setdefault("spec", {})
        taints = list(spec.get("taints") or [])
        for i, t in enumerate(taints):
            if t.get("key") == taint.get("key") and (t.get("effect") or "") == (taint.get("effect") or ""):
                if (t.get("value") or "") != (taint.get("value") or ""):
                    taints[i] = taint
                break
        else:
            taints.append(taint)
        spec["taints"] = taints

    return _changed(store, "Node", "", a.node, mutate)


def _remove_taint(store: Store, a: A.RemoveTaint) -> list[Ref]:
    def mutate(doc: dict) -> None:
        spec = doc.get("spec") or {}
        taints = spec.get("taints") or []
        kept = [t for t in taints if not (t.get("key") == a.key and (not a.effect or t.get("effect") == a.effect))]
        if len(kept) != len(taints):
            spec["taints"] = kept

    return _changed(store, "Node", "", a.node, mutate)


def _set_taints(store: Store, a: A.SetTaints) -> list[Ref]:
    def mutate(doc: dict) -> None:
        spec = doc.setdefault("spec", {})
        taints = [dict(t) for t in a.taints]
        if taints or spec.get("taints"):
            spec["taints"] = taints

    return _changed(store, "Node", "", a.node, mutate)


def _unschedulable(store: Store, a: A.SetUnschedulable) -> list[Ref]:
    def mutate(doc: dict) -> None:
        spec = doc.setdefault("spec", {})
        if a.value:
            spec["unschedulable"] = True
        else:
            spec.pop("unschedulable", None)

    return _changed(store, "Node", "", a.node, mutate)


def _condition(store: Store, a: A.SetNodeCondition) -> list[Ref]:
    heartbeat = a.at if a.heartbeat is None else a.heartbeat

    def mutate(doc: dict) -> None:
        status = doc.setdefault("status", {})
        conditions = list(status.get("conditions") or [])
        for i, c in enumerate(conditions):
            if c.get("type") == a.type:
                new = dict(c)
                if c.get("status") != a.status:
                    new["lastTransitionTime"] = time_value(a.at)
                new.update(status=a.status, reason=a.reason, message=a.message, lastHeartbeatTime=time_value(heartbeat))
                if c.get("status") == a.status and c.get("reason") == a.reason and c.get("message") == a.message:
                    return  # nothing but the heartbeat would move: keep the document as is
                conditions[i] = new
                break
        else:
            conditions.append(
                {
                    "type": a.type,
                    "status": a.status,
                    "lastHeartbeatTime": time_value(heartbeat),
                    "lastTransitionTime": time_value(a.at),
                    "reason": a.reason,
                    "message": a.message,
                }
            )
        status["conditions"] = conditions

    return _changed(store, "Node", "", a.node, mutate)


def _patch_status(store: Store, a: A.PatchStatus) -> list[Ref]:
    def mutate(doc: dict) -> None:
        status = doc.setdefault("status", {})
        for k, v in a.fields.items():
            if v is None:
                status.pop(k, None)
            else:
                status[k] = document_copy(v)

    return _changed(store, a.kind, a.namespace, a.name, mutate)


def _replicas(store: Store, a: A.SetReplicas) -> list[Ref]:
    def mutate(doc: dict) -> None:
        doc.setdefault("spec", {})["replicas"] = int(a.replicas)

    return _changed(store, a.kind, a.namespace, a.name, mutate)


CONTROLLER_STATE_KIND = "ControllerState"  # the ref a state change reports: (kind, "", controller)


def _controller_state(store: Store, a: A.SetControllerState) -> list[Ref]:
    state = store.controller_state.setdefault(a.controller, {})
    if a.value is None:
        if a.key not in state:
            return []
        del state[a.key]
    else:
        value = _copy.deepcopy(a.value)
        if state.get(a.key) == value and a.key in state:
            return []
        state[a.key] = value
    if not state:
        del store.controller_state[a.controller]
    return [(CONTROLLER_STATE_KIND, "", a.controller)]


def _event(store: Store, a: A.RecordEvent) -> list[Ref]:
    store.events.append(a)
    return []


_HANDLERS = {
    A.CreateObject: _create,
    A.ReplaceObject: _replace,
    A.DeleteObject: _delete,
    A.Bind: _bind,
    A.SetNominatedNode: _nominate,
    A.SetPodDeletion: _delete_pod,
    A.SetAnnotation: _annotate,
    A.SetLabel: _label,
    A.SetControllerRef: _adopt,
    A.AddTaint: _add_taint,
    A.RemoveTaint: _remove_taint,
    A.SetTaints: _set_taints,
    A.SetUnschedulable: _unschedulable,
    A.SetNodeCondition: _condition,
    A.PatchStatus: _patch_status,
    A.SetReplicas: _replicas,
    A.SetControllerState: _controller_state,
    A.RecordEvent: _event,
}
