// The flow editor: a canvas (JointJS) over the draft's JSON graph, an outline list for
// keyboard and screen-reader use, a properties panel, and live validation.
//
// One source of truth, the store (store.js): every edit goes through it, and the
// pieces that show the graph redraw from it — the canvas, the outline, the panel, the
// problems list, the toolbar and the publish button. User text (labels, keys,
// messages) only ever reaches the page as text: SVG text nodes, textContent, title
// elements — never HTML. This module reads the page's setup, builds the pieces, wires
// each one's intents to the commands (commands.js) and loads the draft.
import { ActionPrompt } from "./action-prompt.js";
import { errorMessage, makeApi } from "./api.js";
import { Autosave } from "./autosave.js";
import { EditorCanvas } from "./canvas.js";
import { EditorCommands } from "./commands.js";
import { fmt } from "./dom.js";
import { labelOf } from "./graph-read.js";
import { ImportAndDiscard } from "./import-discard.js";
import { Outline } from "./outline.js";
import { PropertiesPanel } from "./panel.js";
import { ProblemsList } from "./problems.js";
import { Publisher } from "./publish.js";
import { RoutePreview } from "./route-preview.js";
import { StatusLine } from "./status.js";
import { EditorStore } from "./store.js";
import { Toolbar } from "./toolbar.js";
import { VersionsList } from "./versions.js";

function startEditor() {
  // The server's vocabulary, every word the editor shows in the admin's language, and
  // a state's box size (one size for every drawing of a graph, portal/domain/layout.py).
  const setup = JSON.parse(document.getElementById("editor-setup").textContent);
  const text = setup.text;
  const lang = document.documentElement.lang;
  const label = (item) => labelOf(item, lang);
  const api = makeApi(setup.api, { offline: text.offline, unexpected: text.unexpected });
  // Read-only hooks for the browser tests: figures, never a way to change the draft.
  const figures = { roundTrips: [], revision: () => (store.doc ? store.doc.revision : 0), loadMs: null, lastLayoutMs: null, ready: null };
  window.flowEditor = figures;

  const store = new EditorStore();
  const status = new StatusLine(text);
  status.follow(store);
  const isReadOnly = () => Boolean(store.viewing);
  // The canvas and the outline speak to the commands, which act on both.
  let commands = null;
  const canvas = new EditorCanvas({
    element: document.getElementById("paper"),
    box: setup.box,
    label,
    isReadOnly,
    on: {
      select: (ref) => commands.select(ref),
      connect: (from, to) => commands.connect(from, to),
      move: (key, x, y) => commands.moveState(key, x, y),
      rename: (ref) => commands.rename(ref),
      addState: (x, y) => commands.addStateAt(x, y),
    },
  });
  figures.scale = () => canvas.scale();
  const outline = new Outline({
    text,
    label,
    isReadOnly,
    on: {
      select: (ref, focusPanel) => commands.select(ref, focusPanel),
      remove: (ref) => commands.remove(ref),
      rename: (ref) => commands.rename(ref),
      reorder: (index, delta) => commands.reorder(index, delta),
      move: (key, dx, dy) => commands.nudge(key, dx, dy),
    },
  });
  const actions = new ActionPrompt({ text, locales: setup.locales, lang, suggestions: setup.actions || [] });
  commands = new EditorCommands({ store, canvas, outline, status, text, setup, lang, figures, actions });
  const panel = new PropertiesPanel({ store, text, setup, label, say: (words) => status.say(words), duplicate: (key) => commands.duplicate(key) });
  // A problem in the list opens its state or transition and focuses the input it is
  // about (a grant's floor, a guard), or the panel's first input.
  const problems = new ProblemsList({
    text,
    open: (target, path) => {
      const flow = target.type === "flow";
      commands.select(flow ? null : target, !flow);
      panel.focusPath(path);
    },
  });
  const autosave = new Autosave({ store, api, status, text, roundTrips: figures.roundTrips });
  const versions = new VersionsList({ store, api, status, text, setup, autosave, shown: () => canvas.fit() });
  const publisher = new Publisher({ store, api, status, text, published: () => versions.load() });
  const toolbar = new Toolbar({ store, commands, canvas, text, isModalOpen: () => publisher.isOpen || actions.isOpen });
  new ImportAndDiscard({ store, api, status, text, autosave, shown: () => canvas.fit() });
  const route = new RoutePreview({ store, api, canvas, text, label });

  store.subscribe((change) => {
    const { graph } = store;
    if (change.graph) canvas.show(graph, { redraw: change.reloaded });
    if (change.graph || change.verdicts) canvas.markViolations(store.violations);
    if (change.graph || change.selection) {
      canvas.markSelection(store.selected);
      outline.show(graph, store.selected);
    }
    if (change.reloaded || ((change.graph || change.selection) && !change.keepPanel)) {
      panel.draw({ focusPanel: change.focusPanel });
    } else if (change.verdicts) {
      panel.drawProblems();
    }
    if (change.graph || change.verdicts) problems.show(graph, store.violations, store.refusal);
    toolbar.refresh();
    publisher.refresh();
  });

  // The draft as the server has it; a draft someone else left says whose it is: their
  // work is about to be edited.
  async function loadDraft() {
    const answer = await api("GET", "/draft");
    if (!answer.ok) {
      status.alarm(fmt(text.failed, { message: errorMessage(answer) }));
      return;
    }
    const started = performance.now();
    store.takeDraft(answer.data);
    canvas.fit();
    figures.loadMs = performance.now() - started;
    const doc = store.doc;
    if (doc.saved && doc.updated_by && !doc.updated_by_me) {
      const when = new Date(doc.updated_at).toLocaleString(lang);
      status.say(fmt(text.saved_by, { revision: doc.revision, who: doc.updated_by, when }));
    } else {
      status.say(doc.saved ? fmt(text.saved, { revision: doc.revision }) : text.unsaved);
    }
  }

  // Reload after a conflict, or go back to the draft from a version on show.
  status.onReload(() => {
    store.resolveConflict();
    status.alarm("");
    loadDraft();
  });

  async function loadPickers() {
    const answer = await api("GET", "/pickers");
    panel.pickers = answer.ok ? answer.data : {};
    route.offer(panel.pickers.members);
  }

  figures.ready = Promise.all([loadPickers(), loadDraft()]).then(() => versions.load());
}

if (document.getElementById("flow-editor") && window.joint && window.dagre) startEditor();
