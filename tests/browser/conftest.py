"""Browser fixtures: the real ASGI server (`manage.py serve`, embedded mode: in-process
Celery worker and beat, in-memory channel layer) on a free port with the demo cluster and
the local editor account, and Debian's Chromium driven by Playwright (never a downloaded
browser). Without /usr/bin/chromium the tests are skipped, except in CI where they fail.

The screenshots some tests take go to a temporary folder; with
`CLUSTERUI_REFRESH_SCREENSHOTS=1` they replace the README's, in docs/screenshots/."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

import pytest

from tests.conftest import IN_CI, ROOT, free_port, start_process, wait_for

CHROMIUM = "/usr/bin/chromium"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
REFRESH_SCREENSHOTS = "CLUSTERUI_REFRESH_SCREENSHOTS"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


@dataclass(frozen=True)
class LiveServer:
    url: str
    username: str
    password: str
    demo_pk: int
    var_dir: Path

    def board(self) -> str:
        return f"{self.url}/clusters/{self.demo_pk}/"


def server_env(var_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "SECRET_KEY", "DEBUG")}
    env.update(CLUSTERUI_VAR_DIR=str(var_dir), HTTPS="0", PYTHONUNBUFFERED="1")
    return env


def start_live_server(var_dir: Path, host: str = "", extra_env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen, LiveServer]:
    """`host` is serve's --host (default its own, 127.0.0.1); the tests reach it on 127.0.0.1."""
    env = {**server_env(var_dir), **(extra_env or {})}
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput"], ["load_demo"], ["local_account"]):
        subprocess.run([*manage, *command], cwd=ROOT, env=env, check=True, capture_output=True)
    user, _, password = (var_dir / "local-account.txt").read_text().strip().partition(":")
    pk = subprocess.run(
        [*manage, "shell", "-c", "from scheduling.models import Cluster; print(Cluster.objects.get(name='demo').pk)"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    ).stdout.strip().splitlines()[-1]
    port = free_port()
    process = start_process(["manage.py", "serve", "--port", str(port), *(["--host", host] if host else [])], env, var_dir / "server.log")
    base = f"http://127.0.0.1:{port}"

    def answers():
        try:
            with urllib.request.urlopen(base + "/", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        wait_for(answers, timeout=40, what="the server to answer")
    except AssertionError:
        process.terminate()
        raise
    return process, LiveServer(base, user, password, int(pk), var_dir)


def screenshots_dir(environ: Mapping[str, str], temporary: Callable[[], Path]) -> Path:
    """Where the browser tests save their screenshots: docs/screenshots/ when asked to
    refresh the README's (`CLUSTERUI_REFRESH_SCREENSHOTS=1`), otherwise `temporary()`."""
    if environ.get(REFRESH_SCREENSHOTS, "") not in ("", "0"):
        return DOCS_SCREENSHOTS
    return temporary()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """The folder the browser tests' screenshots go to (see screenshots_dir)."""
    folder = screenshots_dir(os.environ, lambda: tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def chromium_path() -> str:
    if not os.access(CHROMIUM, os.X_OK):
        message = f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests"
        if IN_CI:
            pytest.fail(f"CI=true but {message}")
        pytest.skip(message)
    return CHROMIUM


@pytest.fixture(scope="module")
def clusterui_server(tmp_path_factory, chromium_path):
    var_dir = tmp_path_factory.mktemp("clusterui-browser")
    process, server = start_live_server(var_dir)
    yield server
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Console:
    """Every console error and uncaught exception of a page."""

    def __init__(self):
        self.errors: list[str] = []

    def watch(self, page) -> None:
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))


@pytest.fixture
def console():
    watcher = Console()
    yield watcher
    assert watcher.errors == [], "the pages logged errors"


def _page(browser, console, **options):
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    console.watch(page)
    return context, page


@pytest.fixture
def viewer_page(browser, clusterui_server, console):
    """An anonymous visitor on the board, its socket open."""
    context, page = _page(browser, console)
    page.goto(clusterui_server.board())
    page.wait_for_selector("#live-status.on")
    yield page
    context.close()


@pytest.fixture
def editor_page(browser, clusterui_server, console):
    """The local editor account, logged in, on the board, its socket open."""
    context, page = _page(browser, console)
    page.goto(f"{clusterui_server.url}/login/?next=/clusters/{clusterui_server.demo_pk}/")
    page.fill("#id_username", clusterui_server.username)
    page.fill("#id_password", clusterui_server.password)
    page.click("main button[type=submit]")
    page.wait_for_selector("#live-status.on")
    yield page
    context.close()
