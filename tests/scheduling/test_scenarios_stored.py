"""Built-in scenarios load from the cluster list and play on the stored cluster's clock,
exactly as `simulate --until` plays them: the same events (time, reason, object, message),
the same pod names, the same nodes, however the stored clock is stepped."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse

from scheduling.store import clock, kube, reconcile, services
from scheduling import tasks
from scheduling.engine import scenarios
from scheduling.engine.scenarios import SCENARIOS
from scheduling.engine.simulate import simulate
from scheduling.models import Cluster, Event, Pod

pytestmark = pytest.mark.django_db


def test_the_cluster_list_offers_every_scenario(client):
    body = client.get("/").content.decode()
    for scenario in SCENARIOS:
        assert scenario.title in body


def test_a_viewer_cannot_load_a_scenario(viewer_client):
    assert viewer_client.post(reverse("scenario-load", args=["toleration-seconds"])).status_code == 403
    assert not Cluster.objects.exists()


def simulated(scenario, until: float) -> tuple[list[tuple], dict[str, tuple]]:
    """`simulate --until`: (the events as the store keeps them, pod -> (node, phase))."""
    result = simulate(kube.load_documents(Path(scenarios.path(scenario)).read_text()), until=until)
    events: dict[tuple, list] = {}
    for e in result["events"]:  # the store counts repeats of one event (object, reason, message, type)
        key = (e["object"], e["reason"], e["message"], e["type"])
        if key in events:
            events[key][4] += 1
        else:
            events[key] = [e["time"], e["reason"], e["object"], e["message"], 1]
    pods = {p["pod"]: (p["node"], p["phase"]) for p in result["pods"] if p["phase"] != "Deleted"}
    return [tuple(v) for v in events.values()], pods


def stored(cluster: Cluster) -> tuple[list[tuple], dict[str, tuple]]:
    events = [
        (e.first_time, e.reason, f"{e.involved_kind}/{e.involved_namespace + '/' if e.involved_namespace else ''}{e.involved_name}",
         e.message, e.count)
        for e in Event.objects.filter(cluster=cluster).order_by("first_time", "id")
    ]
    pods = {}
    for p in Pod.objects.filter(cluster=cluster):
        doc = p.document
        phase = "Terminating" if doc["metadata"].get("deletionTimestamp") is not None else p.phase
        pods[f"{p.namespace}/{p.name}"] = (p.node_name or None, phase)
    return events, pods


def play_stored(cluster: Cluster, steps: list[float]) -> None:
    reconcile.reconcile(cluster.pk)
    for step in steps:
        clock.step(Cluster.objects.get(pk=cluster.pk), step)
        reconcile.reconcile(cluster.pk)


def steps_of(total: float, size: float) -> list[float]:
    out, remaining = [], total
    while remaining > 1e-9:
        out.append(min(size, remaining))
        remaining -= out[-1]
    return out


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_each_scenario_loads_and_plays_as_simulate_does(editor_client, scenario):
    """The stored cluster, stepped unevenly through its clock by the controllers, records
    the same events at the same simulated times as `simulate --until` on the scenario's
    file, and ends with the same pods on the same nodes."""
    response = editor_client.post(reverse("scenario-load", args=[scenario.name]))
    cluster = Cluster.objects.get(name=scenario.name)
    assert response.status_code == 302 and response["Location"] == reverse("cluster-detail", args=[cluster.pk])
    play_stored(cluster, steps_of(scenario.until, 37.0))  # uneven steps: the event-driven controllers must not care
    assert stored(cluster) == simulated(scenario, scenario.until)


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param([600.0], id="one +600 s step"),
        pytest.param([60.0] * 10, id="ten +60 s steps"),
        pytest.param(steps_of(600, 37.0), id="uneven +37 s steps"),
    ],
)
def test_default_toleration_seconds_is_the_same_however_the_clock_is_stepped(steps):
    """Four ways of playing `default-toleration-seconds` (seed 0): `simulate
    --until 600` and three ways of stepping a stored cluster to 600 s give the same
    events, the same replacement pod name and the same node."""
    cluster = services.load_scenario("default-toleration-seconds")
    play_stored(cluster, steps)
    events, pods = stored(cluster)
    expected_events, expected_pods = simulated("default-toleration-seconds", 600)
    assert events == expected_events
    assert pods == expected_pods
    replacement = [e for e in events if e[1] == "Scheduled" and e[0] == 410.0]
    assert len(replacement) == 1  # the evicted pod's replacement, placed at 410 s


def test_default_toleration_seconds_played_at_60x_is_the_same_as_simulate():
    """The third way: the clock played at 60x, moved by the beat's ticks (about one a
    wall second, unevenly) through `tasks.advance_clock`, gives what `simulate --until 600`
    gives."""
    cluster = services.load_scenario("default-toleration-seconds")
    reconcile.reconcile(cluster.pk)
    clock.play(Cluster.objects.get(pk=cluster.pk), 60)
    anchor = Cluster.objects.get(pk=cluster.pk).clock_anchor
    for wall in (0.8, 1.9, 2.6, 3.95, 5.1, 5.7, 7.0, 8.3, 9.1, 10.0):
        tasks.advance_clock(cluster.pk, (anchor + timedelta(seconds=wall)).isoformat())
    assert Cluster.objects.get(pk=cluster.pk).now == pytest.approx(600)
    assert stored(cluster) == simulated("default-toleration-seconds", 600)


def test_a_timeline_is_exported_and_imported_with_the_cluster():
    cluster = services.load_scenario("toleration-seconds")
    docs = services.export_documents(cluster)
    assert [d["kind"] for d in docs].count("Timeline") == 1

    copy = services.create_cluster("copy")
    services.apply_documents(copy, kube.check_documents(docs))
    assert services.export_documents(copy) == docs
