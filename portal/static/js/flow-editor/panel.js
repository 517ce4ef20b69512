// The properties panel: the selected state or transition, or with nothing selected the
// flow itself; every change made in it is a store edit. It is drawn afresh when the
// selection or the shape of what it shows changes, never under the admin's typing (an
// input's own edit leaves it as it is, see EditorStore.edit's `keepPanel`).
import { el } from "./dom.js";
import { itemAt } from "./graph-read.js";
import { flowProperties } from "./panel-flow.js";
import { PanelInputs } from "./panel-inputs.js";
import { drawPanelProblems, placeFor } from "./panel-problems.js";
import { stateProperties } from "./panel-state.js";
import { transitionProperties } from "./panel-transition.js";

export class PropertiesPanel {
  // `say(text)`: the status line. `duplicate(key)`: copy a state (see commands.js).
  constructor({ store, text, setup, label, say, duplicate }) {
    this.store = store;
    this.text = text;
    this.setup = setup;
    this.locales = setup.locales;
    this.label = label;
    this.say = say;
    this.duplicate = duplicate;
    this.pickers = {}; // the org chart's members, seats and roles, once they have come
    this.element = document.getElementById("properties");
  }

  // Focus that was in the panel comes back to the same input (by its path in the graph)
  // or button (by its test id), or to the nearest one still there, never to the page's
  // top. `focusPanel`: the item was opened to be edited, on its first input.
  draw({ focusPanel = false } = {}) {
    const had = this.element.contains(document.activeElement) ? document.activeElement : null;
    const path = had && had.getAttribute("data-path");
    const id = had && had.getAttribute("data-testid");
    this.#build();
    if (had) this.#restore(path, id);
    if (focusPanel) this.#focusFirst();
  }

  #restore(path, id) {
    const panel = this.element;
    let again = null;
    if (path !== null && path !== undefined) again = panel.querySelector(`[data-path="${CSS.escape(path)}"]`);
    else if (id) again = panel.querySelector(`[data-testid="${CSS.escape(id)}"]`);
    if (!again || again.disabled) {
      again = panel.querySelector('[data-testid^="offer-"]:not([disabled])') ||
        panel.querySelector("input:not([readonly]), select:not([disabled]), button:not([disabled])");
    }
    if (again) again.focus();
  }

  drawProblems() {
    const { store } = this;
    drawPanelProblems(this.element, store.violations, store.refusal, Boolean(store.viewing));
  }

  // The input a problem is about, focused (a grant's floor, a guard).
  focusPath(path) {
    const place = path ? placeFor(this.element, path) : null;
    if (place && /^(INPUT|SELECT)$/.test(place.tagName)) place.focus();
  }

  // A state opens on its label (renaming is the common edit), a transition on its key.
  #focusFirst() {
    const first = this.element.querySelector('[data-locale="en"]') || this.element.querySelector("input, select");
    if (first) first.focus();
  }

  #build() {
    const { store } = this;
    const panel = this.element;
    this.inputs = new PanelInputs({ readOnly: Boolean(store.viewing), text: this.text, locales: this.locales });
    panel.replaceChildren();
    store.forgetLocalRefusal();
    const ref = store.selected;
    const item = itemAt(store.graph, ref);
    if (!item) {
      panel.dataset.path = "";
      panel.append(el("p", { class: "muted", text: this.text.nothing_selected }), ...flowProperties(this));
    } else if (ref.type === "state") {
      const index = store.graph.states.indexOf(item);
      panel.dataset.path = `states[${index}]`;
      panel.append(...stateProperties(this, item, index));
    } else {
      panel.dataset.path = `transitions[${ref.index}]`;
      panel.append(...transitionProperties(this, item, ref.index));
    }
    this.drawProblems();
  }
}
