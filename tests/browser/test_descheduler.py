"""The Descheduler page in a real browser: load the documentation's sample, preview where the pod
would land, run it, and watch the board rebalance in a second browser. On OpenShift 4: compose a
KubeDescheduler, preview it, switch it to Automatic, apply it and watch the eviction live; then
read the object back with `oc get kubedescheduler ... -o yaml` in the browser console."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.browser.conftest import server_env
from tests.conftest import ROOT
from tests.browser.test_console import type_command
from tests.scheduling.test_descheduler_page import CLUSTER
from tests.scheduling.test_kube_descheduler_stored import OPENSHIFT4

pytestmark = pytest.mark.browser


def imported(server, name: str, text: str) -> int:
    path = server.var_dir / f"{name}.yaml"
    path.write_text(text)
    code = (f"from scheduling.store import services; c = services.import_new_cluster({name!r}, open({str(path)!r}).read(), "
            f"'{name}.yaml'); print(c.pk)")
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=server_env(server.var_dir),
                         check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def desched_pk(clusterui_server) -> int:
    return imported(clusterui_server, "desched", CLUSTER)


@pytest.fixture(scope="module")
def desched4_pk(clusterui_server) -> int:
    """The same nodes and pods under the OpenShift 4 scheduler (OpenShift's Scheduler object)."""
    return imported(clusterui_server, "desched4", CLUSTER + OPENSHIFT4)


def test_an_editor_previews_and_runs_the_descheduler_and_the_board_rebalances(editor_page, viewer_page, clusterui_server, desched_pk):
    board = viewer_page
    board.goto(f"{clusterui_server.url}/clusters/{desched_pk}/")
    board.wait_for_selector("#live-status.on")
    board.wait_for_selector('#node-node1 [data-pod="default/web-b"]')

    page = editor_page
    page.goto(f"{clusterui_server.url}/clusters/{desched_pk}/descheduler")
    page.click('button[value="sample:RemoveDuplicates"]')
    page.wait_for_selector("text=sample \"RemoveDuplicates\" loaded into the editor")
    assert '"RemoveDuplicates":\n     enabled: true' in page.input_value("#id_policy")

    page.click('button[value="preview"]')
    page.wait_for_selector("#descheduler-evictions")
    assert page.inner_text(".preview-message strong") == "would evict 1 pods"
    row = page.inner_text("#descheduler-evictions tbody tr")
    assert row.split("\t") == ["default/web-b", "node1", "RemoveDuplicates",
                               "another pod of ReplicaSet/web (web-a) runs on node node1", "node2"]

    page.click('button[value="run"]')
    page.wait_for_selector("text=run requested")
    board.wait_for_function(
        """() => { const chip = document.querySelector('#node-node1 [data-pod="default/web-b"]');
                   return chip === null || chip.classList.contains("terminating"); }""",
        timeout=15_000,
    )
    board.wait_for_selector('#node-node2 [data-pod^="default/web-"]', timeout=15_000)


def test_the_openshift4_descheduling_section_previews_a_kube_descheduler_on_the_openshift4_demo(editor_page, clusterui_server,
                                                                                               screenshots):
    code = "from scheduling.models import Cluster; print(Cluster.objects.get(name='openshift4').pk)"
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=server_env(clusterui_server.var_dir),
                         check=True, capture_output=True, text=True)
    pk = int(out.stdout.strip().splitlines()[-1])
    page = editor_page
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{clusterui_server.url}/clusters/{pk}/descheduler")
    assert page.locator("#descheduler-openshift4").is_visible()
    intro = page.inner_text("#descheduler-intro")
    assert "Kube Descheduler Operator" in intro and "3.11" not in intro
    page.check("#descheduler-openshift4-form input[name=profiles][value=LifecycleAndUtilization]")
    page.click("#descheduler-openshift4-form button[value=compose]")
    page.wait_for_selector("text=the KubeDescheduler is in the editor")
    page.wait_for_selector("#descheduler-apply .oc-preview-list")  # what applying it would do, before Apply
    editors = page.eval_on_selector_all("textarea", "els => els.map(e => e.value)")
    assert any("kind: KubeDescheduler" in v and "- LifecycleAndUtilization" in v for v in editors)
    body = page.inner_text("#descheduler-main")
    assert "would evict 0 pods" in body and "against the LowNodeUtilization thresholds" in body
    page.screenshot(path=str(screenshots / "descheduler-openshift4.png"), full_page=True)


def test_switched_to_automatic_the_operator_s_descheduler_evicts_live_and_oc_reads_the_object(
        editor_page, viewer_page, clusterui_server, desched4_pk):
    board = viewer_page
    board.goto(f"{clusterui_server.url}/clusters/{desched4_pk}/")
    board.wait_for_selector("#live-status.on")
    board.wait_for_selector('#node-node1 [data-pod="default/web-b"]')

    page = editor_page
    page.goto(f"{clusterui_server.url}/clusters/{desched4_pk}/descheduler")
    form = "#descheduler-openshift4-form"
    for profile in ("AffinityAndTaints", "LifecycleAndUtilization"):
        page.uncheck(f"{form} input[name=profiles][value={profile}]")
    page.check(f"{form} input[name=profiles][value=TopologyAndDuplicates]")
    page.click(f"{form} button[value=compose]")  # Predictive first: nothing would be evicted by applying it
    page.wait_for_selector("#descheduler-apply .oc-preview-list")
    assert page.inner_text(".preview-message strong") == "would evict 1 pods"
    assert page.locator('#descheduler-apply [data-evicted="default/web-b"]').count() == 0

    page.select_option(f"{form} select[name=mode]", "Automatic")
    page.click(f"{form} button[value=compose]")
    page.wait_for_selector('#descheduler-apply [data-evicted="default/web-b"]')  # applying it would evict at once
    assert board.locator('#node-node1 [data-pod="default/web-b"].terminating').count() == 0  # nothing changed yet
    page.click("#descheduler-apply-form button[value=apply]")
    page.wait_for_selector("text=kubedescheduler.operator.openshift.io/cluster created")

    board.wait_for_function(
        """() => { const chip = document.querySelector('#node-node1 [data-pod="default/web-b"]');
                   return chip === null || chip.classList.contains("terminating"); }""",
        timeout=15_000,
    )
    board.wait_for_selector('#node-node2 [data-pod^="default/web-"]', timeout=15_000)

    type_command(page, "oc get kubedescheduler cluster -n openshift-kube-descheduler-operator -o yaml")
    page.wait_for_function(
        "() => document.querySelector('#oc-console .oc-output').textContent.includes('kind: KubeDescheduler')")
    printed = page.inner_text("#oc-console .oc-output")
    for line in ("apiVersion: operator.openshift.io/v1", "  name: cluster", "  namespace: openshift-kube-descheduler-operator",
                 "  deschedulingIntervalSeconds: 3600", "  mode: Automatic", "  - TopologyAndDuplicates",
                 "    type: TargetConfigControllerDegraded"):
        assert line in printed.splitlines(), line
