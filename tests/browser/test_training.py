"""Training mode in real browsers against the real server: an instructor and
three attendees who follow page, panel, simulated time and edits; predict-then-reveal
answered from two browsers; the projector layout at 1024x768."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def new_page(browser, console, width=1280, height=900):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15_000)
    console.watch(page)
    return context, page


def log_in(page, server, next_url="/"):
    page.goto(f"{server.url}/login/?next={next_url}")
    page.fill("#id_username", server.username)
    page.fill("#id_password", server.password)
    page.click("main button[type=submit]")
    page.wait_for_load_state()


def load_scenario(page, server, name: str) -> str:
    """Load a built-in scenario from the cluster list; the board's URL."""
    page.goto(server.url + "/")
    page.click(f"form[action='/scenarios/{name}/load'] button")
    page.wait_for_selector("#live-status.on")
    return page.url


def start_session(page) -> str:
    page.click("#training-script button:has-text('Start a training session')")
    page.wait_for_selector(".training-console [data-code]")
    return page.get_attribute(".training-console [data-code]", "data-code")


def attendee(browser, console, server, code: str, name: str):
    context, page = new_page(browser, console, 1024, 768)
    page.goto(f"{server.url}/training/join/{code}")
    page.fill("#join-name", name)
    page.click("main button[type=submit]")
    page.wait_for_selector("#training-socket.on")
    page.wait_for_selector("#live-status.on")
    return context, page


def test_three_attendees_follow_the_instructors_panel_time_and_edits(browser, clusterui_server, console, screenshots):
    server = clusterui_server
    contexts = []
    try:
        context, teacher = new_page(browser, console)
        contexts.append(context)
        log_in(teacher, server)
        board = load_scenario(teacher, server, "toleration-seconds")
        code = start_session(teacher)
        assert re.fullmatch(r"[A-Z2-9]{8}", code)
        assert teacher.locator(".qr svg").count() == 1
        assert teacher.inner_text("[data-join-url]") == f"{server.url}/training/join/{code}"

        rooms = []
        for name in ("Ana", "Bo", "Cy"):
            ctx, page = attendee(browser, console, server, code, name)
            contexts.append(ctx)
            rooms.append(page)
        # The instructor sees who is connected.
        teacher.wait_for_function("document.querySelector('[data-connected-count]').textContent.trim() === '3'")
        assert teacher.eval_on_selector_all("#training-presence [data-attendee]", "els => els.map(e => e.dataset.attendee)") == ["Ana", "Bo", "Cy"]
        teacher.screenshot(path=str(screenshots / "training-console.png"))

        # Back on the board the instructor opens node1: everyone's panel opens on node1.
        teacher.goto(board)
        teacher.wait_for_selector("#training-socket.on")
        teacher.click("#node-node1 h4 a")
        teacher.wait_for_selector("#panel h2:has-text('Node node1')")
        for page in rooms:
            page.wait_for_selector("#panel h2:has-text('Node node1')")
            assert page.url == board
            assert page.locator(".clock-controls").count() == 0  # read-only: no controls
            assert page.inner_text("#training-follow-state") == "Following the instructor"

        # The script: run to the next step (t=1800 s, the taint leaves node1) - the room's
        # clocks and boards follow.
        assert "Next at t=1800 s" in teacher.inner_text("#training-script")
        teacher.click("#training-script button:has-text('Run to the next step')")
        for page in [teacher, *rooms]:
            page.wait_for_selector("#clock .clock-time[data-now='1800']")
            page.wait_for_selector("#node-node1:not(:has([data-taint]))")
            page.wait_for_selector("#training-script li.current:has-text('the taint is removed from node1')")
            assert page.inner_text("#training-script [data-next]") == "Next at t=4000 s"
        # node2's card comes in its own push, maybe after node1's: wait for it as for the others
        rooms[0].wait_for_selector('#node-node2 [data-taint="key1=value1:NoExecute"]')
        assert rooms[0].locator('#node-node2 [data-taint="key1=value1:NoExecute"]').count() == 1

        # Cy steps away to look at node2; the others keep following the instructor.
        cy = rooms[2]
        cy.click("#node-node2 h4 a")
        cy.wait_for_selector("#panel h2:has-text('Node node2')")
        assert cy.inner_text("#training-follow-state") == "Exploring on your own (read-only)"
        teacher.keyboard.press("Escape")
        for page in rooms[:2]:
            page.wait_for_selector("#panel", state="hidden")
        teacher.click("#node-node2 h4 a")
        for page in rooms[:2]:
            page.wait_for_selector("#panel h2:has-text('Node node2')")
        teacher.keyboard.press("Escape")
        teacher.click("#node-node1 h4 a")
        rooms[0].wait_for_selector("#panel h2:has-text('Node node1')")
        assert "Node node2" in cy.inner_text("#panel h2")  # still exploring
        cy.click("#training-bar [data-training-follow]")
        cy.wait_for_selector("#panel h2:has-text('Node node1')")
        assert cy.inner_text("#training-follow-state") == "Following the instructor"

        # Another page: the room follows the instructor to it.
        teacher.click("a:has-text('Scheduler policy')")
        teacher.wait_for_url(re.compile(r".*/policy$"))
        for page in rooms:
            page.wait_for_url(re.compile(r".*/policy$"))
            page.wait_for_selector("#training-socket.on")

        # Closing the session ends everyone's view.
        teacher.goto(f"{server.url}/training/{code}/")
        teacher.click("button:has-text('Close the session')")
        for page in rooms:
            page.wait_for_selector("h1:has-text('The training session has ended')")
    finally:
        for context in contexts:
            context.close()


