"""Every write to the cluster store goes through here.

A write validates (kube.py, the API server's rules), runs in a transaction, takes the next
cluster revision as the object's resource_version, refuses a write that names a stale
resource_version, and announces the change (`announce`): after commit the open pages are
told through changes.py, and a reconcile task is enqueued by its name. This module imports
neither the pages, the broadcast nor the tasks.
"""

from __future__ import annotations

import copy
import functools
import threading
import uuid
from typing import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings as django_settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F

from clusterui.celery import app as celery_app
from scheduling.engine import scenarios
from scheduling.engine.api.admission import PLUGIN_NAMES, admit, admit_update, admit_update_node_selection
from scheduling.engine.api.objects import DEFAULT_SCHEDULER, PriorityClass
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controllers.controller_utils import LIMITS_QUOTA
from scheduling.engine.api.validation import InvalidError, invalid_error, validate_update
from scheduling.engine.framework import config as framework_config
from scheduling.engine.scheduler.policy import PolicyError, load_policy
from scheduling.engine.api.kinds import TABLE
from scheduling.engine.store import time_value
from scheduling.engine.timeline import TimelineError, load_timeline

from scheduling.store import changes, kube, node_selection
from scheduling.store.changes import Change
from scheduling.models import KIND_MODELS, Cluster, Event, KubeObject
from scheduling.models import PriorityClass as StoredPriorityClass
from scheduling.store.state import keep_read, read_after_writes

# The reconcile task, enqueued by name: the store does not import the tasks that call it.
RECONCILE_TASK = "scheduling.tasks.reconcile_cluster"

TOP_LEVEL = ("apiVersion", "kind", "metadata", "spec", "status")
# Resource names as the API server prints them in errors ("nodes \"n1\" ..."), from the kinds table.
RESOURCES = {k.kind: k.resource_string for k in TABLE}


class StoreError(Exception):
    """A write the store refuses; str() is the message for the user."""


class Conflict(StoreError):
    def __init__(self, kind: str, name: str):
        super().__init__(
            f'Operation cannot be fulfilled on {RESOURCES[kind]} "{name}": the object has been modified; '
            "please apply your changes to the latest version and try again"
        )


class AlreadyExists(StoreError):
    def __init__(self, kind: str, name: str):
        super().__init__(f'{RESOURCES[kind]} "{name}" already exists')


class NotFound(StoreError):
    def __init__(self, kind: str, name: str):
        super().__init__(f'{RESOURCES[kind]} "{name}" not found')


class Invalid(StoreError):
    """The API server's 422 Invalid answer to an update (`error` holds the causes)."""

    def __init__(self, error: InvalidError):
        self.error = error
        super().__init__(str(error))


class Forbidden(StoreError):
    """The API server's 403 Forbidden answer (an admission plugin, say the quota, refused)."""


def exceeded_quota(kind: str, name: str, resource: str, requested: int, used: int, limit: int) -> str:
    """The ResourceQuota admission plugin's refusal, for the cluster's limits (settings
    CLUSTER_MAX_PODS: `pods`, CLUSTER_MAX_OBJECTS: `count/objects`, every kind together)."""
    return (f'{RESOURCES[kind]} "{name}" is forbidden: exceeded quota: {LIMITS_QUOTA}, requested: {resource}={requested}, '
            f"used: {resource}={used}, limited: {resource}={limit}")


def check_limits(cluster: Cluster, new_docs: list[dict]) -> None:
    """Refuse (Forbidden, the quota's words) creating `new_docs` in a cluster that would then
    hold more pods or objects than its limits (settings CLUSTER_MAX_PODS, CLUSTER_MAX_OBJECTS)."""
    if not new_docs:
        return
    first = new_docs[0]
    pods = [d for d in new_docs if d["kind"] == "Pod"]
    if pods:
        limit = int(django_settings.CLUSTER_MAX_PODS)
        used = KIND_MODELS["Pod"].objects.filter(cluster=cluster).count()
        if used + len(pods) > limit:
            raise Forbidden(exceeded_quota("Pod", pods[0]["metadata"]["name"], "pods", len(pods), used, limit))
    limit = int(django_settings.CLUSTER_MAX_OBJECTS)
    used = sum(model.objects.filter(cluster=cluster).count() for model in dict.fromkeys(KIND_MODELS.values()))
    if used + len(new_docs) > limit:
        raise Forbidden(exceeded_quota(first["kind"], first["metadata"]["name"], "count/objects", len(new_docs), used, limit))


@dataclass(frozen=True)
class ImportResult:
    created: int
    replaced: int
    policy_set: bool
    skipped: tuple[str, ...] = ()  # notes for documents of kinds that are not simulated (kube.load_documents)


# --- clusters ----------------------------------------------------------------------------


def create_cluster(name: str, description: str = "", seed: int = 0) -> Cluster:
    if Cluster.objects.filter(name=name).exists():
        raise StoreError(f'a cluster named "{name}" already exists')
    return Cluster.objects.create(name=name, description=description, seed=seed)


