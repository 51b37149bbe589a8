"""Snapshots of a stored cluster, for going back to an earlier simulated moment.

`take_snapshot_if_due(cluster)` is called by reconcile after each write: it keeps the
cluster as it stands (every object's stored row, the cluster's own fields including the
controllers' state, and the events as they stood) at most every INTERVAL simulated seconds,
after every write made by someone else (an edit), and always the first time (the
scenario's t=0). `restore(cluster, snapshot)` puts one back exactly; rewinding to a time
between two snapshots is then done by the controllers running forward from the snapshot
(training.rewind), which the deterministic engine makes give the recorded history again.
So the cost of a rewind is one snapshot restored plus at most INTERVAL simulated seconds of
reconcile, whatever the distance rewound.

Full snapshots at intervals plus the event-sourced changes between them (deltas). A full snapshot holds every row (`objects_rows`) and every event (`events`); a
delta holds only what changed since the snapshot before it: the rows created or replaced
(`changes`), the keys deleted (`deleted`) and the events new or bumped (`event_changes`).
A full one may carry such a patch too (the writes made later at its own simulated time,
merged into it). The state at a snapshot is the latest full one at or before it, patched
by each snapshot after it in order (`_materialise`). A full snapshot is taken at the start,
after FULL_EVERY deltas, when the changes since the last full one pass FULL_FRACTION of the
objects (and FULL_MIN_ROWS), and when this process does not know the state at the latest snapshot (what it
diffs against is kept in memory per process: `_SEEN`, keyed by a token each snapshot row
gets anew whenever it is written, so a row written elsewhere or rolled back is never
diffed against). Thinning (`_thin`) folds a dropped snapshot into the one after it, so
the chain stays whole. One snapshot per simulated time: a later write at the same time
goes into the latest snapshot (its patch), as it replaced it before deltas.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import OrderedDict

from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from scheduling.store import services
from scheduling.store.changes import Change, note
from scheduling.models import KIND_MODELS, Cluster, ClusterSnapshot, Event
from scheduling.store.state import cluster_row_items, cluster_rows_json

INTERVAL = 60.0  # simulated seconds between snapshots
MAX_SNAPSHOTS = 120  # per cluster; beyond, the one whose loss leaves the shortest gap goes
FULL_EVERY = 30  # deltas after a full snapshot before the next full one
FULL_FRACTION = 0.2  # a full snapshot when the changes since the last one pass this share of the objects
FULL_MIN_ROWS = 500  # ... and this many rows (below, a chain of deltas costs next to nothing to restore)

# The cluster's own fields a snapshot keeps (not the name, seed, speed or revision: the
# revision only grows, so that every write after a restore is newer than any before).
CLUSTER_FIELDS = (
    "now", "policy", "scheduler_policies", "preemption_enabled", "admission", "reconciled_to",
    "controller_state", "descheduler", "admission_config", "facts",
)

Key = tuple  # (kind, namespace, name)
_BIG = ("objects_rows", "events", "changes", "deleted", "event_changes")  # read only when needed

# token of a snapshot row -> (its objects' rows as the shared read holds them, kind -> {id(row): row};
# its events, ({id: count}, {id: last_time})). Dicts of dicts, no tuple per row: what is kept
# here lives long, and the cyclic collector looks at every container that does.
_SEEN: OrderedDict[str, tuple[dict, dict]] = OrderedDict()
_SEEN_KEPT = 8
_seen_lock = threading.Lock()


def _remember(token: str, versions: dict, events: dict) -> None:
    with _seen_lock:
        _SEEN[token] = (versions, events)
        while len(_SEEN) > _SEEN_KEPT:
            _SEEN.popitem(last=False)


def _seen(snapshot: ClusterSnapshot | None) -> tuple[dict, dict] | None:
    token = (snapshot.marks or {}).get("token") if snapshot is not None else None
    with _seen_lock:
        return _SEEN.get(token) if token else None


def _key(row: dict) -> Key:
    return row["kind"], row["namespace"], row["name"]


def _current_events(cluster: Cluster) -> tuple[dict[int, int], dict[int, float]]:
    """({id: count}, {id: last_time}) of every event of the cluster (one query, no model objects)."""
    meta = Event._meta
    quote = connection.ops.quote_name
    sql = (f"SELECT {quote(meta.pk.column)}, {quote(meta.get_field('count').column)}, "
           f"{quote(meta.get_field('last_time').column)} FROM {quote(meta.db_table)} "
           f"WHERE {quote(meta.get_field('cluster').column)} = %s")
    with connection.cursor() as cursor:
        cursor.execute(sql, [cluster.pk])
        fetched = cursor.fetchall()
    return {pk: count for pk, count, _ in fetched}, {pk: last_time for pk, _, last_time in fetched}


def _rows_now(cluster: Cluster) -> dict[str, dict[int, dict]]:
    rows: dict[str, dict[int, dict]] = {}
    for kind, row in cluster_row_items(cluster):
        rows.setdefault(kind, {})[id(row)] = row
    return rows


def take_snapshot(cluster: Cluster) -> ClusterSnapshot:
    """The cluster as it is now, at its reconciled time, in one consistent read (writers
    wait on the cluster's row meanwhile): a delta against the latest snapshot when this
    process knows the state there, else a full snapshot."""
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        at = cluster.reconciled_to
        ClusterSnapshot.objects.filter(cluster=cluster, at__gt=at).delete()
        latest = ClusterSnapshot.objects.filter(cluster=cluster).order_by("-at", "-pk").defer(*_BIG).first()
        rows = _rows_now(cluster)
        events = _current_events(cluster)
        counts, times = events
        fields = {f: getattr(cluster, f) for f in CLUSTER_FIELDS}
        fields["now"] = at
        same = latest is not None and latest.at == at  # a later write at the same time: into that snapshot
        seen = _seen(latest)
        patch = None
        if seen is not None:
            seen_rows, (seen_counts, seen_times) = seen
            changes, deleted = _diff(seen_rows, rows)
            event_changes = [[pk, count, times[pk]] for pk, count in counts.items()
                             if seen_counts.get(pk) != count or seen_times.get(pk) != times[pk]]
            marks = latest.marks or {}
            chain = int(marks.get("chain") or 0) + len(changes) + len(deleted)
            deltas = int(marks.get("deltas") or 0) + (0 if same else 1)
            objects = sum(len(kind_rows) for kind_rows in rows.values())
            if chain <= max(FULL_FRACTION * objects, FULL_MIN_ROWS) and deltas <= FULL_EVERY:
                patch = (changes, deleted, event_changes)
                new_marks = {"chain": chain, "deltas": deltas}
        token = uuid.uuid4().hex
        if patch is None:
            # Every object's stored row as JSON: read once per process and encoded once per
            # version (state.cluster_rows_json), handed to the database as it is.
            every_row = RawSQL("%s::jsonb" if connection.vendor == "postgresql" else "%s", [cluster_rows_json(cluster)])
            values = {"full": True, "objects_rows": every_row, "events": [[pk, counts[pk], times[pk]] for pk in sorted(counts)],
                      "changes": [], "deleted": [], "event_changes": [], "marks": {"token": token}}
        elif same:
            merged = _merge(_patch_of(latest), patch)
            values = {"changes": merged[0], "deleted": merged[1], "event_changes": merged[2],
                      "marks": {**new_marks, "token": token}}
        else:
            values = {"full": False, "objects_rows": [], "events": [], "changes": patch[0], "deleted": patch[1],
                      "event_changes": patch[2], "marks": {**new_marks, "token": token}}
        if same:
            ClusterSnapshot.objects.filter(pk=latest.pk).update(revision=cluster.revision, fields=fields, **values)
            snapshot = ClusterSnapshot.objects.defer(*_BIG).get(pk=latest.pk)
        else:
            snapshot = ClusterSnapshot.objects.create(cluster=cluster, at=at, revision=cluster.revision, fields=fields, **values)
            snapshot = ClusterSnapshot.objects.defer(*_BIG).get(pk=snapshot.pk)  # (the rows: read back if asked for)
        _remember(token, rows, events)
        _thin(cluster)
        return snapshot


def _diff(seen: dict[str, dict[int, dict]], now: dict[str, dict[int, dict]]) -> tuple[list[dict], list[list]]:
    """(the rows created or replaced, the keys deleted) from `seen` to `now`, both
    kind -> {id(row): row} of the shared read's rows (state.cluster_row_items). The shared
    read keeps the same row object while the object is unchanged and `_SEEN` keeps the
    rows it knows alive, so an id found in both is the same, unchanged row: only the
    others are looked at."""
    changes: list[dict] = []
    deleted: list[list] = []
    for kind in list(now) + [k for k in seen if k not in now]:
        seen_rows, now_rows = seen.get(kind, {}), now.get(kind, {})
        before = {(row["namespace"], row["name"]): (row["uid"], row["resource_version"])
                  for row in (seen_rows[i] for i in seen_rows.keys() - now_rows.keys())}
        for row in sorted((now_rows[i] for i in now_rows.keys() - seen_rows.keys()), key=lambda r: r["name"]):
            if before.pop((row["namespace"], row["name"]), None) != (row["uid"], row["resource_version"]):
                changes.append({"kind": kind, **row})
        deleted.extend([kind, namespace, name] for namespace, name in sorted(before))
    return changes, deleted


def _patch_of(snapshot: ClusterSnapshot) -> tuple[list, list, list]:
    row = ClusterSnapshot.objects.values_list("changes", "deleted", "event_changes").get(pk=snapshot.pk)
    return row[0] or [], row[1] or [], row[2] or []


def _merge(first: tuple[list, list, list], then: tuple[list, list, list]) -> tuple[list, list, list]:
    """One patch doing what `first` then `then` do."""
    rows = {_key(r): r for r in first[0]}
    gone = {tuple(k) for k in first[1]} | {tuple(k) for k in then[1]}
    for key in then[1]:
        rows.pop(tuple(key), None)
    for row in then[0]:
        rows[_key(row)] = row
    events = {e[0]: e for e in first[2]}
    events.update((e[0], e) for e in then[2])
    return list(rows.values()), [list(k) for k in sorted(gone - rows.keys())], [events[pk] for pk in sorted(events)]


def _apply(objects: dict[Key, dict], events: dict[int, tuple], patch: tuple[list, list, list]) -> None:
    changes, deleted, event_changes = patch
    for key in deleted:
        objects.pop(tuple(key), None)
    for row in changes:
        objects[_key(row)] = row
    for pk, count, last_time in event_changes:
        events[pk] = (count, last_time)


def _materialise(snapshot: ClusterSnapshot) -> tuple[dict[Key, dict], dict[int, tuple]]:
    """(every object's row by key, every event's (count, last_time) by id) as they stood at
    the snapshot: the latest full snapshot at or before it, patched by those after it in order."""
    chain = []
    earlier = (ClusterSnapshot.objects.filter(cluster_id=snapshot.cluster_id, at__lte=snapshot.at)
               .order_by("-at", "-pk").values_list("pk", "at", "full"))
    for pk, at, full in earlier:
        if at == snapshot.at and pk > snapshot.pk:
            continue
        chain.append(pk)
        if full:
            break
    else:  # (thinning folds a full snapshot into the next: never happens)
        raise ValueError(f"no full snapshot at or before t={snapshot.at:g} of cluster {snapshot.cluster_id}")
    chain.reverse()
    objects: dict[Key, dict] = {}
    events: dict[int, tuple] = {}
    base = ClusterSnapshot.objects.filter(pk=chain[0]).values_list("objects_rows", "events").get()
    objects.update((_key(row), row) for row in base[0])
    events.update((pk, (count, last_time)) for pk, count, last_time in base[1])
    patches = ClusterSnapshot.objects.filter(pk__in=chain).values_list("pk", "changes", "deleted", "event_changes")
    by_pk = {pk: (changes or [], deleted or [], event_changes or []) for pk, changes, deleted, event_changes in patches}
    for pk in chain:
        _apply(objects, events, by_pk[pk])
    return objects, events


def rows_at(snapshot: ClusterSnapshot) -> list[dict]:
    """Every object's stored row as it stood at the snapshot (`state.cluster_rows` shape,
    KIND_MODELS order)."""
    objects, _ = _materialise(snapshot)
    order = {kind: i for i, kind in enumerate(KIND_MODELS)}
    return sorted(objects.values(), key=lambda row: order.get(row["kind"], len(order)))


def _thin(cluster: Cluster) -> None:
    """Keep at most MAX_SNAPSHOTS, spread over the whole run: the start and the latest stay;
    of the others, the one whose loss leaves the shortest gap goes (the oldest of equals),
    folded into the one after it (which becomes a full snapshot if it was a delta on a full
    one that goes). A rewind into a wider gap replays a longer stretch."""
    kept = list(ClusterSnapshot.objects.filter(cluster=cluster).order_by("at", "pk").values_list("pk", "at", "full"))
    while len(kept) > MAX_SNAPSHOTS:
        i = min(range(1, len(kept) - 1), key=lambda j: (kept[j + 1][1] - kept[j - 1][1], kept[j][1]))
        pk, at, full = kept.pop(i)
        after_pk, after_at, after_full = kept[i]
        if not after_full:
            if full:  # the one after becomes the full snapshot the later deltas start from
                objects, events = _materialise(ClusterSnapshot.objects.defer(*_BIG).get(pk=pk))
                ClusterSnapshot.objects.filter(pk=after_pk).update(
                    full=True, objects_rows=list(objects.values()), events=[[e, *events[e]] for e in sorted(events)])
                kept[i] = (after_pk, after_at, True)
            else:
                gone = ClusterSnapshot.objects.values_list("changes", "deleted", "event_changes").get(pk=pk)
                then = ClusterSnapshot.objects.values_list("changes", "deleted", "event_changes").get(pk=after_pk)
                merged = _merge(gone, then)
                ClusterSnapshot.objects.filter(pk=after_pk).update(
                    changes=merged[0], deleted=merged[1], event_changes=merged[2])
        ClusterSnapshot.objects.filter(pk=pk).delete()


def take_snapshot_if_due(cluster: Cluster) -> ClusterSnapshot | None:
    """Called by reconcile after the controllers' write, with the cluster as it read it
    before the run. A snapshot is due when something else wrote since the previous run (an
    edit, an import: those are not replayed by the controllers, so the history keeps each
    one), else when none was taken in the last INTERVAL simulated seconds (the controllers
    alone replay the same in between), and the first time."""
    reconciled_to = Cluster.objects.filter(pk=cluster.pk).values_list("reconciled_to", flat=True).first()
    if reconciled_to is None:
        return None
    written = (cluster.controller_state or {}).get("revision") != cluster.revision
    latest = ClusterSnapshot.objects.filter(cluster_id=cluster.pk).order_by("-at").values_list("at", flat=True).first()
    if latest is not None and not written and reconciled_to < latest + INTERVAL:
        return None
    return take_snapshot(cluster)


def record_start(cluster: Cluster) -> None:
    """The cluster's t=0 when nothing recorded it yet (a scenario just loaded, before the
    controllers first ran): what "Restart" goes back to even if the clock is moved before
    the first reconcile."""
    fresh = Cluster.objects.filter(pk=cluster.pk, now=0, reconciled_to=0).exists()
    if fresh and not ClusterSnapshot.objects.filter(cluster_id=cluster.pk).exists():
        take_snapshot(cluster)


def latest_at_or_before(cluster: Cluster, at: float) -> ClusterSnapshot | None:
    return ClusterSnapshot.objects.filter(cluster=cluster, at__lte=at).order_by("-at", "-pk").defer(*_BIG).first()


def first(cluster: Cluster) -> ClusterSnapshot | None:
    return ClusterSnapshot.objects.filter(cluster=cluster).order_by("at", "pk").defer(*_BIG).first()


def first_at(cluster: Cluster) -> float | None:
    """The time of the cluster's first snapshot, without reading the snapshot itself (a
    large cluster's is megabytes of JSON, and the board asks for this on every render)."""
    return ClusterSnapshot.objects.filter(cluster=cluster).order_by("at").values_list("at", flat=True).first()


