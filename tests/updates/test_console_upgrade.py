"""`oc adm upgrade` in the browser's console (scheduling/console/views.py): the read-only forms
(`oc adm upgrade` without a target, `status`, `recommend`) run for anyone, viewers included;
the writes (`--to`, `--to-latest`, `--to-image`, `--clear`, `channel`, `rollback`) are
refused without edit rights (checked on the server, and never through the page's socket),
and previewed then applied for editors."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from scheduling.store import reconcile, services
from scheduling.models import ClusterVersion

from tests.scheduling.test_console import run as console_run

from .test_pages import CLUSTER

READS = ("oc adm upgrade", "oc adm upgrade --include-not-recommended", "oc adm upgrade status", "oc adm upgrade recommend")
WRITES = {"oc adm upgrade --to=4.14.58": "Unable to upgrade", "oc adm upgrade --to-latest": "Unable to upgrade",
          "oc adm upgrade channel fast-4.14": "unable to set channel"}


@pytest.fixture
def cluster(db):
    c = services.import_new_cluster("upd", CLUSTER, "cluster.yaml")
    reconcile.reconcile(c.pk, force=True)
    c.refresh_from_db()
    return c


def run(client, cluster, command: str, **extra) -> dict:
    """What the console shows for `command` (its htmx answer, read by test_console.run)."""
    return console_run(client, cluster, command, **extra)


def spec(cluster) -> dict:
    return ClusterVersion.objects.get(cluster=cluster, name="version").document["spec"]


def text(answer: dict, stream: str = "stdout") -> str:
    return "".join(t for s, t in answer["lines"] if s == stream)


@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_the_read_only_upgrade_commands_run_for_users_who_cannot_edit(client, viewer, cluster, who):
    if who == "viewer":
        client.force_login(viewer)
    answers = {command: run(client, cluster, command) for command in READS}
    assert all(a["exit_code"] == 0 and "confirm" not in a for a in answers.values()), answers
    assert text(answers["oc adm upgrade"]).startswith("Cluster version is 4.13.19\n")
    assert "Recommended updates:" in text(answers["oc adm upgrade"])
    assert text(answers["oc adm upgrade status"]) == "The cluster is not updating.\n"
    assert "\nUpdates to 4.14:\n" in text(answers["oc adm upgrade recommend"])
    assert "Forbidden" not in "".join(text(a, "stderr") for a in answers.values())


@pytest.mark.parametrize("who", ["anonymous", "viewer"])
def test_the_upgrade_writes_are_refused_without_edit_rights(client, viewer, cluster, who):
    """oc reads the ClusterVersion and checks its flags, then the API server refuses its merge
    patch; upgrade.go / channel.go wrap that error."""
    if who == "viewer":
        client.force_login(viewer)
    before = spec(cluster)
    name = "viewer" if who == "viewer" else "system:anonymous"
    for command, wrapper in WRITES.items():
        answer = run(client, cluster, command, confirm="1")
        assert answer == {"lines": [["stderr", f'error: {wrapper}: clusterversions.config.openshift.io "version" is forbidden: '
                                               f'User "{name}" cannot patch resource "clusterversions" in API group '
                                               '"config.openshift.io" at the cluster scope\n']], "exit_code": 1}, command
    assert spec(cluster) == before


def test_a_write_that_has_nothing_to_patch_answers_as_oc_does_for_a_viewer(viewer_client, cluster):
    answer = run(viewer_client, cluster, "oc adm upgrade --clear", confirm="1")
    assert answer == {"lines": [["stdout", "info: No update in progress\n"]], "exit_code": 0}
    answer = run(viewer_client, cluster, "oc adm upgrade channel stable-4.14", confirm="1")
    assert "Forbidden" not in str(answer["lines"])


def test_an_editors_upgrade_is_previewed_by_the_loop_before_it_is_requested(editor_client, cluster):
    """oc adm upgrade has no --dry-run: the console previews it on the cluster's loop (the
    update as the CVO would start it) and requests it only once confirmed."""
    answer = run(editor_client, cluster, "oc adm upgrade")
    assert answer["exit_code"] == 0 and "confirm" not in answer  # reading needs no preview
    answer = run(editor_client, cluster, "oc adm upgrade --to=4.14.58")
    assert answer["confirm"] == "oc adm upgrade --to=4.14.58" and answer["lines"] == []
    assert "4.14.58" in answer["preview"]
    assert "desiredUpdate" not in spec(cluster)  # nothing written by the preview
    answer = run(editor_client, cluster, "oc adm upgrade --to=4.14.58", confirm="1")
    assert "unknown flag" not in str(answer["lines"])
    assert (answer["exit_code"], text(answer)) == (0, "Requested update to 4.14.58\n")
    assert spec(cluster)["desiredUpdate"]["version"] == "4.14.58"
    answer = run(editor_client, cluster, "oc adm upgrade channel fast-4.14", confirm="1")
    assert answer["exit_code"] == 0 and spec(cluster)["channel"] == "fast-4.14"


@pytest.mark.django_db(transaction=True)
async def test_a_viewers_upgrade_sent_over_the_websocket_is_refused_and_changes_nothing(viewer):
    from channels.db import database_sync_to_async
    from django.db import connections

    from tests.scheduling.test_channels import _communicator

    cluster = await database_sync_to_async(services.import_new_cluster)("upd-ws", CLUSTER, "cluster.yaml")
    comm = _communicator(cluster.pk, user=viewer)
    assert (await comm.connect())[0]
    for command in ("oc adm upgrade --to=4.14.58", "oc adm upgrade channel fast-4.14"):
        await comm.send_to(text_data=json.dumps({"command": command}))
        assert json.loads(await comm.receive_from(timeout=5)) == {"error": "read-only: you are not allowed to change this cluster"}
    await comm.disconnect()
    doc = await database_sync_to_async(lambda: ClusterVersion.objects.get(cluster=cluster, name="version").document)()
    assert "desiredUpdate" not in doc["spec"] and doc["spec"]["channel"] == "stable-4.14"
    await database_sync_to_async(connections.close_all)()
