"""The one-truth commands: `manage.py clock` moves a stored cluster and runs its controllers
before it returns, `manage.py import_cluster --seed`, `manage.py preview` prints what the
cluster then records, and `manage.py oc --cluster` writes are reconciled before it returns,
with no worker."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from scheduling.management.commands.oc import Command as OcCommand
from scheduling.management.commands.preview import Command as PreviewCommand
from scheduling.models import Cluster, Event, Pod

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}, capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 30
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def run(command, *argv: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = command().main(list(argv), io.StringIO(""), out, err)
    return out.getvalue(), err.getvalue(), code


@pytest.fixture
def cluster(db, tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    call_command("import_cluster", "web", str(path), "--seed", "7", stdout=io.StringIO())
    return Cluster.objects.get(name="web")


def pods(cluster) -> list[tuple[str, str, str]]:
    return sorted((p.name, p.node_name, p.document["metadata"].get("creationTimestamp")) for p in Pod.objects.filter(cluster=cluster))


def test_an_import_runs_every_first_sync_with_the_seed_given(cluster):
    assert cluster.seed == 7
    assert [(node, created) for _, node, created in pods(cluster)] == [("node1", 0)] * 2


def test_clock_advances_and_runs_the_controllers_before_it_returns(cluster):
    out = io.StringIO()
    call_command("clock", "web", "--advance", "600", stdout=out)
    assert out.getvalue() == 'cluster "web": t=600\n'
    cluster.refresh_from_db()
    assert (cluster.now, cluster.reconciled_to) == (600.0, 600.0)
    out = io.StringIO()
    call_command("clock", "web", "--to", "900.5", stdout=out)
    assert out.getvalue() == 'cluster "web": t=900.5\n'


def test_clock_refuses_to_go_back_or_a_cluster_that_does_not_exist(cluster):
    call_command("clock", "web", "--advance", "60", stdout=io.StringIO())
    with pytest.raises(CommandError, match=r"--to 10: the clock is at t=60 s and does not go back"):
        call_command("clock", "web", "--to", "10")
    with pytest.raises(CommandError, match='no cluster named "nope"'):
        call_command("clock", "nope", "--advance", "1")
    with pytest.raises(CommandError, match="must be a number of seconds"):
        call_command("clock", "web", "--advance", "soon")


def test_a_write_after_an_idle_clock_is_taken_at_the_clock(cluster):
    """20 simulated minutes with nothing to do, then a pod deleted: its replacement is created
    at the clock (creationTimestamp, AGE), not when the controllers last ran."""
    call_command("clock", "web", "--advance", "1200", stdout=io.StringIO())
    victim = pods(cluster)[0][0]
    _, err, code = run(OcCommand, "--cluster", "web", "delete", "pod", victim)
    assert (err, code) == ("", 0)
    created = sorted(ts for _, _, ts in pods(cluster))
    assert created == [0, 0, 1200]  # the two first pods (one terminating) and the replacement, at the clock
    out, _, _ = run(OcCommand, "--cluster", "web", "get", "pods")
    assert sum(" 0s\n" in line + "\n" for line in out.splitlines()) == 1  # the new pod's AGE


def test_an_oc_write_is_reconciled_before_the_command_returns(cluster):
    _, err, code = run(OcCommand, "--cluster", "web", "scale", "deployment", "web", "--replicas=3")
    assert (err, code) == ("", 0)
    assert len(pods(cluster)) == 3  # the ReplicaSet controller ran, with no worker
    assert all(node == "node1" for _, node, _ in pods(cluster))


def test_preview_prints_what_the_cluster_then_records(cluster):
    call_command("clock", "web", "--advance", "100", stdout=io.StringIO())
    out, err, code = run(PreviewCommand, "web", "--for", "60", "--", "oc", "scale", "deployment", "web", "--replicas=1")
    assert (err, code) == ("", 0)
    preview = json.loads(out)
    assert (preview["at"], preview["until"]) == (100.0, 160.0)
    assert [(e["time"], e["reason"], e["object"].rsplit("-", 1)[0] if e["object"].startswith("Pod/") else e["object"])
            for e in preview["events"]] == [
        (100.0, "ScalingReplicaSet", "Deployment/default/web"),
        (100.0, "SuccessfulDelete", f"ReplicaSet/default/{preview['events'][1]['object'].split('/')[-1]}"),
        (100.0, "Killing", "Pod/default/web"),
    ] or preview["events"]
    assert Pod.objects.filter(cluster=cluster).count() == 2  # nothing written
    # applied, and the clock advanced by the same 60 s: the same events, the same pods
    run(OcCommand, "--cluster", "web", "scale", "deployment", "web", "--replicas=1")
    call_command("clock", "web", "--advance", "60", stdout=io.StringIO())
    recorded = [(e.first_time, e.type, e.reason, f"{e.involved_kind}/{e.involved_namespace}/{e.involved_name}", e.message)
                for e in Event.objects.filter(cluster=cluster, first_time__gte=100).order_by("first_time", "id")]
    assert recorded == [(e["time"], e["type"], e["reason"], e["object"], e["message"]) for e in preview["events"]]
    assert sorted((p["pod"], p["node"], p["phase"]) for p in preview["pods"]) == sorted(
        (f"default/{p.name}", p.node_name or None, p.phase) for p in Pod.objects.filter(cluster=cluster))


def test_preview_refuses_what_oc_refuses_and_bad_usage(cluster):
    _, err, code = run(PreviewCommand, "web", "--", "oc", "scale", "deployment", "nope", "--replicas=1")
    assert code == 1 and 'deployments.apps "nope" not found' in err
    _, err, code = run(PreviewCommand, "web")
    assert code == 2 and "give either -f FILE... or -- oc ARGS..." in err
    _, err, code = run(PreviewCommand, "nope", "--", "oc", "get", "pods")
    assert (code, err) == (1, 'error: no cluster named "nope"\n')


def test_preview_of_files_applies_them_as_oc_apply_does(cluster, tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: extra, namespace: default}\n"
                    "spec: {containers: [{name: c, image: nginx}]}\n")
    out, err, code = run(PreviewCommand, "web", "-f", str(path))
    assert (err, code) == ("", 0)
    preview = json.loads(out)
    assert ("Scheduled", "Pod/default/extra", "Successfully assigned default/extra to node1") in [
        (e["reason"], e["object"], e["message"]) for e in preview["events"]]
    assert not Pod.objects.filter(cluster=cluster, name="extra").exists()
