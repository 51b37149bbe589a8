"""A pushed node card is swapped in place when its labels change but not its group: the
viewer's page does not refetch the board (with a room of viewers and editors labelling
nodes, every page refetching the whole board at each label was a render per viewer); a
label that moves the node to another zone still resynchronises the page, which then shows
the card in its new group."""

from __future__ import annotations


def apply_in_console(page, command: str, done: str) -> None:
    if not page.eval_on_selector("#oc-console details", "e => e.open"):
        page.click("#oc-console summary")
    page.fill("#oc-console .oc-input", command)
    page.press("#oc-console .oc-input", "Enter")
    page.wait_for_selector("#oc-console .oc-preview .oc-apply")
    page.click("#oc-console .oc-apply")
    page.wait_for_function(f"() => document.querySelector('#oc-console .oc-output').textContent.includes({done!r})")


def test_a_label_outside_the_grouping_swaps_the_card_without_refetching_the_board(editor_page, viewer_page, clusterui_server):
    board_path = f"/clusters/{clusterui_server.demo_pk}/"
    refetches: list[str] = []
    viewer_page.on("request", lambda r: refetches.append(r.url) if r.url.split("?")[0].endswith(board_path) else None)
    labels_before = viewer_page.get_attribute("#node-node2", "data-labels")

    apply_in_console(editor_page, "oc label node node2 team=blue", "node/node2 labeled\n")
    viewer_page.wait_for_function(f"() => document.querySelector('#node-node2').dataset.labels !== {labels_before!r}")
    viewer_page.wait_for_timeout(1000)  # past the page's resync delay (150 ms)
    assert refetches == []
    assert viewer_page.eval_on_selector("#node-node2", "e => e.closest('section.group').dataset.group") == "us-east-1a"

    apply_in_console(editor_page, "oc label node node2 failure-domain.beta.kubernetes.io/zone=us-east-1c --overwrite",
                     "node/node2 labeled\n")
    viewer_page.wait_for_function(
        "() => document.querySelector('#node-node2').closest('section.group').dataset.group === 'us-east-1c'")
    assert len(refetches) >= 1
