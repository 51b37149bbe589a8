"""Delta snapshots: a full snapshot now and then, deltas in
between; restoring any snapshot gives exactly the state recorded then, through the chain of
deltas, after deletions, after thinning, and in a process that did not take them."""

from __future__ import annotations

import pytest

from scheduling.store import clock, reconcile, services, snapshots, state
from scheduling.training import sessions as training
from scheduling.models import KIND_MODELS, Cluster, ClusterSnapshot, Event

pytestmark = pytest.mark.django_db


def exact(cluster: Cluster) -> dict:
    """Everything a snapshot must give back, exactly: every object's stored row (uid and
    resource_version included), every event with its id, and the cluster's own fields."""
    cluster = Cluster.objects.get(pk=cluster.pk)
    objects = sorted(
        (kind, row["namespace"], row["name"], row["uid"], row["resource_version"], repr(sorted(row.items())))
        for kind, model in KIND_MODELS.items()
        for row in model.objects.filter(cluster=cluster).values(*state._fields_of(kind))
    )
    events = list(Event.objects.filter(cluster=cluster).order_by("pk").values_list(
        "pk", "count", "first_time", "last_time", "reason", "involved_kind", "involved_name", "message"))
    controller_state = {k: v for k, v in (cluster.controller_state or {}).items() if k != "revision"}
    fields = {f: getattr(cluster, f) for f in snapshots.CLUSTER_FIELDS if f != "controller_state"}
    return {"objects": objects, "events": events, "controller_state": controller_state, "fields": fields}


def latest(cluster: Cluster) -> ClusterSnapshot:
    return ClusterSnapshot.objects.filter(cluster=cluster).order_by("-at").first()


def a_web_pod(cluster: Cluster) -> str:
    return KIND_MODELS["Pod"].objects.filter(cluster=cluster, name__startswith="web-").order_by("name")[0].name


