"""Jobs and CronJobs on a stored cluster: the reconcile on the simulated clock ends where
`simulate` ends with the same file (one truth: the same Jobs, pods, phases and events), `oc`
on the stored cluster prints them, and a Job's pod page names its Job and CronJob."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scheduling.engine.simulate import simulate
from scheduling.pages.board import make_chip, node_cards
from scheduling.models import Cluster, Event, Job
from scheduling.models import Pod as StoredPod
from scheduling.store import clock, kube, oc_cli, reconcile, services
from tests.scheduling.test_console import run as console_run

pytestmark = pytest.mark.django_db

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: default}
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: perl, command: [sh, -c, "sleep 40"]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: bad, namespace: default}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: bad, image: busybox, command: [sh, -c, "sleep 5; exit 1"]}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: hello, namespace: default}
spec:
  schedule: "*/2 * * * *"
  successfulJobsHistoryLimit: 2
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: hello, image: busybox, command: [sh, -c, "sleep 30"]}]
"""
UNTIL = 610


def _advance(cluster: Cluster, steps: list[float]) -> None:
    reconcile.reconcile(cluster.pk)
    for step in steps:
        clock.step(Cluster.objects.get(pk=cluster.pk), step)
        reconcile.reconcile(cluster.pk)


def _oc(cluster: Cluster, command: str) -> str:
    out: list[str] = []
    oc_cli.run_on_cluster(cluster, command.split(), lambda stream, text: out.append(text) if stream == "stdout" else None)
    return "".join(out)


def test_a_stored_cluster_runs_jobs_and_cronjobs_as_simulate_does(viewer_client):
    cluster = services.create_cluster("batch", seed=5)
    services.import_documents(cluster, CLUSTER)
    _advance(cluster, [45.5, 100, 64.5, 200, 200])  # to 610 s, in uneven steps
    assert Cluster.objects.get(pk=cluster.pk).reconciled_to == UNTIL

    result = simulate(kube.load_documents(CLUSTER), seed=5, until=UNTIL, explain="none")
    simulated_pods = {(p["pod"], p["phase"]) for p in result["pods"] if p["phase"] != "Deleted"}
    stored_pods = {(f"{p.namespace}/{p.name}", p.phase) for p in StoredPod.objects.filter(cluster=cluster)}
    assert stored_pods == simulated_pods
    stored_events = sorted((e.first_time, e.reason, f"{e.involved_kind}/{e.involved_namespace}/{e.involved_name}", e.message)
                           for e in Event.objects.filter(cluster=cluster))
    simulated_events = sorted((e["time"], e["reason"], e["object"], e["message"]) for e in result["events"])
    assert [e for e in stored_events if e[1] != "Scheduled"] == [e for e in simulated_events if e[1] != "Scheduled"]
    names = set(Job.objects.filter(cluster=cluster).values_list("name", flat=True))
    # the CronJob's runs at 2, 4, 6, 8 and 10 minutes, two successful ones kept with the one running
    assert names == {"pi", "bad", "hello-29453766", "hello-29453768", "hello-29453770"}
    reasons = {e[1] for e in stored_events}
    assert {"Completed", "BackoffLimitExceeded", "SawCompletedJob", "SuccessfulDelete"} <= reasons

    out = _oc(cluster, "oc get jobs")
    assert out.splitlines()[0] == "NAME             STATUS     COMPLETIONS   DURATION   AGE"
    assert re.search(r"^pi +Complete +3/3 +80s +10m$", out, re.M), out
    assert re.search(r"^bad +Failed +0/1 +10m +10m$", out, re.M), out
    assert re.search(r"^hello-29453770 +Running +0/1 +10s +10s$", out, re.M), out
    cron = _oc(cluster, "oc get cronjobs")
    assert cron.splitlines()[1] == "hello   */2 * * * *   <none>     False     1        10s             10m"

    pod = StoredPod.objects.filter(cluster=cluster, name__startswith="hello-29453770-").get()
    page = viewer_client.get(reverse("pod-detail", args=[cluster.pk, "default", pod.name])).content.decode()
    assert "Controlled by Job hello-29453770 ← CronJob hello: it runs its pods to completion." in page


