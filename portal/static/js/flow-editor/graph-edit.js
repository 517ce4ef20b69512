// Changes to the draft's graph: adding, removing, renaming and moving its states,
// transitions, grants and fields. Each function takes a graph and answers a new one,
// leaving the graph it was given as it was (the editor keeps the old one for undo and
// to tell which verdicts still stand); what is not changed is shared, not copied. An
// edit that must not happen answers null; one that changes nothing answers the same graph.
import { exitsOf, stateByKey } from "./graph-read.js";

const copy = (value) => JSON.parse(JSON.stringify(value));

function replaceAt(list, index, item) {
  const next = list.slice();
  next[index] = item;
  return next;
}

// The lists a graph may leave out (an empty flow), present, so every edit can rely on them.
export function normalized(graph) {
  const { states = [], transitions = [], grants = [], fields = [] } = graph;
  return { ...graph, states, transitions, grants, fields };
}

// `base`, or `base_2`, `base_3`… : the first not in `taken`.
export function uniqueKey(base, taken) {
  let key = base;
  for (let n = 2; taken.includes(key); n++) key = `${base}_${n}`;
  return key;
}

const stateKeys = (graph) => graph.states.map((s) => s.key);

// A new step at (x, y), named `labels` (in every language at once: the English label
// is the one a flow must have). It is the last state of the answer.
export function addState(graph, { x, y, labels }) {
  const key = uniqueKey("step", stateKeys(graph));
  const state = { key, labels: { ...labels }, role: "pending", x: Math.round(x), y: Math.round(y) };
  return { ...graph, states: [...graph.states, state] };
}

// A copy of a state below and beside it (`box`: a state's size), with its deadline and
// who may decide there, but none of its arrows. It is the last state of the answer.
export function duplicateState(graph, key, box) {
  const original = stateByKey(graph, key);
  if (!original) return graph;
  const state = copy(original);
  state.key = uniqueKey(`${key}_copy`, stateKeys(graph));
  if (state.role === "draft") state.role = "pending"; // a flow starts in one place
  state.x = original.x + 40;
  state.y = original.y + box.height + 60;
  const grants = graph.grants.filter((g) => g.state === key).map((g) => ({ ...copy(g), state: state.key }));
  return { ...graph, states: [...graph.states, state], grants: [...graph.grants, ...grants] };
}

// A state goes with every arrow into or out of it and every grant on it. The draft
// state stays (null): every document starts there.
export function removeState(graph, key) {
  const state = stateByKey(graph, key);
  if (state && state.role === "draft") return null;
  return {
    ...graph,
    states: graph.states.filter((s) => s.key !== key),
    transitions: graph.transitions.filter((t) => t.from !== key && t.to !== key),
    grants: graph.grants.filter((g) => g.state !== key),
  };
}

// A state's new key, and every arrow and grant that named the old one. A key another
// state has is refused (null): two states of one key would merge their arrows.
export function renameState(graph, from, to) {
  if (stateByKey(graph, to)) return null;
  const follow = (key) => (key === from ? to : key);
  return {
    ...graph,
    states: graph.states.map((s) => (s.key === from ? { ...s, key: to } : s)),
    transitions: graph.transitions.map((t) =>
      t.from === from || t.to === from ? { ...t, from: follow(t.from), to: follow(t.to) } : t),
    grants: graph.grants.map((g) => (g.state === from ? { ...g, state: to } : g)),
  };
}

// A state's new place; the canvas has no negative side, and positions are whole units.
export function moveState(graph, key, x, y) {
  const at = { x: Math.max(0, Math.round(x)), y: Math.max(0, Math.round(y)) };
  return updateState(graph, key, (s) => (s.x === at.x && s.y === at.y ? s : { ...s, ...at }));
}

