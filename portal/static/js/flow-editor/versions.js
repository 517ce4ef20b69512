// The published versions: each can be viewed read-only on the canvas, exported, or
// made the start of a new draft.
import { errorMessage } from "./api.js";
import { el, fmt } from "./dom.js";

export class VersionsList {
  // `shown()`: a graph other than the last one is on the canvas (to fit the view).
  constructor({ store, api, status, text, setup, autosave, shown }) {
    Object.assign(this, { store, api, status, text, setup, autosave, shown });
    this.list = document.getElementById("versions");
  }

  async load() {
    const { text } = this;
    const answer = await this.api("GET", "/versions");
    this.list.replaceChildren();
    for (const v of answer.ok ? answer.data : []) {
      const when = new Date(v.published_at).toLocaleString();
      this.list.appendChild(el("li", { "data-version": v.version }, [
        el("strong", { text: `v${v.version} ` }),
        el("span", { class: "muted", text: `${fmt(text.published_by, { when, who: v.published_by || "—" })} ` }),
        el("button", { type: "button", class: "link-button", text: text.view, onclick: () => this.show(v.version) }),
        " ",
        el("button", { type: "button", class: "link-button", text: text.start_from, onclick: () => this.startFrom(v.version) }),
        " ",
        el("a", { href: `${this.setup.export}?version=${v.version}`, download: "", "data-testid": "export-version", text: fmt(text.export_version, { version: v.version }) }),
      ]));
    }
  }

  // Read-only on the canvas until "Back to the draft"; the draft's last edit is saved
  // before it goes.
  async show(version) {
    const { store, status, text } = this;
    if (!store.viewing && !this.autosave.settled()) return;
    const answer = await this.api("GET", `/versions/${version}`);
    if (!answer.ok) {
      status.alarm(fmt(text.failed, { message: errorMessage(answer) }));
      return;
    }
    store.view(version, answer.data.graph);
    status.say(fmt(text.viewing, { version }));
    status.alarm(fmt(text.viewing, { version }), true, true);
    this.shown();
  }

  // The version's graph becomes the draft, as a new revision; what was waiting to be
  // saved goes (a save on its way lands first).
  async startFrom(version) {
    const { store, status, text } = this;
    if (store.saving) {
      status.say(text.wait_for_save);
      return;
    }
    this.autosave.cancel();
    const answer = await this.api("POST", "/draft/from-version", { version, revision: store.doc.revision });
    if (!answer.ok) {
      status.alarm(errorMessage(answer), answer.status === 409);
      return;
    }
    store.takeDraft(answer.data);
    status.alarm("");
    status.say(fmt(text.saved, { revision: store.doc.revision }));
    this.shown();
  }
}
