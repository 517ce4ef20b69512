// Saving: every edit saves the draft 300 ms after the last one, naming the revision it
// was edited from, and the server answers with the new revision and its verdict. An
// unreachable server keeps the work on the page and is retried, less often the longer
// it lasts; a colleague's save in between is a conflict (nothing more is saved until
// a reload); a value the loader cannot read is refused by path, and nothing is saved.
import { errorMessage } from "./api.js";
import { fmt } from "./dom.js";

const SAVE_DELAY = 300;
const FIRST_RETRY = 1000;
const LAST_RETRY = 15000;

export class Autosave {
  // `roundTrips`: each save's time there and back, in ms (read by the browser tests).
  constructor({ store, api, status, text, roundTrips }) {
    Object.assign(this, { store, api, status, text, roundTrips });
    this.timer = null;
    this.retryDelay = FIRST_RETRY;
    store.subscribe((change) => {
      if (change.edited) this.#schedule(SAVE_DELAY);
      else if (change.reloaded) this.cancel(); // what was waiting goes with the old draft
    });
    // Leaving with an edit not yet saved (waiting, in flight, or retrying) asks first.
    window.addEventListener("beforeunload", (event) => {
      if (!store.viewing && (store.dirty || store.saving || store.refusal)) {
        event.preventDefault();
        event.returnValue = text.leave_unsaved;
        return text.leave_unsaved;
      }
      return undefined;
    });
  }

  cancel() {
    clearTimeout(this.timer);
  }

  #schedule(delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.#save(), delay);
  }

  // Actions that replace the draft wait for the autosave: an edit still waiting is
  // sent now, and while a save is on its way they ask the admin to try again.
  settled() {
    const { store } = this;
    if (store.dirty && !store.saving && !store.conflict) {
      this.cancel();
      this.#save();
    }
    if (store.saving || store.dirty) {
      this.status.say(this.text.wait_for_save);
      return false;
    }
    return true;
  }

  async #save() {
    const { store, status, text } = this;
    if (store.conflict || store.viewing) return;
    if (store.saving) {
      this.#schedule(SAVE_DELAY);
      return;
    }
    const revision = store.doc.revision;
    const sent = store.beginSave();
    status.say(text.saving);
    const started = performance.now();
    const answer = await this.api("PUT", "/draft", { revision, graph: sent });
    if (answer.status === 0 || answer.status >= 500) {
      // The server could not be reached, or failed: keep the graph here and retry.
      store.saveFailed();
      status.say(text.retrying);
      status.alarm(text.retrying);
      this.#schedule(this.retryDelay);
      this.retryDelay = Math.min(this.retryDelay * 2, LAST_RETRY);
      return;
    }
    this.roundTrips.push(performance.now() - started);
    if (answer.ok) {
      this.retryDelay = FIRST_RETRY;
      status.alarm("");
      status.say(fmt(text.saved, { revision: answer.data.revision }));
      store.saved(answer.data, sent);
    } else if (answer.status === 409) {
      const conflict = fmt(text.conflict, { revision: answer.data.error.details.current });
      status.alarm(conflict, true);
      status.say(conflict);
      store.conflicted();
    } else {
      // Refused as a document (a path the loader names): nothing saved, keep editing;
      // the message also stands beside the input the path names, if it is open.
      // Said once: beside the input when the path names one, else in the alert.
      const error = (answer.data && answer.data.error) || {};
      const message = errorMessage(answer);
      const path = (error.details || {}).path || "";
      const where = path && path !== "$";
      if (!where) status.alarm(fmt(text.refused, { message }));
      status.say(where ? text.refused_marked : fmt(text.refused, { message }));
      store.saveRefused({ path: where ? path : "", code: error.code, severity: "error", message });
    }
  }
}
