"""The machine pages in a real browser: an editor deletes a machine, acts as each of its
hooks' owners, steps the clock, and watches the machine deletion flow advance; a
viewer's page follows along without a reload."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

NS = "openshift-machine-api"
VICTIM = "ci-7xk2p-worker-us-east-1a-4bk7q"


def current_step(page) -> str:
    return page.get_attribute("#machine-flow li.step.current", "data-step") or ""


def wait_step(page, number: int) -> None:
    page.wait_for_selector(f'#machine-flow li.step.current[data-step="{number}"]')


def test_an_owner_removes_its_hook_and_the_machine_proceeds(editor_page, browser, clusterui_server, console):
    page = editor_page
    page.goto(f"{clusterui_server.url}/")
    page.click("form[action='/scenarios/machine-deletion-hooks/load'] button")
    page.wait_for_url(re.compile(r"/clusters/\d+/$"))
    pk = re.search(r"/clusters/(\d+)/", page.url).group(1)
    machine_url = f"{clusterui_server.url}/clusters/{pk}/machines/{NS}/{VICTIM}/"
    page.goto(machine_url)
    page.wait_for_selector("#machine-page[data-live=on]")
    assert "Running" in page.inner_text("#machine-flow [data-phase]")

    viewer_context = browser.new_context()
    viewer = viewer_context.new_page()
    console.watch(viewer)
    viewer.goto(machine_url)
    viewer.wait_for_selector("#machine-page[data-live=on]")
    assert viewer.locator("text=Act as >> visible=true").count() == 0  # editor controls: hidden from viewers

    page.click("text=Preview deleting the machine")  # the loop on a copy first
    page.wait_for_selector(f"#delete-preview tr[data-machine='{VICTIM}'][data-after=Deleting]", timeout=30_000)
    page.click("#delete-preview button:has-text('Delete machine')")
    page.wait_for_selector("#delete-preview [data-applied]")
    wait_step(page, 3)  # held by the preDrain hook
    assert page.inner_text('#machine-flow [data-point=preDrain] [data-hook=MigrateImportantApp]').startswith(
        "MigrateImportantApp owned by my-app-migration-controller")
    assert "Drain operation currently blocked by: [{Name:MigrateImportantApp Owner:my-app-migration-controller}]" in page.inner_text(
        "#machine-flow [data-condition=Drainable]")
    wait_step(viewer, 3)

    page.click("text=Act as my-app-migration-controller: remove")
    page.wait_for_selector("#machine-flow [data-hook=MigrateImportantApp]", state="detached")
    page.click("button[value=step-60]")  # the drain: the pods have 10 s to go
    wait_step(page, 7)  # drained; the preTerminate hooks hold the instance
    assert "Drain finished successfully" in page.inner_text("#machine-flow [data-condition=Drained]")
    wait_step(viewer, 7)

    for hook in ("BackupFileSystem", "CloudProviderSpecialCase", "WaitForStorageDetach"):
        page.click(f"#machine-flow [data-hook={hook}] button")
        page.wait_for_selector(f"#machine-flow [data-hook={hook}]", state="detached")
    wait_step(page, 9)  # the instance is being deleted
    page.click("button[value=step-60]")
    page.wait_for_selector("#machine-flow [data-phase]:has-text('Deleted')")
    viewer.wait_for_selector("#machine-flow [data-phase]:has-text('Deleted')")
    reasons = page.eval_on_selector_all("#machine-flow [data-reason]", "els => els.map(e => e.dataset.reason)")
    assert reasons == ["DrainBlocked", "DrainProceeds", "Deleted", "DrainSucceeded", "Delete"]
    viewer_context.close()


def test_the_machines_page_shows_the_etcd_quorum(editor_page, clusterui_server):
    page = editor_page
    page.goto(f"{clusterui_server.url}/")
    page.click("form[action='/scenarios/etcd-quorum-guard/load'] button")
    page.wait_for_url(re.compile(r"/clusters/\d+/$"))
    pk = re.search(r"/clusters/(\d+)/", page.url).group(1)
    page.goto(f"{clusterui_server.url}/clusters/{pk}/machines/")
    page.wait_for_selector("#etcd-quorum", timeout=30_000)  # after the first reconcile of the loaded scenario
    assert page.inner_text("#etcd-quorum [data-members]") == "3 members"
    assert page.inner_text("#etcd-quorum [data-voting]") == "3 voting"


def test_the_machineset_template_preview_then_apply(editor_page, clusterui_server, console):
    """Taints through a MachineSet on the MachineSet page: the taint typed in the template form is
    previewed (htmx, CSRF) with where each pod would go, then applied."""
    page = editor_page
    page.goto(f"{clusterui_server.url}/")
    page.click("form[action='/scenarios/machineset-taints/load'] button")
    page.wait_for_url(re.compile(r"/clusters/\d+/$"))
    pk = re.search(r"/clusters/(\d+)/", page.url).group(1)
    page.goto(f"{clusterui_server.url}/clusters/{pk}/machines/")
    page.click(f"#machineset-{NS}-ci-7xk2p-worker-us-east-1a a >> nth=0")
    page.wait_for_selector("#machineset-page[data-live=on]")
    # the scenario's first reconcile: the MachineSet's status, the pods on its nodes
    page.wait_for_selector("#machineset-board tr[data-machineset] td:nth-child(4):text-is('2')", timeout=30_000)
    form = page.locator("form[aria-label='add a taint to the template']")
    form.locator("input[name=key]").fill("key1")
    form.locator("input[name=value]").fill("value1")
    form.locator("select[name=effect]").select_option("NoExecute")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#template-preview [data-section=rollout]", timeout=30_000)
    assert "Existing machines and nodes do not change" in page.inner_text("#template-preview [data-existing]")
    scaled_back = page.locator("#template-preview [data-section=rollout] section.loop-step").last
    pending = scaled_back.locator("li[data-pending^='default/no-toleration-']")
    assert "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate." in pending.inner_text()
    assert pending.locator("a.explain-link").count() == 1
    assert "new node" in scaled_back.locator("li[data-started^='default/tolerates-']").inner_text()
    page.click("#template-preview button:has-text('Apply the edit')")
    page.wait_for_selector("#template-preview [data-applied]")
    assert page.inner_text("#template-preview [data-applied]") == "machineset.machine.openshift.io/ci-7xk2p-worker-us-east-1a edited"
    page.wait_for_selector("#machineset-board [data-template-taint='key1=value1:NoExecute']")
