// Every htmx request carries the CSRF token as a header (no inline script: the CSP
// forbids it). The token comes from the page's <meta name="csrf-token">.
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) {
    event.detail.headers["X-CSRFToken"] = meta.getAttribute("content");
  }
});
