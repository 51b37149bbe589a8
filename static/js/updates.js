// The update progress page is live through the cluster's websocket, with no polling: the
// broadcast renders the page's live fragment (#progress-live, hx-swap-oob) once after every
// committed change of the update's objects and the htmx ws extension swaps it in. Here: when
// the socket opens, and again after a reconnect, the fragment is fetched once, so the page
// catches up with what changed before the socket was (re)opened.
(function () {
  "use strict";
  document.addEventListener("htmx:wsOpen", function () {
    var live = document.getElementById("progress-live");
    if (!live || !live.getAttribute("data-src")) return;
    htmx.ajax("GET", live.getAttribute("data-src"), { target: "#progress-live", swap: "outerHTML" });
  });
})();
