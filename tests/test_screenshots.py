"""Running the browser tests leaves the README's screenshots alone: they go to a
temporary folder unless CLUSTERUI_REFRESH_SCREENSHOTS=1 asks for docs/screenshots/."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.browser.conftest import DOCS_SCREENSHOTS, REFRESH_SCREENSHOTS, screenshots_dir

ROOT = Path(__file__).resolve().parents[1]


def test_screenshots_go_to_a_temporary_folder_unless_a_refresh_is_asked_for(tmp_path):
    assert DOCS_SCREENSHOTS == ROOT / "docs" / "screenshots"
    assert screenshots_dir({}, lambda: tmp_path) == tmp_path
    assert screenshots_dir({REFRESH_SCREENSHOTS: ""}, lambda: tmp_path) == tmp_path
    assert screenshots_dir({REFRESH_SCREENSHOTS: "0"}, lambda: tmp_path) == tmp_path
    assert screenshots_dir({REFRESH_SCREENSHOTS: "1"}, lambda: tmp_path) == DOCS_SCREENSHOTS


def test_no_browser_test_names_the_docs_screenshots_folder_itself():
    """Every screenshot path of a browser test comes from the `screenshots` fixture."""
    offenders = []
    for path in sorted((ROOT / "tests" / "browser").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in ("docs", "screenshots", "docs/screenshots"):
                offenders.append(f"{path.name}:{node.lineno}: {node.value!r}")
            if isinstance(node, ast.keyword) and node.arg == "path" and "screenshots" not in ast.unparse(node.value).split(" ")[0]:
                offenders.append(f"{path.name}:{node.lineno}: screenshot(path={ast.unparse(node.value)})")
    assert offenders == []
