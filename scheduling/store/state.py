"""Read a stored cluster into the engine's shapes: documents, a ClusterState, and the
controllers' own state (kept by scheduling.store.reconcile in `Cluster.controller_state`)."""

from __future__ import annotations

import dataclasses
import gc
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from scheduling.engine.api.validation import FieldError, engine_problem
from scheduling.engine.framework.config import ConfigError, select_schedulers
from scheduling.engine.controllers import taint_manager
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.store import sim_time, time_value
from scheduling.engine.bulk import gc_paused as collector_paused
from scheduling.engine.controllers.scheduling import build_state
from scheduling.models import KIND_MODELS, Cluster


def cluster_documents(cluster: Cluster, kinds: tuple[str, ...] | None = None) -> list[dict]:
    """Every stored object as the API would return it, kinds in KIND_MODELS order, each kind
    in creation order (pods keep their queue order)."""
    docs: list[dict] = []
    for kind, model in KIND_MODELS.items():
        if kinds is not None and kind not in kinds:
            continue
        docs.extend(obj.document for obj in model.objects.filter(cluster=cluster).order_by("pk"))
    return docs


def split_usable(docs: list[dict]) -> tuple[list[dict], list[tuple[dict, FieldError]]]:
    """(the documents the engine can use, the others with the first reason each is not).

    Imports validate everything, so this only matters for objects stored before a rule
    existed; it costs a decode walk per document, so callers use it as a fallback when the
    engine refuses the whole set (`with_usable_documents`)."""
    usable: list[dict] = []
    skipped: list[tuple[dict, FieldError]] = []
    for doc in docs:
        problem = engine_problem(doc)
        if problem is None:
            usable.append(doc)
        else:
            skipped.append((doc, problem))
    return usable, skipped


def with_usable_documents(docs: list[dict], run):
    """run(docs); when the engine fails on a malformed stored object, run again without the
    objects it cannot use. Returns (run's result, the skipped objects with their reasons)."""
    try:
        return run(docs), []
    except Exception:
        usable, skipped = split_usable(docs)
        if not skipped:
            raise  # not the data: a real error
        return run(usable), skipped


# --- the documents of a stored cluster, read once per process and kept up to date -----------------
#
# Every write of an object takes a new resource_version (the cluster's next revision), so a
# row with the same primary key and resource_version as one read before holds the same
# document: a cluster read once is brought up to date by listing (pk, resource_version) per
# kind and reading only the rows that are new or changed. The documents kept are shared
# and never changed (engine.store: a change puts a new document in its place); the engine
# objects built from them are kept with them (build_state's memo) and so is the
# ClusterState of the revision last read.


# The columns of a stored object, as `Model.objects.values(*ROW_FIELDS)` returns them (and
# POD_FIELDS for pods): what a snapshot keeps of each object (scheduling.store.snapshots).
ROW_FIELDS = ("namespace", "name", "uid", "resource_version", "metadata", "spec", "status", "extra")
POD_FIELDS = ("node_name", "phase")


def _fields_of(kind: str) -> tuple[str, ...]:
    return ROW_FIELDS + (POD_FIELDS if kind == "Pod" else ())


def _document(model, row: dict) -> dict:
    """What `KubeObject.document` returns for the object of this row."""
    metadata = dict(row["metadata"])
    metadata["resourceVersion"] = str(row["resource_version"])
    doc = {"apiVersion": model.API_VERSION, "kind": model.KIND, "metadata": metadata}
    doc.update(row["extra"])
    if row["spec"]:
        doc["spec"] = row["spec"]
    if row["status"]:
        doc["status"] = row["status"]
    return doc


@dataclass
class _Read:
    revision: int  # the cluster's revision when the rows were listed
    # kind -> {pk: (resource_version, document, row)}, pk order; row: the columns (ROW_FIELDS)
    rows: dict[str, dict[int, tuple[int, dict, dict]]]
    memo: dict[int, tuple] = field(default_factory=dict)  # build_state's, for these documents
    texts: dict[int, str] = field(default_factory=dict)  # id(row) -> its JSON text (cluster_rows_json)
    docs: list[dict] = field(default_factory=list)  # every document, KIND_MODELS order, pk order
    state: ClusterState | None = None  # built from `docs` (the usable ones)


