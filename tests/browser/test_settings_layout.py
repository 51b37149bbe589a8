"""Cluster Settings on a laptop screen: no sideways scroll at 1366x768 and 1440x900, the
essentials (current version, channel, update status, Upgradeable, admin gates, the available
updates) in the first screen, the long lists (ClusterOperators, alerts, conditional risks,
`oc adm upgrade recommend`, the risk inputs, the preview's events) folded, and nothing wider
than the window even with every fold open.

Before this layout the page of the openshift4 demo was 1,755 px wide and about 7,000 px tall
(as first reported); now it is 1366 px wide and under 1,100 px tall at 1366x768 with the folds closed."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

from tests.browser.test_eus_rehearsal import demo4  # noqa: F401 (the openshift4 demo's pk)

ESSENTIALS = ("#cluster-version .current-version", "#channel", "#progressing-message", "#cluster-version .risk",
              "#admin-gates button:has-text('Acknowledge')", "#update-graph tbody tr:first-child button[type=submit]")


def sizes(page) -> dict:
    return page.evaluate("""() => ({
        width: document.scrollingElement.scrollWidth, inner: window.innerWidth,
        height: document.scrollingElement.scrollHeight,
        wide: [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
              .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)),
    })""")


def open_every_fold(page) -> None:
    page.evaluate("() => document.querySelectorAll('main details').forEach(d => { d.open = true; })")


@pytest.mark.parametrize("width, height", [(1366, 768), (1440, 900)])
def test_cluster_settings_fit_a_laptop_screen(browser, clusterui_server, demo4, console, screenshots, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15_000)
    console.watch(page)
    base = clusterui_server.url
    page.goto(f"{base}/login/?next=/clusters/{demo4}/updates/%3Fknown_issues%3D1")
    page.fill("#id_username", clusterui_server.username)
    page.fill("#id_password", clusterui_server.password)
    page.click("main button[type=submit]")
    page.wait_for_selector("#cluster-version")

    m = sizes(page)
    assert m["width"] <= m["inner"], m["wide"]
    assert m["height"] < 1100, m  # was about 7,000
    for selector in ESSENTIALS:  # in the first screen, without scrolling
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (selector, box)
    assert "34: 0 not available, 0 progressing, 0 degraded" in page.inner_text("#operators-fold summary")
    page.screenshot(path=str(screenshots / f"cluster-settings-{width}.png"), full_page=True)

    # every fold open: still no sideways scroll; the ClusterOperators as `oc get co` prints them
    open_every_fold(page)
    m = sizes(page)
    assert m["width"] <= m["inner"], m["wide"]
    assert page.locator("#cluster-operators tbody tr").count() == 34
    assert page.inner_text("#cluster-operators tr[data-operator=kube-apiserver] td:nth-child(2)") == "4.18.44"

    # the update's preview (pools, drains, every event) fits the width too
    page.click("#update-graph tbody tr:first-child button[type=submit]")
    page.wait_for_selector("#update-preview [data-pool=master]", timeout=60_000)
    open_every_fold(page)
    m = sizes(page)
    assert m["width"] <= m["inner"], m["wide"]
    context.close()
