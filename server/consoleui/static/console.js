// Tambua console: progressive enhancement only. Every form works without
// this file; it adds copy buttons, confirmations and small niceties.
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var b = e.target.closest("[data-copy]");
    if (!b) return;
    var text = b.getAttribute("data-copy");
    var done = function () { var t = b.textContent; b.textContent = "Copied"; setTimeout(function () { b.textContent = t; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {});
    } else {
      var ta = document.createElement("textarea");
      ta.value = text; document.body.appendChild(ta); ta.select();
      try { document.execCommand("copy"); done(); } catch (err) {}
      document.body.removeChild(ta);
    }
  });
  document.addEventListener("submit", function (e) {
    var f = e.target;
    var msg = f.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { e.preventDefault(); return; }
    var busy = f.querySelector("[data-busy]");
    if (busy) { busy.textContent = busy.getAttribute("data-busy"); setTimeout(function () { busy.disabled = true; }, 0); }
  });
  // Webhook type: show the events or the criteria that apply.
  var type = document.querySelector("[data-toggle-type]");
  if (type) {
    var sync = function () {
      document.querySelectorAll("[data-type-only]").forEach(function (el) {
        var on = el.getAttribute("data-type-only") === type.value;
        el.hidden = !on;
        el.querySelectorAll("input").forEach(function (i) { i.disabled = !on; });
      });
    };
    type.addEventListener("change", sync); sync();
  }
})();
