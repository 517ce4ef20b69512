// Small DOM helpers for the flow editor: text formatting and element building. User
// text only ever becomes a text node or an attribute value, never HTML.

export function fmt(text, params) {
  return text.replace(/%\((\w+)\)s/g, function (_, name) {
    return params && name in params ? String(params[name]) : "";
  });
}

export function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (name) {
    var value = attrs[name];
    if (value === false || value === null || value === undefined) return;
    if (name === "text") node.textContent = value;
    else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  });
  (children || []).forEach(function (child) {
    if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  });
  return node;
}
