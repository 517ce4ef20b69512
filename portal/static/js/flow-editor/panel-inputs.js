// The properties panel's inputs, each with its label. Every input carries the path in
// the graph of the value it edits (`data-path`, as the server's violations name it), so
// a problem can be written beside it and focus can come back to it. While a version is
// on show the inputs are read-only.
import { el, fmt } from "./dom.js";

let nextId = 0;
const freshId = () => `prop-${++nextId}`;

export class PanelInputs {
  constructor({ readOnly, text, locales }) {
    this.readOnly = readOnly;
    this.text = text;
    this.locales = locales;
  }

  // `hint`: a line of help under the input, read out with it.
  field(labelText, input, hint) {
    input.id = freshId();
    const parts = [el("label", { for: input.id, text: labelText }), input];
    if (hint !== undefined) {
      const help = el("p", { class: "hint", id: `${input.id}-hint`, text: hint });
      input.setAttribute("aria-describedby", help.id);
      parts.push(help);
    }
    return el("div", { class: "field" }, parts);
  }

  // `onValue(text)` on every keystroke.
  textInput(value, onValue, attrs) {
    const input = el("input", { type: "text", value: value || "", ...attrs });
    input.readOnly = this.readOnly;
    input.addEventListener("input", () => onValue(input.value));
    return input;
  }

  // `options`: [value, words] pairs; `allowEmpty`: "none" comes first.
  selectInput(options, value, onValue, allowEmpty, attrs) {
    const input = el("select", attrs || {});
    input.disabled = this.readOnly;
    if (allowEmpty) input.appendChild(el("option", { value: "", text: this.text.none }));
    const current = String(value ?? "");
    for (const [optionValue, words] of options) {
      const option = el("option", { value: optionValue, text: words });
      option.selected = String(optionValue) === current;
      input.appendChild(option);
    }
    input.addEventListener("change", () => onValue(input.value));
    return input;
  }

  checkbox(labelText, checked, onValue, attrs) {
    const input = el("input", { type: "checkbox", ...attrs });
    input.checked = Boolean(checked);
    input.disabled = this.readOnly;
    input.addEventListener("change", () => onValue(input.checked));
    input.id = freshId();
    return el("div", { class: "field checkbox" }, [input, el("label", { for: input.id, text: labelText })]);
  }

  // An item's label in every language. `base`: the item's path ("states[2]", "" for
  // the flow). `onLabel(locale, text)`.
  labelFields(item, base, onLabel) {
    return this.locales.map((locale) => this.field(
      fmt(this.text.label_in, { locale }),
      this.textInput((item.labels || {})[locale], (value) => onLabel(locale, value), {
        "data-locale": locale,
        "data-path": `${base ? `${base}.` : ""}labels.${locale}`,
      }),
    ));
  }

  // "Remove" on a row of the panel (a field, a grant).
  removeButton(onRemove) {
    return el("button", { type: "button", class: "link-button", text: this.text.remove, onclick: onRemove });
  }
}
