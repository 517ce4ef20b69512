// The "Print" buttons of the audit timeline and its print view: hidden until this runs
// (without JavaScript the browser's own Print does the same), then they print the page.
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".js-print").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        window.print();
      });
    });
  });
})();
