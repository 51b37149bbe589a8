"""Take the README's screenshots of the dashboard (not a test):

    .venv/bin/python -m tests.browser.screenshots [OUTPUT_DIR]   # default docs/screenshots

Starts the real server on the demo cluster (in a temporary directory) and drives Debian's
Chromium headless, as the browser tests do.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, DOCS_SCREENSHOTS, start_live_server
from tests.conftest import ROOT


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clusterui-shots-") as tmp:
        process, server = start_live_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_context(viewport={"width": 1440, "height": 900}, device_scale_factor=1).new_page()
                page.goto(f"{server.url}/login/?next=/clusters/{server.demo_pk}/")
                page.fill("#id_username", server.username)
                page.fill("#id_password", server.password)
                page.click("main button[type=submit]")
                page.wait_for_selector("#live-status.on")
                # let the controllers run for a simulated minute: pods scheduled, events
                page.click("button[value=step-60]")
                page.wait_for_timeout(3000)
                page.screenshot(path=str(out / "board.png"), full_page=True)

                page.click("#node-node2 h4 a")
                page.wait_for_selector("#panel input[name=taint]")
                page.fill("#panel input[name=taint]", "key1=value1:NoExecute")
                page.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
                page.wait_for_selector("#preview .preview-result")
                page.locator("#preview").scroll_into_view_if_needed()
                page.evaluate("document.querySelector('#panel').scrollTop = 0")
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(out / "preview.png"))

                page.keyboard.press("Escape")
                page.click('#pending button[data-pod="default/new-pod-key1"]')
                page.wait_for_selector("#panel .filter-matrix")
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(out / "explainer.png"))

                page.goto(f"{server.url}/clusters/{server.demo_pk}/policy")
                page.click("button[value='sample:modified']")
                page.wait_for_selector("text=loaded into the editor")
                page.select_option("select[name=b]", "edited")
                page.click("button[value=compare]")
                page.wait_for_selector(".compare-table")
                page.screenshot(path=str(out / "policy.png"), full_page=True)

                page.goto(f"{server.board()}?big=1&group=role")
                page.wait_for_selector("#live-status.on")
                page.screenshot(path=str(out / "projector.png"))
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    for shot in sorted(out.glob("*.png")):
        print(shot.relative_to(ROOT) if shot.is_relative_to(ROOT) else shot)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS_SCREENSHOTS)
