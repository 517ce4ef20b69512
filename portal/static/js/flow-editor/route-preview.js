// "Who would approve?": for a member and an amount, who decides each step of the saved
// draft, or what strands it, listed and outlined on the canvas. It answered for the
// draft as it was: the next edit clears it.
import { errorMessage } from "./api.js";
import { el, fmt } from "./dom.js";
import { stateByKey } from "./graph-read.js";

export class RoutePreview {
  constructor({ store, api, canvas, text, label }) {
    Object.assign(this, { store, api, canvas, text, label });
    this.steps = document.getElementById("route-steps");
    this.member = document.getElementById("route-member");
    this.amount = document.getElementById("route-amount");
    document.getElementById("route-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.#show();
    });
    store.subscribe((change) => {
      if (change.edited) this.clear();
    });
  }

  // The requesters to pick from: the org chart's members.
  offer(members) {
    for (const m of members || []) this.member.appendChild(el("option", { value: m.id, text: m.label }));
  }

  // Each question is numbered: an answer that arrives after an edit (or after a newer
  // question) is about a draft no longer on the page, and is dropped.
  #asked = 0;

  clear() {
    this.#asked += 1;
    this.canvas.clearRoute();
    this.steps.replaceChildren();
  }

  async #show() {
    const { text } = this;
    this.clear();
    const asked = this.#asked;
    const answer = await this.api("POST", "/route", { member_id: Number(this.member.value), amount: this.amount.value });
    if (asked !== this.#asked) return;
    if (!answer.ok) {
      this.steps.appendChild(el("li", { class: "field-error", text: errorMessage(answer) }));
      return;
    }
    for (const step of answer.data.steps) {
      const s = stateByKey(this.store.graph, step.state);
      const name = s ? this.label(s) : step.state;
      const words = step.routable
        ? fmt(text.step_deciders, { state: name, names: step.approvers.join(", ") })
        : fmt(text.step_blocked, { state: name, reason: step.gaps.join(" ") });
      this.steps.appendChild(el("li", { "data-state": step.state, "data-routable": String(step.routable), text: words }));
    }
    this.canvas.showRoute(answer.data.steps);
  }
}
