// forgegate view: live progress of a generating run, polled from /runs/<id>/progress.json.
// Only textContent is written: nothing from the server is ever parsed as markup.
"use strict";
(function () {
  var PERIOD_MS = 1000;

  function show(el, cls, value) {
    var target = el.querySelector(cls);
    if (target) { target.textContent = value; }
  }

  function poll(el) {
    var url = el.getAttribute("data-progress");
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (p) {
        show(el, ".p-answered", String(p.answered));
        show(el, ".p-total", String(p.total));
        show(el, ".p-errors", String(p.errors));
        show(el, ".p-rate", p.tokens_per_s === null ? "NA" : p.tokens_per_s.toFixed(0));
        show(el, ".p-eta", p.eta_s === null ? "NA" : p.eta_s.toFixed(0));
        show(el, ".p-state", p.generating ? "generating" : "finished (reload for the verdict)");
        el.setAttribute("data-polls", String(Number(el.getAttribute("data-polls") || "0") + 1));
        if (p.generating) { window.setTimeout(function () { poll(el); }, PERIOD_MS); }
      })
      .catch(function () { window.setTimeout(function () { poll(el); }, 3 * PERIOD_MS); });
  }

  document.querySelectorAll("[data-progress]").forEach(poll);
})();