@transaction.atomic
def fork_cluster(source: Cluster, name: str, description: str | None = None) -> Cluster:
    """A deep copy: same objects, versions, clock and policy, under a new name."""
    if Cluster.objects.filter(name=name).exists():
        raise StoreError(f'a cluster named "{name}" already exists')
    source = Cluster.objects.get(pk=source.pk)
    fork = Cluster.objects.create(
        name=name,
        description=source.description if description is None else description,
        seed=source.seed,
        now=source.now,
        speed=source.speed,
        paused=True,
        policy=copy.deepcopy(source.policy),
        preemption_enabled=source.preemption_enabled,
        revision=source.revision,
        # The controllers' own state (timers, queues) goes with the objects.
        reconciled_to=source.reconciled_to,
        controller_state=copy.deepcopy(source.controller_state),
    )
    for model in KIND_MODELS.values():
        rows = []
        for obj in model.objects.filter(cluster=source):
            obj.pk = None
            obj.cluster = fork
            rows.append(obj)
        model.objects.bulk_create(rows)
    Event.objects.bulk_create(
        Event(**{f.name: getattr(e, f.name) for f in Event._meta.fields if f.name not in ("id", "cluster")}, cluster=fork)
        for e in source.events.all()
    )
    return fork


def delete_cluster(cluster: Cluster) -> None:
    cluster.delete()


# --- objects -------------------------------------------------------------------------------


# What brings a stored cluster's controllers up to its clock before a user's write
# (scheduling.store.reconcile.catch_up, set once by SchedulingConfig.ready(): the store does not
# import the reconcile, which writes through it).
_catch_up: Callable[[int], None] | None = None


def set_catch_up(function: Callable[[int], None] | None) -> None:
    global _catch_up
    _catch_up = function


def at_clock(cluster_id: int) -> None:
    """Before a user's write: run the controllers up to the cluster's clock, so the write is
    taken at the clock, never in the past (a stored cluster is the loop paused at its clock).
    The controllers' own writes need no such thing."""
    if _catch_up is not None and not getattr(_local, "controller", False):
        _catch_up(cluster_id)


def _next_revision(cluster_id: int) -> int:
    """Take the cluster's next revision. Inside a transaction this also serialises writers.
    A user's write first brings the controllers up to the clock (at_clock)."""
    at_clock(cluster_id)
    Cluster.objects.filter(pk=cluster_id).update(revision=F("revision") + 1)
    return Cluster.objects.values_list("revision", flat=True).get(pk=cluster_id)


def _journal(cluster_id: int, entry: list) -> None:
    """Note for the next reconcile what the rows alone do not tell (Cluster.journal): an
    object deleted by a user, or a change of the cluster's settings. The caller holds the
    cluster's row (it took a revision in this transaction)."""
    if getattr(_local, "controller", False):
        return
    journal = Cluster.objects.values_list("journal", flat=True).get(pk=cluster_id) or []
    if entry in journal:
        return
    Cluster.objects.filter(pk=cluster_id).update(journal=[*journal, entry])


def _resync(cluster_id: int) -> None:
    _journal(cluster_id, ["resync"])


def _fields(doc: dict) -> dict:
    metadata = {k: v for k, v in (doc.get("metadata") or {}).items() if k != "resourceVersion"}
    metadata.setdefault("uid", str(uuid.uuid4()))
    fields = {
        "namespace": metadata.get("namespace", ""),
        "name": metadata["name"],
        "uid": metadata["uid"],
        "metadata": metadata,
        "spec": doc.get("spec") or {},
        "status": doc.get("status") or {},
        "extra": {k: v for k, v in doc.items() if k not in TOP_LEVEL},
    }
    if doc["kind"] == "Pod":
        fields["node_name"] = fields["spec"].get("nodeName") or ""
        fields["phase"] = fields["status"].get("phase") or "Pending"
    return fields


def get_object(cluster: Cluster, kind: str, name: str, namespace: str = "") -> KubeObject:
    model = KIND_MODELS[kind]
    try:
        return model.objects.get(cluster=cluster, namespace=namespace if model.NAMESPACED else "", name=name)
    except model.DoesNotExist:
        raise NotFound(kind, name) from None


def create_object(cluster: Cluster, doc: dict) -> KubeObject:
    """Create from a checked document (kube.check_documents)."""
    model = KIND_MODELS[doc["kind"]]
    fields = _fields(doc)
    # The API server stamps every new object (simulated seconds on the cluster's clock).
    fields["metadata"].setdefault("creationTimestamp", time_value(cluster.now))
    with transaction.atomic():
        if model.objects.filter(cluster=cluster, namespace=fields["namespace"], name=fields["name"]).exists():
            raise AlreadyExists(doc["kind"], fields["name"])
        check_limits(cluster, [doc])
        rv = _next_revision(cluster.pk)
        try:
            with transaction.atomic():
                obj = model.objects.create(cluster=cluster, resource_version=rv, **fields)
        except IntegrityError:
            raise AlreadyExists(doc["kind"], fields["name"]) from None
        _changed(cluster.pk, doc["kind"], fields["name"], fields["namespace"], _nodes_showing(doc["kind"], fields["name"], doc))
    return obj


