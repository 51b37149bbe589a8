"""The oc console in the browser: an editor types `oc adm taint nodes node1 k=v:NoExecute`,
sees the server dry run and the preview, applies, and a second browser follows live."""

from __future__ import annotations


def type_command(page, command: str) -> None:
    page.click("#oc-console summary")
    page.fill("#oc-console .oc-input", command)
    page.press("#oc-console .oc-input", "Enter")


def test_a_taint_typed_in_the_console_is_previewed_applied_and_followed_by_a_viewer(editor_page, viewer_page):
    assert viewer_page.locator('#node-node1 [data-taint="k=v:NoExecute"]').count() == 0
    type_command(editor_page, "oc adm taint nodes node1 k=v:NoExecute")
    editor_page.wait_for_selector("#oc-console .oc-preview .oc-apply")
    assert "node/node1 tainted (server dry run)" in editor_page.inner_text("#oc-console .oc-output")
    assert viewer_page.locator('#node-node1 [data-taint="k=v:NoExecute"]').count() == 0  # nothing changed yet
    editor_page.click("#oc-console .oc-apply")
    editor_page.wait_for_function(
        "() => document.querySelector('#oc-console .oc-output').textContent.includes('node/node1 tainted\\n')")
    viewer_page.wait_for_selector('#node-node1 [data-taint="k=v:NoExecute"]', timeout=5000)


def test_a_viewer_reads_with_the_console_but_cannot_write(viewer_page):
    type_command(viewer_page, "oc get nodes node1 -o name")
    viewer_page.wait_for_function(
        "() => document.querySelector('#oc-console .oc-output').textContent.includes('node/node1\\n')")
    viewer_page.press("#oc-console .oc-input", "ArrowUp")  # history recalls the last command
    assert viewer_page.input_value("#oc-console .oc-input") == "oc get nodes node1 -o name"
    viewer_page.fill("#oc-console .oc-input", "oc adm cordon node1")
    viewer_page.press("#oc-console .oc-input", "Enter")
    viewer_page.wait_for_selector("#oc-console .oc-stderr")
    assert 'User "system:anonymous" cannot patch resource "nodes"' in viewer_page.inner_text("#oc-console .oc-stderr")


def test_tab_completes_commands_and_names(viewer_page):
    viewer_page.click("#oc-console summary")
    viewer_page.fill("#oc-console .oc-input", "oc descr")
    viewer_page.press("#oc-console .oc-input", "Tab")
    viewer_page.wait_for_function("() => document.querySelector('#oc-console .oc-input').value === 'oc describe '")
    viewer_page.type("#oc-console .oc-input", "nodes no")
    viewer_page.press("#oc-console .oc-input", "Tab")  # node1 ... node5: their common prefix
    viewer_page.wait_for_function("() => document.querySelector('#oc-console .oc-input').value === 'oc describe nodes node'")
