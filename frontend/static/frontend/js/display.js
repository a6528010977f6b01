// Display settings of the table (the Cherki seed's contrast, grain and colour temperature, plus larger
// cards for phones), kept per user in this browser (localStorage `cardroom:display:<user id>`) and applied
// as CSS variables on the table page (css/display.css). 50 on each slider is the default look.
import { prefGet, prefSet } from "./util.js";

const DEFAULTS = { contrast: 50, grain: 50, temperature: 50, large: false };

const clamp = (v) => Math.max(0, Math.min(100, Number.isFinite(Number(v)) ? Number(v) : 50));

export function loadSettings(userId) {
  let saved = {};
  try { saved = JSON.parse(prefGet(`cardroom:display:${userId}`, "{}")) || {}; } catch { saved = {}; }
  return {
    contrast: clamp(saved.contrast ?? DEFAULTS.contrast),
    grain: clamp(saved.grain ?? DEFAULTS.grain),
    temperature: clamp(saved.temperature ?? DEFAULTS.temperature),
    large: saved.large === true,
  };
}

// Slider 0..100 → the CSS values: contrast 0.7..1.3, grain opacity 0..0.12, a warm or cool tint up to 0.35.
export function cssValues(s) {
  const t = (s.temperature - 50) / 50;
  return {
    "--felt-contrast": (0.7 + (s.contrast / 100) * 0.6).toFixed(3),
    "--felt-grain": ((s.grain / 100) * 0.12).toFixed(3),
    "--felt-warm": (t > 0 ? t * 0.35 : 0).toFixed(3),
    "--felt-cool": (t < 0 ? -t * 0.35 : 0).toFixed(3),
  };
}

function apply(page, s) {
  for (const [k, v] of Object.entries(cssValues(s))) page.style.setProperty(k, v);
  page.classList.toggle("large-cards", s.large);
}

function init() {
  const page = document.getElementById("table-app");
  const box = document.getElementById("display-settings");
  if (!page || !box) return;
  const userId = page.dataset.userId || "anon";
  let settings = loadSettings(userId);
  const inputs = box.querySelectorAll("[data-setting]");
  const sync = () => {
    for (const input of inputs) {
      const key = input.dataset.setting;
      if (input.type === "checkbox") input.checked = settings[key];
      else {
        input.value = String(settings[key]);
        const out = document.getElementById(`${input.id}-out`);
        if (out) out.textContent = `${settings[key]}%`;
      }
    }
    apply(page, settings);
  };
  const save = () => prefSet(`cardroom:display:${userId}`, JSON.stringify(settings));
  for (const input of inputs) {
    input.addEventListener("input", () => {
      const key = input.dataset.setting;
      settings = { ...settings, [key]: input.type === "checkbox" ? input.checked : clamp(input.value) };
      sync();
      save();
    });
  }
  document.getElementById("display-reset")?.addEventListener("click", () => { settings = { ...DEFAULTS }; sync(); save(); });
  sync();
  window.cardroomDisplay = { settings: () => ({ ...settings }) };
}

init();