def replace_object(cluster: Cluster, doc: dict, expected_version: int | None = None) -> KubeObject:
    """Replace an object's document (like `kubectl replace`).

    With `expected_version` (or a `metadata.resourceVersion` in the document) the write is a
    compare-and-swap: if the stored object has moved on, `Conflict` is raised and nothing
    changes."""
    kind = doc["kind"]
    model = KIND_MODELS[kind]
    if expected_version is None and (doc.get("metadata") or {}).get("resourceVersion"):
        expected_version = int(doc["metadata"]["resourceVersion"])
    fields = _fields(doc)
    with transaction.atomic():
        current = model.objects.filter(cluster=cluster, namespace=fields["namespace"], name=fields["name"]).first()
        if current is None:
            raise NotFound(kind, fields["name"])
        fields["uid"] = current.uid
        fields["metadata"]["uid"] = current.uid
        version = current.resource_version if expected_version is None else expected_version
        rv = _next_revision(cluster.pk)
        updated = model.objects.filter(pk=current.pk, resource_version=version).update(resource_version=rv, **fields)
        if not updated:
            raise Conflict(kind, fields["name"])
        # The shared read at rv, from the read at rv - 1 and this row (the revision taken
        # holds the cluster's row: nothing else wrote in between); kept once committed.
        read = read_after_writes(cluster, rv - 1, rv, {kind: ([current.pk], [])})
        if read is not None:
            transaction.on_commit(functools.partial(keep_read, cluster, read))
        _changed(cluster.pk, kind, fields["name"], fields["namespace"], _nodes_showing(kind, fields["name"], current.document, doc))
    return model.objects.get(pk=current.pk)


# Custom resources whose CRD enables the status subresource: a user's update of the object
# leaves its status as the controller wrote it.
STATUS_SUBRESOURCE = ("KubeDescheduler",)


def updated_document(cluster: Cluster, doc: dict, old: dict) -> dict:
    """`doc` as the API server stores it when a user updates the stored `old` with it: for
    a Pod, the admission plugins that handle Update (engine.api.admission.admit_update,
    with the cluster's switches), the stored status kept (the pod strategy's
    PrepareForUpdate: status is written through pods/status only), then ValidatePod and
    ValidatePodUpdate against `old`. Raises Invalid when the update is refused. Other
    kinds are returned as they are (their update rules are not simulated), but for a kind
    whose CRD has the status subresource (STATUS_SUBRESOURCE) the stored status is kept."""
    if doc.get("kind") in STATUS_SUBRESOURCE:
        return {**doc, "status": copy.deepcopy(old.get("status") or {})}
    if doc.get("kind") != "Pod":
        return doc
    admitted = admit_update(doc, old, cluster.admission or None)
    admitted["status"] = copy.deepcopy(old.get("status") or {})
    errors = validate_update(admitted, old)
    if errors:
        raise Invalid(invalid_error(doc, errors))
    return admitted


def update_object(cluster: Cluster, doc: dict, expected_version: int | None = None) -> KubeObject:
    """A user's update (`oc replace`, `oc apply`, the editor): replace_object after the
    API server's update admission and validation (updated_document); nothing is written
    when they refuse it."""
    with transaction.atomic():
        current = get_object(cluster, doc["kind"], doc["metadata"]["name"], doc["metadata"].get("namespace", ""))
        if expected_version is None and not (doc.get("metadata") or {}).get("resourceVersion"):
            expected_version = current.resource_version
        return replace_object(cluster, updated_document(cluster, doc, current.document), expected_version)


def delete_object(cluster: Cluster, kind: str, name: str, namespace: str = "", expected_version: int | None = None) -> None:
    model = KIND_MODELS[kind]
    with transaction.atomic():
        qs = model.objects.filter(cluster=cluster, namespace=namespace if model.NAMESPACED else "", name=name)
        current = qs.first()
        if current is None:
            raise NotFound(kind, name)
        if expected_version is not None and current.resource_version != expected_version:
            raise Conflict(kind, name)
        _next_revision(cluster.pk)
        if not qs.filter(resource_version=current.resource_version).delete()[0]:
            raise Conflict(kind, name)
        _journal(cluster.pk, ["delete", kind, current.namespace, name])
        _changed(cluster.pk, kind, name, current.namespace, _nodes_showing(kind, name, current.document))


# --- bulk writes ----------------------------------------------------------------------------------

# One write of a batch: ("create", None, new document), ("replace", stored document, new
# document) or ("delete", stored document, None); stored documents carry their resourceVersion.
Write = tuple[str, "dict | None", "dict | None"]


def _doc_key(doc: dict) -> tuple[str, str, str]:
    meta = doc.get("metadata") or {}
    return doc["kind"], meta.get("namespace") or "", meta["name"]


