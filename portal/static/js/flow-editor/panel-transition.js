// The properties of a transition: its key (the action), its two ends, its place among
// the actions its state offers, labels, who may take it, its guard and the guard's
// refusal message, and its comment and reversal flags.
import { el, fmt } from "./dom.js";
import { moveExit, repoint, updateTransition } from "./graph-edit.js";
import { exitsOf, stateByKey } from "./graph-read.js";
import { withActionKey, withGuard, withGuardMessage, withLabel, withValue } from "./item-edit.js";

// `panel`: see panel.js (the store, the inputs, the words, the setup's vocabularies).
export function transitionProperties(panel, t, index) {
  const { store, inputs, text, setup, label } = panel;
  const graph = store.graph;
  const base = `transitions[${index}]`;
  const kept = (change) => store.edit((g) => updateTransition(g, index, change), { keepPanel: true });
  const from = stateByKey(graph, t.from), to = stateByKey(graph, t.to);
  const section = [
    el("h3", { text: `${text.transition} · ${fmt(text.from_to, { from: from ? label(from) : t.from, to: to ? label(to) : t.to })}` }),
    inputs.field(text.key, inputs.textInput(t.key, (value) => kept((tr) => withActionKey(tr, value)), { "data-prop": "key", "data-path": `${base}.key`, spellcheck: "false" })),
  ];
  // Re-point the arrow: its key, labels, gate and guard go with it.
  const stateOptions = graph.states.map((st) => [st.key, `${label(st)} (${st.key})`]);
  const end = (which, words) => inputs.field(words, inputs.selectInput(stateOptions, t[which], (value) => {
    store.edit((g) => repoint(g, index, which, value));
  }, false, { "data-path": `${base}.${which}` }));
  section.push(end("from", text.source), end("to", text.target));
  if (!inputs.readOnly) section.push(orderButtons(panel, graph, t, index));
  section.push(...inputs.labelFields(t, base, (locale, value) => kept((tr) => withLabel(tr, locale, value))));
  section.push(
    inputs.field(text.gate, inputs.selectInput(setup.gates, t.gate, (value) => kept((tr) => ({ ...tr, gate: value })), false, { "data-path": `${base}.gate` })),
    inputs.field(text.guard, inputs.textInput(t.guard ? t.guard.expression : "", (value) => kept((tr) => withGuard(tr, value)), { "data-prop": "guard", "data-path": `${base}.guard.expression`, spellcheck: "false" })),
    inputs.checkbox(text.comment_required, t.comment === "required", (value) => {
      kept((tr) => withValue(tr, "comment", value ? "required" : undefined));
    }, { "data-path": `${base}.comment` }),
    inputs.checkbox(text.reverses, t.reverses, (value) => kept((tr) => withValue(tr, "reverses", value ? true : undefined)), { "data-path": `${base}.reverses` }),
  );
  for (const locale of panel.locales) {
    const message = t.guard && t.guard.message ? t.guard.message[locale] : "";
    section.push(inputs.field(fmt(text.guard_message, { locale }), inputs.textInput(message, (value) => {
      kept((tr) => withGuardMessage(tr, locale, value));
    }, { "data-path": `${base}.guard.message.${locale}` })));
  }
  return section;
}

// "Action 2 of 3 on a document's page", and the buttons to offer it earlier or later.
function orderButtons(panel, graph, t, index) {
  const { store, text } = panel;
  const siblings = exitsOf(graph, t.from), place = siblings.indexOf(index);
  const offer = (delta) => store.edit((g) => moveExit(g, index, delta));
  return el("div", { class: "field order-buttons", role: "group", "aria-label": text.order_hint }, [
    el("span", { class: "hint", text: fmt(text.order_place, { n: place + 1, of: siblings.length }) }),
    el("button", { type: "button", class: "link-button", "data-testid": "offer-earlier", disabled: place === 0, text: text.offer_earlier, onclick: () => offer(-1) }),
    el("button", { type: "button", class: "link-button", "data-testid": "offer-later", disabled: place === siblings.length - 1, text: text.offer_later, onclick: () => offer(1) }),
  ]);
}
