"""The update pages on a stored cluster: Cluster Settings (version, channel, the channel's
updates with their known issues, the facts the risks query, the update button for editors)
and the progress page, driven by the real reconcile on the simulated clock."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scheduling.store import clock, reconcile, services
from scheduling.models import Cluster, ClusterVersion
from tests.updates.clusters import ONE_WORKER

pytestmark = pytest.mark.django_db

CLUSTER = ONE_WORKER


@pytest.fixture
def cluster():
    c = services.import_new_cluster("upd", CLUSTER, "cluster.yaml")
    reconcile.reconcile(c.pk, force=True)
    c.refresh_from_db()
    return c


def cv(cluster) -> dict:
    return ClusterVersion.objects.get(cluster=cluster, name="version").document


def settings_page(client, cluster, query: str = "") -> str:
    return client.get(reverse("update-settings", args=[cluster.pk]) + query).content.decode()


def test_the_settings_page_shows_the_version_the_channel_and_the_recommended_updates(client, cluster):
    body = settings_page(client, cluster)
    assert "Cluster version is <strong>4.13.19</strong>" in body
    assert '<option value="stable-4.14" selected>stable-4.14</option>' in body
    assert 'id="target-4-14-58"' in body and "Recommended</span>" in body
    assert 'id="target-4-14-50"' not in body  # a known issue (LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO) is hidden
    assert "with known issues hidden" in body
    assert "Update to 4.14.58" not in body  # anonymous users cannot update


def test_including_known_issues_shows_the_risks_and_their_links(client, cluster):
    body = settings_page(client, cluster, "?known_issues=1")
    assert 'id="target-4-14-50"' in body
    assert "Recommended=False" in body and "LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO" in body
    assert '<a href="https://issues.redhat.com/browse/MCO-1585"' in body


def test_a_viewer_cannot_start_an_update(viewer_client, cluster):
    response = viewer_client.post(reverse("update-request", args=[cluster.pk]), {"version": "4.14.58"})
    assert response.status_code == 403
    assert "desiredUpdate" not in cv(cluster)["spec"]


def test_an_editor_starts_a_recommended_update_and_sees_it_progress(editor_client, cluster):
    assert "Update to 4.14.58" in settings_page(editor_client, cluster)
    response = editor_client.post(reverse("update-request", args=[cluster.pk]), {"version": "4.14.58"})
    assert response.status_code == 302 and response["Location"] == reverse("update-progress", args=[cluster.pk])
    assert cv(cluster)["spec"]["desiredUpdate"]["version"] == "4.14.58"
    clock.step(Cluster.objects.get(pk=cluster.pk), 600)
    reconcile.reconcile(cluster.pk)
    body = editor_client.get(reverse("update-progress", args=[cluster.pk])).content.decode()
    assert "Updating to 4.14.58" in body
    assert 'id="runlevel-20"' in body and 'class="op done"' in body
    assert "Target Version:  4.14.58 (from 4.13.19)" in body  # the oc adm upgrade status text
    assert 'id="mcp-worker"' in body


def test_a_not_recommended_update_needs_the_risk_accepted(editor_client, cluster):
    response = editor_client.post(reverse("update-request", args=[cluster.pk]), {"version": "4.14.50", "known_issues": "1"},
                                  follow=True)
    body = response.content.decode()
    assert "the update 4.14.50 is not one of the recommended updates, but is available as a conditional update" in body
    assert "desiredUpdate" not in cv(cluster)["spec"]
    editor_client.post(reverse("update-request", args=[cluster.pk]), {"version": "4.14.50", "accept_risks": "1"})
    assert cv(cluster)["spec"]["desiredUpdate"]["version"] == "4.14.50"


def test_the_facts_change_which_risks_apply(editor_client, cluster):
    def recommended(version: str) -> dict:
        for u in cv(cluster)["status"]["conditionalUpdates"]:
            if u["release"]["version"] == version:
                return u["conditions"][0]
        raise AssertionError(version)

    assert "Nodes on AWS with custom domain names" in recommended("4.14.15")["message"]
    editor_client.post(reverse("update-facts", args=[cluster.pk]), {"platform": "GCP", "networkType": "OVNKubernetes",
                                                                     "capabilities": ["Console", "ImageRegistry"]})
    cluster.refresh_from_db()
    assert cluster.facts["platform"] == "GCP"
    reconcile.reconcile(cluster.pk)
    assert "Nodes on AWS with custom domain names" not in recommended("4.14.15")["message"]


def test_the_channel_picker_sets_the_channel(editor_client, cluster):
    editor_client.post(reverse("update-channel", args=[cluster.pk]), {"channel": "fast-4.14"})
    assert cv(cluster)["spec"]["channel"] == "fast-4.14"


def test_an_operator_made_degraded_from_the_page_stalls_the_update(editor_client, cluster):
    editor_client.post(reverse("update-request", args=[cluster.pk]), {"version": "4.14.58"})
    response = editor_client.post(reverse("update-inject", args=[cluster.pk]),
                                  {"kind": "ClusterOperator", "name": "etcd", "action": "degrade", "message": "etcd member down"})
    assert response.status_code == 302
    clock.step(Cluster.objects.get(pk=cluster.pk), 1800)
    reconcile.reconcile(cluster.pk)
    failing = {c["type"]: c for c in cv(cluster)["status"]["conditions"]}["Failing"]
    assert (failing["status"], failing["message"]) == ("True", "Cluster operator etcd is degraded")
    body = editor_client.get(reverse("update-progress", args=[cluster.pk])).content.decode()
    assert "Cluster operator etcd is degraded" in body and "etcd member down" in body


def test_a_pool_paused_from_the_page_does_not_update_until_resumed(editor_client, cluster):
    from scheduling.models import MachineConfigPool

    editor_client.post(reverse("update-pool", args=[cluster.pk]), {"pool": "worker", "action": "pause"})
    worker = MachineConfigPool.objects.get(cluster=cluster, name="worker").document
    assert worker["spec"]["paused"] is True
    body = editor_client.get(reverse("update-progress", args=[cluster.pk])).content.decode()
    assert 'name="action" value="resume"' in body
    editor_client.post(reverse("update-pool", args=[cluster.pk]), {"pool": "worker", "action": "resume"})
    assert MachineConfigPool.objects.get(cluster=cluster, name="worker").document["spec"]["paused"] is False


def test_a_channel_set_while_the_cvo_writes_the_status_is_retried_on_a_fresh_read(client, cluster, monkeypatch):
    """The CVO rewrites the ClusterVersion's status while a user's request runs (a separate
    worker does, in distributed mode): the user's change is made again on a fresh read, as
    oc's RetryOnConflict does, instead of failing the page."""
    from updates import services as update_services

    real, conflicts = services.replace_object, []

    def busy_cvo(c, doc, **kwargs):
        if not conflicts:
            conflicts.append(doc["metadata"]["name"])
            raise services.Conflict("ClusterVersion", "version")
        return real(c, doc, **kwargs)

    monkeypatch.setattr(services, "replace_object", busy_cvo)
    update_services.set_channel(cluster, "fast-4.14")
    assert conflicts == ["version"] and cv(cluster)["spec"]["channel"] == "fast-4.14"


def test_a_conflict_that_keeps_coming_is_the_api_server_s_message(cluster, monkeypatch):
    from updates import services as update_services

    def always(c, doc, **kwargs):
        raise services.Conflict("ClusterVersion", "version")

    monkeypatch.setattr(services, "replace_object", always)
    with pytest.raises(update_services.UpdateError, match=r"^Error from server \(Conflict\): Operation cannot be fulfilled on "
                                                          r"clusterversions.config.openshift.io \"version\""):
        update_services.set_channel(cluster, "fast-4.14")