def write_batch(cluster: Cluster, writes: list[Write], written: dict[str, tuple[list[int], list[int]]] | None = None) -> int:
    """Make `writes` in order as create_object/replace_object/delete_object would, one
    revision each, with a few statements per kind instead of several queries and a savepoint
    per object. The caller holds the cluster's row lock (select_for_update) in the current
    transaction and has checked that the revision it read the stored documents at is still
    the cluster's: nothing else has written since, so no per-object compare-and-swap is
    needed. Returns the cluster's new revision.

    `written`, when given, is filled with kind -> (the primary keys of the rows created or
    replaced, those of the rows deleted), for state.read_after_writes; left empty when the
    database did not return the new rows' keys."""
    if writes:
        at_clock(cluster.pk)
    base = Cluster.objects.values_list("revision", flat=True).get(pk=cluster.pk)
    if not writes:
        return base
    pks: dict[str, dict[tuple[str, str], tuple[int, str]]] = {}
    for kind in {op[1]["kind"] for op in writes if op[1] is not None}:
        pks[kind] = {
            (ns, name): (pk, uid)
            for ns, name, pk, uid in KIND_MODELS[kind].objects.filter(cluster=cluster).values_list("namespace", "name", "pk", "uid")
        }
    creates: dict[str, list] = {}
    updates: dict[str, list] = {}
    deletes: dict[str, list[int]] = {}
    for i, (op, before, after) in enumerate(writes, start=1):
        rv = base + i
        doc = after if after is not None else before
        kind, namespace, name = _doc_key(doc)
        model = KIND_MODELS[kind]
        if op == "create":
            fields = _fields(after)
            # The API server stamps every new object (simulated seconds on the cluster's clock).
            fields["metadata"].setdefault("creationTimestamp", time_value(cluster.now))
            creates.setdefault(kind, []).append(model(cluster=cluster, resource_version=rv, **fields))
        elif op == "replace":
            pk, uid = pks[kind][(namespace, name)]
            fields = _fields(after)
            fields["uid"] = fields["metadata"]["uid"] = uid
            updates.setdefault(kind, []).append((pk, rv, fields))
        else:
            deletes.setdefault(kind, []).append(pks[kind][(namespace, name)][0])
            _journal(cluster.pk, ["delete", kind, namespace, name])
        _changed(cluster.pk, kind, name, namespace, _nodes_showing(kind, name, *(d for d in (before, after) if d)))
    for kind, pk_list in deletes.items():
        for chunk in range(0, len(pk_list), 500):
            KIND_MODELS[kind].objects.filter(pk__in=pk_list[chunk:chunk + 500]).delete()
    for kind, rows in updates.items():
        _update_rows(KIND_MODELS[kind], rows)
    for kind, objs in creates.items():
        KIND_MODELS[kind].objects.bulk_create(objs, batch_size=500)
    if written is not None:
        for kind in {*deletes, *updates, *creates}:
            written[kind] = ([pk for pk, _, _ in updates.get(kind, ())] + [obj.pk for obj in creates.get(kind, ())],
                             deletes.get(kind, []))
        if any(pk is None for changed, _ in written.values() for pk in changed):
            written.clear()
    revision = base + len(writes)
    Cluster.objects.filter(pk=cluster.pk).update(revision=revision)
    return revision


def _update_rows(model, rows: list[tuple[int, int, dict]]) -> None:
    """UPDATE ... WHERE id = %s for every row, one executemany (values prepared by the
    fields themselves, so JSON goes in as each database wants it)."""
    names = ["resource_version", *rows[0][2]]
    fields = [model._meta.get_field(n) for n in names]
    sql = "UPDATE {} SET {} WHERE {} = %s".format(
        connection.ops.quote_name(model._meta.db_table),
        ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields),
        connection.ops.quote_name(model._meta.pk.column),
    )
    params = []
    for pk, rv, values in rows:
        values = {"resource_version": rv, **values}
        params.append([f.get_db_prep_save(values[f.name], connection) for f in fields] + [pk])
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def record_events(cluster: Cluster, events) -> None:
    """record_event for each of `events` (objects with reason, message, kind, name,
    namespace, type, source, time), in order, with one read and bulk writes: a repeat of an
    event already stored, or earlier in the batch, bumps its count."""
    events = list(events)
    if not events:
        return
    names = {e.name for e in events}
    latest: dict[tuple, Event] = {}
    existing = Event.objects.filter(cluster=cluster).order_by("last_time", "id")
    if len(names) <= 500:
        existing = existing.filter(involved_name__in=names)
    for ev in existing.iterator(chunk_size=2000):
        latest[(ev.involved_kind, ev.involved_namespace, ev.involved_name, ev.reason, ev.message, ev.type)] = ev
    new: list[Event] = []
    bumped: dict[int, Event] = {}
    for e in events:
        when = cluster.now if e.time is None else e.time
        key = (e.kind, e.namespace, e.name, e.reason, e.message, e.type)
        ev = latest.get(key)
        if ev is not None:
            ev.count += 1
            ev.last_time = when
            if ev.pk is not None:
                bumped[ev.pk] = ev
            continue
        ev = latest[key] = Event(
            cluster=cluster, type=e.type, reason=e.reason, involved_kind=e.kind, involved_namespace=e.namespace,
            involved_name=e.name, message=e.message, first_time=when, last_time=when, source=e.source,
        )
        new.append(ev)
    if bumped:
        Event.objects.bulk_update(list(bumped.values()), ["count", "last_time"], batch_size=500)
    Event.objects.bulk_create(new, batch_size=500)
    _changed(cluster.pk, "Event")


# --- import and export ------------------------------------------------------------------------


def import_documents(cluster: Cluster, text: str, source: str = "<input>") -> ImportResult:
    """Create or replace every object of `text`; all or nothing.

    Raises kube.DocumentError (every bad document with its field path and message) before
    anything is written."""
    skipped: list[str] = []
    docs = kube.load_documents(text, source, skipped=skipped)
    result = apply_documents(cluster, docs)
    return ImportResult(result.created, result.replaced, result.policy_set, tuple(skipped))


