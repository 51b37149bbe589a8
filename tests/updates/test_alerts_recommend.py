"""Alerts on a stored cluster and what `oc adm upgrade recommend` makes of them (openshift/oc
pkg/cli/admin/upgrade/recommend): alerts derived from the objects (a PodDisruptionBudget at
its limit), alerts an editor fires on Cluster Settings, `--accept`, `--alerts FILE`, the
hidden `--mock-clusterversion`; and `oc adm upgrade rollback` writing the stored
ClusterVersion."""

from __future__ import annotations

import io
import json

import pytest
from django.urls import reverse

from scheduling.store import reconcile, services
from scheduling.management.commands.oc import Command
from scheduling.models import ClusterVersion
from tests.updates.clusters import ONE_WORKER, WEB_BEHIND_A_PDB

pytestmark = pytest.mark.django_db

CLUSTER = ONE_WORKER + WEB_BEHIND_A_PDB
HAPPY = ("The following conditions found no cause for concern in updating this cluster to later releases: "
         "recommended/CriticalAlerts (AsExpected), recommended/NodeAlerts (AsExpected), recommended/PodImagePullAlerts (AsExpected), "
         "recommended/UpdatePrecheckAlerts (AsExpected)\n\n")
PDB_AT_LIMIT = (
    "recommended/PodDisruptionBudgetAlerts/PodDisruptionBudgetAtLimit/{i}=False:\n\n  Reason: Alert:firing\n  Message: warning "
    "alert PodDisruptionBudgetAtLimit firing, which might slow node drains. Namespace=shop, PodDisruptionBudget=web-pdb. The pod "
    "disruption budget is preventing further disruption to pods. The alert description is: The pod disruption budget is at the "
    "minimum disruptions allowed level. The number of current healthy pods is equal to the desired healthy pods. "
    "https://github.com/openshift/runbooks/blob/master/alerts/cluster-kube-controller-manager-operator/PodDisruptionBudgetAtLimit.md\n\n")


