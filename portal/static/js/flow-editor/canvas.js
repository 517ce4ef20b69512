// The canvas (JointJS): draws the graph it is shown, outlines what is selected, what the
// server found wrong and the route a preview found, and says what the admin did on it
// as intents (select, connect, move, rename, add a state); it never changes the graph
// itself. Pan by dragging empty canvas; zoom with the buttons or Ctrl + wheel.
import {
  defineStateShape, drawnVertices, stateAttrs, stateCell, transitionCell, transitionLabels,
} from "./canvas-cells.js";
import { spreadVertices } from "./geometry.js";
import { moveState } from "./graph-edit.js";
import { refFromId, refId } from "./graph-read.js";
import { violationTarget } from "./verdicts.js";

// The smallest zoom keeps an arrow's 12 px label at 11 px or more on screen; a flow
// too large to fit at it scrolls in its frame instead of shrinking out of reading.
export const MIN_SCALE = 11 / 12;
const MAX_SCALE = 1.2;
const FIT_PADDING = 30;
const FRAME_HEIGHT = 620;

const SELECTION = { padding: 6, attrs: { stroke: "#2563eb", "stroke-width": 2, "stroke-dasharray": "4 3" } };
const OWN_MOVE = { fromGraph: true }; // a move the graph made, not a drag

// Two drawings of the same shape: the same states in the same places of the list, and
// the same arrows between them. Anything else is drawn afresh.
function sameShape(a, b) {
  return a.states.length === b.states.length && a.transitions.length === b.transitions.length &&
    a.states.every((s, i) => s.key === b.states[i].key) &&
    a.transitions.every((t, i) => t.from === b.transitions[i].from && t.to === b.transitions[i].to);
}

export class EditorCanvas {
  // `box`: a state's size. `label(item)`: its label in the page's language.
  // `isReadOnly()`: a version on show. `on`: the intents' handlers.
  constructor({ element, box, label, isReadOnly, on }) {
    this.box = box;
    this.label = label;
    this.on = on;
    this.graph = null;
    this.dragged = null; // {key, x, y} while a state is dragged
    this.frame = element.parentNode; // scrolls when the drawing is larger than it
    const { StateShape, shapes } = defineStateShape(box);
    this.StateShape = StateShape;
    this.cells = new joint.dia.Graph({}, { cellNamespace: shapes });
    // JointJS would inject its one CSS rule as a <style> element, which the page's
    // Content-Security-Policy refuses; the rule lives in portal.css instead.
    const EditorPaper = joint.dia.Paper.extend({ stylesheet: "" });
    this.paper = new EditorPaper({
      el: element,
      model: this.cells,
      width: "100%",
      height: FRAME_HEIGHT,
      gridSize: 10,
      drawGrid: { name: "dot", args: { color: "#d1d5db" } },
      background: { color: "#fbfbfd" },
      async: false,
      // Arrow labels in a layer of their own above the states: never hidden under one.
      labelsLayer: true,
      sorting: joint.dia.Paper.sorting.APPROX, // no full re-sort of 320 views per render
      cellViewNamespace: shapes,
      linkPinning: false, // a transition dropped on empty canvas is no transition
      snapLinks: { radius: 30 },
      markAvailable: true,
      // The model's box, not the drawn shape: no DOM measuring per arrow end.
      defaultConnectionPoint: { name: "bbox" },
      defaultLink: () => transitionCell({ key: "", from: "", to: "" }, -1, label),
      // Only the states' handles are magnets: dragging one draws a transition.
      validateMagnet: () => !isReadOnly(),
      validateConnection: (sourceView, sourceMagnet, targetView) => Boolean(targetView && targetView.model.isElement()),
      interactive: (view) => {
        if (isReadOnly()) return false;
        return view.model.isElement()
          ? { elementMove: true }
          : { linkMove: false, labelMove: false, vertexAdd: false, vertexMove: true, arrowheadMove: false };
      },
    });
    this.#listen(isReadOnly);
  }

  // Draw `graph`: what changed since the last drawing when its shape is the same (a
  // label, a role, a position), else all of it in one render. `redraw`: all of it.
  show(graph, { redraw = false } = {}) {
    const drawn = this.graph;
    this.graph = graph;
    if (redraw || !drawn || !sameShape(drawn, graph)) this.#draw(graph);
    else this.#patch(drawn, graph);
  }