def admit_documents(cluster: Cluster, docs: list[dict]) -> list[dict]:
    """The API server's admission plugins (engine.api.admission) over documents about to be
    created, with the cluster's switches. Raises kube.DocumentError when one is refused."""
    classes = [PriorityClass.from_doc(o.document) for o in StoredPriorityClass.objects.filter(cluster=cluster)]
    classes += [PriorityClass.from_doc(d) for d in docs if d["kind"] == "PriorityClass"]
    context = node_selection.context_for(cluster, docs)
    admitted, problems = [], []
    for doc in docs:
        try:
            admitted.append(admit(doc, classes, cluster.admission or None, context))
        except AdmissionError as exc:
            problems.append(str(exc))
    if problems:
        raise kube.DocumentError(problems)
    return admitted


def check_update_admission(cluster: Cluster, doc: dict) -> None:
    """The admission plugins that check an update of `doc` too (PodNodeConstraints, on the
    objects with a pod template it lists), as the web user. Raises kube.DocumentError."""
    try:
        admit_update_node_selection(doc, cluster.admission or None, node_selection.context_for(cluster))
    except AdmissionError as exc:
        raise kube.DocumentError([str(exc)]) from exc


def _apply_one_at_a_time(cluster: Cluster, objects: list[dict]) -> tuple[int, int]:
    """Create or update `objects` one after the other, as written (an input that names the
    same object twice: the later one replaces the earlier). Returns (created, replaced)."""
    created = replaced = 0
    for doc in objects:
        meta = doc["metadata"]
        model = KIND_MODELS[doc["kind"]]
        if model.objects.filter(cluster=cluster, namespace=meta.get("namespace", ""), name=meta["name"]).exists():
            try:
                update_object(cluster, {**doc, "metadata": {k: v for k, v in meta.items() if k != "resourceVersion"}})
            except Invalid as exc:
                raise kube.DocumentError([str(exc)]) from None
            replaced += 1
        else:
            try:
                create_object(cluster, admit_documents(cluster, [doc])[0])
            except Forbidden as exc:
                raise kube.DocumentError([str(exc)]) from None
            created += 1
    return created, replaced


def apply_documents(cluster: Cluster, docs: list[dict]) -> ImportResult:
    created = replaced = 0
    policy_set = False
    order = {kind: i for i, kind in enumerate(KIND_MODELS)}
    objects = sorted((d for d in docs if d["kind"] in KIND_MODELS), key=lambda d: order[d["kind"]])
    with transaction.atomic():
        Cluster.objects.select_for_update().filter(pk=cluster.pk).first()  # writers queue behind us
        for doc in docs:
            if doc["kind"] in (kube.POLICY_KIND, *kube.SCHEDULER_CONFIG_KINDS):
                set_policy(cluster, doc)
                policy_set = True
        timelines = [d for d in docs if d["kind"] == kube.TIMELINE_KIND]
        if timelines:
            add_timelines(cluster, timelines)
        stored: dict[str, set[tuple[str, str]]] = {
            kind: set(KIND_MODELS[kind].objects.filter(cluster=cluster).values_list("namespace", "name"))
            for kind in {d["kind"] for d in objects}
        }
        classes = [PriorityClass.from_doc(o.document) for o in StoredPriorityClass.objects.filter(cluster=cluster)]
        classes += [PriorityClass.from_doc(d) for d in docs if d["kind"] == "PriorityClass"]
        context = node_selection.context_for(cluster, docs)  # namespaces and their node selectors
        writes: list[Write] = []
        seen: set[tuple[str, str, str]] = set()
        for doc in objects:
            meta = doc["metadata"]
            key = (doc["kind"], meta.get("namespace", ""), meta["name"])
            if key in seen:  # the same object twice in one input: the later one replaces it
                raise_for_batch = True
                break
            seen.add(key)
            if key[1:] in stored[doc["kind"]]:
                current = get_object(cluster, doc["kind"], meta["name"], meta.get("namespace", ""))
                doc = {**doc, "metadata": {k: v for k, v in meta.items() if k != "resourceVersion"}}
                try:
                    doc = updated_document(cluster, doc, current.document)
                except Invalid as exc:
                    raise kube.DocumentError([str(exc)]) from None
                writes.append(("replace", current.document, doc))
                replaced += 1
            else:
                try:
                    writes.append(("create", None, admit(doc, classes, cluster.admission or None, context)))
                except AdmissionError as exc:
                    raise kube.DocumentError([str(exc)]) from None
                created += 1
        else:
            raise_for_batch = False
        if raise_for_batch:  # rare: one object at a time, as written
            created, replaced = _apply_one_at_a_time(cluster, objects)
        else:
            try:
                check_limits(cluster, [new for op, _, new in writes if op == "create" and new is not None])
            except Forbidden as exc:
                raise kube.DocumentError([str(exc)]) from None
            write_batch(cluster, writes)
    return ImportResult(created, replaced, policy_set)


def import_new_cluster(name: str, text: str, source: str, description: str = "", *, replace: bool = False) -> Cluster:
    """Create a cluster holding the documents of `text`, or nothing at all. `replace`: the
    cluster of that name, if any, is deleted in the same transaction (replace_with_import)."""
    skipped: list[str] = []
    docs = kube.load_documents(text, source, skipped=skipped)
    with transaction.atomic():
        if replace:
            cluster = replace_with_import(name, docs, description)
        else:
            cluster = create_cluster(name, description)
            apply_documents(cluster, docs)
    cluster.import_notes = tuple(skipped)  # what was left out, for the page to show
    return cluster


