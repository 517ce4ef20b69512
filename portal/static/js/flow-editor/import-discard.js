// Two ways to replace the whole draft with the server's: import a file as the draft,
// or discard the draft (back to the current version).
import { errorMessage } from "./api.js";
import { fmt } from "./dom.js";

export class ImportAndDiscard {
  // `shown()`: another graph is on the canvas (to fit the view).
  constructor({ store, api, status, text, autosave, shown }) {
    Object.assign(this, { store, api, status, text, autosave, shown });
    document.getElementById("discard").addEventListener("click", () => this.#discard());
    document.getElementById("import-file").addEventListener("change", (event) => this.#import(event.target));
  }

  async #discard() {
    const { store, status, text } = this;
    if (!store.doc || !store.doc.saved) return;
    // A save on its way would land on a draft that is gone: let it land first.
    if (store.saving) {
      status.say(text.wait_for_save);
      return;
    }
    if (!window.confirm(text.discard_confirm)) return;
    this.autosave.cancel(); // what was waiting goes with the draft
    const answer = await this.api("POST", "/draft/discard", { revision: store.doc.revision });
    if (!answer.ok) {
      status.alarm(errorMessage(answer), answer.status === 409);
      return;
    }
    store.takeDraft(answer.data);
    status.say(text.discarded);
  }

  // The file goes to the server as it is: its loader says what is wrong (not JSON, at
  // which line; a wrong shape, at which path) in the admin's language, and a refused
  // file changes nothing, here or there.
  async #import(input) {
    const { store, status, text } = this;
    const file = input.files[0];
    input.value = "";
    if (!file || store.viewing || !this.autosave.settled()) return;
    const answer = await this.api("PUT", `/draft/import?revision=${store.doc.revision}`, file);
    if (!answer.ok) {
      status.alarm(fmt(text.import_refused, { name: file.name, message: errorMessage(answer) }), answer.status === 409);
      return;
    }
    store.takeDraft(answer.data);
    status.alarm("");
    status.say(fmt(text.imported, { revision: store.doc.revision }));
    this.shown();
  }
}
