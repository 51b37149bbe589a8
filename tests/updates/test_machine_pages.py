"""The Machine API pages: MachineSets and Machines with phases, conditions and nodes; a
machine's deletion drawn as the lifecycle hooks documentation's flow with the current step lit and the hooks
holding it; an editor acting as a hook's owner lets the machine proceed; viewers only look."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scheduling.store import clock, reconcile, services
from scheduling.models import Cluster

pytestmark = pytest.mark.django_db

NS = "openshift-machine-api"
VICTIM = "ci-7xk2p-worker-us-east-1a-4bk7q"


def scenario(name: str) -> Cluster:
    cluster = services.load_scenario(name)
    reconcile.reconcile(cluster.pk)
    return Cluster.objects.get(pk=cluster.pk)


def step(cluster: Cluster, seconds: float) -> None:
    clock.step(Cluster.objects.get(pk=cluster.pk), seconds)
    reconcile.reconcile(cluster.pk)


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())).strip()


def current_step(response) -> str:
    match = re.search(r'<li class="step current" aria-current="step" data-step="(\d+)">', response.content.decode())
    return match.group(1) if match else ""


def test_the_machines_page_lists_machinesets_machines_and_their_nodes(client):
    cluster = scenario("machine-deletion-hooks")
    response = client.get(reverse("machines", args=[cluster.pk]))
    assert response.status_code == 200
    page = text(response)
    assert "ci-7xk2p-worker-us-east-1a 3 3 3 3 0s Oldest none" in page
    # hooks present: Drainable and Terminable are False even before any deletion (setLifecycleHookConditions)
    assert (f"{VICTIM} Running ip-10-0-21-11.ec2.internal Drainable=False Terminable=False preDrain: MigrateImportantApp "
            "preTerminate: BackupFileSystem preTerminate: CloudProviderSpecialCase preTerminate: WaitForStorageDetach 0s") in page


def test_an_editor_deletes_a_machine_and_acts_as_each_hook_owner(editor_client):
    cluster = scenario("machine-deletion-hooks")
    url = reverse("machine-detail", args=[cluster.pk, NS, VICTIM])
    page = editor_client.get(url)
    assert current_step(page) == "" and "Preview deleting the machine" in text(page)

    # the preview: the loop on a copy, the hooks holding the machine as its controller holds it
    preview = editor_client.post(reverse("machine-delete-preview", args=[cluster.pk, NS, VICTIM]), HTTP_HX_REQUEST="true")
    shown = text(preview)
    assert f"Preview: delete machine/{VICTIM}" in shown and "Nothing has changed yet." in shown
    assert f"oc delete machine {VICTIM} -n {NS}" in shown
    assert re.search(rf'<tr data-machine="{VICTIM}" data-after="Deleting">', preview.content.decode())
    assert "DrainBlocked" in preview.content.decode() and "Delete machine" in shown
    assert services.get_object(cluster, "Machine", VICTIM, NS).document["metadata"].get("deletionTimestamp") is None

    applied = editor_client.post(reverse("machine-delete", args=[cluster.pk, NS, VICTIM]), {"page": "preview"},
                                 HTTP_HX_REQUEST="true")
    assert f'machine.machine.openshift.io &quot;{VICTIM}&quot; deleted' in text(applied)
    reconcile.reconcile(cluster.pk)
    page = editor_client.get(url)
    assert current_step(page) == "3"
    assert "Phase Deleting" in text(page)
    assert ("Drainable False Warning HookPresent Drain operation currently blocked by: "
            "[{Name:MigrateImportantApp Owner:my-app-migration-controller}]") in text(page)
    assert "Act as my-app-migration-controller: remove" in text(page)

    response = editor_client.post(reverse("machine-hooks", args=[cluster.pk, NS, VICTIM]),
                                  {"op": "remove", "point": "preDrain", "hook": "MigrateImportantApp"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and 'data-hook="MigrateImportantApp"' not in response.content.decode()
    reconcile.reconcile(cluster.pk)
    step(cluster, 30)
    page = editor_client.get(url)
    assert current_step(page) == "7", "drained; the preTerminate hooks hold the instance"
    assert "Drained True Drain finished successfully" in text(page)

    for hook in ("BackupFileSystem", "CloudProviderSpecialCase", "WaitForStorageDetach"):
        editor_client.post(reverse("machine-hooks", args=[cluster.pk, NS, VICTIM]), {"op": "remove", "point": "preTerminate", "hook": hook})
    reconcile.reconcile(cluster.pk)
    page = editor_client.get(url)
    assert current_step(page) == "9"
    step(cluster, 30)
    page = editor_client.get(url)
    assert "Deleted : the machine is gone" in text(page)
    assert [r for r in re.findall(r'data-reason="(\w+)"', page.content.decode())] == [
        "DrainBlocked", "DrainProceeds", "Deleted", "DrainSucceeded", "Delete"]


def test_an_owner_can_add_a_hook_back(editor_client):
    cluster = scenario("machine-deletion-hooks")
    editor_client.post(reverse("machine-hooks", args=[cluster.pk, NS, VICTIM]),
                       {"op": "add", "point": "preTerminate", "hook": "Extra", "owner": "me"})
    doc = services.get_object(cluster, "Machine", VICTIM, NS).document
    assert doc["spec"]["lifecycleHooks"]["preTerminate"][-1] == {"name": "Extra", "owner": "me"}


def test_viewers_cannot_change_machines(viewer_client):
    cluster = scenario("machine-deletion-hooks")
    assert viewer_client.post(reverse("machine-delete", args=[cluster.pk, NS, VICTIM])).status_code == 403
    assert viewer_client.post(reverse("machine-hooks", args=[cluster.pk, NS, VICTIM]),
                              {"op": "remove", "point": "preDrain", "hook": "MigrateImportantApp"}).status_code == 403
    assert viewer_client.post(reverse("machineset-scale", args=[cluster.pk, NS, "ci-7xk2p-worker-us-east-1a"]),
                              {"replicas": "1"}).status_code == 403
    page = viewer_client.get(reverse("machine-detail", args=[cluster.pk, NS, VICTIM]))
    html = page.content.decode()
    # the live fragment is the same for every viewer: its "act as owner" buttons are editor
    # controls, which a viewer's page hides and gives no form to post through
    assert '<div id="machine-page" hx-ext="ws,live" ws-connect="/ws/clusters/%d/">' % cluster.pk in html
    assert 'id="hook-remove-preDrain"' not in html and 'aria-label="add a hook"' not in html
    assert re.findall(r'<button [^>]*>Act as [^<]*</button>', html)
    assert all('class="editor-control"' in b for b in re.findall(r'<button [^>]*>Act as [^<]*</button>', html))
    assert "Delete machine" not in text(page)


def test_scaling_a_machineset_from_the_page(editor_client):
    cluster = scenario("machine-log-flush")
    preview = editor_client.post(reverse("machineset-scale-preview", args=[cluster.pk, NS, "ci-7xk2p-worker-us-east-1a"]),
                                 {"replicas": "4"}, HTTP_HX_REQUEST="true")
    shown = text(preview)
    assert "Preview: scale machineset/ci-7xk2p-worker-us-east-1a to 4" in shown
    # the loop runs until the new machine is provisioned and its node joined
    assert re.search(r"\(new\) Running ip-[\d-]+\.ec2\.internal", shown), shown
    assert "Nodes that join: ip-" in shown and "Scale to 4" in shown
    editor_client.post(reverse("machineset-scale", args=[cluster.pk, NS, "ci-7xk2p-worker-us-east-1a"]), {"replicas": "4"})
    reconcile.reconcile(cluster.pk)
    page = text(editor_client.get(reverse("machines", args=[cluster.pk])))
    assert "ci-7xk2p-worker-us-east-1a 4 4 3 3 0s Oldest" in page
    assert page.count("Provisioning") == 1


def test_the_quorum_view_during_the_etcd_scenario(client):
    cluster = scenario("etcd-quorum-guard")
    step(cluster, 60)  # master-2 deleted
    step(cluster, 310)  # t=370: the fourth member is a learner
    page = text(client.get(reverse("machine-detail", args=[cluster.pk, NS, "ci-7xk2p-master-2"])))
    assert "4 members , 3 voting , 1 learner ; 3 healthy of the 2 needed for quorum quorum" in page
    assert "learner: Running, not ready (receiving the database)" in page
    assert "preDrain EtcdQuorumOperator owned by clusteroperator/etcd" in page


def test_an_owners_write_that_loses_a_race_is_retried_on_the_fresh_machine(editor_client, monkeypatch):
    cluster = scenario("machine-deletion-hooks")
    real = services.replace_object
    calls = []

    def racing(cluster_, doc, expected_version=None):
        calls.append(expected_version)
        if len(calls) == 1:  # a controller wrote the machine's status meanwhile
            raise services.Conflict("Machine", VICTIM)
        return real(cluster_, doc, expected_version=expected_version)

    monkeypatch.setattr(services, "replace_object", racing)
    editor_client.post(reverse("machine-hooks", args=[cluster.pk, NS, VICTIM]),
                       {"op": "remove", "point": "preDrain", "hook": "MigrateImportantApp"})
    assert len(calls) == 2
    doc = services.get_object(cluster, "Machine", VICTIM, NS).document
    assert "preDrain" not in doc["spec"]["lifecycleHooks"]
