"""Snapshots of a stored cluster, for going back to an earlier simulated moment.

`take_snapshot_if_due(cluster)` is called by reconcile after each write: it keeps the whole
cluster (every object's stored row, the cluster's own fields including the controllers'
state, and the events as they stood) at most every INTERVAL simulated seconds, and always
the first time (the scenario's t=0). `restore(cluster, snapshot)` puts one back exactly;
rewinding to a time between two snapshots is then done by the controllers running forward
from the snapshot (training.rewind), which the deterministic engine makes give the
recorded history again. So the cost of a rewind is one snapshot write plus at most
INTERVAL simulated seconds of reconcile, whatever the distance rewound.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from . import services
from .changes import Change, note
from .models import KIND_MODELS, Cluster, ClusterSnapshot, Event
from .state import cluster_rows_json

INTERVAL = 60.0  # simulated seconds between snapshots
MAX_SNAPSHOTS = 120  # per cluster; beyond, the one whose loss leaves the shortest gap goes

# The cluster's own fields a snapshot keeps (not the name, seed, speed or revision: the
# revision only grows, so that every write after a restore is newer than any before).
CLUSTER_FIELDS = (
    "now", "policy", "scheduler_policies", "preemption_enabled", "admission", "reconciled_to",
    "controller_state", "descheduler", "admission_config", "facts",
)


def take_snapshot(cluster: Cluster) -> ClusterSnapshot:
    """The cluster as it is now, at its reconciled time, in one consistent read."""
    with transaction.atomic():
        cluster = Cluster.objects.get(pk=cluster.pk)
        # Every object's stored row as JSON: read once per process and encoded once per
        # version (state.cluster_rows_json), handed to the database as it is.
        rows = RawSQL("%s::jsonb" if connection.vendor == "postgresql" else "%s", [cluster_rows_json(cluster)])
        events = [list(e) for e in Event.objects.filter(cluster=cluster).order_by("pk").values_list("pk", "count", "last_time")]
        fields = {f: getattr(cluster, f) for f in CLUSTER_FIELDS}
        fields["now"] = cluster.reconciled_to
        ClusterSnapshot.objects.filter(cluster=cluster, at__gte=cluster.reconciled_to).delete()
        snapshot = ClusterSnapshot.objects.create(
            cluster=cluster, at=cluster.reconciled_to, revision=cluster.revision, fields=fields, objects_rows=rows, events=events,
        )
        del snapshot.objects_rows  # (the expression): read back from the database if asked for (a deferred field)
        _thin(cluster)
        return snapshot


def _thin(cluster: Cluster) -> None:
    """Keep at most MAX_SNAPSHOTS, spread over the whole run: the start and the latest stay;
    of the others, the one whose loss leaves the shortest gap goes (the oldest of equals).
    A rewind into a wider gap replays a longer stretch."""
    kept = list(ClusterSnapshot.objects.filter(cluster=cluster).order_by("at").values_list("pk", "at"))
    while len(kept) > MAX_SNAPSHOTS:
        i = min(range(1, len(kept) - 1), key=lambda j: (kept[j + 1][1] - kept[j - 1][1], kept[j][1]))
        ClusterSnapshot.objects.filter(pk=kept.pop(i)[0]).delete()


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
    return ClusterSnapshot.objects.filter(cluster=cluster, at__lte=at).order_by("-at").first()


def first(cluster: Cluster) -> ClusterSnapshot | None:
    return ClusterSnapshot.objects.filter(cluster=cluster).order_by("at").first()


def first_at(cluster: Cluster) -> float | None:
    """The time of the cluster's first snapshot, without reading the snapshot itself (a
    large cluster's is megabytes of JSON, and the board asks for this on every render)."""
    return ClusterSnapshot.objects.filter(cluster=cluster).order_by("at").values_list("at", flat=True).first()


@transaction.atomic
def restore(cluster: Cluster, snapshot: ClusterSnapshot, *, events_from: Cluster | None = None) -> None:
    """Put the cluster back as the snapshot holds it, paused; forget the later snapshots.

    `events_from`: the cluster the snapshot was taken of, when restoring it into another one
    (a fork): its events are copied. Otherwise the cluster's own events are cut back."""
    Cluster.objects.select_for_update().get(pk=cluster.pk)
    shown = _restore_objects(cluster, snapshot)
    _restore_events(cluster, snapshot, events_from)
    fields = dict(snapshot.fields)
    revision = Cluster.objects.values_list("revision", flat=True).get(pk=cluster.pk) + 1
    state = dict(fields.get("controller_state") or {})
    if state.get("revision") == snapshot.revision:
        # The controllers had caught up with every write when the snapshot was taken: they
        # have caught up with the restored cluster too (nothing to run until their next due time).
        state["revision"] = revision
    fields["controller_state"] = state
    Cluster.objects.filter(pk=cluster.pk).update(**fields, paused=True, clock_anchor=None, revision=revision)
    ClusterSnapshot.objects.filter(cluster=cluster, at__gt=snapshot.at).delete()
    # Tell the open pages (every node card, the queue, the events, the clock) after commit,
    # and let the controllers run.
    for name in sorted(shown):
        note(cluster.pk, Change("Node", name))
    for kind in ("Pod", "Event", "Cluster"):
        note(cluster.pk, Change(kind))
    services.request_reconcile(cluster.pk)
    cluster.refresh_from_db()


def _restore_objects(cluster: Cluster, snapshot: ClusterSnapshot) -> set[str]:
    """Rewrite only the objects that differ from the snapshot: a row with the same uid and
    resource_version is the same document (every write takes a new resource_version).
    Returns the nodes whose cards change (a changed node, the nodes of a changed pod)."""
    wanted: dict[tuple[str, str, str], dict] = {(r["kind"], r["namespace"], r["name"]): r for r in snapshot.objects_rows}
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


def _restore_events(cluster: Cluster, snapshot: ClusterSnapshot, source: Cluster | None) -> None:
    stood = {pk: (count, last_time) for pk, count, last_time in snapshot.events}
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