def replace_with_import(name: str, docs: list[dict], description: str = "") -> Cluster:
    """Inside the caller's transaction: the cluster `name` (if there is one: its objects,
    events, snapshots and training sessions) deleted and a new one of that name holding
    `docs`. An invalid document raises and the transaction leaves the old cluster whole."""
    if not transaction.get_connection().in_atomic_block:
        raise StoreError("replace_with_import runs inside a transaction")
    old = Cluster.objects.select_for_update().filter(name=name).first()
    if old is not None:
        old.delete()
    cluster = create_cluster(name, description)
    apply_documents(cluster, docs)
    return cluster


def add_timelines(cluster: Cluster, docs: list[dict]) -> None:
    """Keep Timeline documents with the cluster; the controllers play their steps as the
    clock passes them (steps before the cluster's current time are played at once)."""
    problems = []
    for doc in docs:
        try:
            load_timeline(doc)
        except TimelineError as exc:
            problems.append(str(exc))
    if problems:
        raise kube.DocumentError(problems)
    with transaction.atomic():
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        state = dict(locked.controller_state or {})
        names = {d["metadata"]["name"] for d in docs}
        state["timelines"] = [t for t in state.get("timelines") or [] if t["metadata"]["name"] not in names] + [
            copy.deepcopy(d) for d in docs
        ]
        Cluster.objects.filter(pk=cluster.pk).update(controller_state=state)
        cluster.controller_state = state
        _next_revision(cluster.pk)
        _changed(cluster.pk, "Timeline")


@functools.cache
def scripted_scenarios() -> frozenset[str]:
    """The built-in scenarios whose file holds a Timeline (a script the clock plays)."""
    return frozenset(s.name for s in scenarios.SCENARIOS
                     if any(line.strip() == "kind: Timeline" for line in Path(scenarios.path(s)).read_text().splitlines()))


