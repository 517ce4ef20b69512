// The server's verdict on a saved draft is a list of violations, each naming what it is
// about: a state by its key, a transition, grant or field by its place in its list
// (`ref`), and the value at fault by its path in the graph ("grants[2].min_amount").
// These answer what a violation is about on the page, and which still stand once the
// graph has changed since the server judged it: one about a state while a state has
// its key, one about an item named by its place while its list has lost no item.

// The item a violation opens in the editor: a state, a transition, the flow itself
// (its labels and fields are edited with nothing selected), or null for the whole graph.
export function violationTarget(graph, v) {
  if (v.ref.state !== undefined) return { type: "state", key: v.ref.state };
  if (v.ref.transition !== undefined) return { type: "transition", index: v.ref.transition };
  if (v.ref.grant !== undefined) {
    const grant = graph.grants[v.ref.grant];
    if (grant && grant.state) return { type: "state", key: grant.state };
  }
  if (v.ref.field !== undefined || /^(labels|fields)\b/.test(v.path || "")) return { type: "flow" };
  return null;
}

const REF_LISTS = { transition: "transitions", grant: "grants", field: "fields" };

// A place in a list still holds what it held while the list has lost no item: a
// removal moves every later item up one. (An edit in place — a label, a key, an
// arrow's other end — leaves every item where it was.)
function placeStands(before, after, list, index) {
  const was = before[list] || [], is = after[list] || [];
  return is.length >= was.length && index < is.length;
}

function stands(before, after, v) {
  const ref = v.ref || {};
  if (ref.state !== undefined && !after.states.some((s) => s.key === ref.state)) return false;
  for (const [name, list] of Object.entries(REF_LISTS)) {
    if (ref[name] !== undefined && !placeStands(before, after, list, ref[name])) return false;
  }
  const path = /^(states|transitions|grants|fields)\[(\d+)\]/.exec(v.path || "");
  return !path || placeStands(before, after, path[1], Number(path[2]));
}

// The violations found in `before` that still point at what they were about in
// `after`. One that no longer does is set aside until the next verdict rather than
// shown against another item; the others stay (a typed label keeps every outline).
export function stillStanding(before, after, violations) {
  if (before === after) return violations;
  return violations.filter((v) => stands(before, after, v));
}
