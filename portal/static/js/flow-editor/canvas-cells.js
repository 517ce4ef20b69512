// How a state and a transition are drawn on the canvas (JointJS cells). User text
// reaches the drawing only as SVG text content, never as markup.

const STYLE = {
  draft: { fill: "#eef2ff", stroke: "#4338ca" },
  accrual: { fill: "#ecfdf5", stroke: "#047857" },
  payout: { fill: "#ecfdf5", stroke: "#047857" },
  rejected: { fill: "#fef2f2", stroke: "#9ca3af" },
  cancelled: { fill: "#f3f4f6", stroke: "#9ca3af" },
};
const PLAIN = { fill: "#ffffff", stroke: "#4b5563" };

// A state: a box of the server's size (`box`), its label, and the handle arrows are
// drawn from. One element with its own markup (JointJS's ports API would lay out a
// port per state on every render). Answers the shape and the namespace to find it in.
export function defineStateShape(box) {
  const StateShape = joint.dia.Element.define("countersign.State", {
    size: { width: box.width, height: box.height },
    attrs: {
      body: { width: "calc(w)", height: "calc(h)", strokeWidth: 1.5 },
      label: { x: "calc(w / 2)", y: "calc(h / 2 + 5)", textAnchor: "middle", fontSize: 14, fill: "#111827" },
      handle: { cx: "calc(w)", cy: "calc(h / 2)", r: 7, magnet: true, fill: "#ffffff", stroke: "#4338ca", strokeWidth: 2, cursor: "crosshair" },
    },
  }, {
    markup: [
      { tagName: "rect", selector: "body" },
      { tagName: "text", selector: "label" },
      { tagName: "circle", selector: "handle" },
    ],
  });
  return { StateShape, shapes: { ...joint.shapes, countersign: { State: StateShape } } };
}

export function shorten(text, most) {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

// What a state's drawing says about it: its key, role and whether it ends the flow
// (for the page and its tests), its style, and its label.
export function stateAttrs(s, label) {
  const style = STYLE[s.role] || PLAIN;
  const round = s.role === "draft" ? 23 : 6;
  return {
    root: { "data-key": s.key, "data-role": s.role, "data-terminal": s.terminal ? "true" : "false" },
    body: { fill: style.fill, stroke: style.stroke, strokeWidth: s.terminal ? 3 : 1.5, rx: round, ry: round },
    // Shortened here rather than with JointJS's textWrap, which measures the text
    // in the browser for every state (the cost that made large flows slow to draw).
    label: { text: shorten(label(s), 20) },
  };
}

export function stateCell(StateShape, s, label) {
  return new StateShape({
    id: `state:${s.key}`,
    z: 2, // above the arrows: a handle is never hidden under an arrow that starts at it
    position: { x: s.x || 0, y: s.y || 0 },
    attrs: stateAttrs(s, label),
  });
}

// The label's box is sized from its length, not measured: measuring every label's
// text in the browser is what makes a 256-arrow flow slow to draw.
function arrowLabel(text, beside) {
  const width = Math.max(18, text.length * 7.2 + 12);
  return {
    markup: [{ tagName: "rect", selector: "box" }, { tagName: "text", selector: "text" }],
    attrs: {
      text: { text, fill: "#1f2937", fontSize: 12, textAnchor: "middle", y: 4 },
      box: { x: -width / 2, y: -10, width, height: 20, fill: "#ffffff", stroke: "#d1d5db", rx: 3, fillOpacity: 0.95 },
    },
    // A straight arrow's label sits beside the line rather than on it: a short arrow's
    // middle is next to the handle new arrows are drawn from, which a label (drawn
    // above the states) would cover. A bent arrow's (fanned out, a loop) stays on it,
    // clear of its neighbours.
    position: { distance: 0.5, offset: beside ? -18 : 0 },
  };
}

// `bent`: the arrow is drawn through bend points.
export function transitionLabels(t, label, bent = false) {
  return t.key ? [arrowLabel(shorten(label(t), 18), !bent)] : [];
}

// `index` -1: the arrow being drawn from a handle, not yet a transition.
// `vertices`: the bend points it is drawn through, if any.
export function transitionCell(t, index, label, vertices) {
  return new joint.shapes.standard.Link({
    id: index >= 0 ? `transition:${index}` : undefined,
    z: 1,
    source: { id: `state:${t.from}` },
    target: { id: `state:${t.to}` },
    attrs: {
      root: { "data-index": index, "data-key": t.key, "data-from": t.from, "data-to": t.to },
      line: { stroke: "#4b5563", strokeWidth: 1.5, targetMarker: { type: "path", d: "M 10 -5 0 0 10 5 z" } },
    },
    labels: transitionLabels(t, label, Boolean(vertices && vertices.length)),
  });
}

// The bends the admin drew, as the canvas takes points.
export function drawnVertices(t) {
  return t.vertices && t.vertices.length ? t.vertices.map(([x, y]) => ({ x, y })) : null;
}
