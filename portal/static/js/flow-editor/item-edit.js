// Changes to one item of the graph (a state, a transition, a grant, a field, or the
// flow itself for its labels) as the properties panel makes them: each takes the item
// and what the admin entered, and answers a new item, leaving the one it was given as
// it was. What the admin left empty is left out of the graph rather than saved empty;
// text that is not the number it should be is kept as typed, for the server to refuse
// by its path. Used with graph-edit.js's update functions.

// `name` set to `value`, or left out when `value` is undefined.
export function withValue(item, name, value) {
  if (value !== undefined) return { ...item, [name]: value };
  const { [name]: _, ...rest } = item;
  return rest;
}

export function withLabel(item, locale, text) {
  return { ...item, labels: withValue(item.labels || {}, locale, text || undefined) };
}

// A deadline after `text` (such as 5d); it reminds when it passes until the admin picks
// another action, and keeps the action picked when only the duration changes.
export function withDeadline(state, text) {
  if (!text) return withValue(state, "deadline", undefined);
  return { ...state, deadline: { on_breach: "remind", ...state.deadline, after: text.trim() } };
}

// What a passing deadline does; without a deadline there is nothing to pick it for.
// Only "auto" names a transition: another action leaves it out.
export function withBreachAction(state, action) {
  if (!state.deadline) return state;
  const deadline = { ...state.deadline, on_breach: action };
  return { ...state, deadline: action === "auto" ? deadline : withValue(deadline, "transition", undefined) };
}

// The transition an "auto" deadline fires (a key leaving the state), or none yet.
export function withAutoTransition(state, key) {
  if (!state.deadline) return state;
  return { ...state, deadline: withValue(state.deadline, "transition", key || undefined) };
}

export function withEscalation(state, text) {
  return withValue(state, "escalate_after", text ? text.trim() : undefined);
}

// A transition's key (its action). A label still reading as the old key (as a new
// arrow's does) follows the key.
export function withActionKey(transition, text) {
  const key = text.trim();
  const next = { ...transition, key };
  if (transition.labels && transition.labels.en === transition.key && key) {
    next.labels = { ...transition.labels, en: key };
  }
  return next;
}

// A guard's expression; the messages written for it stay when it is rewritten.
export function withGuard(transition, expression) {
  if (!expression.trim()) return withValue(transition, "guard", undefined);
  const message = (transition.guard && transition.guard.message) || {};
  return { ...transition, guard: { expression, message } };
}

// A guard's refusal message in one language; without a guard there is nothing to say.
export function withGuardMessage(transition, locale, text) {
  if (!transition.guard) return transition;
  return { ...transition, guard: { ...transition.guard, message: withValue(transition.guard.message || {}, locale, text || undefined) } };
}

// Only a choice field has choices.
export function withFieldType(field, type) {
  const next = { ...field, type };
  return type === "choice" ? next : withValue(next, "choices", undefined);
}

// A choice field's choices from their keys, separated by commas. A key that was a
// choice when the input opened (`earlier`) keeps its labels; a new one is its own label.
export function withChoices(field, text, earlier) {
  const known = Object.fromEntries((earlier || []).map((c) => [c.key, c]));
  const keys = text.split(",").map((k) => k.trim()).filter(Boolean);
  return { ...field, choices: keys.map((k) => known[k] || { key: k, labels: { en: k } }) };
}

// A grant's grantee ({kind: ""} while who decides is not chosen yet).
export const granteeOf = (grant) => grant.grantee || { kind: "" };

// Another kind of grantee: whom it named goes with the old kind.
export function withGranteeKind(grant, kind) {
  return { ...grant, grantee: { kind } };
}

// One detail of the grantee (the member or seat picked, the role's name, the levels).
export function withGranteeDetail(grant, name, value) {
  return { ...grant, grantee: withValue(granteeOf(grant), name, value) };
}

// How many seats up: a whole number, or the text as typed.
export function levelsFrom(text) {
  const n = parseInt(text, 10);
  return Number.isNaN(n) ? text : n;
}

// The amount a grant applies from, as text (never a float), and the currency it is
// in: the organization's base currency, the one the admin typed it in. No floor, no
// currency (see bands.js readFloor for reading what was typed).
export function withFloor(grant, amount, currency) {
  const floored = withValue(grant, "min_amount", amount);
  return withValue(floored, "currency", amount === undefined ? undefined : currency);
}

export function withMaxLevels(grant, text) {
  const typed = text.trim();
  if (!typed) return withValue(grant, "max_escalation_levels", undefined);
  const n = parseInt(text, 10);
  return { ...grant, max_escalation_levels: String(n) === typed ? n : text };
}
