// A new arrow asks for its action before it is made: a key, and its label in every
// language, from the suggestions the server keeps in one list (approve, reject,
// submit…) or typed. Nothing is added until the admin says so; Cancel adds nothing.
import { el, fmt } from "./dom.js";
import { actionFrom, actionProblem } from "./action-names.js";

export class ActionPrompt {
  // `suggestions`: [{key, labels}] (see portal/flows/wording/actions.py).
  constructor({ text, locales, lang, suggestions }) {
    Object.assign(this, { text, locales, lang, suggestions });
    this.dialog = document.getElementById("action-dialog");
    this.keyInput = document.getElementById("action-key");
    this.problem = document.getElementById("action-problem");
    this.labelInputs = Object.fromEntries(locales.map((locale) => [locale, document.getElementById(`action-label-${locale}`)]));
    this.resolve = null;
    const list = document.getElementById("action-suggestions");
    list.replaceChildren(...suggestions.map((s) => el("li", {}, [
      el("button", {
        type: "button",
        class: "suggestion",
        "data-action": s.key,
        text: `${s.labels[lang] || s.labels.en} (${s.key})`,
        onclick: () => this.#pick(s),
      }),
    ])));
    document.getElementById("action-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.#confirm();
    });
    document.getElementById("action-cancel").addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("close", () => this.#finish(null));
  }

  get isOpen() {
    return this.dialog.open;
  }

  // Answers {key, labels} once the admin adds the action, or null when they cancel.
  // `taken`: the keys already leaving the arrow's state.
  ask(taken) {
    this.taken = taken;
    this.keyInput.value = "";
    for (const input of Object.values(this.labelInputs)) input.value = "";
    this.#say("");
    this.dialog.showModal();
    this.keyInput.focus();
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  #pick(suggestion) {
    this.keyInput.value = suggestion.key;
    for (const [locale, input] of Object.entries(this.labelInputs)) input.value = suggestion.labels[locale] || "";
    this.#say("");
    this.dialog.querySelector("#action-add").focus();
  }

  #confirm() {
    const labels = Object.fromEntries(Object.entries(this.labelInputs).map(([locale, input]) => [locale, input.value]));
    const action = actionFrom(this.keyInput.value, labels);
    const problem = actionProblem(action.key, this.taken);
    if (problem) {
      this.#say(problem === "taken" ? fmt(this.text.action_key_taken, { key: action.key }) : this.text.action_key_invalid);
      this.keyInput.focus();
      return;
    }
    const resolve = this.resolve;
    this.resolve = null;
    this.dialog.close();
    if (resolve) resolve(action);
  }

  #finish(answer) {
    const resolve = this.resolve;
    this.resolve = null;
    if (resolve) resolve(answer);
  }

  #say(words) {
    this.problem.textContent = words;
    this.keyInput.setAttribute("aria-invalid", words ? "true" : "false");
  }
}
