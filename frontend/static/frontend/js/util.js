// Small shared helpers for the page scripts.
export function fmt(text, params = {}) {
  return String(text ?? "").replace(/%\((\w+)\)s/g, (_, k) => (k in params ? params[k] : ""));
}

export const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

export function loadLabels(id = "labels") {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : {};
}
