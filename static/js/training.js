/* clusterui training mode (issue 15). No build step, no CDN.
 *
 * 1. The script on the cluster page (#training-script): the step due by the simulated clock
 *    (#clock's data-now, pushed every tick) is lit, "Next at t=…" follows it, and the rewind
 *    slider reaches up to now.
 * 2. In a training session (#training-bar), a socket to /ws/training/<code>/ relays the
 *    session's signals: {"follow": view}, {"refetch": [fragments]}, {"closed": true}.
 *    - an attendee who follows goes to the instructor's page and opens (or closes) the same
 *      side panel; any click of their own on the page steps away (the bar says so) until
 *      they press Follow;
 *    - the instructor's pages report what they show (page and panel) as it changes;
 *    - a closed session ends every attendee's view.
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

  function fetchView() {
    fetch(bar.getAttribute("data-view-url"), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(applyView)
      .catch(function () {});
  }

  function refetch(name) {
    var id = role === "instructor" && name === "question" ? "training-question-instructor" : "training-" + name;
    var el = document.getElementById(id);
    if (!el || !el.getAttribute("data-src")) return;
    htmx.ajax("GET", el.getAttribute("data-src"), { target: "#" + id, swap: "outerHTML" });
  }

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
      sessionStorage.setItem(followKey, "1"); showFollowing();
      fetch(bar.getAttribute("data-follow-url"), { method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf } })
        .then(function (r) { return r.ok ? r.json() : null; }).then(applyView).catch(function () {});
      return;
    }
    if (event.target.closest("#training-bar")) return;
    if (following() && event.target.closest("a, button, select, input, summary, label")) {
      sessionStorage.setItem(followKey, "0"); showFollowing();
    }
  }, true);

  // The socket.
  var delay = 500;
  var leaving = false; // the page is going away: never reconnect (a refused handshake logs an error)
  window.addEventListener("pagehide", function () { leaving = true; });
  window.addEventListener("beforeunload", function () { leaving = true; });
  function go(url) { leaving = true; window.location.href = url; }
  function connect() {
    if (leaving) return;
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + bar.getAttribute("data-ws"));
    var status = document.getElementById("training-socket");
    socket.onopen = function () {
      delay = 500;
      if (status) { status.textContent = "live"; status.className = "tb-socket on"; }
      if (following()) fetchView();
      if (role === "instructor") { refetch("presence"); report(); }
      refetch("question");
    };
    socket.onmessage = function (event) {
      var msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      if (msg.closed) { go(bar.getAttribute("data-ended-url")); return; }
      if (msg.follow) applyView(msg.follow);
      (msg.refetch || []).forEach(refetch);
    };
    socket.onclose = function (event) {
      if (status) { status.textContent = "reconnecting…"; status.className = "tb-socket off"; }
      if (leaving) return;
      // Is the session still open? (a closed one would refuse the socket: end the view)
      setTimeout(function () {
        fetch(bar.getAttribute("data-view-url"), { credentials: "same-origin" }).then(function (r) {
          if (r.status === 404 || r.status === 403) go(bar.getAttribute("data-ended-url"));
          else connect();
        }, function () { setTimeout(connect, delay); });
      }, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }

  function start() {
    showFollowing();
    lightScript();
    connect();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
