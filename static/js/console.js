// The oc console of the cluster pages (scheduling/console/views.py). The form is an htmx
// form: the server answers the command's output as a partial appended to #oc-output, with
// the what-if preview (#oc-preview, its Apply form), the drain follower (#oc-drain, polled
// by htmx) and the waiting note swapped out of band. What stays here is what only the
// browser knows: the history (localStorage, ↑/↓), Tab completion of commands and their
// subcommands, flags and --output values, kinds, namespaces and object names (JSON from
// console/complete), and keeping the output scrolled.
(function () {
  "use strict";

  function setup(root) {
    var output = root.querySelector(".oc-output");
    var input = root.querySelector(".oc-input");
    var form = root.querySelector(".oc-form");
    var key = "oc-history-" + root.dataset.cluster;
    var history = [];
    try { history = JSON.parse(localStorage.getItem(key) || "[]"); } catch (e) { history = []; }
    var position = history.length;
    var completion = null;

    // Completion lists are written here by the browser itself (text, never HTML).
    function write(text) {
      var span = document.createElement("span");
      span.className = "oc-stdout";
      span.textContent = text;
      output.appendChild(span);
      output.scrollTop = output.scrollHeight;
    }

    // The command about to be sent: an empty one is not sent; the others go in the history
    // and the input is emptied for the next one.
    form.addEventListener("htmx:configRequest", function (event) {
      var command = input.value.trim();
      if (!command) { event.preventDefault(); return; }
      if (history[history.length - 1] !== command) { history.push(command); }
      history = history.slice(-200);
      try { localStorage.setItem(key, JSON.stringify(history)); } catch (e) { /* private mode */ }
      position = history.length;
      input.value = "";
    });

    root.addEventListener("htmx:afterSettle", function () { output.scrollTop = output.scrollHeight; });

    function words() { return input.value.split(/\s+/); }

    // What Tab offers for the word being typed: the commands, then the subcommands
    // (`rollout status`, `adm top node`), a flag of the command (and the values of
    // --output / -o and --dry-run), the namespaces after -n, the kinds, then the names of
    // the kind given (also as `kind/name`).
    function candidates(done) {
      var w = words();
      var last = w[w.length - 1];
      var typed = w.slice(0, -1);
      var before = [];
      for (var i = 0; i < typed.length; i++) {
        var x = typed[i];
        if (!x) { continue; }
        if (x.charAt(0) === "-") {
          if ((x === "-n" || x === "--namespace" || x === "-o" || x === "--output" || x === "-l" || x === "-c") &&
              i + 1 < typed.length) { i += 1; }
          continue;
        }
        before.push(x);
      }
      var previous = typed[typed.length - 1] || "";
      if (before[0] !== "oc" && before[0] !== "kubectl") {
        if (before.length === 0) { return done(["oc"].filter(function (c) { return c.indexOf(last) === 0; })); }
      }
      var load = completion ? Promise.resolve(completion) : fetch(root.dataset.completeUrl, {credentials: "same-origin"})
        .then(function (r) { return r.json(); }).then(function (data) { completion = data; return data; });
      load.then(function (data) {
        var rest = before.slice(1);
        var sub = data.sub || {};
        var depth = 0;
        while (depth < rest.length && sub[rest.slice(0, depth + 1).join(" ")] && depth + 1 < rest.length &&
               (sub[rest.slice(0, depth + 1).join(" ")] || []).indexOf(rest[depth + 1]) >= 0) { depth += 1; }
        var path = rest.slice(0, depth + 1).join(" ");
        var args = rest.slice(depth + 1);
        var pool = [];
        var prefix = "";
        if (previous === "-n" || previous === "--namespace") { pool = data.names.namespaces || []; }
        else if (previous === "-o" || previous === "--output") { pool = (data.values || {})["--output"] || []; }
        else if (last.indexOf("--output=") === 0 || last.indexOf("--dry-run=") === 0) {
          var flag = last.slice(0, last.indexOf("=") + 1);
          prefix = flag;
          pool = (data.values || {})[flag.slice(0, -1)] || [];
          last = last.slice(flag.length);
        } else if (last.charAt(0) === "-") { pool = (data.flags || {})[path] || []; }
        else if (rest.length === 0) { pool = data.commands; }
        else if (sub[path] && args.length === 0 && rest.length === depth + 1) { pool = sub[path]; }
        else if (path === "adm cordon" || path === "adm uncordon" || path === "adm drain" || path === "adm taint" ||
                 path === "adm top node" || path === "adm top nodes") {
          pool = data.names.nodes || [];
        } else if (path === "logs" || path === "adm top pod" || path === "adm top pods") { pool = data.names.pods || []; }
        else if (last.indexOf("/") > 0) {
          var kind = last.slice(0, last.indexOf("/"));
          prefix = kind + "/";
          pool = data.names[kind.toLowerCase()] || [];
          last = last.slice(prefix.length);
        } else if (args.length === 0) { pool = data.kinds; }
        else { pool = data.names[args[0].split(",")[0].toLowerCase()] || []; }
        done(pool.filter(function (c) { return c.indexOf(last) === 0; }).map(function (c) { return prefix + c; }));
      });
    }

    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowUp") {
        if (position > 0) { position -= 1; input.value = history[position]; }
        event.preventDefault();
      } else if (event.key === "ArrowDown") {
        if (position < history.length - 1) { position += 1; input.value = history[position]; }
        else { position = history.length; input.value = ""; }
        event.preventDefault();
      } else if (event.key === "Tab") {
        event.preventDefault();
        candidates(function (list) {
          if (list.length === 0) { return; }
          var w = words();
          var last = w[w.length - 1];
          var common = list.reduce(function (a, b) {
            var i = 0;
            while (i < a.length && i < b.length && a.charAt(i) === b.charAt(i)) { i += 1; }
            return a.slice(0, i);
          });
          if (list.length === 1) { common = list[0] + " "; }
          else if (common === last) { write(list.join("  ") + "\n"); }
          w[w.length - 1] = common;
          input.value = w.join(" ");
        });
      }
    });
  }

  function init() {
    document.querySelectorAll(".oc-console").forEach(function (root) {
      if (!root.dataset.ready) { root.dataset.ready = "1"; setup(root); }
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
