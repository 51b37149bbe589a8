"""A room on its phones: the server serves the room (`manage.py serve --host 0.0.0.0`, the
room's address played by a second loopback address, 127.0.0.2), the instructor on
127.0.0.1 starts a session whose join link and QR code carry the room's address, and an
attendee's phone (390 px wide) joins through it and follows: the board as a list, the side
panel over the whole screen (a node, a pod), the training bar, a question to answer. A
node's own page follows its changes live; a pod's own page fits too. On every one of them
nothing is wider than the screen. Screenshots at 390 px go to the `screenshots` folder."""

from __future__ import annotations

import subprocess

import pytest

from clusterui.hosts import ADDRESSES_ENV
from tests.browser.conftest import start_live_server
from tests.browser.test_training import load_scenario, log_in, new_page, start_session

pytestmark = pytest.mark.browser

ROOM = "127.0.0.2"
FRONTEND = "shop/frontend-6d4f8b9c7d-4xk2p"  # a pod of the demo cluster, on node2
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def room_server(tmp_path_factory, chromium_path):
    process, server = start_live_server(tmp_path_factory.mktemp("room-browser"), host="0.0.0.0", extra_env={ADDRESSES_ENV: ROOM})
    yield server
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def phone_page(browser, console):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(15_000)
    console.watch(page)
    return context, page


# What sticks out past the screen's right edge: elements, and text (a long line of a <pre>
# is text, not an element), that no scrolling box of their own holds.
WIDER_THAN_THE_SCREEN = """() => {
  const held = e => { for (let a = e; a && a !== document.body; a = a.parentElement) {
    if (getComputedStyle(a).overflowX !== 'visible') return true; } return false; };
  const name = e => e.tagName + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ')[0] : '');
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    const right = e.getBoundingClientRect().right;
    if (right > 390.5 && !held(e.parentElement)) out.push(name(e) + ' to ' + Math.round(right) + ' px');
  }
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t; (t = texts.nextNode()); ) {
    const range = document.createRange();
    range.selectNodeContents(t);
    const right = range.getBoundingClientRect().right;
    if (right > 390.5 && !held(t.parentElement)) out.push('text of ' + name(t.parentElement) + ' ' + JSON.stringify(t.textContent.trim().slice(0, 40)) + ' to ' + Math.round(right) + ' px');
  }
  return out.slice(0, 8);
}"""


def no_sideways_scroll(page) -> None:
    """Nothing scrolls sideways on the 390 px screen: the page is no wider than the screen (a
    phone otherwise widens its layout to the content: innerWidth grows past 390) and nothing
    sticks out of it."""
    width, inner = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert (width, inner) == (390, 390), f"the page is {width} px wide on a 390 px screen: {page.evaluate(WIDER_THAN_THE_SCREEN)}"
    assert page.evaluate(WIDER_THAN_THE_SCREEN) == []


