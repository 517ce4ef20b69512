// Who may decide in a state: the bands as a ladder ("from RM 0: the requester's
// superior; from RM 10,000: the head of unit", with the gap below the lowest band
// marked), then one row per grant. A floor is typed in the organization's base currency,
// shown beside the input, and saved with it; what is not an amount in that currency is
// refused beside the input and kept out of the graph (see bands.js).
import { ladderOf, readFloor } from "./bands.js";
import { el, fmt } from "./dom.js";
import { addGrant, removeGrant, updateGrant } from "./graph-edit.js";
import { granteeOf, levelsFrom, withFloor, withGranteeDetail, withGranteeKind, withMaxLevels } from "./item-edit.js";

// Money in the reader's language, exactly as the graph stores it (decimal text).
export function moneyFormat(lang, currency) {
  let format = null;
  try {
    format = new Intl.NumberFormat(lang || "en", { style: "currency", currency, currencyDisplay: "narrowSymbol" });
  } catch {
    format = null; // not a currency this browser knows: the code and the number
  }
  const symbol = format ? (format.formatToParts(0).find((p) => p.type === "currency") || {}).value || currency : currency;
  return { symbol, money: (amount) => (format ? format.format(amount) : `${currency} ${amount}`) };
}

// A grant's grantee in words, from the editor's vocabulary and the org chart's names.
function whoOf(panel, grant) {
  const { text, setup, pickers } = panel;
  const who = granteeOf(grant);
  if (!who.kind) return text.grantee_unchosen;
  const kindWords = (setup.grantees.find(([k]) => k === who.kind) || [who.kind, who.kind])[1];
  const named = (list, id) => ((pickers[list] || []).find((c) => c.id === id) || {}).label;
  if (who.kind === "member" && who.member) return (named("members", who.member) || `#${who.member}`).split(" <")[0];
  if (who.kind === "position" && who.position) return named("positions", who.position) || `#${who.position}`;
  if (who.kind === "role" && who.role) return `${kindWords}: ${who.role}`;
  if (who.kind === "levels_up" && who.levels) return `${kindWords}: ${who.levels}`;
  return kindWords;
}

function drawLadder(panel, box, key, money) {
  const { text, store } = panel;
  const graph = store.graph;
  const { bands, gapBelow } = ladderOf(graph, key);
  const rungs = bands.map((band) => el("li", { "data-floor": band.floor }, [
    fmt(text.ladder_band, { amount: money(band.floor), who: band.grants.map((i) => whoOf(panel, graph.grants[i])).join(" · ") }),
  ]));
  if (gapBelow !== null) rungs.unshift(el("li", { class: "ladder-gap", "data-gap": "below", text: fmt(text.ladder_gap, { amount: money(gapBelow) }) }));
  if (!bands.length) rungs.push(el("li", { class: "muted", text: text.ladder_empty }));
  box.replaceChildren(...rungs);
}

export function grants(panel, at) {
  const { store, inputs, text, setup, pickers } = panel;
  const currency = setup.currency || "";
  const places = Number.isInteger(setup.currency_places) ? setup.currency_places : 2;
  const { symbol, money } = moneyFormat(setup.locale || document.documentElement.lang, currency);
  const ladder = el("ol", { class: "ladder plain-list", "data-testid": "ladder", "aria-live": "polite" });
  const redrawLadder = () => drawLadder(panel, ladder, at.key, money);
  const box = el("fieldset", { class: "grants" }, [
    el("legend", { text: text.who_decides }),
    el("p", { class: "ladder-heading", text: text.ladder }),
    ladder,
  ]);
  store.graph.grants.forEach((g, i) => {
    if (g.state !== at.key) return;
    const base = `grants[${i}]`;
    const kept = (change) => {
      store.edit((graph) => updateGrant(graph, i, change), { keepPanel: true });
      redrawLadder();
    };
    const who = granteeOf(g);
    const row = el("div", { class: "grant-row", "data-grant": i, "data-row": "", "data-path": base });
    // Another kind of grantee asks for other details: the row is drawn again.
    const kindSelect = inputs.selectInput(setup.grantees, who.kind, (value) => {
      store.edit((graph) => updateGrant(graph, i, (grant) => withGranteeKind(grant, value)));
    }, true, { "data-path": `${base}.grantee.kind`, "data-prop": "grantee" });
    kindSelect.options[0].textContent = text.choose; // a new grant: nobody chosen yet
    row.appendChild(inputs.field(text.grantee, kindSelect));
    if (who.kind === "member" || who.kind === "position") {
      const kind = who.kind;
      const options = (pickers[kind === "member" ? "members" : "positions"] || []).map((c) => [c.id, c.label]);
      row.appendChild(inputs.field(kind === "member" ? text.member : text.position, inputs.selectInput(options, who[kind], (value) => {
        kept((grant) => withGranteeDetail(grant, kind, value ? Number(value) : undefined));
      }, true, { "data-path": `${base}.grantee.${kind}`, "data-prop": kind })));
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
      floorField(panel, g, base, { currency, places, symbol, kept }),
      inputs.field(text.on_vacancy, inputs.selectInput(setup.vacancy, g.on_vacancy || "escalate", (value) => kept((grant) => ({ ...grant, on_vacancy: value })), false, { "data-path": `${base}.on_vacancy` })),
      inputs.field(text.max_levels, inputs.textInput(g.max_escalation_levels, (value) => kept((grant) => withMaxLevels(grant, value)), { inputmode: "numeric", "data-prop": "max-levels", "data-path": `${base}.max_escalation_levels` })),
    );
    if (!inputs.readOnly) row.appendChild(inputs.removeButton(() => store.edit((graph) => removeGrant(graph, i))));
    box.appendChild(row);
  });
  if (!inputs.readOnly) {
    box.appendChild(el("button", { type: "button", "data-testid": "add-grant", text: text.add_grant, onclick: () => store.edit((g) => addGrant(g, at.key)) }));
  }
  redrawLadder();
  return box;
}

// The floor: typed in the base currency (its symbol beside the input), read as an
// amount with at most the currency's decimals, and saved with the currency.
function floorField(panel, g, base, { currency, places, symbol, kept }) {
  const { store, inputs, text, setup } = panel;
  const path = `${base}.min_amount`;
  const input = inputs.textInput(g.min_amount, (value) => {
    const read = readFloor(value, places, setup.number_form);
    if (read.problem) {
      const example = (setup.number_form || {}).example || "1000.00";
      const message = fmt(text[`floor_${read.problem}`], { currency, places, example });
      store.refuseLocally({ path, code: `floor_${read.problem}`, severity: "error", message });
      return;
    }
    store.clearRefusal(path);
    kept((grant) => withFloor(grant, read.value, currency));
  }, { inputmode: "decimal", "data-prop": "floor", "data-path": path, autocomplete: "off" });
  const field = inputs.field(fmt(text.floor, { currency }), input);
  const money = el("span", { class: "money-input" }, [el("span", { class: "currency-tag", "aria-hidden": "true", text: symbol })]);
  input.replaceWith(money);
  money.appendChild(input);
  return field;
}