def test_the_room_predicts_then_the_instructor_reveals_and_applies(browser, clusterui_server, console, screenshots):
    server = clusterui_server
    contexts = []
    try:
        context, teacher = new_page(browser, console)
        contexts.append(context)
        log_in(teacher, server)
        board = load_scenario(teacher, server, "tolerate-all")
        code = start_session(teacher)
        ana_ctx, ana = attendee(browser, console, server, code, "Ana")
        bo_ctx, bo = attendee(browser, console, server, code, "Bo")
        contexts += [ana_ctx, bo_ctx]
        teacher.goto(board)
        teacher.wait_for_selector("#training-socket.on")

        # The instructor previews a NoExecute taint on node1 and asks the room first.
        teacher.click("#node-node1 h4 a")
        teacher.fill("#panel input[name=taint]", "drain=now:NoExecute")
        teacher.click("#panel form[aria-label='oc adm taint'] button[type=submit]")
        teacher.wait_for_selector("#preview .preview-result")
        teacher.click("#preview button:has-text('Ask the room first')")
        teacher.wait_for_selector("#preview :text('Asked the room')")

        for page in (ana, bo):
            page.wait_for_selector("#training-question h2:has-text('Which pods will be evicted now?')")
        choices = ana.eval_on_selector_all("#training-question input[name=choice]", "els => els.map(e => e.value)")
        assert choices == ["ordinary", "tolerates-everything", "none of them"]
        ana.check("#training-question input[value='ordinary']")
        ana.click("#training-question button[type=submit]")
        ana.wait_for_selector("#training-question :text('Your answer: ordinary')")
        bo.check("#training-question input[value='none of them']")
        bo.click("#training-question button[type=submit]")
        bo.wait_for_selector("#training-question :text('Your answer: none of them')")

        teacher.wait_for_selector("#training-question-instructor [data-answered]:text('2')")
        teacher.click("#training-question-instructor button:has-text('Reveal the answer')")
        for page, verdict in ((ana, "You were right."), (bo, "Not this time: see the answer above.")):
            page.wait_for_selector("#training-question .verdict")
            assert page.inner_text("#training-question .verdict") == verdict
            assert page.inner_text("#training-question li.correct").startswith("ordinary 1")
        ana.screenshot(path=str(screenshots / "training-attendee-reveal.png"))
        teacher.screenshot(path=str(screenshots / "training-instructor-reveal.png"))
        teacher.click("#training-question-instructor button:has-text('Apply the change')")
        teacher.wait_for_selector("#training-question-instructor :text('node/node1 replaced')")
        for page in (ana, bo):
            page.wait_for_selector('#node-node1 [data-taint="drain=now:NoExecute"]')
            page.wait_for_selector('#node-node1 [data-pod="default/ordinary"].terminating')  # evicted at once
    finally:
        for context in contexts:
            context.close()


