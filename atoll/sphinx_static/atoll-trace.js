/* Atoll: step through a trace (a counterexample, a witness, a worked
   example). Each <div class="atoll-trace"> holds one <section> per step and
   its pictures once each in <template>s; this script shows one step at a
   time. Without it, every step is shown. */
(function () {
  "use strict";
  function setup(box) {
    if (box.dataset.ready) { return; }
    box.dataset.ready = "1";
    var frames = Array.prototype.slice.call(box.querySelectorAll(".atoll-trace-frame"));
    var svgs = {};
    box.querySelectorAll("template.atoll-trace-svg").forEach(function (t) {
      svgs[t.dataset.i] = t.innerHTML;
    });
    var bar = box.querySelector(".atoll-trace-bar");
    var slider = box.querySelector(".atoll-trace-slider");
    var pos = box.querySelector(".atoll-trace-pos");
    var last = frames.length - 1;
    var at = 0;
    function show(k) {
      at = Math.max(0, Math.min(last, k));
      frames.forEach(function (f, i) {
        f.hidden = i !== at;
        if (i === at) {
          f.querySelectorAll("figure[data-svg]").forEach(function (fig) {
            if (!fig.dataset.drawn) {
              fig.insertAdjacentHTML("afterbegin", svgs[fig.dataset.svg] || "");
              fig.dataset.drawn = "1";
            }
          });
        }
      });
      slider.value = String(at);
      pos.textContent = "step " + at + " of " + last;
      box.dataset.step = String(at);
    }
    bar.hidden = false;
    box.querySelector(".atoll-trace-first").addEventListener("click", function () { show(0); });
    box.querySelector(".atoll-trace-prev").addEventListener("click", function () { show(at - 1); });
    box.querySelector(".atoll-trace-next").addEventListener("click", function () { show(at + 1); });
    box.querySelector(".atoll-trace-last").addEventListener("click", function () { show(last); });
    var goto = box.querySelector(".atoll-trace-goto");
    if (goto) {
      goto.addEventListener("click", function () { show(parseInt(box.dataset.at, 10) || 0); });
    }
    slider.addEventListener("input", function () { show(parseInt(slider.value, 10) || 0); });
    box.tabIndex = 0;
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowLeft") { show(at - 1); e.preventDefault(); }
      if (e.key === "ArrowRight") { show(at + 1); e.preventDefault(); }
    });
    show(0);
  }
  function all() { document.querySelectorAll(".atoll-trace").forEach(setup); }
  window.atollTrace = { setup: setup, all: all };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", all);
  } else {
    all();
  }
})();
