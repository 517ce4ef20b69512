// The document page's diagram scrolls sideways when it is wider than its box (on a
// phone): bring the current state into view, on load and after a decision swaps the
// page region in. Only scrolls; the diagram itself is drawn on the server.
(function () {
  function centre() {
    document.querySelectorAll(".flow-diagram").forEach(function (figure) {
      if (figure.scrollWidth <= figure.clientWidth) return;
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
