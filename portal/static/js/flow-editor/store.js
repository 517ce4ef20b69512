// The editor's one state: the working graph (the draft's JSON, what is saved), the
// server's last verdict on it, what is selected, the version on show read-only, and
// how saving stands. Every change the admin makes is an `edit`, which keeps the
// verdicts that still stand, opens an undo step and tells the subscribers, which redraw
// what they show and schedule the save; otherwise only the server's draft (takeDraft)
// or a version on show (view) replaces the graph.
import { normalized } from "./graph-edit.js";
import { itemAt, sameRef } from "./graph-read.js";
import { EditHistory } from "./history.js";
import { stillStanding } from "./verdicts.js";

const NO_VIOLATIONS = [];

export class EditorStore {
  #graph = null;
  #doc = null; // the server's last answer about the draft: revision, verdict, who saved it
  #violations = NO_VIOLATIONS; // the verdict's violations that still stand
  #selected = null;
  #viewing = null; // a version number while one is on show
  #refusal = null; // the last save's refusal by path ({path, code, severity, message})
  #dirty = false; // edited since the last save was sent
  #saving = false;
  #conflict = false; // a colleague saved in between: nothing more is saved until a reload
  #history = new EditHistory(200);
  #listeners = [];

  get graph() { return this.#graph; }
  get doc() { return this.#doc; }
  get violations() { return this.#viewing ? NO_VIOLATIONS : this.#violations; }
  get selected() { return this.#selected; }
  get viewing() { return this.#viewing; }
  get refusal() { return this.#refusal; }
  get dirty() { return this.#dirty; }
  get saving() { return this.#saving; }
  get conflict() { return this.#conflict; }
  // An edit not saved yet is a step of its own.
  get canUndo() { return this.#history.canUndo() || this.#dirty; }
  get canRedo() { return this.#history.canRedo(); }

  // `listener(change, store)` after every change. `change` says what changed: `graph`
  // (with `reloaded` when another graph replaced it rather than an edit, and `edited`
  // for an edit, which is saved), `selection`, `verdicts` (or the refusal), `status`
  // (saving, conflict, the version on show). An edit made by an input of the properties
  // panel says `keepPanel`: the panel shows it already, and keeps its focus and caret
  // (so does one the panel does not show, a state's place). A selection opened to be
  // edited says `focusPanel`.
  subscribe(listener) {
    this.#listeners.push(listener);
  }

  // The one way to change the graph: `change(graph)` answers the new graph (see
  // graph-edit.js), null when the edit must not happen. Options: `select`, a reference
  // (or null), or a function of the new graph answering one; without it the selection
  // stays while what it names is still there. `replaces`: the new graph is another one
  // altogether (undo, redo), and none of the verdict applies to it. Answers whether the
  // graph changed; while a version is on show (or before the draft came) nothing does.
  edit(change, { select, keepPanel = false, replaces = false } = {}) {
    if (this.#viewing || !this.#graph) return false;
    const before = this.#graph;
    const after = change(before);
    if (!after || after === before) return false;
    this.#graph = after;
    const standing = replaces ? NO_VIOLATIONS : stillStanding(before, after, this.#violations);
    const verdicts = standing.length !== this.#violations.length;
    if (verdicts) this.#violations = standing;
    const wanted = typeof select === "function" ? select(after) : select;
    const selection = this.#reselect(wanted === undefined ? this.#selected : wanted);
    this.#dirty = true;
    this.#notify({ graph: true, edited: true, selection, verdicts, status: true, keepPanel });
    return true;
  }

  select(ref, { focusPanel = false } = {}) {
    this.#selected = ref;
    this.#notify({ selection: true, focusPanel });
  }

  // One saved step back or forward: saved like any edit. A transition is known by its
  // index, which may name another arrow now, so only a state stays selected.
  undo() { this.#step(() => this.#history.undo()); }
  redo() { this.#step(() => this.#history.redo()); }

  #step(move) {
    if (this.#viewing || this.#conflict) return;
    this.#closeStep();
    const snapshot = move();
    if (snapshot === null) return;
    const keep = this.#selected && this.#selected.type === "state" ? this.#selected : null;
    this.edit(() => JSON.parse(snapshot), { replaces: true, select: (g) => (itemAt(g, keep) ? keep : null) });
  }

  // The undo step open since the last save closes: what is sent is one step.
  #closeStep() {
    this.#history.record(JSON.stringify(this.#graph));
  }

  // The server's draft replaces the page's (loaded, imported, published, discarded,
  // started from a version): nothing selected, nothing pending, a new history.
  takeDraft(doc) {
    this.#doc = doc;
    this.#graph = normalized(doc.graph);
    this.#violations = doc.violations || NO_VIOLATIONS;
    this.#viewing = null;
    this.#dirty = false;
    this.#refusal = null;
    this.#selected = null;
    this.#history.reset(JSON.stringify(this.#graph));
    this.#notify({ graph: true, reloaded: true, selection: true, verdicts: true, status: true });
  }

  // A published version on show, read-only, in place of the draft until it is reloaded.
  view(version, graph) {
    this.#viewing = version;
    this.#graph = normalized(graph);
    this.#selected = null;
    this.#notify({ graph: true, reloaded: true, selection: true, verdicts: true, status: true });
  }

  // A colleague's save in between, then the choice to reload.
  conflicted() {
    this.#saving = false;
    this.#conflict = true;
    this.#notify({ status: true });
  }

  resolveConflict() {
    this.#conflict = false;
    this.#notify({ status: true });
  }

  // --- saving (see autosave.js) ---------------------------------------------------

  // The graph to send now; edits from here on are the next save's.
  beginSave() {
    this.#closeStep();
    this.#saving = true;
    this.#dirty = false;
    this.#notify({ status: true });
    return this.#graph;
  }

  // Not sent (offline, or the server failed): still to be saved.
  saveFailed() {
    this.#saving = false;
    this.#dirty = true;
    this.#notify({ status: true });
  }

  // Saved: the verdict is about `sent`, and stands as far as the graph is still that.
  saved(doc, sent) {
    this.#saving = false;
    this.#doc = doc;
    this.#violations = stillStanding(sent, this.#graph, doc.violations || NO_VIOLATIONS);
    // What the panel refused was never sent: it stands until the admin fixes it.
    if (!(this.#refusal && this.#refusal.local)) this.#refusal = null;
    this.#notify({ verdicts: true, status: true });
  }

  // Refused by path (a value the loader cannot read): nothing was saved.
  saveRefused(refusal) {
    this.#saving = false;
    this.#refusal = refusal;
    this.#notify({ verdicts: true, status: true });
  }

  // A value the panel itself could not read (a floor that is not an amount): kept out
  // of the graph, and refused beside its input like a save the server refused, until
  // a readable value is typed there (clearRefusal) or the next save lands.
  refuseLocally(refusal) {
    this.#refusal = { ...refusal, local: true };
    this.#notify({ verdicts: true, status: true });
  }

  // The panel is drawn afresh: the input holding the unreadable text is gone with it.
  // (Said nothing: the panel's own redraw is what follows.)
  forgetLocalRefusal() {
    if (this.#refusal && this.#refusal.local) this.#refusal = null;
  }

  clearRefusal(path) {
    if (!this.#refusal || !this.#refusal.local || this.#refusal.path !== path) return;
    this.#refusal = null;
    this.#notify({ verdicts: true, status: true });
  }

  // --------------------------------------------------------------------------------

  #reselect(ref) {
    const next = ref && itemAt(this.#graph, ref) ? ref : null;
    const changed = !sameRef(next, this.#selected) && (next || this.#selected);
    this.#selected = next;
    return Boolean(changed);
  }

  #notify(change) {
    for (const listener of this.#listeners) listener(change, this);
  }
}
