// Publishing: the button stays disabled, saying why, until the saved draft is the one
// on the page and has no error; it asks for confirmation with what changes against the
// current version (in the server's words), and publishes once per confirmation.
import { errorMessage } from "./api.js";
import { el, fmt } from "./dom.js";

// Each part under its heading; "labels": what only relabelling changed, as before → after.
const PARTS = ["labels", "states", "transitions", "grants", "fields", "settings"];
const HEADINGS = { labels: "labels_changed", settings: "settings" };
const KINDS = ["added", "removed", "changed"];

export class Publisher {
  // `published()`: after a publish, the versions list is read again.
  constructor({ store, api, status, text, published }) {
    Object.assign(this, { store, api, status, text, published });
    this.button = document.getElementById("publish");
    this.reason = document.getElementById("publish-reason");
    this.dialog = document.getElementById("publish-dialog");
    this.changes = document.getElementById("publish-changes");
    this.confirmButton = document.getElementById("publish-confirm");
    this.button.addEventListener("click", () => this.#ask());
    document.getElementById("publish-cancel").addEventListener("click", () => this.dialog.close());
    this.confirmButton.addEventListener("click", () => this.#publish());
  }

  get isOpen() {
    return this.dialog.open;
  }

  refresh() {
    const { store, text } = this;
    const { doc, viewing, refusal } = store;
    let reason;
    if (viewing) reason = fmt(text.viewing, { version: viewing });
    else if (store.dirty || store.saving) reason = text.saving;
    else if (refusal) reason = text.value_refused;
    else if (!doc || !doc.saved) reason = text.publish_unsaved;
    else if (doc.errors) reason = fmt(text.publish_blocked, { num: doc.errors });
    else reason = text.publish_ready;
    this.button.disabled = Boolean(viewing || !doc || !doc.saved || store.dirty || store.saving || refusal || doc.errors || store.conflict);
    this.reason.textContent = reason;
  }

  async #ask() {
    const { text } = this;
    if (this.button.disabled) return;
    const answer = await this.api("GET", "/changes");
    if (!answer.ok) {
      this.status.alarm(fmt(text.failed, { message: errorMessage(answer) }));
      return;
    }
    const changes = answer.data;
    this.changes.replaceChildren();
    const next = (this.store.doc.base_version || 0) + 1;
    document.getElementById("publish-dialog-title").textContent = fmt(text.publish_title, { version: next });
    if (!changes.any) this.changes.appendChild(el("p", { text: text.publish_nothing }));
    // Each part a list: what was added, removed or changed.
    for (const part of PARTS) {
      const items = KINDS.flatMap((kind) => ((changes[part] || {})[kind] || []).map((item) =>
        el("li", { "data-change": kind }, [el("span", { class: `tag change-${kind}`, text: text[kind] }), ` ${item.text}`])));
      if (items.length) {
        this.changes.appendChild(el("section", { "data-part": part }, [el("h3", { text: text[HEADINGS[part] || part] }), el("ul", { class: "plain-list changes" }, items)]));
      }
    }
    this.dialog.showModal();
    this.confirmButton.focus();
  }

  async #publish() {
    const { store, status, text } = this;
    if (this.confirmButton.disabled) return;
    this.confirmButton.disabled = true; // one publish per confirmation
    const answer = await this.api("POST", "/draft/publish", { revision: store.doc.revision });
    this.confirmButton.disabled = false;
    this.dialog.close();
    if (answer.ok) {
      store.takeDraft(answer.data.draft);
      status.say(fmt(text.published, { version: answer.data.version }));
      status.alarm("");
      this.published();
    } else if (answer.status === 409) {
      status.alarm(errorMessage(answer), true);
      store.conflicted();
    } else {
      status.alarm(errorMessage(answer));
    }
    this.refresh();
    // Publish is disabled now: the status line says what happened.
    status.focus();
  }
}
