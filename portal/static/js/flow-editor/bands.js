// Amount bands as an admin draws them: a floor read from what they typed, in the
// organization's base currency (never a float: amounts stay decimal text), and the
// bands of one state as a ladder, lowest floor first, with the gap below the lowest
// band marked. Pure: the panel shows what these answer.

// The spaces people type or a locale groups with: all one space here.
const SPACES = /[\u00a0\u202f\u2009]/g;
// As the server's loader reads a floor: at most 15 whole digits, at most 4 decimals.
const MOST_DIGITS = 15;
// How the reader writes numbers (the server passes theirs: decimal sign, group sign,
// digit groups from the right), as the server's parse_amount reads them.
export const PLAIN_FORM = { decimal: ".", group: ",", grouping: [3, 3] };

// Digits grouped where the reader's locale groups them ("1,234,567"; "12,34,567" for
// (3, 2)), or not grouped at all: the digits, else null.
function ungrouped(whole, form) {
  if (/^[0-9]*$/.test(whole)) return whole;
  // The reader's group sign, or a space, between groups.
  const groups = whole.split(" ").flatMap((part) => part.split(form.group));
  if (!groups.every((g) => /^[0-9]+$/.test(g))) return null;
  const [primary, secondary] = form.grouping;
  const first = groups[0], last = groups[groups.length - 1], middle = groups.slice(1, -1);
  const widest = groups.length > 2 ? secondary : primary;
  const fits = last.length === primary && middle.every((g) => g.length === secondary)
    && first.length >= 1 && first.length <= widest;
  return fits ? groups.join("") : null;
}

// `text` as typed, for a currency of `places` decimals (MYR 2, JPY 0, KWD 3), in the
// reader's number `form`. Answers {value} — the floor as the graph stores it
// ("1000.00"; undefined when left empty) — or {problem}: "not_number", "ambiguous"
// (digits and signs that do not read as one amount in the reader's form: "12,34" or
// "1.234,50" in English), "too_precise" or "too_large". A negative amount is an
// amount: it is saved, and the server's validator says why it cannot be a floor.
export function readFloor(text, places, form = PLAIN_FORM) {
  let plain = String(text).replace(SPACES, " ").trim();
  if (!plain) return { value: undefined };
  let negative = false;
  if (/^[-\u2212]/.test(plain)) {
    negative = true;
    plain = plain.slice(1).trim();
  }
  const unreadable = () => ({ problem: /^[0-9 .,'\u2019]+$/.test(plain) ? "ambiguous" : "not_number" });
  const pieces = plain.split(form.decimal);
  if (pieces.length > 2) return unreadable();
  const decimals = pieces.length === 2 ? pieces[1] : "";
  if (!/^[0-9]*$/.test(decimals)) return unreadable();
  const digits = ungrouped(pieces[0], form);
  if (digits === null) return unreadable();
  if (!(digits || decimals)) return { problem: "not_number" };
  if (decimals.length > places) return { problem: "too_precise" };
  const whole = (digits || "0").replace(/^0+(?=[0-9])/, "");
  if (whole.length > MOST_DIGITS) return { problem: "too_large" };
  const sign = negative && /[1-9]/.test(whole + decimals) ? "-" : "";
  return { value: `${sign}${places ? `${whole}.${decimals.padEnd(places, "0")}` : whole}` };
}

// Two floors as the graph stores them (non-negative decimal text), compared exactly.
export function compareFloors(a, b) {
  const [wa, fa = ""] = String(a).split("."), [wb, fb = ""] = String(b).split(".");
  const ia = wa.replace(/^0+/, ""), ib = wb.replace(/^0+/, "");
  if (ia.length !== ib.length) return ia.length - ib.length;
  if (ia !== ib) return ia < ib ? -1 : 1;
  const width = Math.max(fa.length, fb.length);
  const da = fa.padEnd(width, "0"), db = fb.padEnd(width, "0");
  return da === db ? 0 : da < db ? -1 : 1;
}

const isZero = (floor) => compareFloors(floor, "0") === 0;
const readable = (floor) => typeof floor === "string" && /^[0-9]+(\.[0-9]+)?$/.test(floor);

// The bands of state `key`: its own grants and every all-states grant, grouped by floor
// (a grant without one starts at 0), lowest first, each with the grants' places in the
// graph's list. `gapBelow`: the lowest floor when no band starts at zero (amounts
// under it have nobody to decide), else null. Floors that are not amounts are left out.
export function ladderOf(graph, key) {
  const bands = [];
  (graph.grants || []).forEach((grant, index) => {
    if (grant.state !== key && !grant.all_states) return;
    const floor = grant.min_amount === undefined || grant.min_amount === null ? "0" : grant.min_amount;
    if (!readable(floor)) return;
    const band = bands.find((b) => compareFloors(b.floor, floor) === 0);
    if (band) band.grants.push(index);
    else bands.push({ floor, grants: [index] });
  });
  bands.sort((a, b) => compareFloors(a.floor, b.floor));
  const gapBelow = bands.length && !isZero(bands[0].floor) ? bands[0].floor : null;
  return { bands, gapBelow };
}
