// The document page's diagram scrolls sideways when it is wider than its box (on a
// phone): say so under it, and bring the current state into view, on load and after a
// decision swaps the page region in. The diagram itself is drawn on the server.
(function () {
  function centre() {
    document.querySelectorAll(".flow-diagram").forEach(function (figure) {
      var scrolls = figure.scrollWidth > figure.clientWidth;
      var hint = figure.nextElementSibling;
      if (hint && hint.classList.contains("diagram-hint")) hint.hidden = !scrolls;
      if (!scrolls) return;
      var current = figure.querySelector(".diagram-state.current");
      if (!current) return;
      var box = current.getBoundingClientRect();
      var frame = figure.getBoundingClientRect();
      figure.scrollLeft += box.left + box.width / 2 - (frame.left + frame.width / 2);
    });
  }
  document.addEventListener("DOMContentLoaded", centre);
  document.addEventListener("htmx:afterSettle", centre);
})();