// Every state where a layout put it (`positions`: by key); the bends drawn for the old
// places go, since they would only tangle the new drawing.
export function placeStates(graph, positions) {
  return {
    ...graph,
    states: graph.states.map((s) =>
      positions[s.key] ? { ...s, x: Math.max(0, positions[s.key].x), y: Math.max(0, positions[s.key].y) } : s),
    transitions: graph.transitions.map((t) => {
      if (!("vertices" in t)) return t;
      const { vertices, ...rest } = t;
      return rest;
    }),
  };
}

// The keys of the actions already leaving a state: a new one must differ.
export function exitKeys(graph, from) {
  return graph.transitions.filter((t) => t.from === from).map((t) => t.key);
}

// An arrow from one state to another, gated on the states it leads to, named `action`
// ({key, labels}, as the admin gave them when drawing it). Without one its key is new
// among the exits of the state it leaves. It is the last transition.
export function addTransition(graph, from, to, action) {
  const key = action ? action.key : uniqueKey("go", exitKeys(graph, from));
  const labels = action ? { ...action.labels } : { en: key };
  return { ...graph, transitions: [...graph.transitions, { key, from, to, gate: "target", labels }] };
}

export function removeTransition(graph, index) {
  return { ...graph, transitions: graph.transitions.filter((_, i) => i !== index) };
}

// One end of an arrow (`end`: "from" or "to") on another state. Its key, labels, gate
// and guard go with it; bends drawn for the old ends would only tangle the new arrow.
export function repoint(graph, index, end, key) {
  return updateTransition(graph, index, (t) => {
    const { vertices, ...rest } = t;
    return { ...rest, [end]: key };
  });
}

// An action offered earlier (-1) or later (+1) among its state's exits; the exits are
// numbered 1… afresh so the order is explicit in the graph. Past either end: null.
export function moveExit(graph, index, delta) {
  const exits = exitsOf(graph, graph.transitions[index].from);
  const at = exits.indexOf(index), to = at + delta;
  if (to < 0 || to >= exits.length) return null;
  exits.splice(at, 1);
  exits.splice(to, 0, index);
  const transitions = graph.transitions.slice();
  exits.forEach((i, n) => {
    transitions[i] = { ...transitions[i], order: n + 1 };
  });
  return { ...graph, transitions };
}

// Who may decide in a state: a new row, empty until the admin picks who (a copy of
// another grant would at once be a repeat of it).
export function addGrant(graph, stateKey) {
  return { ...graph, grants: [...graph.grants, { state: stateKey, grantee: { kind: "" } }] };
}

export function removeGrant(graph, index) {
  return { ...graph, grants: graph.grants.filter((_, i) => i !== index) };
}

// A field the flow's documents carry: text, optional, its key new among the fields.
export function addField(graph) {
  const key = uniqueKey("field", graph.fields.map((f) => f.key));
  return { ...graph, fields: [...graph.fields, { key, type: "text", labels: { en: key }, required: false }] };
}

export function removeField(graph, index) {
  return { ...graph, fields: graph.fields.filter((_, i) => i !== index) };
}

// One item changed by `change` (item -> item, see item-edit.js). A change answering
// the item it was given changes nothing, and the graph is answered as it was.
export function updateState(graph, key, change) {
  const index = graph.states.findIndex((s) => s.key === key);
  return index < 0 ? graph : updateIn(graph, "states", index, change);
}

// The state or transition a reference names (see graph-read.js), changed.
export function updateItem(graph, ref, change) {
  return ref.type === "state" ? updateState(graph, ref.key, change) : updateTransition(graph, ref.index, change);
}

export const updateTransition = (graph, index, change) => updateIn(graph, "transitions", index, change);
export const updateGrant = (graph, index, change) => updateIn(graph, "grants", index, change);
export const updateField = (graph, index, change) => updateIn(graph, "fields", index, change);

function updateIn(graph, list, index, change) {
  const item = graph[list][index];
  if (!item) return graph;
  const next = change(item);
  return next === item ? graph : { ...graph, [list]: replaceAt(graph[list], index, next) };
}
