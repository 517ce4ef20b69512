// Small DOM helpers for the flow editor: text formatting and element building. User
// text only ever becomes a text node or an attribute value, never HTML.

export function fmt(text, params) {
  return text.replace(/%\((\w+)\)s/g, (_, name) => (params && name in params ? String(params[name]) : ""));
}

export function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  for (const child of children || []) {
    if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}