_READS: OrderedDict[tuple, _Read] = OrderedDict()
_READS_KEPT = 4  # clusters
_FETCH_CHUNK = 500  # primary keys per query (SQLite's parameter limit)
_reads_lock = threading.Lock()


def _key(cluster: Cluster) -> tuple:
    return (cluster.pk, cluster.created_at)


def _rows_of(kind: str, queryset) -> dict[int, tuple[int, dict, dict]]:
    model = KIND_MODELS[kind]
    names = _fields_of(kind)
    out: dict[int, tuple[int, dict, dict]] = {}
    for pk, *values in queryset.values_list("pk", *names):
        row = dict(zip(names, values))
        out[pk] = (row["resource_version"], _document(model, row), row)
    return out


def _versions(model, cluster: Cluster) -> list[tuple[int, int]]:
    """(pk, resource_version) of every object of the model in the cluster, pk order: what
    `values_list("pk", "resource_version")` returns, without making a tuple per row in Python."""
    meta = model._meta
    quote = connection.ops.quote_name
    sql = (f"SELECT {quote(meta.pk.column)}, {quote(meta.get_field('resource_version').column)} FROM {quote(meta.db_table)} "
           f"WHERE {quote(meta.get_field('cluster').column)} = %s ORDER BY {quote(meta.pk.column)}")
    with connection.cursor() as cursor:
        cursor.execute(sql, [cluster.pk])
        return cursor.fetchall()


def _read(cluster: Cluster, previous: _Read | None) -> _Read:
    """The cluster's rows now: those of `previous` still current, the others read."""
    rows: dict[str, dict[int, tuple[int, dict, dict]]] = {}
    dropped: list[tuple[int, dict, dict]] = []  # previous's rows not in this read (replaced or deleted)
    for kind, model in KIND_MODELS.items():
        objects = model.objects.filter(cluster=cluster).order_by("pk")
        if previous is None:
            rows[kind] = _rows_of(kind, objects)
            continue
        known = previous.rows.get(kind, {})
        listed = _versions(model, cluster)
        stale = [pk for pk, rv in listed if pk not in known or known[pk][0] != rv]
        fetched: dict[int, tuple[int, dict, dict]] = {}
        for start in range(0, len(stale), _FETCH_CHUNK):
            fetched.update(_rows_of(kind, model.objects.filter(pk__in=stale[start:start + _FETCH_CHUNK])))
        kept: dict[int, tuple[int, dict, dict]] = {}
        for pk, rv in listed:
            row = fetched.get(pk) or known.get(pk)
            if row is not None:  # (a row deleted between the two queries is left out)
                kept[pk] = row
        rows[kind] = kept
        for pk in [*(pk for pk in stale if pk in known), *(known.keys() - kept.keys())]:
            if kept.get(pk) is not known[pk]:
                dropped.append(known[pk])
    if previous is None:
        read = _Read(cluster.revision, rows)
        read.docs = [doc for kind_rows in rows.values() for _, doc, _ in kind_rows.values()]
        return read
    return _successor(previous, cluster.revision, rows, dropped)


def _successor(previous: _Read, revision: int, rows: dict[str, dict[int, tuple[int, dict, dict]]],
               dropped: list[tuple[int, dict, dict]]) -> _Read:
    """The read of `rows` at `revision`, made from `previous` with `dropped` (its rows not
    in `rows`) left out. It keeps previous's memo and texts, less the entries of the
    documents and rows dropped: what is left is keyed by documents and rows of this read
    only (an id of one dropped may be taken by a new one once it is freed, so every dropped
    one's entry goes)."""
    read = _Read(revision, rows)
    read.docs = [doc for kind_rows in rows.values() for _, doc, _ in kind_rows.values()]
    read.memo = dict(previous.memo)
    read.texts = dict(previous.texts)
    for _, doc, row in dropped:
        read.memo.pop(id(doc), None)
        read.texts.pop(id(row), None)
    return read


