// The proof page's own check: re-derive the commitment, every shuffle and the first player/dealer from
// the revealed seed with Web Crypto (HMAC-SHA256, SHA-256), exactly as fairness.md defines them.
import { fmt, esc, loadLabels } from "./util.js";

const L = loadLabels();
const app = document.getElementById("proof-app");
const $ = (id) => document.getElementById(id);
const enc = new TextEncoder();

const CANONICAL = {
  lembar: [],
  baloot: [..."SHDC"].flatMap((s) => [..."789TJQKA"].map((r) => s + r)),
  otuzbir: [..."SHDC"].flatMap((s) => [..."23456789TJQKA"].map((r) => s + r)),
  cherki: Array(4).fill([..."CSM"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => s + n)).concat(["WF", "RF", "OT"])).flat(),
};
const SEAT_DRAWN_FIRST = new Set(["lembar", "baloot", "cherki"]);

// Lembar's canonical order repeats 1..9,S,R,D twice after the 0 (fairness.md): rebuild it literally.
CANONICAL.lembar = [];
for (const m of "PKTM") {
  CANONICAL.lembar.push(`${m}0`);
  for (let k = 0; k < 2; k++) for (const s of "123456789SRD") CANONICAL.lembar.push(m + s);
}
CANONICAL.lembar.push("W", "W", "W", "W", "F", "F", "F", "F");

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
function fromHex(h) {
  if (typeof h !== "string" || !/^[0-9a-f]{64}$/i.test(h)) throw new Error("seed is not 64 hex characters");
  return new Uint8Array(h.match(/../g).map((x) => parseInt(x, 16)));
}

async function makeDraw(seedBytes) {
  const key = await crypto.subtle.importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return async (message, m) => {
    const mac = await crypto.subtle.sign("HMAC", key, enc.encode(message));
    return Number(BigInt("0x" + hex(mac)) % BigInt(m));
  };
}

async function shuffle(draw, round, purpose, initial) {
  const a = [...initial];
  for (let i = a.length - 1; i > 0; i--) {
    const j = await draw(`${round}:${purpose}:${i}`, i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function otuzbirEbe(order, n) {
  const v = (c) => ({ A: 11, K: 10, Q: 10, J: 10, T: 10 }[c[1]] ?? Number(c[1]));
  let pos = 0, contenders = [...Array(n).keys()];
  for (;;) {
    const cards = {};
    for (const s of contenders) cards[s] = order[pos++];
    const best = Math.max(...contenders.map((s) => v(cards[s])));
    contenders = contenders.filter((s) => v(cards[s]) === best);
    if (contenders.length === 1) return contenders[0];
  }
}

export async function verify(doc) {
  const items = []; // {ok, text}
  const seed = fromHex(doc.seed);
  const digest = hex(await crypto.subtle.digest("SHA-256", seed));
  items.push(digest === doc.commitment
    ? { ok: true, text: L.commitment_ok }
    : { ok: false, text: fmt(L.commitment_bad, { got: digest, want: doc.commitment }) });
  const draw = await makeDraw(seed);
  const game = doc.game;
  for (const sh of doc.shuffles || []) {
    const expect = await shuffle(draw, sh.round, sh.purpose, sh.initial || []);
    const got = sh.result || [];
    let diff = -1;
    for (let i = 0; i < Math.max(expect.length, got.length); i++) if (expect[i] !== got[i]) { diff = i; break; }
    const p = { round: sh.round, purpose: sh.purpose };
    items.push(diff < 0 ? { ok: true, text: fmt(L.shuffle_ok, p) }
      : { ok: false, text: fmt(L.shuffle_bad, { ...p, i: diff, got: expect[diff] ?? "—", want: got[diff] ?? "—" }) });
    if ((sh.purpose === "kocok" || sh.purpose === "ebe") && CANONICAL[game]) {
      const canon = CANONICAL[game];
      const same = canon.length === (sh.initial || []).length && canon.every((c, i) => c === sh.initial[i]);
      if (!same) items.push({ ok: false, text: `✗ ${sh.round}:${sh.purpose}: initial order ≠ canonical deck` });
    }
  }
  const n = (doc.seats || []).length;
  let first = null;
  if (SEAT_DRAWN_FIRST.has(game) && n) first = await draw("0:giliran-awal", n);
  else if (game === "otuzbir" && n) {
    const explicit = (doc.options || {}).ebe;
    first = explicit ?? otuzbirEbe(await shuffle(draw, 0, "ebe", CANONICAL.otuzbir), n);
  }
  if (first !== null) {
    items.push(first === doc.first ? { ok: true, text: fmt(L.first_ok, { first }) }
      : { ok: false, text: fmt(L.first_bad, { got: first, want: doc.first }) });
  }
  return items;
}

function show(doc) {
  $("commitment").textContent = doc.commitment;
  $("seed").textContent = doc.seed;
  $("proof-seats").innerHTML = (doc.seats || []).map((s) => `<li>${esc(s.player)}${s.bot ? " (bot)" : ""}</li>`).join("");
  $("first").textContent = doc.first === null || doc.first === undefined ? "—" : String(doc.first);
  $("shuffles").innerHTML = (doc.shuffles || []).map((sh) => `<details><summary>${esc(sh.round)}:${esc(sh.purpose)} (${(sh.result || []).length})</summary>
    <p><strong>initial</strong></p><p class="mono">${esc((sh.initial || []).join(" "))}</p>
    <p><strong>result</strong> (a[0] = top)</p><p class="mono">${esc((sh.result || []).join(" "))}</p></details>`).join("");
  $("moves").innerHTML = (doc.moves || []).map((m) => `<li>#${esc(m.seq)} · ${m.seat === null ? "—" : esc(m.seat)} · ${esc(JSON.stringify(m.move))}</li>`).join("");
}

async function main() {
  const summary = $("check-summary");
  if (!window.crypto?.subtle) { summary.textContent = L.no_crypto; return; }
  let doc;
  try {
    const r = await fetch(app.dataset.url, { credentials: "same-origin" });
    doc = await r.json();
  } catch (e) {
    summary.textContent = `${L.failed} ${e}`;
    summary.className = "check-bad";
    return;
  }
  show(doc);
  if (!doc.seed) { summary.textContent = L.not_ended; return; }
  let items;
  try { items = await verify(doc); } catch (e) { items = [{ ok: false, text: `✗ ${e.message}` }]; }
  $("checks").innerHTML = items.map((it) => `<li class="${it.ok ? "check-ok" : "check-bad"}" data-ok="${it.ok}">${esc(it.text)}</li>`).join("");
  const bad = items.filter((it) => !it.ok);
  summary.textContent = bad.length ? `${L.failed} ${bad.map((b) => b.text).join(" · ")}` : L.ok;
  summary.className = bad.length ? "check-bad" : "check-ok";
  summary.dataset.result = bad.length ? "fail" : "pass";
}

main();
