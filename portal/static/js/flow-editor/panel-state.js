// The properties of a state: its key, labels, kind of step, deadline and escalation,
// and who may decide there (its grants, with pickers fed by the org chart).
import { el, fmt } from "./dom.js";
import { renameState, updateState } from "./graph-edit.js";
import { withAutoTransition, withBreachAction, withDeadline, withEscalation, withLabel } from "./item-edit.js";
import { grants } from "./panel-grants.js";

// `panel`: see panel.js (the store, the inputs, the words, the setup's vocabularies).
export function stateProperties(panel, s, index) {
  const { store, inputs, text, setup } = panel;
  const base = `states[${index}]`;
  // The state's key when an edit is made: renaming it leaves the panel as it is.
  const at = { key: s.key };
  const kept = (change) => store.edit((g) => updateState(g, at.key, change), { keepPanel: true });
  const section = [];

  const keyInput = inputs.textInput(s.key, () => {}, { "data-prop": "key", "data-path": `${base}.key`, spellcheck: "false" });
  // Renamed when the admin leaves the key, not letter by letter: each letter would be
  // another state's key for a moment.
  keyInput.addEventListener("change", () => {
    const next = keyInput.value.trim();
    if (!next || next === at.key) return;
    const renamed = store.edit((g) => renameState(g, at.key, next), {
      select: { type: "state", key: next },
      keepPanel: true,
    });
    if (renamed) {
      at.key = next;
    } else {
      keyInput.value = at.key;
      panel.say(fmt(text.key_taken, { key: next }));
    }
  });
  section.push(el("h3", { text: `${text.state} · ${panel.label(s)}` }), inputs.field(text.key, keyInput));
  section.push(...inputs.labelFields(s, base, (locale, value) => kept((st) => withLabel(st, locale, value))));
  section.push(
    inputs.field(text.role, inputs.selectInput(setup.roles, s.role, (value) => kept((st) => ({ ...st, role: value })), false, { "data-path": `${base}.role` })),
    inputs.checkbox(text.terminal, s.terminal, (value) => kept((st) => ({ ...st, terminal: value })), { "data-path": `${base}.terminal` }),
    inputs.field(text.deadline, inputs.textInput(s.deadline ? s.deadline.after : "", (value) => kept((st) => withDeadline(st, value)), { "data-prop": "deadline", "data-path": `${base}.deadline` }), text.deadline_help),
    ...breachFields(panel, s, base, kept),
    inputs.field(text.escalate_after, inputs.textInput(s.escalate_after, (value) => kept((st) => withEscalation(st, value)), { "data-path": `${base}.escalate_after` }), text.escalate_after_help),
    grants(panel, at),
  );
  if (!inputs.readOnly) {
    section.push(el("button", { type: "button", "data-testid": "duplicate-state", text: text.duplicate, onclick: () => panel.duplicate(at.key) }));
  }
  return section;
}

// What a passing deadline does, with a line saying what that means, and (for "auto")
// the action the system takes: one of the state's own exits.
function breachFields(panel, s, base, kept) {
  const { inputs, text, setup, store } = panel;
  const help = (action) => text[`breach_help_${action}`] || "";
  const action = s.deadline ? s.deadline.on_breach : "remind";
  const exits = store.graph.transitions
    .filter((t) => t.from === s.key)
    .map((t) => [t.key, `${panel.label(t)} (${t.key})`]);
  const autoField = inputs.field(text.auto_transition, inputs.selectInput(exits, s.deadline ? s.deadline.transition : "", (value) => kept((st) => withAutoTransition(st, value)), true, { "data-path": `${base}.deadline.transition` }));
  autoField.hidden = action !== "auto";
  const breachField = inputs.field(text.on_breach, inputs.selectInput(setup.breach, action, (value) => {
    kept((st) => withBreachAction(st, value));
    breachField.querySelector(".hint").textContent = help(value);
    autoField.hidden = value !== "auto";
  }, false, { "data-path": `${base}.deadline.on_breach` }), help(action));
  return [breachField, autoField];
}
