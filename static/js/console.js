// The oc console of the cluster pages (scheduling/console.py): history (localStorage,
// ↑/↓), Tab completion of commands, kinds and object names, output exactly as the
// command line prints it, the what-if preview before a change, drains followed live.
(function () {
  "use strict";

  function csrf(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function post(url, form, data) {
    var body = new URLSearchParams(data);
    return fetch(url, {
      method: "POST",
      headers: {"X-CSRFToken": csrf(form), "Content-Type": "application/x-www-form-urlencoded"},
      body: body.toString(),
      credentials: "same-origin",
    }).then(function (r) { return r.json(); });
  }

  function setup(root) {
    var output = root.querySelector(".oc-output");
    var input = root.querySelector(".oc-input");
    var form = root.querySelector(".oc-form");
    var previewBox = root.querySelector(".oc-preview");
    var key = "oc-history-" + root.dataset.cluster;
    var history = [];
    try { history = JSON.parse(localStorage.getItem(key) || "[]"); } catch (e) { history = []; }
    var position = history.length;
    var completion = null;

    function write(stream, text) {
      var span = document.createElement("span");
      span.className = stream === "stderr" ? "oc-stderr" : "oc-stdout";
      span.textContent = text;
      output.appendChild(span);
      output.scrollTop = output.scrollHeight;
    }

    function show(answer) {
      (answer.lines || []).forEach(function (l) { write(l[0], l[1]); });
    }

    function follow(token) {
      var timer = setInterval(function () {
        post(root.dataset.drainUrl, form, {drain: token}).then(function (answer) {
          show(answer);
          var waiting = root.querySelector(".oc-waiting");
          if (waiting) { waiting.hidden = !(answer.paused && !answer.done); }
          if (answer.done) { clearInterval(timer); }
        }).catch(function () { clearInterval(timer); });
      }, 1000);
    }

    function run(command, confirm) {
      previewBox.hidden = true;
      previewBox.innerHTML = "";
      var data = {command: command};
      if (confirm) { data.confirm = "1"; }
      return post(root.dataset.runUrl, form, data).then(function (answer) {
        show(answer);
        if (answer.preview) {
          previewBox.innerHTML = answer.preview;
          previewBox.hidden = false;
          previewBox.querySelector(".oc-apply").addEventListener("click", function () {
            write("stdout", "$ " + answer.confirm + "\n");
            run(answer.confirm, true);
          });
          previewBox.querySelector(".oc-cancel").addEventListener("click", function () {
            previewBox.hidden = true;
            previewBox.innerHTML = "";
            input.focus();
          });
        }
        if (answer.drain) { follow(answer.drain); }
      });
    }

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
          else if (common === last) { write("stdout", list.join("  ") + "\n"); }
          w[w.length - 1] = common;
          input.value = w.join(" ");
        });
      }
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var command = input.value.trim();
      if (!command) { return; }
      write("stdout", "$ " + command + "\n");
      if (history[history.length - 1] !== command) { history.push(command); }
      history = history.slice(-200);
      try { localStorage.setItem(key, JSON.stringify(history)); } catch (e) { /* private mode */ }
      position = history.length;
      input.value = "";
      run(command, false);
    });
  }

  function init() {
    document.querySelectorAll(".oc-console").forEach(function (root) {
      if (!root.dataset.ready) { root.dataset.ready = "1"; setup(root); }
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