def read_after_writes(cluster: Cluster, base: int, revision: int, written: dict[str, tuple[list[int], list[int]]]) -> _Read | None:
    """The cluster's read at `revision`, made from its read at `base` by reading only the
    rows `written` names (kind -> (primary keys created or replaced, primary keys deleted):
    services.write_batch's) instead of listing every row. Call it in the writing
    transaction, after the writes, with the cluster's row lock held since before them, when
    those writes are all that happened between the two revisions; hand the result to
    `keep_read` once the transaction is committed. None when there is no read at `base` to
    start from (or a row written is not found): the next `_current` reads the changes itself."""
    with _reads_lock:
        previous = _READS.get(_key(cluster))
    if previous is None or previous.revision != base or revision == base or not written:
        return None
    rows: dict[str, dict[int, tuple[int, dict, dict]]] = {}
    dropped: list[tuple[int, dict, dict]] = []
    for kind, model in KIND_MODELS.items():
        known = previous.rows.get(kind, {})
        if kind not in written:
            rows[kind] = known  # (a read's rows are never changed: shared)
            continue
        changed, deleted = written[kind]
        kept = dict(known)
        for pk in deleted:
            row = kept.pop(pk, None)
            if row is not None:
                dropped.append(row)
        changed = sorted(set(changed) - set(deleted))
        fetched: dict[int, tuple[int, dict, dict]] = {}
        for start in range(0, len(changed), _FETCH_CHUNK):
            fetched.update(_rows_of(kind, model.objects.filter(pk__in=changed[start:start + _FETCH_CHUNK])))
        if len(fetched) != len(changed):
            return None
        last = next(reversed(kept), None)
        in_order = True
        for pk in changed:
            row = kept.get(pk)
            if row is not None:
                dropped.append(row)
            elif last is not None and pk < last:
                in_order = False  # a new row with a key below one kept: pk order is rebuilt below
            kept[pk] = fetched[pk]
        rows[kind] = kept if in_order else dict(sorted(kept.items()))
    return _successor(previous, revision, rows, dropped)


def keep_read(cluster: Cluster, read: _Read | None) -> None:
    """Keep `read` (read_after_writes's) as the cluster's shared read, unless a newer one is
    kept already."""
    if read is None:
        return
    key = _key(cluster)
    with _reads_lock:
        kept = _READS.get(key)
        if kept is not None and kept.revision >= read.revision:
            return
        _READS[key] = read
        _READS.move_to_end(key)
        while len(_READS) > _READS_KEPT:
            _READS.popitem(last=False)
    _settle()


def _current(cluster: Cluster) -> _Read:
    """The cluster's read, brought up to its revision. The database is read without the lock
    held (two threads may both read; either result is right)."""
    key = _key(cluster)
    with _reads_lock:
        read = _READS.get(key)
        if read is not None and read.revision == cluster.revision:
            _READS.move_to_end(key)
            return read
    with collector_paused():
        read = _read(cluster, read)
        with _reads_lock:
            _READS[key] = read
            while len(_READS) > _READS_KEPT:
                _READS.popitem(last=False)
        _settle()  # (inside the pause: the collector never meets what the read made)
    return read


_SETTLES_PER_SWEEP = 50
_settles = 0


def _settle() -> None:
    """Keep the cyclic collector out of the shared read: after a read (or the engine state
    built from it) is made, every object alive is moved to the collector's permanent
    generation (gc.freeze, a list splice: constant time). A full collection otherwise walks
    the whole read (about half a CPU second at 10,000 pods) whenever the objects a write
    makes pass a quarter of the old ones, which put it inside an apply one time in two.

    The read's documents and rows are dicts and lists freed by reference counting when a
    newer read replaces them; what is frozen and cyclic waits for the sweep: every
    _SETTLES_PER_SWEEP-th call unfreezes instead, so the next full collection looks at
    everything once."""
    global _settles
    with _reads_lock:
        _settles += 1
        if _settles % _SETTLES_PER_SWEEP == 0:
            gc.unfreeze()
        else:
            gc.freeze()


def forget(cluster: Cluster) -> None:
    """Drop the cluster's read: after a rolled-back transaction that wrote (training's dry
    runs), whose revisions the next writes take again with other contents."""
    with _reads_lock:
        _READS.pop(_key(cluster), None)


def documents_where(cluster: Cluster, kind: str, **filters) -> list[dict]:
    """The documents of the cluster's objects of `kind` whose rows match `filters` (Django
    field lookups, e.g. `node_name__in=[...]`), pk order, read from the database alone:
    what a command that reads a few objects reads (`oc describe node`), without the whole
    cluster."""
    rows = _rows_of(kind, KIND_MODELS[kind].objects.filter(cluster=cluster, **filters).order_by("pk"))
    return [doc for _, doc, _ in rows.values()]


