// What the server answered about the item in the properties panel, written beside the
// input it is about (aria-invalid, and described by the message); a grant or field row
// with a problem is outlined. A refused save (a value the loader could not read) is
// among them.
import { el } from "./dom.js";

// The panel element a violation's path names: the input, or else the row (a grant, a
// field) or the whole panel, whose data-path is the longest prefix of it. A missing
// English label ("…labels") is about the English input.
export function placeFor(panel, path) {
  const wanted = /(^|\.)labels$/.test(path) ? `${path}.en` : path;
  let best = null, bestLength = -1;
  for (const node of [panel, ...panel.querySelectorAll("[data-path]")]) {
    const p = node.getAttribute("data-path");
    if (p === null) continue;
    const covers = wanted === p || (wanted.startsWith(p) && p !== "" && /[.[]/.test(wanted.charAt(p.length)));
    if (covers && p.length > bestLength) {
      best = node;
      bestLength = p.length;
    }
  }
  return best;
}

function clear(panel) {
  panel.querySelectorAll(".inline-problem").forEach((node) => node.remove());
  panel.querySelectorAll("[aria-invalid]").forEach((node) => {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-describedby");
  });
  panel.querySelectorAll("[data-row][data-violation]").forEach((node) => node.removeAttribute("data-violation"));
}

// `violations`: the verdict's that still stand (none while a version is on show).
export function drawPanelProblems(panel, violations, refusal, readOnly) {
  clear(panel);
  if (readOnly) return;
  let problems = violations;
  if (refusal) {
    // The saved draft's violations at the refused path are about a value no longer on
    // the page: the refusal speaks for it.
    problems = problems.filter((v) => !(v.path || "").startsWith(refusal.path));
    problems.push(refusal);
  }
  problems.forEach((v, n) => {
    const place = placeFor(panel, v.path || "");
    if (!place) return;
    const id = `inline-problem-${n}`;
    const note = el("p", { class: `inline-problem inline-${v.severity}`, id, "data-testid": "inline-problem", "data-code": v.code, text: v.message });
    if (/^(INPUT|SELECT)$/.test(place.tagName)) {
      if (v.severity === "error") place.setAttribute("aria-invalid", "true");
      place.setAttribute("aria-describedby", `${place.getAttribute("aria-describedby") || ""} ${id}`.trim());
      let anchor = place.closest(".field") || place;
      while (anchor.nextElementSibling && anchor.nextElementSibling.classList.contains("inline-problem")) anchor = anchor.nextElementSibling;
      anchor.after(note);
    } else {
      const head = place.querySelector(":scope > h3, :scope > legend");
      if (head) head.after(note);
      else place.prepend(note);
    }
    const row = place.closest("[data-row]");
    if (row && row.getAttribute("data-violation") !== "error") row.setAttribute("data-violation", v.severity);
  });
}
