"""The dashboard in a real browser against the real server: the live board, the what-if
editor with its preview, a second browser following along, the explainer."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

FRONTEND_ON_NODE2 = "shop/frontend-6d4f8b9c7d-4xk2p"
FRONTEND_ON_NODE4 = "shop/frontend-6d4f8b9c7d-9mzqt"


def open_panel(page, selector: str) -> None:
    page.click(selector)
    page.wait_for_selector("#panel .panel-body h2")


def taint_with_oc(page, node: str, taint: str) -> list[str]:
    """Type an `oc adm taint` spec into the node's taint field; the pods the preview says
    will be evicted at once."""
    open_panel(page, f"#node-{node} h4 a")
    page.fill("#panel input[name=taint]", taint)
    page.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
    page.wait_for_selector("#preview .preview-result")
    return page.eval_on_selector_all("#preview [data-evicted]", "els => els.map(e => e.dataset.evicted)")


def test_the_board_shows_the_demo_cluster(viewer_page):
    page = viewer_page
    groups = page.eval_on_selector_all("section.group", "els => els.map(e => e.dataset.group)")
    assert groups == ["us-east-1a", "us-east-1b", "us-east-1c"]
    assert page.inner_text("#node-node1 .taints") .split() == [
        "key1=value1:NoSchedule", "key1=value1:NoExecute", "key2=value2:NoSchedule"
    ]
    assert page.locator(f'#node-node2 [data-pod="{FRONTEND_ON_NODE2}"]').count() == 1
    assert "0/9 nodes are available" in page.inner_text("#pending")


def test_an_editors_taint_is_previewed_applied_and_seen_live_by_a_viewer(editor_page, viewer_page):
    evicted = taint_with_oc(editor_page, "node2", "key1=value1:NoExecute")
    assert evicted == [FRONTEND_ON_NODE2]  # exactly the pods that will go
    # nothing has changed yet, for anyone
    assert viewer_page.locator('#node-node2 [data-taint="key1=value1:NoExecute"]').count() == 0
    editor_page.click("#preview button.primary")
    editor_page.wait_for_selector("#panel p.ok")
    assert "node/node2 tainted" in editor_page.inner_text("#panel p.ok")
    # the viewer's board changes without a reload
    viewer_page.wait_for_selector('#node-node2 [data-taint="key1=value1:NoExecute"]', timeout=2000)
    assert viewer_page.locator('#node-node2 li.taint.noexecute').count() == 1


def test_a_preview_that_is_cancelled_leaves_nothing_behind(editor_page, viewer_page):
    taint_with_oc(editor_page, "node3", "gpu=yes:NoSchedule")
    editor_page.click("#preview button[data-clear]")
    assert editor_page.inner_html("#preview").strip() == ""
    editor_page.reload()
    editor_page.wait_for_selector("#live-status.on")
    assert editor_page.locator('#node-node3 [data-taint="gpu=yes:NoSchedule"]').count() == 0


def test_a_bad_taint_gets_ocs_error_message(editor_page):
    open_panel(editor_page, "#node-node5 h4 a")
    editor_page.fill("#panel input[name=taint]", "key=value:NoExcute")
    editor_page.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
    editor_page.wait_for_selector("#preview .errors")
    assert "error: invalid taint effect: NoExcute, unsupported taint effect" in editor_page.inner_text("#preview")


def test_the_evicted_pods_leave_the_node_card_in_the_viewers_browser(editor_page, viewer_page):
    evicted = taint_with_oc(editor_page, "node4", "key1=value1:NoExecute")
    assert evicted == [FRONTEND_ON_NODE4]
    editor_page.click("#preview button.primary")
    viewer_page.wait_for_selector('#node-node4 [data-taint="key1=value1:NoExecute"]', timeout=2000)
    viewer_page.wait_for_function(
        """key => { const chip = document.querySelector(`#node-node4 [data-pod="${key}"]`);
                    return chip === null || chip.classList.contains("terminating"); }""",
        arg=FRONTEND_ON_NODE4,
        timeout=2000,
    )


def test_the_explainer_shows_the_multiple_taints_example(viewer_page):
    page = viewer_page
    open_panel(page, '#pending button[data-pod="default/new-pod-key1"]')
    panel = page.locator("#panel")
    assert "0/9 nodes are available: 1 node(s) had taints that the pod didn't tolerate, 8 node(s) didn't match node selector." in panel.inner_text()
    headers = page.eval_on_selector_all("#panel .filter-matrix thead th", "els => els.map(e => e.innerText.trim())")
    column = headers.index("PodToleratesNodeTaints")
    node1 = page.locator('#panel .filter-matrix tr[data-filter-node="node1"] > *')
    cell = node1.nth(column)
    assert cell.inner_text().startswith("node(s) had taints that the pod didn't tolerate")
    assert "stop" in cell.get_attribute("class")
    # failing nodes first; here every node fails
    nodes = page.eval_on_selector_all("#panel .filter-matrix tbody tr", "els => els.map(e => e.dataset.filterNode)")
    assert nodes[:4] == ["master-0", "master-1", "master-2", "node1"]
    page.keyboard.press("Escape")
    assert page.locator("#panel").is_hidden()


def test_filters_are_kept_in_the_url(viewer_page, clusterui_server):
    page = viewer_page
    page.fill("#board-filters input[name=q]", "running-on")
    page.wait_for_url(re.compile(r"\?q=running-on$"))
    page.wait_for_selector("#node-node2[hidden]", state="attached")
    assert page.locator("#node-node1").is_visible()
    # the URL can be shared: a fresh page shows the same view
    other = page.context.new_page()
    other.goto(page.url)
    assert other.locator("#node-node2").is_hidden() and other.locator("#node-node1").is_visible()
    other.close()
