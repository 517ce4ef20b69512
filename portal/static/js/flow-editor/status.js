// The status line (what just happened: saved, refused, why nothing happened) and the
// alert above the toolbar (what stands in the way: a conflict, a refused file, an
// unreachable server, a version on show), with its button to reload the draft or go
// back to it.

export class StatusLine {
  constructor(text) {
    this.text = text;
    this.line = document.getElementById("save-status");
    this.box = document.getElementById("editor-alert");
    this.message = document.getElementById("editor-alert-text");
    this.reloadButton = document.getElementById("editor-reload");
  }

  say(text) {
    this.line.textContent = text;
  }

  // `offerReload`: the button reloads the draft. `info`: a notice (a version on show),
  // not a problem. No text hides the alert.
  alarm(text, offerReload = false, info = false) {
    this.message.parentNode.className = info ? "flash" : "flash flash-error";
    this.message.textContent = text;
    this.reloadButton.hidden = !offerReload;
    this.box.hidden = !text;
  }

  // While a version is on show the button leads back to the draft.
  follow(store) {
    store.subscribe((change) => {
      if (change.reloaded) this.reloadButton.textContent = store.viewing ? this.text.back : this.text.reload;
    });
  }

  onReload(handler) {
    this.reloadButton.addEventListener("click", handler);
  }

  // After an action that disables the button it came from, focus goes where the
  // outcome is said.
  focus() {
    this.line.focus();
  }
}
