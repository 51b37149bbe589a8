"""The update walkthrough in a real browser: pick a version in Cluster Settings (seeing the
known issues), start the update, and follow it on the progress page until the last node is
updated, stepping the simulated clock."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.browser

from tests.browser.conftest import _page, server_env
from tests.conftest import ROOT

CLUSTER = """
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {channel: stable-4.14, clusterID: 5a4c3e2f-0000-4000-8000-000000000001}
status: {desired: {version: 4.13.19}}
---
apiVersion: v1
kind: Node
metadata: {name: master-0, labels: {node-role.kubernetes.io/master: ""}}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: worker-0, labels: {node-role.kubernetes.io/worker: ""}}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
"""


@pytest.fixture(scope="module")
def update_cluster(clusterui_server) -> int:
    path = clusterui_server.var_dir / "update-cluster.yaml"
    path.write_text(CLUSTER)
    env = server_env(clusterui_server.var_dir)
    subprocess.run([sys.executable, "manage.py", "import_cluster", "walkthrough", str(path)], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c",
                          "from scheduling.models import Cluster; print(Cluster.objects.get(name='walkthrough').pk)"],
                         cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1])


def test_pick_a_version_start_the_update_and_watch_every_node_update(browser, clusterui_server, update_cluster, console):
    context, page = _page(browser, console)
    base = clusterui_server.url
    page.goto(f"{base}/login/?next=/clusters/{update_cluster}/updates/progress")
    page.fill("#id_username", clusterui_server.username)
    page.fill("#id_password", clusterui_server.password)
    page.click("main button[type=submit]")
    page.click("button[value=step-60]")  # the controllers run: the CVO reports the channel's updates
    page.wait_for_function("document.querySelector('#cv-progressing').innerText.includes('Cluster version is 4.13.19')")
    page.goto(f"{base}/clusters/{update_cluster}/updates/")
    page.wait_for_selector("#target-4-14-58")
    assert page.locator("#target-4-14-50").count() == 0
    page.check("input[name=known_issues]")  # htmx swaps the graph in
    page.wait_for_selector("#target-4-14-50")
    assert "LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO" in page.inner_text("#target-4-14-50")
    page.click("#target-4-14-58 button[type=submit]")
    page.wait_for_url(f"**/clusters/{update_cluster}/updates/progress")
    assert "Requested update to 4.14.58" in page.inner_text(".messages")
    for _ in range(12):  # two simulated hours, ten minutes at a time; the page refreshes every 2 s
        page.click("button[value=step-600]")
        page.wait_for_timeout(2500)
        if "Cluster version 4.14.58" in page.inner_text("#update-summary"):
            break
    page.wait_for_function("document.querySelector('#mcp-worker h3').innerText.includes('1/1 updated')", timeout=20_000)
    assert "Cluster version 4.14.58" in page.inner_text("#update-summary")
    assert page.locator("#runlevel-80.done").count() == 1
    assert page.locator("#mcp-node-worker-0 .seg.reboot").count() == 1  # its reboot on the timeline
    context.close()
