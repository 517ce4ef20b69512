// When htmx gets an answer it does not swap (a refused CSRF token, a page that is gone,
// a server error) or no answer at all, say so in the page's alert region instead of
// leaving the click without effect. The words come from the region's data attributes
// (translated server-side); a fragment from the server supplies its own message.
(function () {
  function show(text) {
    var region = document.getElementById("htmx-alert");
    if (!region) return;
    var line = document.createElement("p");
    line.className = "flash flash-error";
    line.textContent = text; // always text: never parse server or user input as markup
    region.replaceChildren(line);
    // One message at a time: an older flash no longer describes what just happened.
    var flash = document.getElementById("flash");
    if (flash) flash.replaceChildren();
    // An alert only while it says something (an empty, hidden alert is noise to audits).
    region.setAttribute("role", "alert");
    region.hidden = false;
    region.focus();
  }

  document.addEventListener("htmx:responseError", function (event) {
    var region = document.getElementById("htmx-alert");
    if (!region) return;
    var text = region.dataset.failed;
    var body = event.detail.xhr && event.detail.xhr.responseText;
    if (body) {
      var found = new DOMParser().parseFromString(body, "text/html").querySelector(".form-errors");
      if (found && found.textContent.trim()) text = found.textContent.trim();
    }
    show(text);
  });

  document.addEventListener("htmx:sendError", function () {
    var region = document.getElementById("htmx-alert");
    if (region) show(region.dataset.offline);
  });

  // A later success clears the alert.
  document.addEventListener("htmx:afterSwap", function () {
    var region = document.getElementById("htmx-alert");
    if (region && !region.hidden) {
      region.hidden = true;
      region.removeAttribute("role");
      region.replaceChildren();
    }
  });
})();
