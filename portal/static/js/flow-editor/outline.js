// The outline: every state with the actions it offers, in the order a document's page
// offers them, as buttons reachable with Tab — the editor for the keyboard and for
// screen readers. It says what the admin asked for as intents (select, rename, move,
// reorder, delete); it changes nothing itself. A filter finds a state or an action.
import { fmt, el } from "./dom.js";
import { exitsOf, refFromId, refId, sameRef, stateByKey } from "./graph-read.js";

// Ten units a press, as a drag snaps to the grid.
const MOVES = { ArrowLeft: [-10, 0], ArrowRight: [10, 0], ArrowUp: [0, -10], ArrowDown: [0, 10] };

// What the outline says of a graph: its states' keys and labels, its actions' keys,
// ends, labels and order. Edits share what they do not change, so labels are compared
// as they are held.
function readsTheSame(a, b) {
  if (a.states.length !== b.states.length || a.transitions.length !== b.transitions.length) return false;
  const sameState = (s, i) => s === b.states[i] || (s.key === b.states[i].key && s.labels === b.states[i].labels);
  const sameAction = (t, i) => {
    const u = b.transitions[i];
    return t === u || (t.key === u.key && t.from === u.from && t.to === u.to && t.order === u.order && t.labels === u.labels);
  };
  return a.states.every(sameState) && a.transitions.every(sameAction);
}

export class Outline {
  // `on`: select(ref, focusPanel), remove(ref), rename(ref), reorder(index, delta),
  // move(key, dx, dy).
  constructor({ text, label, isReadOnly, on }) {
    this.text = text;
    this.label = label;
    this.list = document.getElementById("outline");
    this.filter = document.getElementById("outline-filter");
    this.count = document.getElementById("outline-count");
    this.graph = null;
    this.selected = null;
    this.filter.addEventListener("input", () => this.#draw());
    this.list.addEventListener("click", (event) => {
      const button = event.target.closest("[data-outline]");
      if (button) on.select(refFromId(button.dataset.outline), false);
    });
    this.list.addEventListener("keydown", (event) => {
      const button = event.target.closest("[data-outline]");
      if (!button || isReadOnly()) return;
      const ref = refFromId(button.dataset.outline);
      const vertical = event.key === "ArrowUp" || event.key === "ArrowDown";
      if (event.key === "Delete") on.remove(ref);
      else if (event.key === "Enter") on.select(ref, true);
      else if (event.key === "F2") on.rename(ref);
      else if (event.altKey && ref.type === "transition" && vertical) on.reorder(ref.index, event.key === "ArrowUp" ? -1 : 1);
      else if (MOVES[event.key] && ref.type === "state") on.move(ref.key, ...MOVES[event.key]);
      else return;
      event.preventDefault();
    });
  }

  // Drawn again only when what it says changed: a state moved, a deadline or a guard
  // typed leave it as it is (and the focus on it).
  show(graph, selected) {
    const sameSelection = (!selected && !this.selected) || sameRef(selected, this.selected);
    if (this.graph && sameSelection && readsTheSame(this.graph, graph)) {
      this.graph = graph;
      return;
    }
    this.graph = graph;
    this.selected = selected;
    this.#draw();
  }

  #item(ref, text, extraClass) {
    return el("button", {
      type: "button",
      class: `outline-item${extraClass}`,
      "data-outline": refId(ref),
      "aria-pressed": sameRef(ref, this.selected) ? "true" : "false",
      text,
    });
  }

  // What matches the filter (a state by its label or key, an action by its words): a
  // state stays when any of its actions matches, with just those actions. Focus on an
  // item stays on it when it is drawn again.
  #draw() {
    const { graph, text, label } = this;
    const active = document.activeElement;
    const focused = active && active.dataset ? active.dataset.outline : null;
    const wanted = this.filter.value.trim().toLowerCase();
    const matches = (words) => !wanted || words.toLowerCase().includes(wanted);
    let shown = 0;
    this.list.replaceChildren();
    for (const s of graph.states) {
      const exits = el("ul", {});
      const stateText = `${label(s)} (${s.key})`;
      const stateMatches = matches(stateText);
      for (const i of exitsOf(graph, s.key)) {
        const t = graph.transitions[i];
        const to = stateByKey(graph, t.to);
        const words = fmt(text.from_to, { from: label(t), to: to ? label(to) : t.to });
        if (!stateMatches && !matches(`${words} ${t.key}`)) continue;
        exits.appendChild(el("li", {}, [this.#item({ type: "transition", index: i }, words, "")]));
      }
      if (!stateMatches && !exits.children.length) continue;
      shown += 1;
      this.list.appendChild(el("li", {}, [this.#item({ type: "state", key: s.key }, stateText, " outline-state"), exits]));
    }
    this.count.textContent = wanted ? fmt(text.outline_shown, { shown, all: graph.states.length }) : "";
    if (focused) this.focus(refFromId(focused));
  }

  // Focus back on an item (after renaming it on the canvas), if it is shown.
  focus(ref) {
    const again = this.list.querySelector(`[data-outline="${CSS.escape(refId(ref))}"]`);
    if (again) again.focus();
  }
}
