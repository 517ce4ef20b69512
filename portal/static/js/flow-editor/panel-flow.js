// With nothing selected, the panel edits the flow itself: its labels and the fields its
// documents carry (key, type, labels, required, a choice field's choices).
import { el } from "./dom.js";
import { addField, removeField, updateField } from "./graph-edit.js";
import { withChoices, withFieldType, withLabel, withValue } from "./item-edit.js";

// `panel`: see panel.js (the store, the inputs, the words, the setup's vocabularies).
export function flowProperties(panel) {
  const { store, inputs, text, setup } = panel;
  const graph = store.graph;
  const section = [el("h3", { text: text.flow })];
  section.push(...inputs.labelFields(graph, "", (locale, value) => {
    store.edit((g) => withLabel(g, locale, value), { keepPanel: true });
  }));
  // Segregation of duties: a member decides at most one step of a document. Left out
  // of the graph when off (its default).
  const exclusive = inputs.checkbox(text.exclusive_approval, graph.exclusive_approval === true, (value) => {
    store.edit((g) => withValue(g, "exclusive_approval", value ? true : undefined), { keepPanel: true });
  }, { "data-path": "exclusive_approval", "data-testid": "exclusive-approval", "aria-describedby": "exclusive-approval-hint" });
  section.push(exclusive, el("p", { class: "hint", id: "exclusive-approval-hint", text: text.exclusive_approval_hint }));
  const box = el("fieldset", { class: "grants", "data-testid": "fields" }, [el("legend", { text: text.fields })]);
  graph.fields.forEach((f, i) => {
    const base = `fields[${i}]`;
    const kept = (change) => store.edit((g) => updateField(g, i, change), { keepPanel: true });
    const row = el("div", { class: "grant-row", "data-field": i, "data-row": "", "data-path": base });
    row.appendChild(inputs.field(text.key, inputs.textInput(f.key, (value) => kept((fd) => ({ ...fd, key: value.trim() })), { spellcheck: "false", "data-path": `${base}.key` })));
    // A choice field asks for its choices: the row is drawn again.
    row.appendChild(inputs.field(text.field_type, inputs.selectInput(setup.field_types, f.type, (value) => {
      store.edit((g) => updateField(g, i, (fd) => withFieldType(fd, value)));
    }, false, { "data-path": `${base}.type` })));
    row.append(...inputs.labelFields(f, base, (locale, value) => kept((fd) => withLabel(fd, locale, value))));
    row.appendChild(inputs.checkbox(text.required, f.required, (value) => kept((fd) => ({ ...fd, required: value })), { "data-path": `${base}.required` }));
    if (f.type === "choice") {
      const earlier = f.choices || [];
      row.appendChild(inputs.field(text.choices, inputs.textInput(earlier.map((c) => c.key).join(", "), (value) => {
        kept((fd) => withChoices(fd, value, earlier));
      }, { spellcheck: "false", "data-path": `${base}.choices` })));
    }
    if (!inputs.readOnly) row.appendChild(inputs.removeButton(() => store.edit((g) => removeField(g, i))));
    box.appendChild(row);
  });
  if (!inputs.readOnly) {
    box.appendChild(el("button", { type: "button", "data-testid": "add-field", text: text.add_field, onclick: () => store.edit(addField) }));
  }
  section.push(box);
  return section;
}