def test_tab_completion_knows_jobs_and_cronjobs(viewer_client):
    cluster = services.create_cluster("complete")
    services.import_documents(cluster, CLUSTER)
    data = viewer_client.get(reverse("console-complete", args=[cluster.pk])).json()
    assert {"job", "cronjob", "cj"} <= set(data["sub"]["create"])
    assert {"jobs", "job", "cronjobs", "cronjob", "cj"} <= set(data["kinds"])
    assert data["names"]["jobs"] == ["bad", "pi"] and data["names"]["cj"] == ["hello"]
    assert {"--image", "--from"} <= set(data["flags"]["create job"])
    assert {"--image", "--schedule", "--restart"} <= set(data["flags"]["create cronjob"])


def test_oc_create_job_on_a_stored_cluster_runs_to_completion():
    cluster = services.create_cluster("create")
    services.import_documents(cluster, CLUSTER.split("---")[0])
    reconcile.reconcile(cluster.pk)
    assert _oc(cluster, "oc create job once --image=busybox -- sleep 20") == "job.batch/once created\n"
    reconcile.reconcile(cluster.pk)
    job = Job.objects.get(cluster=cluster, name="once")
    assert job.document["spec"]["template"]["spec"]["containers"][0]["command"] == ["sleep", "20"]
    clock.step(Cluster.objects.get(pk=cluster.pk), 25)
    reconcile.reconcile(cluster.pk)
    assert re.fullmatch(r"NAME   STATUS     COMPLETIONS   DURATION   AGE\nonce   Complete   1/1           20s        25s\n",
                        _oc(cluster, "oc get jobs"))
    pods = _oc(cluster, "oc get pods").splitlines()
    assert len(pods) == 2 and re.fullmatch(r"once-[a-z0-9]{5} +0/1 +Completed +0 +25s", pods[1])


def test_a_finished_job_pod_shows_as_finished_on_the_board():
    meta = {"ownerReferences": [{"kind": "Job", "name": "pi", "controller": True}]}
    done = make_chip("default", "pi-abcde", "node1", "Succeeded", meta, {"containers": []})
    assert 'class="pod c' in done.html and " finished succeeded" in done.html
    assert done.title.startswith("Succeeded · Job pi · ")
    failed = make_chip("default", "pi-fghij", "node1", "Failed", meta, {"containers": []})
    assert " finished failed" in failed.html
    assert "finished" not in make_chip("default", "web", "node1", "Running", {}, {"containers": []}).html


FINISHING = CLUSTER.split("---")[0] + """---
apiVersion: batch/v1
kind: Job
metadata: {name: quick, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: q, image: busybox, command: [sh, -c, "sleep 10"], resources: {requests: {cpu: "1"}}}]
"""


def test_the_board_counts_a_finished_pod_on_no_node():
    cluster = services.create_cluster("finishing")
    services.import_documents(cluster, FINISHING)
    reconcile.reconcile(cluster.pk)
    assert [(b.label, b.text) for b in node_cards(cluster, ["node1"])["node1"].bars][:1] == [("cpu", "1 / 4")]
    clock.step(Cluster.objects.get(pk=cluster.pk), 15)
    reconcile.reconcile(cluster.pk)
    card = node_cards(cluster, ["node1"])["node1"]
    assert [(b.label, b.text) for b in card.bars][0::2] == [("cpu", "0 / 4"), ("pods", "0 / 110")]


def test_the_console_previews_a_job_then_creates_it(editor_client):
    """The server dry run goes before `--` (after it, `--dry-run=server` would be the container's
    command, and the preview would create the Job)."""
    cluster = services.create_cluster("console")
    services.import_documents(cluster, CLUSTER.split("---")[0])
    reconcile.reconcile(cluster.pk)
    result = console_run(editor_client, cluster, "oc create job pi --image=perl -- sleep 20")
    assert result["lines"] == [["stdout", "job.batch/pi created (server dry run)\n"]]
    assert result["confirm"] == "oc create job pi --image=perl -- sleep 20"
    # the loop on a copy: the Job's pod created, started, and the Job complete 20 s later
    assert re.search(r'data-created="default/pi-[a-z0-9]{5}">created: .*by Job/default/pi', result["preview"])
    assert '<td class="num">20s</td><td>Normal</td><td>Completed</td><td>Job/default/pi</td><td>Job completed</td>' in result["preview"]
    assert not Job.objects.filter(cluster=cluster).exists()
    result = console_run(editor_client, cluster, result["confirm"], confirm="1")
    assert result == {"lines": [["stdout", "job.batch/pi created\n"]], "exit_code": 0}
    assert Job.objects.filter(cluster=cluster, name="pi").exists()
