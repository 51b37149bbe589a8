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

from scheduling import clock, reconcile, services
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
