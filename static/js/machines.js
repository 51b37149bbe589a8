// The machine pages follow the cluster's websocket (the broadcast pushes after every
// committed change): each push makes the page's live fragment refetch itself through
// htmx (hx-trigger="cluster-changed"), so a page shows the machines as they move; so
// does the socket's opening (what changed since the page was rendered).
(function () {
  function follow(el) {
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + el.dataset.socket;
    var timer = null;
    function refresh(delay) {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var target = document.getElementById(el.dataset.refresh);
        if (target) { htmx.trigger(target, "cluster-changed"); }
      }, delay);
    }
    function open() {
      var socket = new WebSocket(url);
      socket.onmessage = function () { refresh(150); };
      // catch up on what changed between the page's request and the socket's opening
      socket.onopen = function () { el.dataset.live = "on"; refresh(0); };
      socket.onclose = function () { el.dataset.live = "off"; setTimeout(open, 1000); };
    }
    open();
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-socket]").forEach(follow);
  });
})();
