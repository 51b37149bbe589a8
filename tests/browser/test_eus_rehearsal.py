"""An EUS-to-EUS rehearsal in a real browser, on the openshift4 demo (4.18.44) that
`manage.py load_demo` loads: acknowledge the admin gate on Cluster Settings, switch to
eus-4.20, pause the worker and infra pools on the progress page, update the control plane to
4.19, acknowledge the 4.19 gate, update to 4.20, see kube-apiserver's kubelet skew hold the
next minor, resume the pools and watch every worker update once. Screenshots of each stop."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.browser

from tests.browser.conftest import _page, server_env
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def demo4(clusterui_server) -> int:
    env = server_env(clusterui_server.var_dir)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c",
                          "from scheduling.models import Cluster; print(Cluster.objects.get(name='openshift4').pk)"],
                         cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1])


def step(page, seconds: int) -> None:
    before = int(page.get_attribute("#clock .clock-time", "data-now"))
    page.click(f"button[value=step-{seconds}]")
    page.wait_for_function(f"Number(document.querySelector('#clock .clock-time').dataset.now) >= {before + seconds}")


def run_until(page, text: str, selector: str, steps: int = 16) -> None:
    """Step the clock ten minutes at a time until `selector` shows `text`."""
    for _ in range(steps):
        if text in page.inner_text(selector):
            return
        step(page, 600)
        page.wait_for_timeout(1200)
    assert text in page.inner_text(selector)


def update_to(page, base: str, cluster: int, version: str) -> None:
    page.goto(f"{base}/clusters/{cluster}/updates/")
    target = "#target-" + version.replace(".", "-")
    page.wait_for_selector(target)
    page.click(f"{target} button[type=submit]")
    page.wait_for_selector("#update-preview [data-pool=master]", timeout=60_000)
    page.click(f"#update-preview button:has-text('Request the update to {version}')")
    page.wait_for_url(f"**/clusters/{cluster}/updates/progress")


def test_eus_4_18_to_4_20_with_the_worker_pools_paused(browser, clusterui_server, demo4, console, screenshots):
    context, page = _page(browser, console)
    base = clusterui_server.url
    page.goto(f"{base}/login/?next=/clusters/{demo4}/updates/")
    page.fill("#id_username", clusterui_server.username)
    page.fill("#id_password", clusterui_server.password)
    page.click("main button[type=submit]")
    page.wait_for_selector("#admin-gates")
    assert "Kubernetes 1.32 and therefore OpenShift 4.19 remove several APIs" in page.inner_text("#cluster-version")
    page.screenshot(path=str(screenshots / "eus-1-admin-gate.png"), full_page=True)
    page.click("#admin-gates button:has-text('Acknowledge')")
    page.wait_for_selector("#admin-gates")
    assert "ack-4.18-kube-1.32-api-removals-in-4.19: acknowledged" in page.inner_text("#admin-gates")
    page.select_option("#channel", "eus-4.20")
    page.click("form[aria-label='update channel'] button[type=submit]")
    page.wait_for_load_state()
    # pause every pool but master
    page.goto(f"{base}/clusters/{demo4}/updates/progress")
    page.wait_for_selector("#live-status.on")
    for pool in ("worker", "infra"):
        page.click(f"#mcp-{pool} h3 button.editor-control")
        page.wait_for_function(f"document.querySelector('#mcp-{pool} h3').innerText.includes('paused')")
    step(page, 60)
    update_to(page, base, demo4, "4.19.41")
    page.wait_for_selector("#live-status.on")
    run_until(page, "Cluster version 4.19.41", "#update-summary")
    assert "0/6 updated" in page.inner_text("#mcp-worker h3") and "paused" in page.inner_text("#mcp-worker h3")
    page.screenshot(path=str(screenshots / "eus-2-control-plane-4.19.png"), full_page=True)
    # the 4.19 gate, then 4.20
    page.goto(f"{base}/clusters/{demo4}/updates/")
    page.wait_for_selector("#admin-gates")
    assert "The admissionregistration.k8s.io/v1beta1 group version is deprecated in 4.19" in page.inner_text("#cluster-version")
    page.click("#admin-gates button:has-text('Acknowledge')")
    page.wait_for_selector("#admin-gates")
    update_to(page, base, demo4, "4.20.33")
    page.wait_for_selector("#live-status.on")
    run_until(page, "Cluster version 4.20.33", "#update-summary")
    page.goto(f"{base}/clusters/{demo4}/updates/")
    assert ("Kubelet minor versions on 9 nodes will not be supported in the next OpenShift minor version upgrade."
            in page.inner_text("#cluster-version"))
    page.screenshot(path=str(screenshots / "eus-3-control-plane-4.20-kubelet-skew.png"), full_page=True)
    # resume: the workers roll once, straight from 4.18 to 4.20
    page.goto(f"{base}/clusters/{demo4}/updates/progress")
    page.wait_for_selector("#live-status.on")
    for pool in ("worker", "infra"):
        page.click(f"#mcp-{pool} h3 button.editor-control")
        page.wait_for_function(f"!document.querySelector('#mcp-{pool} h3').innerText.includes('paused')")
    run_until(page, "6/6 updated", "#mcp-worker h3", steps=24)
    run_until(page, "3/3 updated", "#mcp-infra h3", steps=6)
    for node in page.eval_on_selector_all("#mcp-worker tbody tr", "rows => rows.map(r => r.id)"):
        assert page.locator(f"[id=\"{node}\"] .seg.reboot").count() == 1
    page.screenshot(path=str(screenshots / "eus-4-workers-rolled-once.png"), full_page=True)
    context.close()
