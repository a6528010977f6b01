// Small shared helpers for the page scripts.
export function fmt(text, params = {}) {
  return String(text ?? "").replace(/%\((\w+)\)s/g, (_, k) => (k in params ? params[k] : ""));
}

export const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

export function loadLabels(id = "labels") {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : {};
}

// Per-browser preferences (e.g. sounds off for this user). localStorage may be missing or refuse
// (private windows, storage full): a preference then simply is not remembered.
export function prefGet(key, fallback = null) {
  try {
    const v = window.localStorage.getItem(key);
    return v === null ? fallback : v;
  } catch {
    return fallback;
  }
}

export function prefSet(key, value) {
  try {
    window.localStorage.setItem(key, String(value));
  } catch {
    // not remembered: nothing else to do
  }
}
