/* clusterui: the few behaviours htmx attributes cannot express. No build step, no CDN.
 *
 * 1. The "live" htmx extension (hx-ext="ws,live" on the cluster page) looks at every
 *    websocket message before the ws extension swaps it. The server renders each fragment
 *    once for every open page, with the default display options; here:
 *    - a fragment whose target element is missing (a node created since this page loaded)
 *      makes the page resynchronise (refetch the live region with its own filters);
 *    - a node card whose group changed (data-zone, data-roles; any label for a grouping by
 *      another label) while the board is grouped resynchronises too (the card belongs to
 *      another group now); any other label change is swapped in place;
 *    - a fragment whose target was rendered for a filtered view (data-filtered) is not
 *      swapped: that element is refetched from its data-src with this page's filters;
 *    - a "refresh this section" partial (data-refresh: the server's stand-in for a fragment
 *      too large for one websocket message) is not swapped either: its section is refetched
 *      the same way (the whole live region when it has no data-src).
 * 2. A reconnected socket resynchronises the page (the changes missed meanwhile).
 * 3. Links marked data-panel open in the side panel; Escape or the × button closes it.
 * 4. Buttons with data-clear="#id" empty that element (cancel a preview: nothing to undo
 *    on the server, a preview never writes).
 * 5. The filter form sends only the options that differ from the defaults, so shared URLs
 *    stay short; the large-type box applies at once.
 *    - a pushed card or tile of the node shown in the side panel (or on the node's own page)
 *      refreshes that panel, unless someone is working in it (a preview shown, a field
 *      focused or filled in): then it says the node changed, with a button to refresh.
 * 6. A page's pushed fragments marked data-catch-up (the machine pages) are fetched once
 *    whenever its socket (re)opens: what changed before the socket was open. The socket's
 *    element says whether it is live (data-live="on"/"off").
 */
