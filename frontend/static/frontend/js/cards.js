// Cards drawn as SVG in the browser: Lembar's batik motifs, French-suited cards, Chinese money cards.
// Every function returns an SVG string; the shared <pattern> defs are injected once per document.

const NS = "http://www.w3.org/2000/svg";

export const MOTIF_COLOURS = { P: "#7a3f12", K: "#1f3d73", T: "#8d1b2f", M: "#1d6a80" };

const DEFS = `
<pattern id="pat-P" width="24" height="24" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
  <rect width="24" height="24" fill="#f3e2c2"/>
  <path d="M0 6 C6 0 12 12 18 6 S24 0 30 6" stroke="#7a3f12" stroke-width="4" fill="none"/>
  <path d="M-6 18 C0 12 6 24 12 18 S18 12 24 18 S30 24 36 18" stroke="#3b1d07" stroke-width="3" fill="none"/>
  <circle cx="12" cy="12" r="1.6" fill="#7a3f12"/>
</pattern>
<pattern id="pat-K" width="20" height="20" patternUnits="userSpaceOnUse">
  <rect width="20" height="20" fill="#e4e9f3"/>
  <g fill="#1f3d73" stroke="#0c1f40" stroke-width=".6">
    <ellipse cx="10" cy="4.5" rx="2.6" ry="4.2"/>
    <ellipse cx="10" cy="15.5" rx="2.6" ry="4.2"/>
    <ellipse cx="4.5" cy="10" rx="4.2" ry="2.6"/>
    <ellipse cx="15.5" cy="10" rx="4.2" ry="2.6"/>
  </g>
  <circle cx="10" cy="10" r="1.2" fill="#f7d774"/>
</pattern>
<pattern id="pat-T" width="26" height="26" patternUnits="userSpaceOnUse">
  <rect width="26" height="26" fill="#f6e3e3"/>
  <g fill="#8d1b2f">
    <path d="M6 2 L7.2 5 L10 6 L7.2 7 L6 10 L4.8 7 L2 6 L4.8 5 Z"/>
    <path d="M19 13 L20.2 16 L23 17 L20.2 18 L19 21 L17.8 18 L15 17 L17.8 16 Z"/>
    <circle cx="18" cy="5" r="1.3"/><circle cx="7" cy="19" r="1.3"/><circle cx="13" cy="11" r=".9"/>
  </g>
  <circle cx="6" cy="6" r=".9" fill="#f7d774"/><circle cx="19" cy="17" r=".9" fill="#f7d774"/>
</pattern>
<pattern id="pat-M" width="36" height="24" patternUnits="userSpaceOnUse">
  <rect width="36" height="24" fill="#dff0f5"/>
  <g fill="none" stroke="#1d6a80" stroke-width="1.6">
    <path d="M2 20 a8 8 0 0 1 16 0 a6 6 0 0 1 12 0"/>
    <path d="M5 20 a5 5 0 0 1 10 0 a3.5 3.5 0 0 1 7 0" stroke="#4aa3bd"/>
    <path d="M8 20 a2 2 0 0 1 4 0" stroke="#0d3f4e"/>
    <path d="M20 8 a6 6 0 0 1 12 0 a4 4 0 0 1 8 0" />
    <path d="M23 8 a3 3 0 0 1 6 0" stroke="#4aa3bd"/>
  </g>
</pattern>
<pattern id="pat-back" width="12" height="12" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
  <rect width="12" height="12" fill="#6b1f12"/><rect width="6" height="6" fill="#8a3419"/>
</pattern>`;

export function ensureDefs() {
  if (document.getElementById("card-defs")) return;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("id", "card-defs");
  svg.setAttribute("width", "0");
  svg.setAttribute("height", "0");
  svg.setAttribute("aria-hidden", "true");
  svg.style.position = "absolute";
  svg.innerHTML = `<defs>${DEFS}</defs>`;
  document.body.prepend(svg);
}

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

function frame(inner, { w = 60, h = 88, label = "" } = {}) {
  return `<svg class="card-svg" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(label)}" xmlns="${NS}">
<rect x=".5" y=".5" width="${w - 1}" height="${h - 1}" rx="6" fill="#fffdf7" stroke="#444"/>${inner}</svg>`;
}

