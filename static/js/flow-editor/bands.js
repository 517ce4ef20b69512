// Amount bands as an admin draws them: a floor read from what they typed, in the
// organization's base currency (never a float: amounts stay decimal text), and the
// bands of one state as a ladder, lowest floor first, with the gap below the lowest
// band marked. Pure: the panel shows what these answer.

// What people type between digit groups: commas and (no-break) spaces.
const GROUPING = /[ \u00a0\u202f,]/g;
// As the server's loader reads a floor: at most 15 whole digits, at most 4 decimals.
const MOST_DIGITS = 15;

// `text` as typed, for a currency of `places` decimals (MYR 2, JPY 0, KWD 3). Answers
// {value} — the floor as the graph stores it ("1000.00"; undefined when left empty) —
// or {problem}: "not_number", "too_precise" or "too_large". A negative amount is an
// amount: it is saved, and the server's validator says why it cannot be a floor.
export function readFloor(text, places) {
  const plain = String(text).replace(GROUPING, "");
  if (!plain) return { value: undefined };
  const parts = /^(-?)([0-9]*)(?:\.([0-9]*))?$/.exec(plain);
  if (!parts || !(parts[2] || parts[3])) return { problem: "not_number" };
  const decimals = parts[3] || "";
  if (decimals.length > places) return { problem: "too_precise" };
  const whole = (parts[2] || "0").replace(/^0+(?=[0-9])/, "");
  if (whole.length > MOST_DIGITS) return { problem: "too_large" };
  const sign = parts[1] && /[1-9]/.test(whole + decimals) ? "-" : "";
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