def shared_documents(cluster: Cluster) -> tuple[list[dict], dict[int, tuple]]:
    """(every stored object as `cluster_documents` returns them, the engine objects already
    built from them: a memo for build_state and engine.simulation.Simulation(memo=...)).

    The documents are shared by every caller in this process: read them, never change
    them (copy first); hand the Simulation a copy of the memo."""
    read = _current(cluster)
    return list(read.docs), read.memo


def cluster_rows(cluster: Cluster) -> list[dict]:
    """Every stored object's columns (`{"kind": ..., **ROW_FIELDS}`; pods also POD_FIELDS),
    KIND_MODELS order, pk order: what `values()` of each kind returns, from the shared read.
    Read them, never change them."""
    read = _current(cluster)
    return [{"kind": kind, **row} for kind, kind_rows in read.rows.items() for _, _, row in kind_rows.values()]


def cluster_row_items(cluster: Cluster) -> list[tuple[str, dict]]:
    """(kind, the object's columns) for every stored object, KIND_MODELS order, pk order,
    from the shared read: the rows themselves, not copies (read them, never change them)."""
    read = _current(cluster)
    return [(kind, row) for kind, kind_rows in read.rows.items() for _, _, row in kind_rows.values()]


def cluster_rows_json(cluster: Cluster) -> str:
    """`json.dumps(cluster_rows(cluster))`, each row encoded once per version in this
    process (a snapshot of a large cluster writes mostly the rows of the one before)."""
    read = _current(cluster)
    texts = read.texts
    parts = []
    for kind, kind_rows in read.rows.items():
        for _, _, row in kind_rows.values():
            text = texts.get(id(row))
            if text is None:
                text = texts[id(row)] = json.dumps({"kind": kind, **row})
            parts.append(text)
    return "[" + ", ".join(parts) + "]"


def cluster_state(cluster: Cluster) -> ClusterState:
    """The engine's snapshot of a stored cluster (the scheduler, previews and the explainer),
    built once per revision of the cluster in this process from the shared documents;
    objects the engine cannot use are left out. The objects are shared (they are
    immutable); the lists are the caller's."""
    read = _current(cluster)
    with collector_paused():
        with _reads_lock:
            if read.state is None:
                memo = read.memo
                read.state, _ = with_usable_documents(read.docs, lambda docs: build_state(docs, memo))
                built = True
            else:
                built = False
            state = _fresh_lists(read.state)
        if built:
            _settle()  # (inside the pause: the collector never meets what the build made)
    return state


def _fresh_lists(state: ClusterState) -> ClusterState:
    return dataclasses.replace(state, **{
        f.name: list(getattr(state, f.name)) for f in dataclasses.fields(state) if isinstance(getattr(state, f.name), list)
    })


def controllers_state(cluster: Cluster) -> dict[str, dict[str, Any]]:
    """Each controller's own state as the last reconcile left it (controller name -> its
    dict; engine.controller), e.g. `["taint-manager"]["default/web"]` = eviction time."""
    return (cluster.controller_state or {}).get("controllers") or {}


def eviction_timers(cluster: Cluster) -> dict[str, float]:
    """"<namespace>/<name>" -> when the NoExecute taint manager deletes the pod."""
    timers = controllers_state(cluster).get(taint_manager.NAME) or {}
    return {key: float(t) for key, t in timers.items() if sim_time(t) is not None}


def eviction_time(cluster: Cluster, namespace: str, name: str) -> int | float | None:
    """When the taint manager's timer deletes this pod (None: no timer), as shown."""
    t = eviction_timers(cluster).get(taint_manager.pod_key(namespace, name))
    return None if t is None else time_value(t)


def cluster_schedulers(cluster: Cluster):
    """The schedulers the cluster runs, [(schedulerName, a 3.11 Policy or a framework
    Profile)]: its stored configuration, and its ClusterVersion choosing between them
    (what the event loop runs: scheduling.store.reconcile)."""
    versions = cluster_versions(cluster)
    configs = [cluster.policy, *(cluster.scheduler_policies or {}).values()]
    try:
        return select_schedulers(configs, versions)
    except ConfigError:
        return select_schedulers([], versions)


def cluster_versions(cluster: Cluster) -> list[dict]:
    """The cluster's ClusterVersion documents (what selects its scheduler)."""
    return [d for d in _current(cluster).docs if d.get("kind") == "ClusterVersion"]