export function backSVG(label = "") {
  return frame(`<rect x="4" y="4" width="52" height="80" rx="4" fill="url(#pat-back)"/>`, { label });
}

// ----- Lembar ---------------------------------------------------------------------------
const LEMBAR_SYMBOL = { S: "⊘", R: "⇄", D: "+2" };

export function lembarName(code, L = {}) {
  if (code === "W") return L.wild || "Wild";
  if (code === "F") return L.wild4 || "Wild +4";
  const motif = L["motif_" + code[0]] || code[0];
  const sym = code[1];
  const what = sym === "S" ? (L.skip || "Skip") : sym === "R" ? (L.reverse || "Reverse") : sym === "D" ? (L.draw2 || "Draw Two") : sym;
  return `${motif} ${what}`;
}

export function lembarSVG(code, L = {}) {
  const label = lembarName(code, L);
  if (code === "W" || code === "F") {
    const quads = ["P", "K", "T", "M"].map((m, i) =>
      `<rect x="${4 + (i % 2) * 26}" y="${4 + Math.floor(i / 2) * 40}" width="26" height="40" fill="url(#pat-${m})"/>`).join("");
    return frame(`${quads}<ellipse cx="30" cy="44" rx="18" ry="24" fill="#fffdf7" stroke="#222"/>
<text x="30" y="${code === "F" ? 52 : 50}" text-anchor="middle" font-size="${code === "F" ? 15 : 18}" font-weight="700" fill="#222">${code === "F" ? "+4" : "★"}</text>`, { label });
  }
  const m = code[0];
  const sym = code[1];
  const text = LEMBAR_SYMBOL[sym] || sym;
  const col = MOTIF_COLOURS[m];
  return frame(`<rect x="4" y="4" width="52" height="80" rx="4" fill="url(#pat-${m})"/>
<ellipse cx="30" cy="44" rx="17" ry="22" fill="#fffdf7" stroke="${col}" stroke-width="2"/>
<text x="30" y="52" text-anchor="middle" font-size="${text.length > 1 ? 16 : 24}" font-weight="800" fill="${col}">${esc(text)}</text>
<rect x="5" y="5" width="14" height="15" rx="2" fill="#fffdf7"/><text x="12" y="16" text-anchor="middle" font-size="10" font-weight="700" fill="${col}">${esc(text)}</text>`, { label });
}

// ----- French cards (Baloot, 31) ------------------------------------------------------------
const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK_TEXT = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

export function frenchName(code, L = {}) {
  const rank = RANK_TEXT[code[1]] || code[1];
  return `${rank}${SUIT_GLYPH[code[0]]}${L["suit_" + code[0]] ? " (" + L["suit_" + code[0]] + ")" : ""}`;
}

export function frenchSVG(code, L = {}) {
  const suit = SUIT_GLYPH[code[0]] || "?";
  const rank = RANK_TEXT[code[1]] || code[1];
  const col = code[0] === "H" || code[0] === "D" ? "#c0121f" : "#111";
  const face = "JQK".includes(code[1]);
  const center = face
    ? `<rect x="14" y="22" width="32" height="44" rx="3" fill="#f5e6b8" stroke="${col}"/><text x="30" y="50" text-anchor="middle" font-size="20" font-weight="700" fill="${col}">${rank}${suit}</text>`
    : `<text x="30" y="56" text-anchor="middle" font-size="32" fill="${col}">${suit}</text>`;
  return frame(`<text x="6" y="15" font-size="12" font-weight="700" fill="${col}">${rank}</text>
<text x="6" y="27" font-size="11" fill="${col}">${suit}</text>
<g transform="rotate(180 30 44)"><text x="6" y="15" font-size="12" font-weight="700" fill="${col}">${rank}</text><text x="6" y="27" font-size="11" fill="${col}">${suit}</text></g>
${center}`, { label: frenchName(code, L) });
}

// ----- Cherki (Chinese money-suited cards) ----------------------------------------------------
const CJK = `font-family="'Noto Sans CJK SC','Noto Serif CJK SC','WenQuanYi Zen Hei','Microsoft YaHei','PingFang SC',serif"`;
const CN = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];

