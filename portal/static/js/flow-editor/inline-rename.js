// Renaming where it is drawn: an input over the state (or across the arrow's middle)
// holding its label in the page's language. Enter or leaving it keeps the text, Escape
// keeps the old one. Opened by a double click, or F2 on the item in the outline.
import { el } from "./dom.js";

// `place`: where the input goes, over the canvas (see EditorCanvas.renamePlace).
// `done(text)` when the admin keeps a new label (empty: none in that language), then
// `refocus()` after Enter or Escape, which hand focus back to where renaming began;
// leaving the input for somewhere else leaves focus where the admin put it.
export function openRename({ place, before, ariaLabel, done, refocus }) {
  const input = el("input", {
    type: "text",
    class: "inline-rename",
    "data-testid": "inline-rename",
    "aria-label": ariaLabel,
    value: before,
  });
  // CSSOM, not a style attribute: the CSP allows no inline styles.
  input.style.left = `${place.left}px`;
  input.style.top = `${place.top}px`;
  input.style.width = `${Math.max(place.width, 120)}px`;
  input.style.height = `${place.height}px`;
  place.host.appendChild(input);
  input.focus();
  input.select();
  let finished = false;
  const finish = (keep, again) => {
    if (finished) return;
    finished = true;
    const after = input.value.trim();
    input.remove();
    if (keep && after !== before) done(after);
    if (again) refocus();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      finish(event.key === "Enter", true);
    }
  });
  input.addEventListener("blur", () => finish(true, false));
}

// The language a label is renamed in: the page's, when flows are labelled in it.
export function renameLocale(locales, lang) {
  return locales.includes(lang) ? lang : "en";
}