def load_scenario(name: str, cluster_name: str | None = None, *, script: bool = True) -> Cluster:
    """A new cluster holding one of the built-in scenarios (engine/scenarios), paused at 0.
    `script=False`: without its Timelines, for doing the steps by hand (a rehearsal)."""
    scenario = next((s for s in scenarios.SCENARIOS if s.name == name), None)
    if scenario is None:
        raise StoreError(f'no scenario named "{name}"')
    base = cluster_name or scenario.name
    candidate, n = base, 1
    while Cluster.objects.filter(name=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    text = Path(scenarios.path(scenario)).read_text()
    description = f"{scenario.title}: {scenario.description}"
    if script:
        return import_new_cluster(candidate, text, scenario.file, description=description)
    docs = [d for d in kube.load_documents(text, scenario.file) if d.get("kind") != "Timeline"]
    with transaction.atomic():
        cluster = create_cluster(candidate, f"{description} (loaded without its script: do the steps yourself)")
        apply_documents(cluster, docs)
    return cluster


def export_documents(cluster: Cluster) -> list[dict]:
    """Every object (and the scheduler policy, when one is set) as documents that
    import_documents turns back into the same objects."""
    docs: list[dict] = []
    cluster.refresh_from_db()
    if cluster.policy:
        docs.append(copy.deepcopy(cluster.policy))
    docs.extend(copy.deepcopy(p) for _, p in sorted((cluster.scheduler_policies or {}).items()))
    for model in KIND_MODELS.values():
        for obj in model.objects.filter(cluster=cluster).order_by("namespace", "name"):
            doc = obj.document
            doc["metadata"].pop("resourceVersion", None)
            docs.append(doc)
    docs.extend(copy.deepcopy(t) for t in (cluster.controller_state or {}).get("timelines") or [])
    return docs


def set_policy(cluster: Cluster, policy_doc: dict | None, scheduler_name: str | None = None) -> None:
    """Set the Policy of the default scheduler, or of the scheduler the document names
    (`schedulerName`); `None` puts the default policy back (or stops that scheduler)."""
    if policy_doc is not None and policy_doc.get("kind") in framework_config.CONFIG_KINDS:
        # a KubeSchedulerConfiguration (all its profiles) or OpenShift's Scheduler: the
        # cluster's whole scheduler configuration, in the default scheduler's place
        try:
            framework_config.schedulers_for([policy_doc])
        except framework_config.ConfigError as exc:
            raise kube.DocumentError([f"{policy_doc.get('kind')}: {exc}"]) from exc
        scheduler_name = DEFAULT_SCHEDULER
    elif policy_doc is not None:
        try:
            named = load_policy(policy_doc).scheduler_name
        except PolicyError as exc:
            raise kube.DocumentError([f"Policy: {exc}"]) from exc
        # the document's own schedulerName wins; else the scheduler the caller names
        scheduler_name = named if "schedulerName" in policy_doc or not scheduler_name else scheduler_name
    scheduler_name = scheduler_name or DEFAULT_SCHEDULER
    with transaction.atomic():
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        _next_revision(cluster.pk)
        _resync(cluster.pk)
        if scheduler_name == DEFAULT_SCHEDULER:
            Cluster.objects.filter(pk=cluster.pk).update(policy=policy_doc)
            cluster.policy = policy_doc
        else:
            others = dict(locked.scheduler_policies or {})
            if policy_doc is None:
                others.pop(scheduler_name, None)
            else:
                others[scheduler_name] = policy_doc
            Cluster.objects.filter(pk=cluster.pk).update(scheduler_policies=others)
            cluster.scheduler_policies = others
        _changed(cluster.pk, "Policy")


def set_cluster_settings(cluster: Cluster, *, admission: dict[str, bool], preemption: bool) -> None:
    """Switch admission plugins (engine.api.admission.PLUGIN_NAMES) and preemption. Admission
    applies to objects created from now on, as in a real cluster."""
    unknown = sorted(set(admission) - set(PLUGIN_NAMES))
    if unknown:
        raise StoreError(f"unknown admission plugin(s): {', '.join(unknown)}")
    off = {name: False for name, on in admission.items() if not on}
    with transaction.atomic():
        _next_revision(cluster.pk)
        _resync(cluster.pk)
        Cluster.objects.filter(pk=cluster.pk).update(admission=off, preemption_enabled=preemption)
        cluster.admission, cluster.preemption_enabled = off, preemption
        _changed(cluster.pk, "Policy")


def set_descheduler(cluster: Cluster, policy: dict | None, interval: float | None, flags: dict, run: bool = False) -> None:
    """Cluster.descheduler: the DeschedulerPolicy document (None: no descheduler), how often
    it runs (None: once) and its flags. `run`: ask for one more run now (the controller
    runs once per request, engine.controllers.descheduler)."""
    with transaction.atomic():
        _next_revision(cluster.pk)
        _resync(cluster.pk)
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        requests = int((locked.descheduler or {}).get("runRequests") or 0) + (1 if run else 0)
        value = {} if policy is None else {"policy": policy, "interval": interval, "flags": dict(flags), "runRequests": requests}
        Cluster.objects.filter(pk=cluster.pk).update(descheduler=value)
        cluster.descheduler = value
        _changed(cluster.pk, "Policy")


def request_descheduler_run(cluster: Cluster) -> None:
    """Ask for one more run of the descheduler now, keeping its setting (the operator's
    descheduler, configured by the stored KubeDescheduler, reads only the counter)."""
    with transaction.atomic():
        _next_revision(cluster.pk)
        _resync(cluster.pk)
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        value = {**(locked.descheduler or {}), "runRequests": int((locked.descheduler or {}).get("runRequests") or 0) + 1}
        Cluster.objects.filter(pk=cluster.pk).update(descheduler=value)
        cluster.descheduler = value
        _changed(cluster.pk, "Policy")


def set_admission_config(cluster: Cluster, docs: list[dict], can_bind: bool) -> None:
    """The node-selection admission plugins' configuration documents (scheduling.store.node_selection)
    and whether the web user may create pods/binding; applies to objects created from now on."""
    value = {"documents": list(docs), "userCanBind": bool(can_bind)}
    with transaction.atomic():
        _next_revision(cluster.pk)
        _resync(cluster.pk)
        Cluster.objects.filter(pk=cluster.pk).update(admission_config=value)
        cluster.admission_config = value


def set_cluster_facts(cluster: Cluster, facts: dict) -> None:
    """The simulated characteristics update risks query (scheduling.engine.openshift.facts), as the
    Cluster Settings page edits them; the CVO re-evaluates its conditional updates."""
    with transaction.atomic():
        _next_revision(cluster.pk)
        _resync(cluster.pk)
        Cluster.objects.filter(pk=cluster.pk).update(facts=facts)
        cluster.facts = facts
        _changed(cluster.pk, "Policy")


# --- events ------------------------------------------------------------------------------------


def record_event(
    cluster: Cluster,
    *,
    reason: str,
    message: str,
    kind: str,
    name: str,
    namespace: str = "",
    type: str = "Normal",
    source: str = "",
    time: float | None = None,
) -> Event:
    """Record an event; a repeat of the same one (object, reason, message) bumps its count."""
    when = cluster.now if time is None else time
    with transaction.atomic():
        existing = (
            Event.objects.select_for_update()
            .filter(
                cluster=cluster, involved_kind=kind, involved_namespace=namespace, involved_name=name,
                reason=reason, message=message, type=type,
            )
            .order_by("-last_time")
            .first()
        )
        if existing:
            existing.count += 1
            existing.last_time = when
            existing.save(update_fields=["count", "last_time"])
            event = existing
        else:
            event = Event.objects.create(
                cluster=cluster, type=type, reason=reason, involved_kind=kind, involved_namespace=namespace,
                involved_name=name, message=message, first_time=when, last_time=when, source=source,
            )
        _changed(cluster.pk, "Event", str(event.pk))
    return event


# --- after commit --------------------------------------------------------------------------------


_local = threading.local()


@contextmanager
def controller_writes():
    """Writes made by the controllers themselves: they do not ask for another reconcile."""
    previous = getattr(_local, "controller", False)
    _local.controller = True
    try:
        yield
    finally:
        _local.controller = previous


def announce(cluster_id: int, change: Change) -> None:
    """Announce a change of the cluster: the open pages are told once the transaction
    commits (never from inside it, see changes.py), and a change of the cluster's objects,
    policy or timelines asks the controllers for a reconcile (unless the controllers made it).
    Writers outside this module (the clock) announce their changes here too."""
    changes.note(cluster_id, change)
    if (change.kind in KIND_MODELS or change.kind in ("Policy", "Timeline")) and not getattr(_local, "controller", False):
        request_reconcile(cluster_id)


def _changed(cluster_id: int, kind: str = "Cluster", name: str = "", namespace: str = "", nodes=()) -> None:
    announce(cluster_id, Change(kind, name, namespace, tuple(n for n in nodes if n)))


def request_reconcile(cluster_id: int) -> None:
    """Enqueue one reconcile of the cluster after the transaction commits."""
    pending = _local.__dict__.setdefault("reconcile", set())
    pending.add(cluster_id)

    def enqueue():
        if cluster_id in pending:
            pending.discard(cluster_id)
            # Sent by name (the web process need not import the tasks), so say that nobody
            # reads its result: else the Redis result backend subscribes to each task's
            # result channel, a connection and a subscription per edit in the web process.
            celery_app.signature(RECONCILE_TASK, args=(cluster_id,)).apply_async(ignore_result=True)

    transaction.on_commit(enqueue)


def _nodes_showing(kind: str, name: str, *docs) -> tuple[str, ...]:
    """The node cards an object appears on: a node's own card, a pod's node(s)."""
    if kind == "Node":
        return (name,)
    if kind == "Pod":
        return tuple(dict.fromkeys((d.get("spec") or {}).get("nodeName") or "" for d in docs if d))
    return ()


# --- restoring a snapshot -----------------------------------------------------------------------


def restore_cluster(cluster: Cluster, objects: dict[tuple[str, str, str], dict], stood: dict[int, tuple],
                    fields: dict, snapshot_revision: int, events_from: Cluster | None = None) -> set[str]:
    """Put the cluster's rows back as a snapshot holds them (snapshots.restore works out what
    it holds): `objects` the rows by (kind, namespace, name), `stood` the events as they
    stood (id -> (count, last_time)), `fields` the Cluster fields kept, paused. The cluster
    takes a new revision; its journal is emptied (the restored controller state goes with the
    restored rows). `events_from`: the cluster the snapshot was taken of, when restoring it
    into another (a fork): its events are copied. Returns the nodes whose cards change."""
    with transaction.atomic():
        Cluster.objects.select_for_update().get(pk=cluster.pk)
        shown = _restore_objects(cluster, objects)
        _restore_events(cluster, stood, events_from)
        revision = Cluster.objects.values_list("revision", flat=True).get(pk=cluster.pk) + 1
        state = dict(fields.get("controller_state") or {})
        if state.get("revision") == snapshot_revision:
            # The controllers had caught up with every write when the snapshot was taken: they
            # have caught up with the restored cluster too (nothing to run until their next due time).
            state["revision"] = revision
        fields["controller_state"] = state
        Cluster.objects.filter(pk=cluster.pk).update(**fields, paused=True, clock_anchor=None, revision=revision,
                                                     journal=[])
    return shown


def _restore_objects(cluster: Cluster, wanted: dict[tuple[str, str, str], dict]) -> set[str]:
    """Rewrite only the objects that differ from the snapshot: a row with the same uid and
    resource_version is the same document (every write takes a new resource_version).
    Returns the nodes whose cards change (a changed node, the nodes of a changed pod)."""
    cards: set[str] = set()
    for kind, model in KIND_MODELS.items():
        stale = []
        keep = set()
        columns = ("pk", "namespace", "name", "uid", "resource_version") + (("node_name",) if kind == "Pod" else ())
        for pk, namespace, name, uid, version, *node in model.objects.filter(cluster=cluster).values_list(*columns):
            row = wanted.get((kind, namespace, name))
            if row is not None and (row["uid"], row["resource_version"]) == (uid, version):
                keep.add((kind, namespace, name))
            else:
                stale.append(pk)
                cards.update([name] if kind == "Node" else node)
        for start in range(0, len(stale), 500):
            model.objects.filter(pk__in=stale[start:start + 500]).delete()
        missing = [
            model(cluster=cluster, **{k: v for k, v in row.items() if k != "kind"})
            for key, row in wanted.items()
            if key[0] == kind and key not in keep
        ]
        model.objects.bulk_create(missing, batch_size=500)
        cards.update(o.name if kind == "Node" else o.node_name for o in missing if kind in ("Node", "Pod"))
    cards.discard("")
    return cards


def _restore_events(cluster: Cluster, stood: dict[int, tuple], source: Cluster | None) -> None:
    if source is None:
        Event.objects.filter(cluster=cluster).exclude(pk__in=stood).delete()
        changed = []
        for event in Event.objects.filter(cluster=cluster):
            count, last_time = stood[event.pk]
            if (event.count, event.last_time) != (count, last_time):
                event.count, event.last_time = count, last_time
                changed.append(event)
        Event.objects.bulk_update(changed, ["count", "last_time"], batch_size=500)
        return
    Event.objects.filter(cluster=cluster).delete()
    copies = []
    for event in Event.objects.filter(cluster=source, pk__in=stood).order_by("pk"):
        count, last_time = stood[event.pk]
        values = {f.name: getattr(event, f.name) for f in Event._meta.fields if f.name not in ("id", "cluster")}
        copies.append(Event(**{**values, "count": count, "last_time": last_time}, cluster=cluster))
    Event.objects.bulk_create(copies, batch_size=500)