def test_a_phone_joins_through_the_rooms_address_and_follows(browser, room_server, console, screenshots):
    server = room_server
    port = server.url.rsplit(":", 1)[1]
    contexts = []
    try:
        context, teacher = new_page(browser, console)
        contexts.append(context)
        log_in(teacher, server)
        board = load_scenario(teacher, server, "toleration-seconds")
        code = start_session(teacher)
        link = teacher.inner_text("[data-join-url]")
        assert link == f"http://{ROOM}:{port}/training/join/{code}"
        assert teacher.locator(".qr svg").count() == 1

        context, phone = phone_page(browser, console)
        contexts.append(context)
        phone.goto(link)
        no_sideways_scroll(phone)
        phone.fill("#join-name", "Ana")
        phone.click("main button[type=submit]")
        phone.wait_for_selector("#training-socket.on")
        phone.wait_for_selector("#live-status.on")
        assert phone.url.startswith(f"http://{ROOM}:{port}/clusters/")
        teacher.wait_for_function("document.querySelector('[data-connected-count]').textContent.trim() === '1'")

        # The board is a list: one node card under the other, as wide as the screen.
        boxes = phone.eval_on_selector_all("article.node", "els => els.map(e => e.getBoundingClientRect()).map(r => [r.x, r.y, r.width])")
        assert len(boxes) >= 2
        assert len({round(x) for x, _, _ in boxes}) == 1 and all(w > 330 for _, _, w in boxes)
        assert all(b[1] > a[1] for a, b in zip(boxes, boxes[1:]))
        bar = phone.locator("#training-bar").bounding_box()
        assert bar is not None and bar["width"] <= 390
        no_sideways_scroll(phone)
        phone.screenshot(path=str(screenshots / "phone-390-board.png"))

        # The instructor opens node1: the phone's panel covers its screen, the close button in reach.
        teacher.goto(board)
        teacher.wait_for_selector("#training-socket.on")
        teacher.click("#node-node1 h4 a")
        phone.wait_for_selector("#panel h2:has-text('Node node1')")
        panel = phone.locator("#panel").bounding_box()
        assert panel["x"] == 0 and panel["width"] >= 389 and panel["height"] >= 800
        close = phone.locator("#panel button.close").bounding_box()
        assert close["x"] + close["width"] <= 390 and close["y"] >= 0
        phone.screenshot(path=str(screenshots / "phone-390-panel.png"))

        # A question: the phone answers it with a tap.
        teacher.fill("#panel input[name=taint]", "drain=now:NoExecute")
        teacher.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
        teacher.wait_for_selector("#preview .preview-result")
        teacher.click("#preview button:has-text('Ask the room first')")
        phone.wait_for_selector("#training-question h2:has-text('Which pods will be evicted now?')")
        # The question sits at the bottom of the screen, over the panel: answered without leaving it.
        question = phone.locator("#training-question").bounding_box()
        assert question["y"] + question["height"] <= 845 and question["y"] > 300
        choice = phone.get_attribute("#training-question input[name=choice] >> nth=0", "value")
        phone.tap("#training-question input[name=choice] >> nth=0")
        phone.tap("#training-question button[type=submit]")
        phone.wait_for_selector(f"#training-question :text('Your answer: {choice}')")
        assert phone.is_visible("#panel h2:has-text('Node node1')")
        assert phone.inner_text("#training-follow-state") == "Following the instructor"
        no_sideways_scroll(phone)
        phone.screenshot(path=str(screenshots / "phone-390-question.png"))

        # The instructor opens a pod: the phone's side panel shows its explainer, within the screen.
        teacher.click("#panel button.close")
        pod = teacher.get_attribute("#board button[data-pod] >> nth=0", "data-pod")
        teacher.click(f'#board button[data-pod="{pod}"]')
        phone.wait_for_selector(f"#panel h2:has-text('{pod.split('/')[1]}')")
        no_sideways_scroll(phone)
        phone.screenshot(path=str(screenshots / "phone-390-pod-panel.png"))
    finally:
        for context in contexts:
            context.close()


def test_a_nodes_own_page_follows_its_changes(browser, room_server, console, screenshots):
    server = room_server
    contexts = []
    try:
        context, editor = new_page(browser, console)
        contexts.append(context)
        log_in(editor, server, f"/clusters/{server.demo_pk}/")
        context, phone = phone_page(browser, console)
        contexts.append(context)
        phone.goto(f"http://{ROOM}:{server.url.rsplit(':', 1)[1]}/clusters/{server.demo_pk}/nodes/node3/")
        phone.wait_for_selector("#panel h2:has-text('Node node3')")
        phone.wait_for_function("document.getElementById('panel').getAttribute('data-live') === 'on'")
        assert phone.locator("#panel .taint:has-text('live=yes:PreferNoSchedule')").count() == 0

        editor.goto(server.board())
        editor.wait_for_selector("#live-status.on")
        editor.click("#node-node3 h4 a")
        editor.fill("#panel input[name=taint]", "live=yes:PreferNoSchedule")
        editor.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
        editor.wait_for_selector("#preview .preview-result")
        editor.click("#preview button.primary")
        editor.wait_for_selector("#panel p.ok")

        # The node's page shows the taint without a reload.
        phone.wait_for_selector("#panel .taint:has-text('live=yes:PreferNoSchedule')")
        no_sideways_scroll(phone)
        phone.screenshot(path=str(screenshots / "phone-390-node-page.png"))

        # Someone typing in the page is not interrupted: it says the node changed instead.
        phone.fill("#panel input[name=taint]", "half-typed")
        editor.keyboard.press("Escape")
        editor.wait_for_selector("#panel", state="hidden")
        editor.click("#node-node3 h4 a")
        editor.wait_for_selector("#panel h2:has-text('Node node3')")
        editor.fill("#panel input[name=taint]", "live-")
        editor.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
        editor.wait_for_selector("#preview .preview-result")
        editor.click("#preview button.primary")
        phone.wait_for_selector("#panel [data-panel-stale]")
        assert phone.input_value("#panel input[name=taint]") == "half-typed"
        phone.tap("#panel [data-refresh-panel]")
        phone.wait_for_function("!document.querySelector('#panel .taint[data-taint^=\"live=\"]') && !document.querySelector('[data-panel-stale]')")

        # A pod's page (its explainer: the taints it does not tolerate, with the toleration's
        # YAML; the filter and score matrices) fits the screen too; its wide tables scroll inside.
        phone.goto(phone.url.replace("/nodes/node3/", f"/pods/{FRONTEND}/"))
        phone.wait_for_selector("#panel [data-toleration]")
        no_sideways_scroll(phone)
        phone.screenshot(path=str(screenshots / "phone-390-pod-page.png"))
    finally:
        for context in contexts:
            context.close()
