// Looking things up in the draft's graph (its JSON, as the server reads it). A selection
// or an item of the outline is a reference: {type: "state", key} or
// {type: "transition", index}; transitions have no identity but their place in the list.

export function stateByKey(graph, key) {
  return graph.states.find((s) => s.key === key);
}

// The state or transition a reference names, if it is still there.
export function itemAt(graph, ref) {
  if (!ref) return undefined;
  return ref.type === "state" ? stateByKey(graph, ref.key) : graph.transitions[ref.index];
}

export function sameRef(a, b) {
  if (!a || !b || a.type !== b.type) return false;
  return a.type === "state" ? a.key === b.key : a.index === b.index;
}

// How a reference is written where the page names it (the outline, the canvas's cells).
export function refId(ref) {
  return ref.type === "state" ? `state:${ref.key}` : `transition:${ref.index}`;
}

export function refFromId(id) {
  if (id.startsWith("state:")) return { type: "state", key: id.slice("state:".length) };
  return { type: "transition", index: Number(id.slice("transition:".length)) };
}

// An item's label in `lang`, else in English, else its key.
export function labelOf(item, lang) {
  const labels = item.labels || {};
  return labels[lang] || labels.en || item.key;
}

// A state's exits as a document's page offers them: by `order`, ties in drawing order.
// Answers their indexes in the transition list.
export function exitsOf(graph, key) {
  const found = [];
  graph.transitions.forEach((t, i) => {
    if (t.from === key) found.push(i);
  });
  const order = (i) => graph.transitions[i].order || 0;
  return found.sort((a, b) => order(a) - order(b) || a - b);
}
