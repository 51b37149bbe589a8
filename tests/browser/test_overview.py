"""The overview and the explainer in a real browser: a 500-node cluster opens as tiles
coloured by state, a tile opens its node's pods, the toggle shows the cards; the explainer
summarises the reasons, names the taint and previews the toleration that fixes it.
Screenshots: overview.png, explainer-taints.png (in docs/screenshots/ with
CLUSTERUI_REFRESH_SCREENSHOTS=1, see conftest)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.browser.conftest import server_env
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

POPULATE = """
from scheduling.bench.board import _populate
from scheduling.store import services
from scheduling.models import Node
c = _populate("five-hundred", 500, 6000)
for i, (name, change) in enumerate([("worker-0003", "notready"), ("worker-0007", "cordon"), ("worker-0011", "pressure")]):
    n = Node.objects.get(cluster=c, name=name); doc = n.document
    conds = doc["status"]["conditions"]
    if change == "notready": conds[0]["status"] = "False"
    if change == "pressure": conds[1]["status"] = "True"
    if change == "cordon": doc.setdefault("spec", {})["unschedulable"] = True
    services.replace_object(c, doc)
print(c.pk)
"""


@pytest.fixture(scope="module")
def big_cluster(clusterui_server) -> int:
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", POPULATE], cwd=ROOT, env=server_env(clusterui_server.var_dir),
                         check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])


def test_500_nodes_open_as_tiles_and_a_tile_opens_its_pods(browser, clusterui_server, big_cluster, console, screenshots):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    console.watch(page)
    page.goto(f"{clusterui_server.url}/clusters/{big_cluster}/")
    page.wait_for_selector("#live-status.on")
    assert page.locator("#board[data-view=overview] a.tile").count() == 500
    assert page.locator("article.node").count() == 0
    states = {s: page.locator(f"#board .tiles a.tile.s-{s}").count() for s in ("notready", "cordoned", "pressure", "tainted", "ready")}
    assert states == {"notready": 1, "cordoned": 1, "pressure": 1, "tainted": 10, "ready": 487}
    assert page.locator("#tile-worker-0003").get_attribute("title") == "worker-0003 · NotReady · 12 pods"
    page.screenshot(path=str(screenshots / "overview.png"))
    page.click("#tile-worker-0001")
    page.wait_for_selector("#tile-detail article#node-worker-0001")
    assert page.locator("#tile-detail article#node-worker-0001 button.pod").count() == 12  # CHIPS_PER_NODE
    assert "+0 more" not in page.inner_text("#tile-detail")
    page.click("a[data-view-link]")
    page.wait_for_selector("article#node-worker-0499")
    assert page.locator("#board[data-view=overview]").count() == 0
    context.close()


def test_the_explainer_names_the_taint_and_previews_its_toleration(editor_page, clusterui_server, screenshots):
    page = editor_page
    page.click('#pending button[data-pod="default/new-pod-key1"]')
    page.wait_for_selector("#panel .reason-summary")
    reasons = page.eval_on_selector_all("#panel .reason-summary tbody tr", "els => els.map(e => e.innerText.split('\\t').slice(0, 2).join(' '))")
    assert reasons == ["8 node(s) didn't match node selector", "1 node(s) had taints that the pod didn't tolerate"]
    assert page.inner_text('#panel tr[data-filter-node="node1"] [data-untolerated]') == "(key2=value2:NoSchedule)"
    assert page.inner_text("#panel [data-toleration]") == "tolerations:\n- key: key2\n  operator: Equal\n  value: value2\n  effect: NoSchedule"
    page.set_viewport_size({"width": 1440, "height": 1100})
    page.locator("#panel .taint-fixes").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "explainer-taints.png"))
    page.click("#panel .taint-fixes button[type=submit]")
    page.wait_for_selector("#preview [data-scheduled]")
    assert page.eval_on_selector_all("#preview [data-scheduled]", "els => els.map(e => e.dataset.scheduled)") == ["default/new-pod-key1"]
