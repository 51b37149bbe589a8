"""The previews of the machine and update pages are the cluster's own loop run on a copy
(scheduling.engine.preview): what a preview shows is what the stored cluster records once
the same change is applied and its clock advanced by the same time, event for event and
pod for pod. And the fragments say it to people: which machines go or come, which pods are
evicted and where they start again, which evictions a PodDisruptionBudget refuses."""

from __future__ import annotations

import html as htmllib
import re
from collections import Counter

import pytest
from django.urls import reverse

from scheduling.store import clock, reconcile, services
from scheduling.models import Cluster, Event, KIND_MODELS, Pod
from updates import machine_previews as MP
from updates import services as update_services

from .clusters import WEB_BEHIND_A_PDB, node, scenario_objects, update_cluster

pytestmark = pytest.mark.django_db

NS = "openshift-machine-api"
SET = "ci-7xk2p-worker-us-east-1a"
OLDEST = ("ci-7xk2p-worker-us-east-1a-4bk7q", "ip-10-0-21-11.ec2.internal")  # deletePolicy Oldest picks it first
# the log-flush scenario's three workers and six web pods, one of which a PDB lets go at a time
WEB_PDB = """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, namespace: default}
spec: {minAvailable: 5, selector: {matchLabels: {app: web}}}
"""