EDITS = {
    "label node2": lambda c, i: _label(c, "node2", f"edit-{i}"),
    "delete a web pod": lambda c, i: services.delete_object(c, "Pod", a_web_pod(c), "default"),
    "create a pod": lambda c, i: services.create_object(c, {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"extra-{i}", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
}


def _label(cluster: Cluster, node: str, value: str) -> None:
    doc = services.get_object(cluster, "Node", node).document
    doc["metadata"].setdefault("labels", {})["edited"] = value
    services.replace_object(cluster, doc)


def run_with_edits(cluster: Cluster, until: float, step: float = 10.0) -> dict[float, dict]:
    """Play to `until` in steps, an edit every third step (a label, a pod deleted, a pod
    created, in turn), and the controllers' own deletions (the evictions at t=410) on the
    way. Returns the exact state at each snapshot, as it stood when that snapshot was last written."""
    recorded: dict[float, dict] = {}
    edits = list(EDITS.values())
    n = 0
    while Cluster.objects.get(pk=cluster.pk).now < until:
        if n % 3 == 0:
            edits[(n // 3) % len(edits)](Cluster.objects.get(pk=cluster.pk), n)
            reconcile.reconcile(cluster.pk)
            recorded[latest(cluster).at] = exact(cluster)
        clock.step(Cluster.objects.get(pk=cluster.pk), step)
        before = latest(cluster).marks
        reconcile.reconcile(cluster.pk)
        if latest(cluster).marks != before:  # a snapshot was written
            recorded[latest(cluster).at] = exact(cluster)
        n += 1
    return recorded


def check_every_snapshot_restores_exactly(cluster: Cluster, recorded: dict[float, dict]) -> None:
    kept = list(ClusterSnapshot.objects.filter(cluster=cluster).order_by("-at"))
    assert kept
    for snapshot in kept:  # latest first: a restore forgets the later ones
        snapshots.restore(Cluster.objects.get(pk=cluster.pk), snapshot)
        assert exact(cluster) == recorded[snapshot.at], f"restored at t={snapshot.at:g}"


def test_restoring_through_a_chain_of_deltas_gives_exactly_the_recorded_state():
    cluster = services.load_scenario("default-toleration-seconds")
    reconcile.reconcile(cluster.pk)
    recorded = {0.0: exact(cluster)}
    recorded.update(run_with_edits(cluster, 480))
    taken = list(ClusterSnapshot.objects.filter(cluster=cluster).order_by("at").values_list("at", "full", "changes", "deleted"))
    objects = len(exact(cluster)["objects"])
    # One full snapshot at the start; every later one holds only what changed: the pods
    # deleted by an edit, the pods created, the pod the eviction at t=410 marks for deletion.
    assert [full for _, full, _, _ in taken] == [True] + [False] * (len(taken) - 1)
    assert len(taken) >= 10
    assert all(len(changes) < objects for _, _, changes, _ in taken[1:])
    deleted_pods = {name for _, _, _, deleted in taken for kind, _, name in deleted if kind == "Pod"}
    assert "patient" not in deleted_pods and any(name.startswith("web-") for name in deleted_pods)
    evicted = [row for at, _, changes, _ in taken if at >= 410.0 for row in changes if row["kind"] == "Pod"]
    assert any(row["metadata"].get("deletionTimestamp") for row in evicted)  # node1's web pod, evicted at t=410
    check_every_snapshot_restores_exactly(cluster, recorded)


def test_a_rewind_and_a_fork_from_a_delta_give_the_recorded_state():
    cluster = services.load_scenario("default-toleration-seconds")
    reconcile.reconcile(cluster.pk)
    recorded = run_with_edits(cluster, 300)
    at = max(t for t in recorded if t <= 200)
    assert not ClusterSnapshot.objects.get(cluster=cluster, at=at).full
    fork = training.fork_at(Cluster.objects.get(pk=cluster.pk), at, "forked")
    forked = exact(fork)
    assert [(o[0], o[1], o[2], o[5]) for o in forked["objects"]] == [(o[0], o[1], o[2], o[5]) for o in recorded[at]["objects"]]
    assert [e[1:] for e in forked["events"] if e[4] != "Forked"] == [e[1:] for e in recorded[at]["events"]]
    shown = Cluster.objects.get(pk=cluster.pk)
    training.rewind(shown, at, confirmed=shown.revision)
    rewound = exact(cluster)
    assert rewound["objects"] == recorded[at]["objects"]
    assert [e for e in rewound["events"] if e[4] != "Rewound"] == recorded[at]["events"]


def test_thinning_folds_deltas_and_full_snapshots_into_the_next_and_restores_stay_exact(monkeypatch):
    monkeypatch.setattr(snapshots, "MAX_SNAPSHOTS", 5)
    monkeypatch.setattr(snapshots, "FULL_EVERY", 2)  # F D D F D D F ...: full snapshots get thinned too
    cluster = services.load_scenario("default-toleration-seconds")
    reconcile.reconcile(cluster.pk)
    created_as: dict[int, bool] = {}
    recorded = {0.0: exact(cluster)}
    original = snapshots.take_snapshot

    def take(c):
        snapshot = original(c)
        created_as.setdefault(snapshot.pk, snapshot.full)
        return snapshot

    monkeypatch.setattr(snapshots, "take_snapshot", take)
    recorded.update(run_with_edits(cluster, 480))
    kept = list(ClusterSnapshot.objects.filter(cluster=cluster).order_by("at").values_list("pk", "at", "full"))
    # the latest snapshot is the latest one recorded (a reconcile with nothing due moves
    # reconciled_to on without a snapshot)
    assert len(kept) == 5 and kept[0][1] == 0.0 and kept[-1][1] == max(recorded)
    # A delta whose full snapshot was thinned away became the full one the later deltas start from.
    assert any(full and created_as.get(pk) is False for pk, _, full in kept)
    check_every_snapshot_restores_exactly(cluster, recorded)


def test_a_process_that_did_not_take_the_latest_snapshot_takes_a_full_one_and_restores_stay_exact():
    cluster = services.load_scenario("default-toleration-seconds")
    reconcile.reconcile(cluster.pk)
    recorded = run_with_edits(cluster, 60)
    snapshots._SEEN.clear()  # another process: it does not know what the latest snapshot holds
    _label(Cluster.objects.get(pk=cluster.pk), "node3", "elsewhere")
    reconcile.reconcile(cluster.pk)
    assert latest(cluster).full and latest(cluster).at > 0
    recorded[latest(cluster).at] = exact(cluster)
    _label(Cluster.objects.get(pk=cluster.pk), "node3", "then")
    clock.step(Cluster.objects.get(pk=cluster.pk), 10)
    reconcile.reconcile(cluster.pk)
    assert not latest(cluster).full  # ... and deltas again on top of it
    recorded[latest(cluster).at] = exact(cluster)
    check_every_snapshot_restores_exactly(cluster, recorded)


def test_a_next_step_question_runs_the_loop_on_a_copy_and_writes_nothing():
    """training's next-step questions run the cluster's loop on a copy (previews.preview_actions
    with no change): the answer has the controllers' work, the cluster has none of it."""
    cluster = services.load_scenario("default-toleration-seconds")
    reconcile.reconcile(cluster.pk)
    recorded = run_with_edits(cluster, 30)
    revision = Cluster.objects.get(pk=cluster.pk).revision
    snapshots = latest(cluster).at
    before, after = training._run_on_copy(Cluster.objects.get(pk=cluster.pk), 120)  # node1: NotReady at 105, tainted at 110
    node1 = next(d for d in after if d["kind"] == "Node" and d["metadata"]["name"] == "node1")
    assert node1["spec"]["taints"]
    assert Cluster.objects.get(pk=cluster.pk).revision == revision and latest(cluster).at == snapshots
    assert "taints" not in services.get_object(cluster, "Node", "node1").document.get("spec", {})
    check_every_snapshot_restores_exactly(cluster, recorded)