def test_the_projector_layout_at_1024x768_shows_nodes_first(browser, clusterui_server, console, screenshots):
    server = clusterui_server
    context, page = new_page(browser, console, 1024, 768)
    try:
        log_in(page, server, f"/clusters/{server.demo_pk}/")
        page.goto(f"{server.url}/clusters/{server.demo_pk}/?big=1")
        page.wait_for_selector("#live-status.on")
        page.screenshot(path=str(screenshots / "projector-1024x768.png"))
        first = page.locator("article.node").first.bounding_box()
        assert first is not None and first["y"] + 60 < 768, f"the first node card starts at y={first and first['y']}"
        # Taint chips never break mid-word.
        assert page.eval_on_selector("#node-node1 .taint", "el => getComputedStyle(el).whiteSpace") == "nowrap"
        # The controls are a toolbar of one row that can be opened.
        assert page.locator("#board-filters").bounding_box()["height"] < 80
    finally:
        context.close()


def test_the_instructor_rewinds_with_the_slider_and_restarts_in_place(browser, clusterui_server, console):
    server = clusterui_server
    context, page = new_page(browser, console)
    try:
        log_in(page, server)
        board = load_scenario(page, server, "tolerate-all")
        page.click("#training-script button:has-text('Run to the next step')")
        page.wait_for_selector('#node-node1 [data-taint="maintenance=true:NoExecute"]')
        page.wait_for_selector('#node-node1 [data-pod="default/ordinary"].terminating')
        page.click("button:has-text('+1 min')")
        page.wait_for_selector("#clock .clock-time[data-now='70']")
        page.wait_for_selector('#node-node1:not(:has([data-pod="default/ordinary"]))')  # gone after its grace period

        # Back to t=10 s with the slider: the pod is terminating again, the clock reads 0:00:10.
        page.goto(board)
        page.eval_on_selector("#rewind-at", "el => { el.value = '10'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
        assert page.inner_text("[data-rewind-output]") == "t=10 s"
        page.click("form.rewind button:has-text('Rewind')")
        # The server asks first, saying what goes; until confirmed nothing changes.
        question = page.inner_text("#rewind-confirm.confirm-step")
        assert "Rewind to t=10 s? This discards" in question and "everything after t=10 s up to t=70 s." in question
        page.wait_for_timeout(500)
        assert page.get_attribute("#clock .clock-time", "data-now") == "70"
        page.click("#rewind-confirm a:has-text('Cancel')")
        page.wait_for_selector("#rewind-confirm:empty", state="attached")
        assert page.get_attribute("#clock .clock-time", "data-now") == "70"
        page.eval_on_selector("#rewind-at", "el => { el.value = '10'; el.dispatchEvent(new Event('input', {bubbles: true})); }")
        page.click("form.rewind button:has-text('Rewind')")
        page.click("#rewind-confirm button:has-text('Rewind and discard')")
        page.wait_for_selector("#clock .clock-time[data-now='10']")
        page.wait_for_selector('#node-node1 [data-pod="default/ordinary"].terminating')
        assert "Rewound from t=70 s to t=10 s by" in page.inner_text("#events")

        # Restart in place: the same cluster (same address) at t=0, the pod running again.
        page.click("#training-script button:has-text('Restart scenario')")
        assert "Restart from t=0 s? This discards" in page.inner_text("#rewind-confirm.confirm-step")
        page.click("#rewind-confirm button:has-text('Restart and discard')")
        page.wait_for_selector("#clock .clock-time[data-now='0']")
        page.wait_for_selector('#node-node1 [data-pod="default/ordinary"]:not(.terminating)')
        assert page.url == board
        assert page.inner_text("#training-script [data-next]") == "Next at t=10 s"
    finally:
        context.close()
