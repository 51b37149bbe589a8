"""`oc edit` in the browser console: an editor opens a Deployment in the editor pane, changes
its replicas, saves, sees the preview, applies, and the change is applied."""

from __future__ import annotations

from tests.browser.test_console import type_command

OUTPUT = "#oc-console .oc-output"


def output_has(page, text: str) -> None:
    page.wait_for_function("(t) => document.querySelector('#oc-console .oc-output').textContent.includes(t)", arg=text)


def test_an_editor_edits_a_deployments_replicas_in_the_console(editor_page):
    type_command(editor_page, "oc edit deployment/frontend -n shop")
    editor = editor_page.wait_for_selector("#oc-editor .oc-editor-text")
    text = editor.input_value()
    assert text.startswith("# Please edit the object below. Lines beginning with a '#' will be ignored,\n")
    assert "\n  replicas: 3\n" in text
    editor.fill(text.replace("\n  replicas: 3\n", "\n  replicas: 4\n"))
    editor_page.click("#oc-editor .oc-save")
    editor_page.wait_for_selector("#oc-console .oc-preview .oc-apply")  # previewed first: nothing written yet
    assert "Preview of oc edit deployment/frontend -n shop" in " ".join(editor_page.inner_text("#oc-preview").split())
    editor_page.click("#oc-console .oc-apply")
    output_has(editor_page, "deployment.apps/frontend edited\n")
    editor_page.wait_for_selector("#oc-editor .oc-editor-text", state="detached")  # the pane closed
    editor_page.fill("#oc-console .oc-input", "oc get deployment frontend -n shop -o jsonpath={.spec.replicas}")  # still open
    editor_page.press("#oc-console .oc-input", "Enter")
    output_has(editor_page, "-o jsonpath={.spec.replicas}\n4")


def test_saving_an_unchanged_file_cancels_the_edit(editor_page):
    type_command(editor_page, "oc edit deploy frontend -n shop")
    editor_page.wait_for_selector("#oc-editor .oc-editor-text")
    editor_page.click("#oc-editor .oc-save")
    output_has(editor_page, "Edit cancelled, no changes made.\n")
