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

    Indexes kept as documents come and go (what the controllers of a large cluster look
    up instead of scanning every pod): `order(kind, namespace, name)` (the document's
    place in `list(kind)`), `names(kind, namespace)`, and for pods `pods_on_node(node)`,
    `pods_of(namespace, kind, name)` (by controller reference) and
    `orphan_pods(namespace)`; each returns keys (namespace, name), in no particular order
    (sort by `order` for the store's).

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
        self._index = _Index()
        for doc in docs:
            self.put(document_copy(dict(doc)) if copy else doc)

    # reading -----------------------------------------------------------------------------

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        return self._docs.get(kind, {}).get((namespace, name))

    def list(self, kind: str) -> list[dict]:
        return list(self._docs.get(kind, {}).values())

    def kinds(self) -> list[str]:
        return list(self._docs)

    def count(self, kind: str) -> int:
        """How many objects of `kind` the store holds."""
        return len(self._docs.get(kind, {}))

    def all(self) -> Iterator[dict]:
        for docs in self._docs.values():
            yield from docs.values()

    def copy(self, *, events: bool = True) -> "Store":
        """An independent store with the same documents (shared: none is changed in place),
        events (unless `events` is false: a copy only written to) and controller state."""
        other = Store()
        other._docs = {k: dict(docs) for k, docs in self._docs.items()}
        other._index = self._index.copy()
        other.memo = self.memo  # entries hold their documents: valid for both stores
        other.events = list(self.events) if events else []
        other.controller_state = _copy.deepcopy(self.controller_state)
        return other

    def state_of(self, controller: str) -> Mapping[str, Any]:
        """A controller's own state (read only; change it with SetControllerState)."""
        return self.controller_state.get(controller, {})

    # indexes -------------------------------------------------------------------------------

    def order(self, kind: str, namespace: str, name: str) -> int:
        """A number that sorts documents of a kind as `list(kind)` has them."""
        return self._index.order[(kind, namespace, name)]

    def in_order(self, kind: str, keys: Iterable[tuple[str, str]]) -> list[dict]:
        """The documents of `keys` that exist, in store order."""
        docs = self._docs.get(kind, {})
        order = self._index.order
        found = [(order[(kind, *key)], docs[key]) for key in set(keys) if key in docs]
        found.sort(key=_first)
        return [doc for _, doc in found]

    def names(self, kind: str, namespace: str) -> Mapping[str, None]:
        """The names of the documents of `kind` in `namespace` (read only)."""
        return self._index.names.get((kind, namespace), _EMPTY)

    def pods_on_node(self, node: str) -> Mapping[tuple[str, str], None]:
        """The keys of the pods whose spec.nodeName is `node` (read only)."""
        return self._index.on_node.get(node, _EMPTY)

    def pods_of(self, namespace: str, kind: str, name: str) -> Mapping[tuple[str, str], None]:
        """The keys of the pods of `namespace` whose controller reference names kind/name (read only)."""
        return self._index.owned.get((namespace, kind, name), _EMPTY)

    def orphan_pods(self, namespace: str) -> Mapping[tuple[str, str], None]:
        """The keys of the pods of `namespace` without a controller reference (read only)."""
        return self._index.orphans.get(namespace, _EMPTY)

    def pods_labelled(self, namespace: str, key: str, value: str) -> Mapping[tuple[str, str], None]:
        """The keys of the pods of `namespace` with the label key=value (read only)."""
        return self._index.labelled.get((namespace, key, value), _EMPTY)

    # writing -------------------------------------------------------------------------------

    def put(self, doc: dict) -> Ref:
        """Insert or overwrite `doc` as is (no copy)."""
        ref = ref_of(doc)
        docs = self._docs.setdefault(ref[0], {})
        key = (ref[1], ref[2])
        old = docs.get(key)
        docs[key] = doc
        self._index.add(ref, old, doc)
        return ref

    def remove(self, kind: str, namespace: str, name: str) -> dict | None:
        old = self._docs.get(kind, {}).pop((namespace, name), None)
        if old is not None:
            self._index.remove((kind, namespace, name), old)
        return old

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


class Scratch(Store):
    """A store that starts as a view of another and keeps its own changes: a document is the
    other store's until this one changes it (documents are never changed in place, so
    nothing is copied up front). For what-ifs that change a few documents of a large store
    (an eviction pass): it changes documents, it does not create or delete any, so the
    indexes (names, order, pods by node...) are the other store's."""

    def __init__(self, base: Store):
        super().__init__()
        self.base = base
        # the values are shared: the store replaces a value, it never changes one in place
        self.controller_state = {name: dict(values) for name, values in base.controller_state.items()}

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        doc = self._docs.get(kind, {}).get((namespace, name))
        return doc if doc is not None else self.base.get(kind, namespace, name)

    def list(self, kind: str) -> list[dict]:
        docs = self.base.list(kind)
        mine = self._docs.get(kind)
        return [mine.get((namespace_of(d), name_of(d)), d) for d in docs] if mine else docs

    def kinds(self) -> list[str]:
        return self.base.kinds()

    def count(self, kind: str) -> int:
        return self.base.count(kind)  # (it creates and deletes nothing)

    def all(self) -> Iterator[dict]:
        for kind in self.base.kinds():
            yield from self.list(kind)

    def copy(self) -> "Store":
        other = self.base.copy()
        for docs in self._docs.values():
            for doc in docs.values():
                other.put(doc)
        other.controller_state = _copy.deepcopy(self.controller_state)
        other.events = list(self.base.events) + self.events
        return other

    def order(self, kind: str, namespace: str, name: str) -> int:
        return self.base.order(kind, namespace, name)

    def in_order(self, kind: str, keys: Iterable[tuple[str, str]]) -> list[dict]:
        docs = self.base.in_order(kind, keys)
        mine = self._docs.get(kind)
        return [mine.get((namespace_of(d), name_of(d)), d) for d in docs] if mine else docs

    def names(self, kind: str, namespace: str) -> Mapping[str, None]:
        return self.base.names(kind, namespace)

    def pods_on_node(self, node: str) -> Mapping[tuple[str, str], None]:
        return self.base.pods_on_node(node)

    def pods_of(self, namespace: str, kind: str, name: str) -> Mapping[tuple[str, str], None]:
        return self.base.pods_of(namespace, kind, name)

    def orphan_pods(self, namespace: str) -> Mapping[tuple[str, str], None]:
        return self.base.orphan_pods(namespace)

    def pods_labelled(self, namespace: str, key: str, value: str) -> Mapping[tuple[str, str], None]:
        return self.base.pods_labelled(namespace, key, value)

    def put(self, doc: dict) -> Ref:
        ref = ref_of(doc)
        if self.base.get(*ref) is None:
            raise ValueError(f"a Scratch store does not create documents: {ref}")
        self._docs.setdefault(ref[0], {})[(ref[1], ref[2])] = doc
        return ref

    def remove(self, kind: str, namespace: str, name: str) -> dict | None:
        raise ValueError(f"a Scratch store does not delete documents: {(kind, namespace, name)}")


_EMPTY: Mapping = {}


def _first(item: tuple) -> Any:
    return item[0]


def _pod_keys(doc: Mapping[str, Any]) -> tuple[str, tuple[str, str, str] | None, tuple[tuple[str, str], ...]]:
    """What the indexes file a pod under: spec.nodeName, (namespace, controller kind,
    controller name) or None, and its labels."""
    ref = controller_ref(doc)
    m = doc.get("metadata") or {}
    namespace = m.get("namespace") or "default"
    owner = None if ref is None else (namespace, ref.get("kind") or "", ref.get("name") or "")
    labels = tuple((namespace, k, v) for k, v in (m.get("labels") or {}).items())
    return (doc.get("spec") or {}).get("nodeName") or "", owner, labels


def _same_pod_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether the index entries of two versions of a pod are the same (a quick look first:
    a change shares what it did not change)."""
    om, nm = old.get("metadata") or {}, new.get("metadata") or {}
    if ((old.get("spec") or {}).get("nodeName") == (new.get("spec") or {}).get("nodeName")
            and om.get("labels") is nm.get("labels") and om.get("ownerReferences") is nm.get("ownerReferences")
            and om.get("namespace") == nm.get("namespace")):
        return True
    return _pod_keys(old) == _pod_keys(new)


class _Index:
    """The store's indexes (see Store); sets are dicts with None values."""

    def __init__(self) -> None:
        self.counter = 0
        self.order: dict[Ref, int] = {}
        self.names: dict[tuple[str, str], dict[str, None]] = {}
        self.on_node: dict[str, dict[tuple[str, str], None]] = {}
        self.owned: dict[tuple[str, str, str], dict[tuple[str, str], None]] = {}
        self.orphans: dict[str, dict[tuple[str, str], None]] = {}
        self.labelled: dict[tuple[str, str, str], dict[tuple[str, str], None]] = {}

    def copy(self) -> "_Index":
        other = _Index()
        other.counter = self.counter
        other.order = dict(self.order)
        for field in ("names", "on_node", "owned", "orphans", "labelled"):
            setattr(other, field, {k: dict(v) for k, v in getattr(self, field).items()})
        return other

    def add(self, ref: Ref, old: Mapping[str, Any] | None, doc: Mapping[str, Any]) -> None:
        kind, namespace, name = ref
        if old is None:
            self.counter += 1
            self.order[ref] = self.counter
            self.names.setdefault((kind, namespace), {})[name] = None
        if kind != "Pod":
            return
        if old is not None:
            if _same_pod_keys(old, doc):
                return
            self._pod((namespace, name), _pod_keys(old), False)
        self._pod((namespace, name), _pod_keys(doc), True)

    def remove(self, ref: Ref, old: Mapping[str, Any]) -> None:
        kind, namespace, name = ref
        self.order.pop(ref, None)
        names = self.names.get((kind, namespace))
        if names is not None:
            names.pop(name, None)
            if not names:
                del self.names[(kind, namespace)]
        if kind == "Pod":
            self._pod((namespace, name), _pod_keys(old), False)

    def _pod(self, key: tuple[str, str], keys: tuple, add: bool) -> None:
        node, owner, labels = keys
        entries: list[tuple[dict, Any]] = [(self.labelled, label) for label in labels]
        if node:
            entries.append((self.on_node, node))
        entries.append((self.owned, owner) if owner is not None else (self.orphans, key[0]))
        for table, k in entries:
            if add:
                table.setdefault(k, {})[key] = None
            else:
                members = table.get(k)
                if members is not None:
                    members.pop(key, None)
                    if not members:
                        del table[k]


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
    if a.value is None and a.key not in store.controller_state.get(a.controller, {}):
        return []  # (nothing to remove: no empty state left behind for the controller)
    state = store.controller_state.setdefault(a.controller, {})
    if a.value is None:
        del state[a.key]
    else:
        old = state.get(a.key)
        value = _copy_sharing(a.value, old)
        if old == value and a.key in state:
            return []
        state[a.key] = value
    if not state:
        del store.controller_state[a.controller]
    return [(CONTROLLER_STATE_KIND, "", a.controller)]


def _copy_sharing(value: Any, old: Any) -> Any:
    """document_copy(value), except for the parts that are the very objects of `old` (the
    stored value it replaces, the store's own copy, which nobody changes in place): those
    are kept as they are. A controller that changes one entry of a large state (say one
    node's drain among a hundred) gets one entry copied, not the whole state."""
    if value is old:
        return old
    if isinstance(value, dict):
        before = old if isinstance(old, dict) else {}
        return {k: _copy_sharing(v, before.get(k)) for k, v in value.items()}
    if isinstance(value, list):
        before = old if isinstance(old, list) else []
        return [_copy_sharing(v, before[i] if i < len(before) else None) for i, v in enumerate(value)]
    return document_copy(value)


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
