"""The update walkthrough in a real browser: pick a version in Cluster Settings (seeing the
known issues), start the update, and follow it on the progress page until the last node is
updated, stepping the simulated clock. The progress page polls nothing: after the one
catch-up request when its socket opens, every change arrives as a websocket push."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.browser

from tests.browser.conftest import _page, server_env
from tests.conftest import ROOT
from tests.updates.clusters import ONE_WORKER

CLUSTER = ONE_WORKER


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


class Traffic:
    """The page's own GET requests for the progress fragment (not the page loads) and the
    progress fragments pushed on its websocket."""

    def __init__(self, page, cluster: int):
        self.path = f"/clusters/{cluster}/updates/progress"
        self.gets: list[str] = []
        self.pushed = 0
        page.on("request", lambda r: self.gets.append(r.url) if r.method == "GET" and r.url.endswith(self.path)
                and not r.is_navigation_request() else None)
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if 'id="progress-live"' in (payload if isinstance(payload, str) else ""):
            self.pushed += 1


def step(page, seconds: int) -> None:
    """Press +1 min / +10 min and wait until the page shows the new simulated time."""
    before = int(page.get_attribute("#clock .clock-time", "data-now"))
    page.click(f"button[value=step-{seconds}]")
    page.wait_for_function(f"Number(document.querySelector('#clock .clock-time').dataset.now) >= {before + seconds}")


def test_pick_a_version_start_the_update_and_watch_every_node_update(browser, clusterui_server, update_cluster, console):
    context, page = _page(browser, console)
    traffic = Traffic(page, update_cluster)
    base = clusterui_server.url
    page.goto(f"{base}/login/?next=/clusters/{update_cluster}/updates/progress")
    page.fill("#id_username", clusterui_server.username)
    page.fill("#id_password", clusterui_server.password)
    page.click("main button[type=submit]")
    page.wait_for_selector("#live-status.on")
    step(page, 60)  # the controllers run: the CVO reports the channel's updates
    page.wait_for_function("document.querySelector('#cv-progressing').innerText.includes('Cluster version is 4.13.19')")
    page.goto(f"{base}/clusters/{update_cluster}/updates/")
    page.wait_for_selector("#target-4-14-58")
    assert page.locator("#target-4-14-50").count() == 0
    page.check("input[name=known_issues]")  # htmx swaps the graph in
    page.wait_for_selector("#target-4-14-50")
    assert "LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO" in page.inner_text("#target-4-14-50")
    traffic.gets.clear()
    page.click("#target-4-14-58 button[type=submit]")  # the preview: the loop on a copy
    page.wait_for_selector("#update-preview [data-pool=worker]", timeout=30_000)
    page.click("#update-preview button:has-text('Request the update to 4.14.58')")
    page.wait_for_url(f"**/clusters/{update_cluster}/updates/progress")
    assert "Requested update to 4.14.58" in page.inner_text(".messages")
    page.wait_for_selector("#live-status.on")
    for _ in range(50):  # the one catch-up request of the opened socket
        if traffic.gets:
            break
        page.wait_for_timeout(100)
    assert len(traffic.gets) == 1
    traffic.gets.clear()
    pushed = traffic.pushed
    for _ in range(12):  # two simulated hours, ten minutes at a time; every change is pushed
        step(page, 600)
        page.wait_for_timeout(1500)
        if "Cluster version 4.14.58" in page.inner_text("#update-summary"):
            break
    page.wait_for_function("document.querySelector('#mcp-worker h3').innerText.includes('1/1 updated')", timeout=20_000)
    assert "Cluster version 4.14.58" in page.inner_text("#update-summary")
    assert page.locator("#runlevel-80.done").count() == 1
    assert page.locator("#mcp-node-worker-0 .seg.reboot").count() == 1  # its reboot on the timeline
    assert traffic.gets == []  # no polling: the page asked for nothing while it changed
    assert traffic.pushed > pushed
    # the editor's buttons of the pushed fragment post through the page's own forms
    page.click("#mcp-worker h3 button.editor-control")
    page.wait_for_function("document.querySelector('#mcp-worker h3').innerText.includes('paused')")
    assert "machineconfigpool.machineconfiguration.openshift.io/worker patched" in page.inner_text(".messages")
    context.close()
    viewer_context, viewer = _page(browser, console)
    viewer.goto(f"{base}/clusters/{update_cluster}/updates/progress")
    viewer.wait_for_selector("#live-status.on")
    assert "paused" in viewer.inner_text("#mcp-worker h3")
    assert not viewer.locator("#mcp-worker h3 button.editor-control").is_visible()  # a viewer sees no editor button
    viewer_context.close()
