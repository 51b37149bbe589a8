"""A dropped socket reconnects and the page catches up with what changed meanwhile."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import pytest

from tests.browser.conftest import CHROMIUM_ARGS, server_env, start_live_server
from tests.conftest import ROOT, start_process, wait_for

pytestmark = pytest.mark.browser

TAINT_NODE4 = """
from scheduling.store import services
from scheduling.models import Cluster
cluster = Cluster.objects.get(name="demo")
doc = services.get_object(cluster, "Node", "node4").document
doc.setdefault("spec", {})["taints"] = [{"key": "while-you-were-away", "value": "yes", "effect": "PreferNoSchedule"}]
services.replace_object(cluster, doc)
"""


def test_the_page_resynchronises_after_the_server_comes_back(tmp_path, chromium_path):
    from playwright.sync_api import sync_playwright

    process, server = start_live_server(tmp_path)
    port = server.url.rsplit(":", 1)[1]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(server.board())
            page.wait_for_selector("#live-status.on")
            assert page.locator('#node-node4 [data-taint="while-you-were-away=yes:PreferNoSchedule"]').count() == 0

            process.terminate()
            process.wait(timeout=20)
            page.wait_for_selector("#live-status:not(.on)", timeout=15_000)
            # Changed while no server could tell the page about it.
            subprocess.run([sys.executable, "manage.py", "shell", "-c", TAINT_NODE4], cwd=ROOT,
                           env=server_env(tmp_path), check=True, capture_output=True)
            process = start_process(["manage.py", "serve", "--port", port], server_env(tmp_path), tmp_path / "server2.log")

            def answers():
                try:
                    with urllib.request.urlopen(server.url + "/", timeout=2) as r:
                        return r.status == 200
                except OSError:
                    return False

            wait_for(answers, timeout=40, what="the server to come back")
            # The socket reconnects by itself and the board is fetched again: no reload.
            page.wait_for_selector('#node-node4 [data-taint="while-you-were-away=yes:PreferNoSchedule"]', timeout=30_000)
            page.wait_for_selector("#live-status.on")
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=20)
