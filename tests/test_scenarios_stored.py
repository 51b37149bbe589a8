"""Built-in scenarios load from the cluster list and play on the stored cluster's clock."""

import pytest
from django.urls import reverse

from scheduling import clock, reconcile, services
from scheduling.engine.scenarios import SCENARIOS
from scheduling.models import Cluster, Event

pytestmark = pytest.mark.django_db


def test_the_cluster_list_offers_every_scenario(client):
    body = client.get("/").content.decode()
    for scenario in SCENARIOS:
        assert scenario.title in body


def test_a_viewer_cannot_load_a_scenario(viewer_client):
    assert viewer_client.post(reverse("scenario-load", args=["toleration-seconds"])).status_code == 403
    assert not Cluster.objects.exists()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_each_scenario_loads_and_plays_as_simulate_does(editor_client, scenario):
    """The stored cluster, stepped through its clock by the controllers, records the same
    events at the same simulated times as `simulate --until` on the scenario's file."""
    from pathlib import Path

    from scheduling import kube
    from scheduling.engine import scenarios
    from scheduling.engine.simulate import simulate

    response = editor_client.post(reverse("scenario-load", args=[scenario.name]))
    cluster = Cluster.objects.get(name=scenario.name)
    assert response.status_code == 302 and response["Location"] == reverse("cluster-detail", args=[cluster.pk])
    reconcile.reconcile(cluster.pk)
    remaining = scenario.until
    while remaining > 0:  # uneven steps: the event-driven controllers must not care
        step = min(remaining, 37.0)
        clock.step(Cluster.objects.get(pk=cluster.pk), step)
        reconcile.reconcile(cluster.pk)
        remaining -= step

    expected = simulate(kube.load_documents(Path(scenarios.path(scenario)).read_text()), until=scenario.until)["events"]
    stored = [
        (e.first_time, e.reason, f"{e.involved_kind}/{e.involved_namespace + '/' if e.involved_namespace else ''}{e.involved_name}")
        for e in Event.objects.filter(cluster=cluster).order_by("first_time", "id")
    ]
    wanted = [(e["time"], e["reason"], e["object"]) for e in expected]
    # Replacement pods get random name suffixes from each run's own generator; only
    # those may differ.
    assert sorted(set(map(_unsuffixed, stored))) == sorted(set(map(_unsuffixed, wanted)))


def _unsuffixed(event):
    import re

    time, reason, obj = event
    return time, reason, re.sub(r"-[bcdfghjklmnpqrstvwxz2456789]{5}$", "-xxxxx", obj)


def test_a_timeline_is_exported_and_imported_with_the_cluster():
    cluster = services.load_scenario("toleration-seconds")
    docs = services.export_documents(cluster)
    assert [d["kind"] for d in docs].count("Timeline") == 1
    from scheduling import kube

    copy = services.create_cluster("copy")
    services.apply_documents(copy, kube.check_documents(docs))
    assert services.export_documents(copy) == docs
