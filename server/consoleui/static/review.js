// Tambua console, case page: click an image to zoom it in a dialog; the
// buttons, the + and - keys or the wheel (with Ctrl) change the zoom and
// the stage scrolls (drag to pan). Without this file the links open the
// image itself.
(function () {
  "use strict";
  var dlg = document.getElementById("zoom");
  if (!dlg || typeof dlg.showModal !== "function") return;
  var img = document.getElementById("zoom-img");
  var stage = dlg.querySelector(".zoom-stage");
  var title = document.getElementById("zoom-title");
  var scale = 1;
  var apply = function () {
    img.style.width = Math.round(img.naturalWidth * scale) + "px";
    img.style.height = Math.round(img.naturalHeight * scale) + "px";
  };
  var fit = function () {
    if (!img.naturalWidth) return;
    scale = Math.min(stage.clientWidth / img.naturalWidth, stage.clientHeight / img.naturalHeight, 4);
    apply();
  };
  var zoom = function (f) { scale = Math.max(0.1, Math.min(8, scale * f)); apply(); };
  document.addEventListener("click", function (e) {
    var a = e.target.closest("[data-zoomable]");
    if (!a) return;
    e.preventDefault();
    title.textContent = a.getAttribute("aria-label").replace(/^Zoom /, "");
    img.alt = title.textContent;
    img.onload = fit;
    img.src = a.getAttribute("href");
    dlg.showModal();
    if (img.complete) fit();
  });
  dlg.addEventListener("click", function (e) {
    var b = e.target.closest("[data-zoom]");
    if (!b) return;
    var what = b.getAttribute("data-zoom");
    if (what === "in") zoom(1.25);
    else if (what === "out") zoom(0.8);
    else if (what === "fit") fit();
    else dlg.close();
  });
  dlg.addEventListener("keydown", function (e) {
    if (e.key === "+" || e.key === "=") zoom(1.25);
    if (e.key === "-") zoom(0.8);
  });
  stage.addEventListener("wheel", function (e) {
    if (!e.ctrlKey) return;
    e.preventDefault();
    zoom(e.deltaY < 0 ? 1.1 : 0.9);
  }, { passive: false });
  var drag = null;
  stage.addEventListener("pointerdown", function (e) { drag = { x: e.clientX, y: e.clientY, l: stage.scrollLeft, t: stage.scrollTop }; });
  window.addEventListener("pointerup", function () { drag = null; });
  stage.addEventListener("pointermove", function (e) {
    if (!drag) return;
    stage.scrollLeft = drag.l - (e.clientX - drag.x);
    stage.scrollTop = drag.t - (e.clientY - drag.y);
  });
})();