def oc(*argv: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = Command().main(list(argv), io.StringIO(), out, err)
    return out.getvalue(), err.getvalue(), code


@pytest.fixture
def cluster():
    c = services.import_new_cluster("upd", CLUSTER, "cluster.yaml")
    reconcile.reconcile(c.pk, force=True)
    c.refresh_from_db()
    return c


def settings_page(client, cluster) -> str:
    return client.get(reverse("update-settings", args=[cluster.pk])).content.decode()


def test_a_pdb_at_its_limit_fires_its_alert_and_recommend_reports_it(client, cluster):
    body = settings_page(client, cluster)
    assert "<td><strong>PodDisruptionBudgetAtLimit</strong></td>" in body and "<td>the cluster's state</td>" in body
    assert "<code class=\"small\">poddisruptionbudget=web-pdb</code>" in body
    stdout, stderr, code = oc("--cluster", "upd", "adm", "upgrade", "recommend")
    assert (code, stderr) == (0, "")
    assert stdout.startswith(
        HAPPY + "The following conditions found cause for concern in updating this cluster to later releases: "
        "recommended/PodDisruptionBudgetAlerts/PodDisruptionBudgetAtLimit/0\n\n" + PDB_AT_LIMIT.format(i=0) +
        "Upstream update service is unset, so the cluster will use an appropriate default.\nChannel: stable-4.14 ")
    assert "\nUpdates to 4.14:\n  VERSION     ISSUES\n  4.14.58     no known issues relevant to this cluster\n" in stdout
    assert "recommended/PodDisruptionBudgetAtLimit" not in body  # the page shows the command's output below
    assert "<h2 id=\"recommend-title\"><code>oc adm upgrade recommend</code></h2>" in body


def test_with_version_an_unaccepted_issue_fails_and_accept_lets_it_pass(cluster):
    stdout, stderr, code = oc("--cluster", "upd", "adm", "upgrade", "recommend", "--version", "4.14.58")
    assert code == 1
    assert stdout.endswith("\nUpdate to 4.14.58 has no known issues relevant to this cluster.\nImage: "
                           "quay.io/openshift-release-dev/ocp-release@sha256:eb7f9de82eab0a0dc48da4ad2fabc5f3187346e249bb797e1bf1db8974831452"
                           "\nRelease URL: \n")
    assert stderr == "error: issues that apply to this cluster but which were not included in --accept: PodDisruptionBudgetAtLimit\n"
    stdout, stderr, code = oc("--cluster", "upd", "adm", "upgrade", "recommend", "--version", "4.14.58",
                              "--accept", "PodDisruptionBudgetAtLimit")
    assert (code, stderr) == (0, "")
    assert ("The following conditions found cause for concern in updating this cluster to later releases, but were explicitly "
            "accepted via --accept: recommended/PodDisruptionBudgetAlerts/PodDisruptionBudgetAtLimit/0\n\n") in stdout
    assert stdout.endswith("Update to 4.14.58 has no known issues relevant to this cluster other than the accepted "
                           "PodDisruptionBudgetAtLimit.\n")
    stdout, stderr, code = oc("--cluster", "upd", "adm", "upgrade", "recommend", "--version", "4.14.58", "--quiet")
    assert (code, stdout, stderr) == (
        1, "", "error: issues that apply to this cluster but which were not included in --accept: PodDisruptionBudgetAtLimit\n")
    stdout, stderr, code = oc("--cluster", "upd", "adm", "upgrade", "recommend", "--quiet")
    assert (code, stderr) == (1, "error: --quiet can only be set when --version is set\n")


def test_an_editor_fires_an_image_pull_alert_that_recommend_reports_and_stops_it(editor_client, cluster):
    response = editor_client.post(reverse("update-alert", args=[cluster.pk]), {
        "alertname": "KubeContainerWaiting", "labels": "namespace=openshift-monitoring pod=prometheus-k8s-0 container=prometheus "
                                                       "reason=ImagePullBackOff"})
    assert response.status_code == 302
    body = settings_page(editor_client, cluster)
    assert "<td><strong>KubeContainerWaiting</strong></td>" in body and "<td>fired by hand</td>" in body
    assert "Pod container waiting longer than 1 hour" in body
    stdout, _, _ = oc("--cluster", "upd", "adm", "upgrade", "recommend")
    assert ("recommended/PodImagePullAlerts/KubeContainerWaiting/0=False:\n\n  Reason: Alert:firing\n  Message: warning alert "
            "KubeContainerWaiting firing, which may slow workload redistribution during rolling node updates. Pod container waiting "
            "longer than 1 hour. The alert description is: pod/prometheus-k8s-0 in namespace openshift-monitoring on container "
            'prometheus has been in waiting state for longer than 1 hour. (reason: "ImagePullBackOff"). <alert does not have a '
            "runbook_url annotation>\n\n") in stdout
    assert PDB_AT_LIMIT.format(i=1) in stdout  # the fired ones come first, then those of the cluster's state
    assert "recommended/PodImagePullAlerts (AsExpected)" not in stdout
    key = "alertname=KubeContainerWaiting,container=prometheus,namespace=openshift-monitoring,pod=prometheus-k8s-0," \
          "reason=ImagePullBackOff,severity=warning"
    editor_client.post(reverse("update-alert", args=[cluster.pk]), {"action": "stop", "key": key})
    assert "<td><strong>KubeContainerWaiting</strong></td>" not in settings_page(editor_client, cluster)


def test_a_precheck_alert_and_a_critical_one(editor_client, cluster):
    editor_client.post(reverse("update-alert", args=[cluster.pk]), {
        "alertname": "EtcdBackupMissing", "severity": "info", "summary": "No etcd backup in the last day", "precheck": "1"})
    editor_client.post(reverse("update-alert", args=[cluster.pk]), {"alertname": "KubeAPIDown", "severity": "critical"})
    stdout, _, _ = oc("--cluster", "upd", "adm", "upgrade", "recommend")
    assert ("recommended/UpdatePrecheckAlerts/EtcdBackupMissing/0=False:\n\n  Reason: Alert:firing\n  Message: info alert "
            "EtcdBackupMissing firing, suggesting issues worth investigating before updating the cluster. No etcd backup in the "
            "last day. The alert has no description. <alert does not have a runbook_url annotation>\n\n") in stdout
    assert ("recommended/CriticalAlerts/KubeAPIDown/1=False:\n\n  Reason: Alert:firing\n  Message: critical alert KubeAPIDown "
            "firing, suggesting significant cluster issues worth investigating. KubeAPIDown. The alert has no description. "
            "<alert does not have a runbook_url annotation>\n\n") in stdout


@pytest.mark.parametrize(
    "form, message",
    [
        pytest.param({"alertname": "KubeContainerWaiting", "labels": "namespace=openshift-monitoring"},
                     "KubeContainerWaiting needs the labels pod, container, reason", id="a preset needs its labels"),
        pytest.param({"alertname": "PodDisruptionBudgetAtLimit"},
                     "PodDisruptionBudgetAtLimit fires from the cluster&#x27;s state here", id="derived alerts are not fired by hand"),
        pytest.param({"alertname": "X", "severity": "page"}, "severity must be one of critical, warning, info, none", id="severity"),
        pytest.param({"alertname": "X", "labels": "namespace"}, "labels are key=value pairs", id="labels"),
    ],
)
def test_an_alert_that_cannot_be_fired_says_why(editor_client, cluster, form, message):
    response = editor_client.post(reverse("update-alert", args=[cluster.pk]), form, follow=True)
    assert message in response.content.decode()


def test_a_viewer_cannot_fire_an_alert(viewer_client, cluster):
    response = viewer_client.post(reverse("update-alert", args=[cluster.pk]), {"alertname": "KubeAPIDown", "severity": "critical"})
    assert response.status_code == 403
    assert 'name="alertname"' not in settings_page(viewer_client, cluster)


def test_alerts_from_a_file_replace_the_simulated_ones(cluster, tmp_path):
    path = tmp_path / "alerts.json"
    path.write_text(json.dumps({"status": "success", "data": {"alerts": [
        {"labels": {"alertname": "KubeNodeNotReady", "node": "worker-0", "severity": "warning"},
         "annotations": {"summary": "Node is not ready.", "description": "worker-0 has been unready for more than 15 minutes."},
         "state": "firing"}]}}))
    stdout, _, _ = oc("--cluster", "upd", "--alerts", str(path), "adm", "upgrade", "recommend")
    assert ("The following conditions found cause for concern in updating this cluster to later releases: "
            "recommended/NodeAlerts/KubeNodeNotReady/0\n\n") in stdout
    assert "PodDisruptionBudgetAtLimit" not in stdout and "recommended/PodDisruptionBudgetAlerts (AsExpected)" in stdout


def test_mock_clusterversion_reads_the_alerts_beside_it_and_needs_no_cluster(tmp_path):
    cv = tmp_path / "t-cv.yaml"
    cv.write_text("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nspec: {channel: stable-4.14}\n"
                  "status:\n  desired: {version: 4.14.1}\n  conditions:\n  - {type: Failing, status: 'False'}\n")
    stdout, stderr, code = oc("adm", "upgrade", "recommend", f"--mock-clusterversion={cv}")
    assert (code, stderr) == (0, "")
    assert stdout.startswith("The following conditions found cause for concern in updating this cluster to later releases: "
                             f"recommended/Alert\n\nrecommended/Alert=Unknown:\n\n  Reason: NoTestData\n  Message: This "
                             f"--mock-clusterversion run did not have alert data available at {tmp_path}/t-alerts.json\n\n")
    (tmp_path / "t-alerts.json").write_text('{"status": "success", "data": {"alerts": []}}')
    stdout, _, _ = oc("adm", "upgrade", "recommend", f"--mock-clusterversion={cv}")
    assert stdout.startswith("The following conditions found no cause for concern in updating this cluster to later releases: "
                             "recommended/CriticalAlerts (AsExpected), recommended/NodeAlerts (AsExpected), recommended/"
                             "PodDisruptionBudgetAlerts (AsExpected), recommended/PodImagePullAlerts (AsExpected), "
                             "recommended/UpdatePrecheckAlerts (AsExpected)\n\nUpstream update service is unset")
    assert oc("adm", "upgrade", "recommend", "--mock-clusterversion=missing-cv.yaml")[1:] == (
        "error: open missing-cv.yaml: no such file or directory\n", 1)


ROLLED = """
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {channel: stable-4.13, clusterID: 5a4c3e2f-0000-4000-8000-000000000001, desiredUpdate: {version: 4.13.30}}
status:
  desired: {version: 4.13.30, image: "quay.io/openshift-release-dev/ocp-release@sha256:30"}
  history:
  - {state: Completed, version: 4.13.30, image: "quay.io/openshift-release-dev/ocp-release@sha256:30", verified: true}
  - {state: Completed, version: 4.13.19, image: "quay.io/openshift-release-dev/ocp-release@sha256:19", verified: false}
  conditions:
  - {type: Progressing, status: "False", message: Cluster version is 4.13.30}
"""


def test_rollback_writes_the_stored_clusterversion_and_a_viewer_may_not():
    services.import_new_cluster("rb", ROLLED, "cv.yaml")
    stdout, stderr, code = oc("--cluster", "rb", "--as", "nobody-here", "adm", "upgrade", "rollback")
    assert (code, stderr) == (1, 'error: no user named "nobody-here"\n')
    stdout, stderr, code = oc("--cluster", "rb", "adm", "upgrade", "rollback")
    assert (code, stdout, stderr) == (0, "Requested rollback from 4.13.30 to 4.13.19\n", "")
    spec = ClusterVersion.objects.get(cluster__name="rb", name="version").document["spec"]
    assert spec["desiredUpdate"] == {"architecture": "", "version": "4.13.19",
                                     "image": "quay.io/openshift-release-dev/ocp-release@sha256:19", "force": False}


def test_a_viewer_may_not_roll_back(viewer):
    services.import_new_cluster("rb", ROLLED, "cv.yaml")
    stdout, stderr, code = oc("--cluster", "rb", "--as", "viewer", "adm", "upgrade", "rollback")
    # rollback.go wraps the API server's refusal of its patch
    assert (code, stderr) == (1, 'error: Unable to rollback: clusterversions.config.openshift.io "version" is forbidden: User '
                                 '"viewer" cannot patch resource "clusterversions" in API group "config.openshift.io" at the '
                                 'cluster scope\n')
    assert ClusterVersion.objects.get(cluster__name="rb", name="version").document["spec"]["desiredUpdate"] == {"version": "4.13.30"}


def test_status_update_health_shows_the_alerts_of_the_stored_cluster_on_the_command_line_and_the_progress_page(
        editor_client, cluster):
    from scheduling.store import clock
    from scheduling.models import Cluster

    editor_client.post(reverse("update-request", args=[cluster.pk]), {"version": "4.14.58"})
    clock.step(Cluster.objects.get(pk=cluster.pk), 600)
    reconcile.reconcile(cluster.pk)
    editor_client.post(reverse("update-alert", args=[cluster.pk]), {"alertname": "KubeAPIDown", "severity": "critical",
                                                                      "summary": "Target disappeared from Prometheus target discovery."})
    clock.step(Cluster.objects.get(pk=cluster.pk), 120)
    reconcile.reconcile(cluster.pk)
    stdout, stderr, code = oc("--cluster", "upd", "adm", "upgrade", "status")
    assert (code, stderr) == (0, "")
    health = stdout[stdout.index("= Update Health =\n"):]
    assert "2m      Critical   Unknown   Alert is firing: Target disappeared from Prometheus target discovery.\n" in health
    # the PodDisruptionBudget at its limit (an allowed alert) is shown too
    assert "Alert is firing: The pod disruption budget is preventing further disruption to pods.\n" in health
    stdout, _, _ = oc("--cluster", "upd", "adm", "upgrade", "status", "--details=health")
    assert ("  Reference:   <alert does not have a runbook_url annotation>\n  Resources:\n    alerts.config.openshift.io: "
            "KubeAPIDown\n  Description: Alert started firing during the update. The alert has no description.\n") in stdout
    body = editor_client.get(reverse("update-progress", args=[cluster.pk])).content.decode()
    assert "Alert is firing: Target disappeared from Prometheus target discovery." in body