  #draw(graph) {
    const spread = spreadVertices(graph, this.box);
    const list = graph.states.map((s) => stateCell(this.StateShape, s, this.label));
    graph.transitions.forEach((t, i) => {
      const vertices = drawnVertices(t) || spread[i];
      const link = transitionCell(t, i, this.label, vertices);
      if (vertices && vertices.length) link.set("vertices", vertices);
      list.push(link);
    });
    // One render for the whole graph (a 64-state flow has 320 cells).
    this.paper.freeze();
    this.cells.resetCells(list);
    this.paper.unfreeze();
  }

  // Only the cells whose item changed; arrows follow the states that moved.
  #patch(drawn, graph) {
    const moved = new Set();
    this.paper.freeze();
    graph.states.forEach((s, i) => {
      const was = drawn.states[i];
      if (was === s) return;
      const cell = this.cells.getCell(`state:${s.key}`);
      if (!cell) return;
      cell.attr(stateAttrs(s, this.label));
      const at = { x: s.x || 0, y: s.y || 0 };
      if (at.x !== (was.x || 0) || at.y !== (was.y || 0)) moved.add(s.key);
      const p = cell.position();
      if (p.x !== at.x || p.y !== at.y) cell.position(at.x, at.y, OWN_MOVE);
    });
    let spread = null;
    graph.transitions.forEach((t, i) => {
      const was = drawn.transitions[i];
      const follows = !drawnVertices(t) && (moved.has(t.from) || moved.has(t.to));
      if (was === t && !follows) return;
      const link = this.cells.getCell(`transition:${i}`);
      if (!link) return;
      if (was !== t) {
        link.attr("root/data-key", t.key);
        link.labels(transitionLabels(t, this.label, link.vertices().length > 0));
      }
      if (follows || was.vertices !== t.vertices) {
        spread = spread || spreadVertices(graph, this.box);
        link.vertices(drawnVertices(t) || spread[i] || []);
      }
    });
    this.paper.unfreeze();
  }

  // While a state is dragged its arrows fan out anew around where it is now.
  #respread(graph, key) {
    const found = spreadVertices(graph, this.box, key);
    for (const [index, points] of Object.entries(found)) {
      const link = this.cells.getCell(`transition:${index}`);
      if (link) link.vertices(points);
    }
  }

  #viewOf(ref) {
    if (!ref) return null;
    const cell = this.cells.getCell(refId(ref));
    return cell ? this.paper.findViewByModel(cell) : null;
  }

  markSelection(ref) {
    joint.highlighters.stroke.removeAll(this.paper, "selection");
    const view = this.#viewOf(ref);
    if (view) joint.highlighters.stroke.add(view, view.model.isElement() ? "body" : "line", "selection", SELECTION);
  }

  // Each state or transition a violation is about: outlined in its worst severity, and
  // titled with every message about it.
  markViolations(violations) {
    joint.highlighters.stroke.removeAll(this.paper, "violation");
    const worst = {};
    const notes = {};
    for (const v of violations) {
      const target = violationTarget(this.graph, v);
      if (!target || target.type === "flow") continue;
      const id = refId(target);
      if (worst[id] !== "error") worst[id] = v.severity;
      (notes[id] = notes[id] || []).push(v.message);
    }
    // No freeze here: this also runs when a save answers, perhaps in the middle of a
    // drag, and a frozen paper would drop the arrow being drawn.
    for (const cell of this.cells.getCells()) {
      if (worst[cell.id]) {
        cell.attr({ root: { "data-violation": worst[cell.id], title: notes[cell.id].join("\n") } });
      } else if (cell.attr("root/data-violation")) {
        // null removes the attribute from the drawn element (a removed key would not);
        // the title only empties (null would empty the whole element).
        cell.attr({ root: { "data-violation": null, title: "" } });
      }
    }
    for (const [id, severity] of Object.entries(worst)) {
      const cell = this.cells.getCell(id);
      if (!cell) continue;
      // One highlighter per cell (its id is per cell: two with one id replace each other).
      joint.highlighters.stroke.add(this.paper.findViewByModel(cell), cell.isElement() ? "body" : "line", "violation", {
        padding: 4,
        layer: "back",
        attrs: { stroke: severity === "error" ? "#dc2626" : "#d97706", "stroke-width": 4, "stroke-opacity": 0.85 },
      });
    }
  }

  // The states of a route preview: green where someone decides, red where it strands.
  showRoute(steps) {
    for (const step of steps) {
      const view = this.#viewOf({ type: "state", key: step.state });
      if (!view) continue;
      joint.highlighters.stroke.add(view, "body", "route", {
        padding: 8,
        attrs: { stroke: step.routable ? "#15803d" : "#dc2626", "stroke-width": 3, "stroke-dasharray": step.routable ? "" : "6 4" },
      });
    }
  }

  clearRoute() {
    joint.highlighters.stroke.removeAll(this.paper, "route");
  }

  // The whole drawing in view at the largest zoom that shows it, but never below
  // MIN_SCALE: a large flow then scrolls in its frame.
  fit() {
    const area = this.paper.getContentArea();
    const room = this.#room();
    let scale = MAX_SCALE;
    if (area.width > 0 && area.height > 0) {
      scale = Math.min(MAX_SCALE, (room.width - 2 * FIT_PADDING) / area.width, (room.height - 2 * FIT_PADDING) / area.height);
    }
    this.#place(Math.max(MIN_SCALE, scale));
    this.frame.scrollTo(0, 0);
  }

  zoom(factor) {
    this.#place(Math.min(2, Math.max(MIN_SCALE, this.paper.scale().sx * factor)));
  }

  scale() {
    return this.paper.scale().sx;
  }

  // The frame's inner size (what can be seen without scrolling).
  #room() {
    return { width: this.frame.clientWidth || 800, height: FRAME_HEIGHT };
  }

  // The drawing at `scale`, centred in the frame when it fits; otherwise the paper grows
  // to the drawing's size and the frame scrolls over it.
  #place(scale) {
    const area = this.paper.getContentArea();
    const room = this.#room();
    const width = Math.max(room.width, Math.ceil(area.width * scale + 2 * FIT_PADDING));
    const height = Math.max(room.height, Math.ceil(area.height * scale + 2 * FIT_PADDING));
    this.paper.setDimensions(width, height);
    this.paper.scale(scale, scale);
    this.paper.translate((width - area.width * scale) / 2 - area.x * scale, (height - area.height * scale) / 2 - area.y * scale);
  }

  // The canvas on the page (its frame), and the part of the graph's plane in view.
  size() {
    return this.frame.getBoundingClientRect();
  }

  visibleArea() {
    const box = this.size();
    return {
      low: this.paper.clientToLocalPoint({ x: box.left, y: box.top }),
      high: this.paper.clientToLocalPoint({ x: box.right, y: box.bottom }),
    };
  }

  // Where an input renaming `ref` goes, over the canvas (`host`): over the state, or
  // across the arrow's middle. Null when it is not drawn.
  renamePlace(ref) {
    const view = this.#viewOf(ref);
    if (!view) return null;
    const host = this.frame.parentNode; // not the frame: it scrolls under the input
    const hostBox = host.getBoundingClientRect();
    let box;
    if (ref.type === "state") {
      box = view.findNode("body").getBoundingClientRect();
    } else {
      const middle = this.paper.localToClientPoint(view.getPointAtRatio(0.5));
      box = { left: middle.x - this.box.width / 2, top: middle.y - 15, width: this.box.width, height: 30 };
    }
    return { host, left: box.left - hostBox.left, top: box.top - hostBox.top, width: box.width, height: box.height };
  }

  #listen(isReadOnly) {
    const { paper, cells, on } = this;
    const stateKey = (view) => String(view.model.id).slice("state:".length);
    const transitionRef = (view) => {
      const id = String(view.model.id);
      return id.startsWith("transition:") ? refFromId(id) : null;
    };
    paper.on("link:connect", (linkView) => {
      const link = linkView.model;
      on.connect(link.source().id.slice("state:".length), link.target().id.slice("state:".length));
    });
    paper.on("link:pointerup", (linkView) => {
      // A drag that ended nowhere leaves a dangling link behind: drop it (no transition).
      const link = linkView.model;
      if (!transitionRef(linkView) && !link.target().id) link.remove();
    });
    cells.on("change:position", (cell, position, opt) => {
      if (!cell.isElement() || opt.fromGraph || isReadOnly()) return;
      const key = String(cell.id).slice("state:".length);
      if (!this.graph.states.some((s) => s.key === key)) return;
      const p = cell.position();
      this.dragged = { key, x: p.x, y: p.y };
      this.#respread(moveState(this.graph, key, p.x, p.y), key);
    });
    paper.on("element:pointerup", (view) => {
      const dragged = this.dragged;
      this.dragged = null;
      if (dragged && !isReadOnly()) on.move(dragged.key, dragged.x, dragged.y);
      on.select({ type: "state", key: stateKey(view) });
    });
    paper.on("element:pointerdblclick", (view) => on.rename({ type: "state", key: stateKey(view) }));
    paper.on("link:pointerdblclick", (view) => {
      const ref = transitionRef(view);
      if (ref) on.rename(ref);
    });
    paper.on("link:pointerclick", (view) => {
      const ref = transitionRef(view);
      if (ref) on.select(ref);
    });
    paper.on("blank:pointerclick", () => on.select(null));
    paper.on("blank:pointerdblclick", (event, x, y) => on.addState(x - this.box.width / 2, y - this.box.height / 2));

    let panFrom = null;
    paper.on("blank:pointerdown", (event) => {
      const t = paper.translate();
      panFrom = { x: event.clientX, y: event.clientY, tx: t.tx, ty: t.ty };
    });
    // The drawing moves with the pointer (the frame's scroll bars move the view too).
    document.addEventListener("mousemove", (event) => {
      if (panFrom) paper.translate(panFrom.tx + event.clientX - panFrom.x, panFrom.ty + event.clientY - panFrom.y);
    });
    document.addEventListener("mouseup", () => {
      panFrom = null;
    });
    // blank:mousewheel (event, x, y, delta); cell:mousewheel (view, event, x, y, delta).
    paper.on("blank:mousewheel cell:mousewheel", (...args) => {
      const event = args.at(-4) || args[0];
      const delta = args.at(-1);
      if (event && event.ctrlKey) {
        event.preventDefault();
        this.zoom(delta > 0 ? 1.1 : 0.9);
      }
    });
  }
}
