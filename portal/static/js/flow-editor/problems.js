// The problems list: every violation the server found in the saved draft that still
// stands, and a value refused before it could be saved; one about a state, a
// transition or the flow's own labels and fields is a link that opens it (intent
// `open(target, path)`). Each is said once, in plain words, with where it is in the
// graph and its code on a muted line of its own for whoever needs them. The toolbar
// carries the count, and leads here.
import { el, fmt } from "./dom.js";
import { violationTarget } from "./verdicts.js";

// The same finding reported twice (same code, place and words) is listed once.
export function distinctProblems(violations) {
  const seen = new Set();
  return violations.filter((v) => {
    const id = `${v.code}\u0000${v.path || ""}\u0000${v.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export class ProblemsList {
  constructor({ text, open }) {
    this.text = text;
    this.open = open;
    this.list = document.getElementById("problems");
    this.count = document.getElementById("problems-count");
    this.count.addEventListener("click", () => {
      this.list.scrollIntoView({ block: "nearest" });
      const first = this.list.querySelector("button");
      if (first) first.focus();
    });
  }

  // Drawn again when the verdict changed, or the grants a grant's problem opens by.
  show(graph, violations, refusal) {
    if (violations === this.violations && graph.grants === this.grants && refusal === this.refusal) return;
    this.violations = violations;
    this.grants = graph.grants;
    this.refusal = refusal;
    const { text } = this;
    const problems = distinctProblems(refusal ? [refusal, ...violations] : violations);
    const errors = problems.filter((v) => v.severity === "error").length;
    this.count.textContent = fmt(text.problem_count, { num: problems.length });
    this.count.dataset.severity = errors ? "error" : problems.length ? "warning" : "none";
    this.list.replaceChildren();
    if (!problems.length) {
      this.list.appendChild(el("li", { class: "muted", text: text.no_problems }));
      return;
    }
    for (const v of problems) {
      const target = v.ref ? violationTarget(graph, v) : this.#refusalTarget(graph, v.path);
      const error = v.severity === "error";
      const tag = el("span", { class: `tag ${error ? "danger" : "warn"}`, text: error ? text.error : text.warning });
      const words = el("span", { text: ` ${v.message}` });
      const item = target
        ? el("button", { type: "button", class: "link-button", "data-code": v.code, onclick: () => this.open(target, v.path) }, [tag, words])
        : el("span", { "data-code": v.code }, [tag, words]);
      const where = v.path ? el("span", { class: "problem-where", text: fmt(text.problem_where, { path: v.path, code: v.code }) }) : null;
      this.list.appendChild(el("li", { class: `problem problem-${v.severity}` }, [item, where]));
    }
  }

  // A refused value has a path and no reference: what it opens is read off the path.
  #refusalTarget(graph, path) {
    const found = /^(states|transitions|grants)\[(\d+)\]/.exec(path || "");
    if (!found) return null;
    const index = Number(found[2]);
    if (found[1] === "transitions") return graph.transitions[index] ? { type: "transition", index } : null;
    const item = found[1] === "states" ? graph.states[index] : graph.grants[index];
    const key = item && (found[1] === "states" ? item.key : item.state);
    return key ? { type: "state", key } : null;
  }
}
