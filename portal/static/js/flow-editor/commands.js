// What the admin's intents do, wherever they come from (the canvas, the outline, the
// toolbar, the panel): each is one store edit, plus what the admin is told when it
// cannot be done and where the view goes after it.
import { fmt } from "./dom.js";
import { autoPositions, freeSpot } from "./geometry.js";
import {
  addState, addTransition, duplicateState, exitKeys, moveExit, moveState, placeStates, removeState, removeTransition,
  updateItem,
} from "./graph-edit.js";
import { itemAt, stateByKey } from "./graph-read.js";
import { openRename, renameLocale } from "./inline-rename.js";
import { withLabel } from "./item-edit.js";

const lastState = (graph) => ({ type: "state", key: graph.states.at(-1).key });

export class EditorCommands {
  // `figures`: the read-only figures the browser tests read (window.flowEditor).
  // `actions`: asks a new arrow's action (see action-prompt.js).
  constructor({ store, canvas, outline, status, text, setup, lang, figures, actions }) {
    Object.assign(this, { store, canvas, outline, status, text, setup, lang, figures, actions });
    this.box = setup.box;
  }

  select(ref, focusPanel = false) {
    this.store.select(ref, { focusPanel });
  }

  // A new step, named in every language at once, selected.
  addStateAt(x, y) {
    this.store.edit((g) => addState(g, { x, y, labels: this.setup.new_state }), { select: lastState });
  }

  // From the toolbar: where freeSpot finds room in view; when the view is full, right
  // of everything, and the view is fitted to show it.
  addStateInView() {
    const graph = this.store.graph;
    if (!graph) return;
    const { low, high } = this.canvas.visibleArea();
    const spot = freeSpot(graph, this.box, low, high);
    if (spot) {
      this.addStateAt(spot.x, spot.y);
      return;
    }
    const right = graph.states.reduce((most, s) => Math.max(most, s.x), 0);
    this.addStateAt(right + this.box.width + 120, Math.max(0, (low.y + high.y - this.box.height) / 2));
    this.canvas.fit();
  }

  // A state goes with its arrows and grants; the draft state stays, and says why.
  removeSelected() {
    const { store } = this;
    const ref = store.selected;
    if (!ref || store.viewing) return;
    const remove = ref.type === "state" ? (g) => removeState(g, ref.key) : (g) => removeTransition(g, ref.index);
    if (!store.edit(remove, { select: null }) && ref.type === "state") this.status.say(this.text.delete_initial);
  }

  remove(ref) {
    this.select(ref);
    this.removeSelected();
  }

  // A copy of a state beside it (see graph-edit.js); the rename input opens on it, since
  // two states of one name would confuse.
  duplicate(key) {
    if (this.store.edit((g) => duplicateState(g, key, this.box), { select: lastState })) this.rename(this.store.selected);
  }

  rename(ref) {
    const { store, text } = this;
    const item = itemAt(store.graph, ref);
    const place = item ? this.canvas.renamePlace(ref) : null;
    if (store.viewing || !place) return;
    this.select(ref);
    const locale = renameLocale(this.setup.locales, this.lang);
    openRename({
      place,
      before: (item.labels || {})[locale] || "",
      ariaLabel: fmt(text.label_in, { locale }),
      done: (after) => store.edit((g) => updateItem(g, ref, (it) => withLabel(it, locale, after))),
      refocus: () => this.outline.focus(ref),
    });
  }

  // An arrow drawn from one state's handle to another state: named first (its key and
  // labels), or, cancelled, not made at all (the arrow drawn so far goes).
  async connect(from, to) {
    const { store } = this;
    const action = await this.actions.ask(exitKeys(store.graph, from));
    const made = action && store.edit((g) => addTransition(g, from, to, action), {
      select: (g) => ({ type: "transition", index: g.transitions.length - 1 }),
    });
    if (!made && store.graph) this.canvas.show(store.graph, { redraw: true });
  }

  // A state dropped where it was dragged, or moved by the arrow keys. The panel does
  // not show a state's place: it stays as it is.
  moveState(key, x, y) {
    this.store.edit((g) => moveState(g, key, x, y), { keepPanel: true });
  }

  nudge(key, dx, dy) {
    const s = stateByKey(this.store.graph, key);
    if (s) this.moveState(key, (s.x || 0) + dx, (s.y || 0) + dy);
  }

  reorder(index, delta) {
    this.store.edit((g) => moveExit(g, index, delta));
  }

  // Every state placed by dagre to fit the canvas, then the view fitted to them.
  autoLayout() {
    const { store, canvas } = this;
    if (store.viewing || !store.graph || !store.graph.states.length) return;
    const started = performance.now();
    const positions = autoPositions(store.graph, this.box, canvas.size());
    store.edit((g) => placeStates(g, positions), { keepPanel: true });
    canvas.fit();
    this.figures.lastLayoutMs = performance.now() - started;
  }
}
