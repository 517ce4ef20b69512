// The properties of a state: its key, labels, kind of step, deadline and escalation,
// and who may decide there (its grants, with pickers fed by the org chart).
import { el, fmt } from "./dom.js";
import { addGrant, removeGrant, renameState, updateGrant, updateState } from "./graph-edit.js";
import {
  granteeOf, levelsFrom, withBreachAction, withDeadline, withEscalation, withFloor, withGranteeDetail,
  withGranteeKind, withLabel, withMaxLevels,
} from "./item-edit.js";

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
    inputs.field(text.deadline, inputs.textInput(s.deadline ? s.deadline.after : "", (value) => kept((st) => withDeadline(st, value)), { "data-prop": "deadline", "data-path": `${base}.deadline` })),
    inputs.field(text.on_breach, inputs.selectInput(setup.breach, s.deadline ? s.deadline.on_breach : "remind", (value) => kept((st) => withBreachAction(st, value)), false, { "data-path": `${base}.deadline.on_breach` })),
    inputs.field(text.escalate_after, inputs.textInput(s.escalate_after, (value) => kept((st) => withEscalation(st, value)), { "data-path": `${base}.escalate_after` })),
    grants(panel, at),
  );
  if (!inputs.readOnly) {
    section.push(el("button", { type: "button", "data-testid": "duplicate-state", text: text.duplicate, onclick: () => panel.duplicate(at.key) }));
  }
  return section;
}

// Who may decide in the state: one row per grant on it.
function grants(panel, at) {
  const { store, inputs, text, setup, pickers } = panel;
  const box = el("fieldset", { class: "grants" }, [el("legend", { text: text.who_decides })]);
  store.graph.grants.forEach((g, i) => {
    if (g.state !== at.key) return;
    const base = `grants[${i}]`;
    const kept = (change) => store.edit((graph) => updateGrant(graph, i, change), { keepPanel: true });
    const who = granteeOf(g);
    const row = el("div", { class: "grant-row", "data-grant": i, "data-row": "", "data-path": base });
    // Another kind of grantee asks for other details: the row is drawn again.
    row.appendChild(inputs.field(text.grantee, inputs.selectInput(setup.grantees, who.kind, (value) => {
      store.edit((graph) => updateGrant(graph, i, (grant) => withGranteeKind(grant, value)));
    }, false, { "data-path": `${base}.grantee` })));
    if (who.kind === "member" || who.kind === "position") {
      const kind = who.kind;
      const options = (pickers[kind === "member" ? "members" : "positions"] || []).map((c) => [c.id, c.label]);
      row.appendChild(inputs.field(kind === "member" ? text.member : text.position, inputs.selectInput(options, who[kind], (value) => {
        kept((grant) => withGranteeDetail(grant, kind, value ? Number(value) : undefined));
      }, true, { "data-path": `${base}.grantee.${kind}` })));
    } else if (who.kind === "levels_up") {
      row.appendChild(inputs.field(text.levels, inputs.textInput(who.levels, (value) => {
        kept((grant) => withGranteeDetail(grant, "levels", levelsFrom(value)));
      }, { inputmode: "numeric", "data-path": `${base}.grantee.levels` })));
    } else if (who.kind === "role") {
      const roles = (pickers.roles || []).map((r) => [r, r]);
      row.appendChild(inputs.field(text.role_name, inputs.selectInput(roles, who.role, (value) => {
        kept((grant) => withGranteeDetail(grant, "role", value || undefined));
      }, true, { "data-path": `${base}.grantee.role` })));
    }
    row.append(
      inputs.field(fmt(text.floor, { currency: setup.currency || "" }), inputs.textInput(g.min_amount, (value) => kept((grant) => withFloor(grant, value)), { inputmode: "decimal", "data-prop": "floor", "data-path": `${base}.min_amount` })),
      inputs.field(text.on_vacancy, inputs.selectInput(setup.vacancy, g.on_vacancy || "escalate", (value) => kept((grant) => ({ ...grant, on_vacancy: value })), false, { "data-path": `${base}.on_vacancy` })),
      inputs.field(text.max_levels, inputs.textInput(g.max_escalation_levels, (value) => kept((grant) => withMaxLevels(grant, value)), { inputmode: "numeric", "data-prop": "max-levels", "data-path": `${base}.max_escalation_levels` })),
    );
    if (!inputs.readOnly) row.appendChild(inputs.removeButton(() => store.edit((graph) => removeGrant(graph, i))));
    box.appendChild(row);
  });
  if (!inputs.readOnly) {
    box.appendChild(el("button", { type: "button", "data-testid": "add-grant", text: text.add_grant, onclick: () => store.edit((g) => addGrant(g, at.key)) }));
  }
  return box;
}