@transaction.atomic
def restore(cluster: Cluster, snapshot: ClusterSnapshot, *, events_from: Cluster | None = None) -> None:
    """Put the cluster back as the snapshot holds it, paused; forget the later snapshots.

    `events_from`: the cluster the snapshot was taken of, when restoring it into another one
    (a fork): its events are copied. Otherwise the cluster's own events are cut back."""
    objects, stood = _materialise(snapshot)
    shown = services.restore_cluster(cluster, objects, stood, dict(snapshot.fields), snapshot.revision, events_from)
    ClusterSnapshot.objects.filter(cluster=cluster, at__gt=snapshot.at).delete()
    token = (snapshot.marks or {}).get("token")
    if events_from is None and token:
        # The cluster is now as it stood at its latest snapshot: the next one is a delta on it.
        restored = Cluster.objects.get(pk=cluster.pk)  # (its new revision: the shared read follows)
        _remember(token, _rows_now(restored), _current_events(restored))
    # Tell the open pages (every node card, the queue, the events, the clock) after commit,
    # and let the controllers run.
    for name in sorted(shown):
        note(cluster.pk, Change("Node", name))
    for kind in ("Pod", "Event", "Cluster"):
        note(cluster.pk, Change(kind))
    services.request_reconcile(cluster.pk)
    cluster.refresh_from_db()
