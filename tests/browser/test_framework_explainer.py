"""The OpenShift 4 scheduler in a real browser, at 500 nodes: the explainer of a pending pod
shows every Filter plugin's verdict per node (unresolvable marked), the FailedScheduling
message in today's words with its preemption part; a topology-spread pod shows its Score
plugins (0-100, weights) and the domain counts; the scheduling settings page speaks the
framework. Screenshots: explainer-openshift4.png, spread-openshift4.png,
policy-openshift4.png (in docs/screenshots/ with CLUSTERUI_REFRESH_SCREENSHOTS=1)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.browser.conftest import server_env
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

POPULATE = """
from scheduling.bench.board import _populate
from scheduling.store import reconcile, services
c = _populate("ocp-five-hundred", 500, 3000)
services.create_object(c, {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
    "spec": {"channel": "stable-4.18", "clusterID": "c0ffee00-0000-4000-8000-000000000000"},
    "status": {"desired": {"version": "4.18.10", "image": "quay.io/openshift-release-dev/ocp-release:4.18.10-x86_64"},
               "history": [{"state": "Completed", "version": "4.18.10", "verified": True,
                            "image": "quay.io/openshift-release-dev/ocp-release:4.18.10-x86_64",
                            "startedTime": "2026-11-01T00:00:00Z", "completionTime": "2026-11-01T01:00:00Z"}]}})
services.create_object(c, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "registry.example.com/huge:1", "resources": {"requests": {"cpu": "64"}}}]}})
services.create_object(c, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "spread-0", "namespace": "default", "labels": {"app": "spread"}},
    "spec": {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                           "labelSelector": {"matchLabels": {"app": "spread"}}}],
             "containers": [{"name": "c", "image": "registry.example.com/web:1", "resources": {"requests": {"cpu": "100m"}}}]}})
reconcile.reconcile(c.pk, force=True)
print(c.pk)
"""


@pytest.fixture(scope="module")
def ocp_cluster(clusterui_server) -> int:
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", POPULATE], cwd=ROOT,
                         env=server_env(clusterui_server.var_dir), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return int(out.stdout.strip().splitlines()[-1])


def test_the_explainer_of_an_openshift4_cluster_at_500_nodes(editor_page, clusterui_server, ocp_cluster, screenshots):
    page = editor_page
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{clusterui_server.url}/clusters/{ocp_cluster}/pods/default/huge/")
    message = page.inner_text("[data-message]")
    assert message.startswith("0/500 nodes are available: ")
    assert "Insufficient cpu" in message and "node(s) had untolerated taint(s)" in message
    assert message.endswith("preemption: 0/500 nodes are available: 500 Preemption is not helpful for scheduling.")
    assert "scheduling.." not in page.inner_text("section.explainer")
    assert "every Filter plugin of the profile" in page.inner_text("details.filters summary")
    assert page.locator("details.filters th", has_text="NodeResourcesFit").count() >= 1
    assert page.locator("[data-unresolvable]").count() > 0  # 64 cpu is beyond every node's allocatable
    page.screenshot(path=str(screenshots / "explainer-openshift4.png"))

    page.goto(f"{clusterui_server.url}/clusters/{ocp_cluster}/pods/default/spread-0/")
    scores = page.locator("table.score-matrix")
    assert scores.locator("th", has_text="PodTopologySpread").count() == 1
    assert "0–100 after NormalizeScore" in page.inner_text("section.explainer")
    assert page.locator("table.score-matrix tr.winner").count() == 1
    assert page.locator("table.score-matrix td[data-skipped]").count() > 0  # NodeAffinity: nothing preferred
    page.screenshot(path=str(screenshots / "spread-openshift4.png"))


def test_the_scheduling_settings_page_of_an_openshift4_cluster(editor_page, clusterui_server, ocp_cluster, screenshots):
    page = editor_page
    page.goto(f"{clusterui_server.url}/clusters/{ocp_cluster}/policy")
    assert "OpenShift 4 scheduler" in page.inner_text("#current-title")
    page.click("button[value='sample:HighNodeUtilization']")
    page.wait_for_selector("textarea:has-text('HighNodeUtilization')")
    page.screenshot(path=str(screenshots / "policy-openshift4.png"), full_page=True)
