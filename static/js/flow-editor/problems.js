// The problems list: every violation the server found in the saved draft that still
// stands; one about a state, a transition or the flow's own labels and fields is a
// link that opens it (intent `open(target, path)`).
import { el } from "./dom.js";
import { violationTarget } from "./verdicts.js";

export class ProblemsList {
  constructor({ text, open }) {
    this.text = text;
    this.open = open;
    this.list = document.getElementById("problems");
  }

  // Drawn again when the verdict changed, or the grants a grant's problem opens by.
  show(graph, violations) {
    if (violations === this.violations && graph.grants === this.grants) return;
    this.violations = violations;
    this.grants = graph.grants;
    const { text } = this;
    this.list.replaceChildren();
    if (!violations.length) {
      this.list.appendChild(el("li", { class: "muted", text: text.no_problems }));
      return;
    }
    for (const v of violations) {
      const target = violationTarget(graph, v);
      const error = v.severity === "error";
      const tag = el("span", { class: `tag ${error ? "danger" : "warn"}`, text: error ? text.error : text.warning });
      const words = el("span", { text: ` ${v.message}` });
      const item = target
        ? el("button", { type: "button", class: "link-button", "data-code": v.code, onclick: () => this.open(target, v.path) }, [tag, words])
        : el("span", { "data-code": v.code }, [tag, words]);
      this.list.appendChild(el("li", { class: `problem problem-${v.severity}` }, [item]));
    }
  }
}