export function cherkiName(code, L = {}) {
  if (code === "WF" || code === "RF" || code === "OT") return L[code] || code;
  return `${code[1]} ${L["suit_" + code[0]] || code[0]}`;
}

function coin(x, y, r) {
  return `<circle cx="${x}" cy="${y}" r="${r}" fill="#d9a53a" stroke="#6b4a0c" stroke-width="1.2"/>
<rect x="${x - r * 0.32}" y="${y - r * 0.32}" width="${r * 0.64}" height="${r * 0.64}" fill="#fffdf7" stroke="#6b4a0c" stroke-width=".8"/>`;
}

function cherkiBody(code) {
  const n = Number(code[1]);
  const suit = code[0];
  if (code === "WF") {
    return `<g transform="translate(30 46)">${[0, 72, 144, 216, 288].map((a) => `<ellipse rx="6" ry="12" transform="rotate(${a}) translate(0 -10)" fill="#fff" stroke="#556"/>`).join("")}<circle r="4" fill="#e8c547"/></g><text x="30" y="82" text-anchor="middle" font-size="9" fill="#556" ${CJK}>白花</text>`;
  }
  if (code === "RF") {
    return `<g transform="translate(30 46)">${[0, 72, 144, 216, 288].map((a) => `<ellipse rx="6" ry="12" transform="rotate(${a}) translate(0 -10)" fill="#d8283a" stroke="#7a0e18"/>`).join("")}<circle r="4" fill="#e8c547"/></g><text x="30" y="82" text-anchor="middle" font-size="9" fill="#7a0e18" ${CJK}>紅花</text>`;
  }
  if (code === "OT") {
    return `<rect x="12" y="18" width="36" height="52" rx="4" fill="#f3e2c2" stroke="#7a3f12"/><text x="30" y="44" text-anchor="middle" font-size="16" fill="#3b1d07" ${CJK}>老</text><text x="30" y="64" text-anchor="middle" font-size="16" fill="#3b1d07" ${CJK}>千</text>`;
  }
  if (suit === "C") {
    const cols = n <= 3 ? 1 : n <= 6 ? 2 : 3;
    const rows = Math.ceil(n / cols);
    let s = "";
    for (let i = 0; i < n; i++) {
      const c = i % cols, r = Math.floor(i / cols);
      s += coin(30 + (c - (cols - 1) / 2) * 15, 46 + (r - (rows - 1) / 2) * 17, n <= 3 ? 8 : 6.5);
    }
    return s;
  }
  if (suit === "S") {
    let s = "";
    for (let i = 0; i < n; i++) {
      const x = 30 + (i - (n - 1) / 2) * 5.2;
      s += `<line x1="${x}" y1="22" x2="${x}" y2="70" stroke="#3b6b2a" stroke-width="2.6"/>`;
      for (let k = 0; k < 5; k++) s += `<circle cx="${x}" cy="${26 + k * 10}" r="1.8" fill="#b8862b"/>`;
    }
    return s + `<rect x="${30 - n * 2.6 - 3}" y="42" width="${n * 5.2 + 6}" height="6" rx="2" fill="#a8201a"/>`;
  }
  return `<text x="30" y="42" text-anchor="middle" font-size="20" fill="#a8201a" ${CJK}>${CN[n]}</text>
<text x="30" y="70" text-anchor="middle" font-size="22" fill="#111" ${CJK}>萬</text>`;
}

export function cherkiSVG(code, L = {}) {
  const corner = code.length === 2 && /[1-9]/.test(code[1]) ? code[1] : code === "OT" ? "千" : "花";
  return frame(`${cherkiBody(code)}<text x="5" y="14" font-size="10" font-weight="700" fill="#333" ${CJK}>${corner}</text>`,
    { label: cherkiName(code, L) });
}

export function cardSVG(game, code, L = {}) {
  if (!code) return backSVG("");
  if (game === "lembar") return lembarSVG(code, L);
  if (game === "cherki") return cherkiSVG(code, L);
  return frenchSVG(code, L);
}

export function cardName(game, code, L = {}) {
  if (game === "lembar") return lembarName(code, L);
  if (game === "cherki") return cherkiName(code, L);
  return frenchName(code, L);
}
