/* clusterui training mode. No build step, no CDN.
 *
 * 1. The script on the cluster page (#training-script): the step due by the simulated clock
 *    (#clock's data-now, pushed every tick) is lit, "Next at t=…" follows it, and the rewind
 *    slider reaches up to now.
 * 2. In a training session, the training bar (#training-bar) holds the session's socket
 *    (the htmx ws extension, /ws/training/<code>/): the server pushes the session's
 *    partials and htmx swaps them by id (who follows, the question, what the instructor
 *    shows, the end of the session). What stays here:
 *    - an attendee who follows goes to the page of a new #training-view and opens (or
 *      closes) the same side panel; any click of their own on the page steps away (the bar
 *      says so) until they press Follow (an htmx post answered with #training-view);
 *    - the instructor's pages report what they show (page and panel) as it changes;
 *    - a bar swapped for the ended one (data-ended) sends the page to the ended page.
 */
(function () {
  "use strict";
  if (window.clusteruiTraining) return;
  window.clusteruiTraining = true;

  function timeText(seconds) {
    return "t=" + (Math.round(seconds) === seconds ? seconds.toFixed(0) : seconds.toFixed(1)) + " s";
  }

  function clockNow() {
    var el = document.querySelector("#clock .clock-time");
    return el ? parseFloat(el.getAttribute("data-now")) : null;
  }

  // --- 1. the script -------------------------------------------------------------------------

  function lightScript() {
    var box = document.getElementById("training-script");
    var now = clockNow();
    if (!box || now === null || isNaN(now)) return;
    var steps = box.querySelectorAll(".script-steps li[data-at]");
    var current = null, next = null;
    Array.prototype.forEach.call(steps, function (li) {
      var at = parseFloat(li.getAttribute("data-at"));
      li.classList.toggle("done", at <= now);
      li.classList.remove("current");
      if (at <= now) current = li;
      else if (next === null) next = li;
    });
    if (current) current.classList.add("current");
    var label = box.querySelector("[data-next]");
    if (label) label.textContent = next ? "Next at " + timeText(parseFloat(next.getAttribute("data-at"))) : "End of the script";
    var slider = box.querySelector("#rewind-at");
    if (slider && document.activeElement !== slider) {
      var wasAtEnd = parseFloat(slider.value) >= parseFloat(slider.max);
      slider.max = String(Math.floor(now));
      if (wasAtEnd) { slider.value = slider.max; showRewind(slider); }
    }
  }

  function showRewind(slider) {
    var out = document.querySelector("[data-rewind-output]");
    if (out) out.textContent = timeText(parseFloat(slider.value));
    var fork = document.querySelector("[data-fork-at]");
    if (fork) fork.value = slider.value;
  }

  document.addEventListener("input", function (event) {
    if (event.target.id === "rewind-at") showRewind(event.target);
  });
  document.addEventListener("htmx:afterSettle", lightScript);
  document.addEventListener("htmx:oobAfterSwap", lightScript);

  // --- 2. the session -------------------------------------------------------------------------

  var bar = document.getElementById("training-bar");
  if (!bar) { document.addEventListener("DOMContentLoaded", lightScript); lightScript(); return; }
  var role = bar.getAttribute("data-role");
  var code = bar.getAttribute("data-code");
  var followKey = "clusterui-training-follow-" + code;
  var csrf = (function () {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  })();

  function following() { return role === "attendee" && sessionStorage.getItem(followKey) !== "0"; }

  function showFollowing() {
    if (role !== "attendee") return;
    var on = following();
    var state = document.getElementById("training-follow-state");
    if (state) state.textContent = on ? "Following the instructor" : "Exploring on your own (read-only)";
    var away = bar.querySelector("[data-training-away]"), back = bar.querySelector("[data-training-follow]");
    if (away) away.hidden = !on;
    if (back) back.hidden = on;
    bar.classList.toggle("away", !on);
  }

  function panelEl() { return document.getElementById("panel"); }
  var panelUrl = "";

  function currentPath() { return window.location.pathname + window.location.search; }

  function applyView(view) {
    if (!following() || !view || !view.url) return;
    if (view.url !== currentPath()) { go(view.url); return; }
    var p = panelEl();
    if (view.panel) {
      if (view.panel === panelUrl && p && !p.hidden) return;
      if (!p || !p.closest(".workspace")) { go(view.panel); return; }
      var link = document.createElement("a");
      link.href = view.panel;
      link.setAttribute("data-panel", "");
      link.hidden = true;
      document.body.appendChild(link);
      link.click();
      link.remove();
    } else if (p && !p.hidden) {
      document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
      panelUrl = "";
    }
  }

  // A #training-view swapped in (pushed, or the answer of Follow) is what to show now;
  // the one the page was rendered with is where it already is.
  var shownView = document.getElementById("training-view");
  function viewSwapped() {
    var el = document.getElementById("training-view");
    if (!el || el === shownView) return;
    shownView = el;
    applyView({ url: el.getAttribute("data-url"), panel: el.getAttribute("data-panel") });
  }

  function ended() {
    var now = document.getElementById("training-bar");
    if (now && now.hasAttribute("data-ended")) { go(now.getAttribute("data-ended-url")); return true; }
    return false;
  }

  function swapped() { if (!ended()) viewSwapped(); }
  document.addEventListener("htmx:oobAfterSwap", swapped);
  document.addEventListener("htmx:afterSettle", swapped);

  // The instructor's pages tell the room what they show.
  var reportTimer = null;
  function report() {
    if (role !== "instructor" || window.location.pathname.indexOf("/training/") === 0) return;
    clearTimeout(reportTimer);
    reportTimer = setTimeout(function () {
      var p = panelEl();
      var body = new URLSearchParams({ url: currentPath(), panel: p && !p.hidden ? panelUrl : "" });
      fetch(bar.getAttribute("data-view-url"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "X-CSRFToken": csrf, "Content-Type": "application/x-www-form-urlencoded" }
      }).catch(function () {});
    }, 100);
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "panel" && event.detail.pathInfo) {
      panelUrl = event.detail.pathInfo.requestPath.split("?")[0];
      report();
    }
  });
  var p0 = panelEl();
  if (p0 && window.MutationObserver) {
    new MutationObserver(function () { if (p0.hidden) { panelUrl = ""; report(); } }).observe(p0, { attributes: true, attributeFilter: ["hidden"] });
  }
  // The instructor's filters change the address without a page load.
  document.addEventListener("htmx:pushedIntoHistory", report);

  // An attendee's own clicks on the page step away from following.
  document.addEventListener("click", function (event) {
    if (role !== "attendee" || !event.isTrusted) return;
    if (event.target.closest("[data-training-away]")) {
      sessionStorage.setItem(followKey, "0"); showFollowing(); return;
    }
    if (event.target.closest("[data-training-follow]")) {
      sessionStorage.setItem(followKey, "1"); showFollowing(); // htmx posts Follow: its answer is the view
      return;
    }
    if (event.target.closest("#training-bar")) return;
    if (following() && event.target.closest("a, button, select, input, summary, label")) {
      sessionStorage.setItem(followKey, "0"); showFollowing();
    }
  }, true);

  // The socket is the bar's (htmx ws extension): its state in the bar; once it closes,
  // a session that is no longer open (the view answers 404 or 403) ends the view.
  var leaving = false; // the page is going away: never reconnect
  window.addEventListener("pagehide", function () { leaving = true; });
  window.addEventListener("beforeunload", function () { leaving = true; });
  function go(url) { leaving = true; window.location.href = url; }
  function mine(event) { return event.target && event.target.id === "training-bar"; }
  document.addEventListener("htmx:wsOpen", function (event) {
    if (!mine(event)) return;
    var status = document.getElementById("training-socket");
    if (status) { status.textContent = "live"; status.className = "tb-socket on"; }
    if (role === "instructor") report();
  });
  document.addEventListener("htmx:wsClose", function (event) {
    if (!mine(event) || leaving) return;
    var status = document.getElementById("training-socket");
    if (status) { status.textContent = "reconnecting…"; status.className = "tb-socket off"; }
    fetch(bar.getAttribute("data-view-url"), { credentials: "same-origin" }).then(function (r) {
      if (r.status === 404 || r.status === 403) go(bar.getAttribute("data-ended-url"));
    }, function () {});
  });

  function start() {
    showFollowing();
    lightScript();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