def text(html: str) -> str:
    return htmllib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def machines_cluster(name: str = "machines") -> Cluster:
    objects = scenario_objects("machine-log-flush").replace("replicas: 3\n  selector:\n    matchLabels: {app: web}",
                                                            "replicas: 6\n  selector:\n    matchLabels: {app: web}")
    cluster = services.import_new_cluster(name, objects + WEB_PDB, "cluster.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    clock.step(Cluster.objects.get(pk=cluster.pk), 30)  # the change comes at 30 s, after the pods started
    reconcile.reconcile(cluster.pk)
    return Cluster.objects.get(pk=cluster.pk)


def recorded(cluster: Cluster, since: float) -> Counter:
    """The events the stored cluster recorded from `since` on, each repeat counted."""
    out = Counter()
    for e in Event.objects.filter(cluster=cluster, last_time__gte=since - 1e-9):
        out[(e.type, e.reason, f"{e.involved_kind}/{e.involved_namespace}/{e.involved_name}".replace("//", "/"), e.message)] += e.count
    return out


def previewed(events) -> Counter:
    return Counter((e["type"], e["reason"], e["object"].replace("//", "/"), e["message"]) for e in events)


def stored_pods(cluster: Cluster) -> list[tuple]:
    return sorted((f"{p.namespace}/{p.name}", p.document["spec"].get("nodeName") or None,
                   bool(p.document["metadata"].get("deletionTimestamp"))) for p in Pod.objects.filter(cluster=cluster))


def preview_pods(pods) -> list[tuple]:
    return sorted((p["pod"], p["node"], p["terminating"]) for p in pods)


def apply_and_advance(cluster: Cluster, step: MP.Step, write) -> Cluster:
    """The same change written through the page, then the stored clock advanced as far as the preview ran."""
    write()
    reconcile.reconcile(cluster.pk)
    clock.step(Cluster.objects.get(pk=cluster.pk), step.until - step.at)
    reconcile.reconcile(cluster.pk)
    return Cluster.objects.get(pk=cluster.pk)


def test_a_scale_down_preview_is_what_the_cluster_records_after_the_scale(editor_client):
    cluster = machines_cluster()
    step = MP.preview_scale(cluster, NS, SET, 1)
    assert step.at == cluster.now == 30
    # the loop ran until nothing more happened: the two machines drained, held by their
    # preTerminate hook for 90 s, then deleted with their nodes
    assert sorted((m["name"], m["gone"]) for m in step.machines) == [
        ("ci-7xk2p-worker-us-east-1a-4bk7q", True), ("ci-7xk2p-worker-us-east-1a-9xz2m", True)]
    assert sorted(step.nodes_gone) == ["ip-10-0-21-11.ec2.internal", "ip-10-0-22-12.ec2.internal"]
    assert len(step.gone) == 4 and {g["node"] for g in step.gone} == set(step.nodes_gone)
    assert len(step.started) == 4 and {s["node"] for s in step.started} == {"ip-10-0-23-13.ec2.internal"}

    url = reverse("machineset-scale", args=[cluster.pk, NS, SET])
    after = apply_and_advance(cluster, step, lambda: editor_client.post(url, {"replicas": "1"}))
    assert after.now == step.until
    assert recorded(after, step.at) == previewed(step.events)
    assert stored_pods(after) == preview_pods(step.pods)
    assert sorted(KIND_MODELS["Machine"].objects.filter(cluster=after).values_list("name", flat=True)) == [
        "ci-7xk2p-worker-us-east-1a-t6w8c"]


def test_a_machine_deletion_preview_is_what_the_cluster_records_after_the_deletion(editor_client):
    cluster = machines_cluster()
    machine, node_name = OLDEST
    step = MP.preview_machine_delete(cluster, NS, machine)
    # the machine goes, and its MachineSet creates a replacement whose node joins
    assert sorted((m["name"] == machine, m["gone"], m["created"], m["after"]) for m in step.machines) == [
        (False, False, True, "Running"), (True, True, False, "")]
    assert step.nodes_gone == [node_name] and len(step.nodes_new) == 1
    # two web pods ran there; the PDB (minAvailable 5 of 6) lets one go at a time: the drain
    # evicts the second once the first one's replacement runs, 5 s later
    assert sorted(g["time"] for g in step.gone) == [0.0, 5.0] and {g["node"] for g in step.gone} == {node_name}
    assert sorted(s["time"] for s in step.started) == [0.0, 5.0]
    assert not {s["node"] for s in step.started} & {node_name}

    url = reverse("machine-delete", args=[cluster.pk, NS, machine])
    after = apply_and_advance(cluster, step, lambda: editor_client.post(url))
    assert recorded(after, step.at) == previewed(step.events)
    assert stored_pods(after) == preview_pods(step.pods)


UPDATE_CLUSTER = update_cluster(node("master-0", "master"), node("worker-0", "worker", created=0),
                                node("worker-1", "worker", created=1), WEB_BEHIND_A_PDB)


def update_cluster_at_clock() -> Cluster:
    cluster = services.import_new_cluster("upd", UPDATE_CLUSTER, "cluster.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    clock.step(Cluster.objects.get(pk=cluster.pk), 30)  # the request comes at 30 s, after the pods started
    reconcile.reconcile(cluster.pk)
    return Cluster.objects.get(pk=cluster.pk)


def test_an_update_preview_shows_the_pools_that_roll_and_the_drain_a_pdb_blocks(editor_client):
    cluster = update_cluster_at_clock()
    response = editor_client.post(reverse("update-preview", args=[cluster.pk]), {"version": "4.14.58"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    shown = text(html)
    assert "Preview: update to 4.14.58" in shown and "Nothing has changed yet." in shown
    # the PDB (minAvailable 2 of 2) refuses worker-0's drain: the update never finishes within the preview
    assert "After 14400 s the update is not finished: the cluster reports version 4.14.58" in shown
    assert re.search(r'<tr data-pool="master">\s*<th scope="row">master</th>\s*<td>1/1</td>', html)
    assert re.search(r'<tr data-pool="worker">\s*<th scope="row">worker</th>\s*<td>0/2</td>', html)
    stuck = text(re.search(r'<div class="stuck-drain" data-stuck="worker-0">.*?</div>', html, re.S).group(0))
    assert "The disruption budget web-pdb needs 2 healthy pods and has 2 currently (disruptions allowed: 0)" in stuck
    assert "Nodes drained for the update: master-0, worker-0; rebooted: master-0." in shown
    assert "DrainThresholdExceeded Node/openshift-machine-config-operator/worker-0" in shown
    assert "Request the update to 4.14.58" in shown
    assert "desiredUpdate" not in update_services._cluster_version(cluster)[0]["spec"]  # nothing written


def test_an_update_preview_is_what_the_cluster_records_after_the_request(editor_client):
    cluster = update_cluster_at_clock()
    preview = update_services.preview_update(cluster, "4.14.58")
    assert not preview.done and preview.step.until - preview.step.at == update_services.UPDATE_HORIZON
    url = reverse("update-request", args=[cluster.pk])
    after = apply_and_advance(cluster, preview.step, lambda: editor_client.post(url, {"version": "4.14.58"}))
    assert recorded(after, preview.step.at) == previewed(preview.step.events)
    assert stored_pods(after) == preview_pods(preview.step.pods)


def test_viewers_preview_an_update_but_cannot_request_it(viewer_client):
    cluster = update_cluster_at_clock()
    page = text(viewer_client.get(reverse("update-settings", args=[cluster.pk])).content.decode())
    assert "Preview the update to 4.14.58…" in page
    shown = text(viewer_client.post(reverse("update-preview", args=[cluster.pk]), {"version": "4.14.58"},
                                    HTTP_HX_REQUEST="true").content.decode())
    assert "Preview: update to 4.14.58" in shown and "Log in as an editor to request updates." in shown
    refused = text(viewer_client.post(reverse("update-preview", args=[cluster.pk]), {"version": "9.9.9"},
                                      HTTP_HX_REQUEST="true").content.decode())
    assert "This update cannot be requested:" in refused
