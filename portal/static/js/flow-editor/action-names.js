// A new action's key and labels as the admin gave them (pure: see action-prompt.js).

const KEY = /^[a-z][a-z0-9_]{0,62}$/;

// "send_back" -> "Send back": the English label of a key typed without one.
export function keyWords(key) {
  const words = key.replace(/_+/g, " ").trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "";
}

// The action to add: the key trimmed, each label trimmed and left out when empty, and
// an English label always (the one a flow must have), from the key when none was given.
export function actionFrom(keyText, labels) {
  const key = String(keyText).trim();
  const kept = {};
  for (const [locale, text] of Object.entries(labels || {})) {
    const trimmed = String(text || "").trim();
    if (trimmed) kept[locale] = trimmed;
  }
  if (!kept.en) kept.en = keyWords(key);
  return { key, labels: kept };
}

// Why `key` cannot name a new action among `taken` (the keys already leaving its
// state): "invalid", "taken", or null when it can.
export function actionProblem(key, taken) {
  if (!KEY.test(key)) return "invalid";
  return (taken || []).includes(key) ? "taken" : null;
}