(function () {
  "use strict";

  var DEFAULTS = { group: "zone", color: "namespace" };

  function live() { return document.getElementById("live"); }

  function pageUrl() { return window.location.pathname + window.location.search; }

  var resyncTimer = null;
  function resync() {
    if (resyncTimer) return;
    resyncTimer = setTimeout(function () {
      resyncTimer = null;
      if (!live()) return;
      htmx.ajax("GET", pageUrl(), { target: "#live", swap: "outerHTML" });
    }, 150);
  }

  function refetch(target) {
    var src = target.getAttribute("data-src");
    if (!src) { resync(); return; }
    htmx.ajax("GET", src + window.location.search, { target: "#" + CSS.escape(target.id), swap: "outerHTML" });
  }

  // What puts a card or tile in its group on this page: its zone or roles for the built-in
  // groupings (data-zone, data-roles), the fingerprint of all its labels for a grouping by
  // another label. A label that does not decide the group is swapped in place: no refetch.
  function groupOf(el) {
    var group = new URLSearchParams(window.location.search).get("group") || DEFAULTS.group;
    if (group === "zone") return el.getAttribute("data-zone");
    if (group === "role") return el.getAttribute("data-roles");
    return el.getAttribute("data-labels");
  }

  function groupingActive() {
    var params = new URLSearchParams(window.location.search);
    return (params.get("group") || DEFAULTS.group) !== "none";
  }

  htmx.defineExtension("live", {
    transformResponse: function (text, xhr, elt) {
      if (xhr) return text; // only websocket messages (the ws extension passes no xhr)
      var tpl = document.createElement("template");
      tpl.innerHTML = text;
      var kept = [];
      var needResync = false;
      Array.prototype.forEach.call(tpl.content.children, function (el) {
        var changedNode = el.getAttribute("data-node") || el.getAttribute("data-tile");
        if (changedNode) panelNodeChanged(changedNode);
        var oob = el.getAttribute("hx-swap-oob") || "true";
        var target = el.id ? document.getElementById(el.id) : null;
        if (el.hasAttribute("data-refresh")) {
          if (target) refetch(target);
          return;
        }
        if (!target) {
          // A card or tile this page lacks: a new node (or one that changed group). The
          // overview shows tiles, not cards (a card is swapped only where a tile is open),
          // and a cards page shows no tiles: each skips the other's kind.
          var overview = !!document.querySelector('#board[data-view="overview"]');
          var mine = overview ? el.hasAttribute("data-tile") : el.hasAttribute("data-node");
          if (oob !== "delete" && mine) needResync = true;
          return; // nothing to swap into on this page
        }
        if (oob !== "delete" && (target.hasAttribute("data-node") || target.hasAttribute("data-tile")) &&
            groupingActive() && !target.closest("#tile-detail") &&
            groupOf(target) !== groupOf(el)) {
          needResync = true;
          return;
        }
        if (oob !== "delete" && target.hasAttribute("data-filtered")) {
          refetch(target);
          return;
        }
        kept.push(el.outerHTML);
      });
      if (needResync) resync();
      return kept.join("");
    }
  });

  // The node shown in the side panel changed: show its current state, or say so.
  var panelTimer = null;
  function panelNodeChanged(name) {
    var body = document.querySelector('#panel .panel-body[data-panel-for="node/' + CSS.escape(name) + '"][data-panel-url]');
    if (!body || panelTimer) return;
    panelTimer = setTimeout(function () {
      panelTimer = null;
      var current = document.querySelector('#panel .panel-body[data-panel-for="node/' + CSS.escape(name) + '"][data-panel-url]');
      if (current) refreshPanel(current, false);
    }, 300);
  }

  function panelBusy(body) {
    var preview = body.querySelector("#preview");
    if (preview && preview.innerHTML.trim() !== "") return true;
    var active = document.activeElement;
    if (active && body.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)) return true;
    return Array.prototype.some.call(body.querySelectorAll("input[type=text], input:not([type]), textarea"), function (f) {
      return f.value !== f.defaultValue;
    });
  }

  function markStale(body) {
      if (!body.querySelector("[data-panel-stale]")) {
        var note = document.createElement("p");
        note.className = "stale";
        note.setAttribute("data-panel-stale", "");
        note.setAttribute("role", "status");
        note.innerHTML = 'This node changed since this panel was shown. <button type="button" class="secondary small" data-refresh-panel>Show its current state</button>';
        var head = body.querySelector(".panel-head");
        if (head) head.insertAdjacentElement("afterend", note); else body.prepend(note);
      }
  }

  // Fetched first, swapped only if nobody started working in the panel meanwhile.
  function refreshPanel(body, force) {
    if (!force && panelBusy(body)) { markStale(body); return; }
    fetch(body.getAttribute("data-panel-url"), { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var p = panel();
        if (!p || !p.contains(body)) return; // the panel shows something else now
        if (!force && panelBusy(body)) { markStale(body); return; }
        p.innerHTML = html;
        htmx.process(p);
      })
      .catch(function () { markStale(body); });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-refresh-panel]");
    if (!button) return;
    var body = button.closest(".panel-body[data-panel-url]");
    if (body) refreshPanel(body, true);
  });

  function setStatus(text, cls) {
    var el = document.getElementById("live-status");
    if (!el) return;
    el.textContent = text;
    el.className = "live-status " + (cls || "");
  }

  // A cluster's socket (the board, the update progress and machine pages), not a training
  // session's bar, which has its own.
  function clusterSocket(event) {
    var source = event.target && event.target.getAttribute && event.target.getAttribute("ws-connect");
    return !!source && source.indexOf("/ws/clusters/") === 0;
  }
  var opened = 0;
  document.addEventListener("htmx:wsOpen", function (event) {
    if (!clusterSocket(event)) return;
    setStatus("live", "on");
    if (opened++ > 0) resync(); // a reconnect: catch up with what was missed
  });
  document.addEventListener("htmx:wsClose", function (event) {
    if (clusterSocket(event)) setStatus("reconnecting…", "off");
  });

  document.addEventListener("htmx:wsOpen", function (event) {
    var page = event.target;
    if (!page || !page.setAttribute) return;
    page.querySelectorAll("[data-catch-up][data-src][id]").forEach(function (el) {
      htmx.ajax("GET", el.getAttribute("data-src"), { target: "#" + CSS.escape(el.id), swap: "outerHTML" });
    });
    page.setAttribute("data-live", "on");
  });
  document.addEventListener("htmx:wsClose", function (event) {
    if (event.target && event.target.setAttribute) event.target.setAttribute("data-live", "off");
  });

  // --- the side panel ---------------------------------------------------------------------

  function panel() { return document.getElementById("panel"); }

  function openPanel(url, opener) {
    var p = panel();
    if (!p || !p.closest(".workspace")) { window.location.href = url; return; }
    p.hidden = false;
    document.body.classList.add("panel-open");
    p.setAttribute("data-opener", opener && opener.id ? opener.id : "");
    htmx.ajax("GET", url, { target: "#panel", swap: "innerHTML" }).then(function () {
      var heading = p.querySelector("h2");
      if (heading) heading.focus();
    });
  }

  function closePanel() {
    var p = panel();
    if (!p) return;
    if (!p.closest(".workspace")) { // a page of its own: back to the board
      var crumb = document.querySelector(".crumb[href]");
      if (crumb) window.location.href = crumb.getAttribute("href");
      return;
    }
    p.hidden = true;
    p.innerHTML = "";
    document.body.classList.remove("panel-open");
    var opener = p.getAttribute("data-opener");
    var back = opener && document.getElementById(opener);
    if (back) back.focus();
  }

  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var link = event.target.closest("a[data-panel]");
    if (link) {
      event.preventDefault();
      openPanel(link.getAttribute("href"), link);
      return;
    }
    var chip = event.target.closest("button[data-pod]");
    var page = document.getElementById("cluster-page");
    if (chip && page) {
      event.preventDefault();
      openPanel(page.getAttribute("data-pod-base") + chip.getAttribute("data-pod") + "/", chip);
      return;
    }
    var close = event.target.closest("[data-close-panel]");
    if (close) { event.preventDefault(); closePanel(); return; }
    var clear = event.target.closest("[data-clear]");
    if (clear) {
      event.preventDefault();
      var what = document.querySelector(clear.getAttribute("data-clear"));
      if (what) what.innerHTML = "";
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && panel() && !panel().hidden && panel().closest(".workspace")) closePanel();
  });

  // --- the filter form ------------------------------------------------------------------------

  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "board-filters") return;
    var params = event.detail.parameters;
    var clean = function (key, value) {
      return value === "" || value === null || value === undefined || DEFAULTS[key] === value;
    };
    if (params instanceof FormData) {
      Array.from(params.keys()).forEach(function (key) { if (clean(key, params.get(key))) params.delete(key); });
    } else {
      Object.keys(params).forEach(function (key) { if (clean(key, params[key])) delete params[key]; });
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target.name === "big" && event.target.closest("#board-filters")) {
      document.body.classList.toggle("big", event.target.checked);
    }
  });
})();
