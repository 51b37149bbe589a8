// The oc console of the cluster pages (scheduling/console/views.py). The form is an htmx
// form: the server answers the command's output as a partial appended to #oc-output, with
// the what-if preview (#oc-preview, its Apply form), the drain follower (#oc-drain, polled
// by htmx) and the waiting note swapped out of band. What stays here is what only the
// browser knows: the history (localStorage, ↑/↓), Tab completion of commands, kinds and
// object names (a JSON list from console/complete), and keeping the output scrolled.
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

    function candidates(done) {
      var w = words();
      var last = w[w.length - 1];
      var before = w.slice(0, -1).filter(function (x) { return x && x.charAt(0) !== "-"; });
      if (before[0] !== "oc" && before[0] !== "kubectl") {
        if (before.length === 0) { return done(["oc"].filter(function (c) { return c.indexOf(last) === 0; })); }
      }
      var load = completion ? Promise.resolve(completion) : fetch(root.dataset.completeUrl, {credentials: "same-origin"})
        .then(function (r) { return r.json(); }).then(function (data) { completion = data; return data; });
      load.then(function (data) {
        var rest = before.slice(1);
        var pool = [];
        if (rest.length === 0) { pool = data.commands; }
        else if (rest[0] === "adm" && rest.length === 1) { pool = data.adm; }
        else {
          var args = rest[0] === "adm" ? rest.slice(2) : rest.slice(1);
          if (rest[0] === "adm" && (rest[1] === "cordon" || rest[1] === "uncordon" || rest[1] === "drain")) {
            pool = data.names.nodes || [];
          } else if (args.length === 0) { pool = data.kinds; }
          else { pool = data.names[args[0].toLowerCase()] || []; }
        }
        done(pool.filter(function (c) { return c.indexOf(last) === 0; }));
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
