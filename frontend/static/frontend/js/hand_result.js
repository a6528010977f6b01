// The per-hand result panel: who won a Baloot deal, a Cherki deal, a 31 hand (or a Lembar game), the
// scores or pots and why, from that hand's closing PUBLIC events only (docs/frontend.md, "Hands").
// Used live at the table (listening to table.js's frames) and on the replay page's last step.
import { cardSVG } from "./cards.js";
import { describeEvent } from "./games.js";
import { fmt, esc, loadLabels } from "./util.js";

const CLOSING = {
  baloot: ["deal_scored", "void_deal"],
  cherki: ["win", "deal_void"],
  otuzbir: ["hand_over"],
  lembar: ["game_over"],
};

export function closingEvents(gameName, events) {
  const kinds = CLOSING[gameName] || [];
  return (events || []).filter((e) => e && (kinds.includes(e.type) || e.type === "game_over"));
}

const mini = (game, c, G) => `<span class="mini-card">${cardSVG(game, c, G)}</span>`;
const signed = (n) => (n > 0 ? `+${n}` : String(n ?? 0));

function contractText(c, ctx) {
  if (!c) return "";
  const suit = c.trump ? ` ${ctx.G["suit_" + c.trump] || c.trump}` : "";
  return `${ctx.M[c.kind] || c.kind || ""}${suit}`;
}

function baloot(ev, ctx, H) {
  if (ev.type === "void_deal") return `<p>${esc(H.void)}</p>`;
  const team = (t) => fmt(ctx.G.team, { n: t + 1 });
  const c = ev.contract || {};
  const bidders = typeof c.team === "number" ? c.team : 0;
  const lines = [];
  const why = fmt(ev.failed ? H.failed : H.made, { team: team(bidders), contract: contractText(c, ctx) });
  lines.push(`<p class="hand-why" data-outcome="${ev.failed ? "failed" : "made"}">${esc(why)}</p>`);
  if (ev.sweep !== null && ev.sweep !== undefined) lines.push(`<p>${esc(fmt(H.sweep, { team: team(ev.sweep) }))}</p>`);
  if (ev.multiplier > 1) lines.push(`<p>${esc(fmt(H.doubled, { n: ev.multiplier }))}</p>`);
  if (ev.gahwa) lines.push(`<p>${esc(H.gahwa)}</p>`);
  const rows = [
    [H.card_points, ev.card_points], [H.game_points, ev.game_points], [H.projects, ev.project_points],
    [H.baloot, ev.baloot], [H.this_deal, ev.deal_score], [H.total, ev.scores],
  ].filter(([, v]) => Array.isArray(v));
  lines.push(`<table class="result-table"><thead><tr><th scope="col">${esc(H.team)}</th><th scope="col">${esc(team(0))}</th><th scope="col">${esc(team(1))}</th></tr></thead><tbody>${
    rows.map(([label, v]) => `<tr><th scope="row">${esc(label)}</th><td>${v[0] ?? 0}</td><td>${v[1] ?? 0}</td></tr>`).join("")}</tbody></table>`);
  return lines.join("");
}

function cherki(ev, ctx, H) {
  if (ev.type === "deal_void") return `<p>${esc(describeEvent("cherki", ev, ctx) || "")}</p>`;
  const deltas = ev.deltas || [];
  return `<p class="hand-why">${esc(fmt(H.won_with, { name: ctx.name(ev.seat) }))} <span class="muted">${esc(fmt(H.points, { n: ev.points }))}</span></p>
    <div class="replay-hand">${(ev.cards || []).map((c) => mini("cherki", c, ctx.G)).join("")}</div>
    <table class="result-table"><thead><tr><th scope="col">${esc(H.player)}</th><th scope="col">${esc(H.payment)}</th></tr></thead><tbody>${
      deltas.map((d, s) => `<tr><th scope="row">${esc(ctx.name(s))}</th><td>${signed(d)}</td></tr>`).join("")}</tbody></table>`;
}

function otuzbir(ev, ctx, H) {
  const n = (ev.contributions || []).length;
  const rows = [];
  for (let s = 0; s < n; s++) {
    const shown = ev.revealed?.[s];
    rows.push(`<tr><th scope="row">${esc(ctx.name(s))}</th><td>${ev.contributions[s] ?? 0}</td><td>${ev.payouts?.[s] ?? 0}</td><td>${
      shown ? `<span class="replay-hand">${shown.map((c) => mini("otuzbir", c, ctx.G)).join("")}</span>` : `<span class="muted">${esc(H.not_shown)}</span>`}</td></tr>`);
  }
  return `<p class="hand-why">${esc(describeEvent("otuzbir", ev, ctx) || "")}</p>
    <p class="muted">${esc(fmt(H.pot, { n: ev.pot }))}${ev.rake ? " · " + esc(fmt(H.rake, { n: ev.rake })) : ""}</p>
    <table class="result-table"><thead><tr><th scope="col">${esc(H.player)}</th><th scope="col">${esc(H.put_in)}</th><th scope="col">${esc(H.paid_out)}</th><th scope="col">${esc(H.shown)}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function lembar(ev, ctx, H) {
  const r = ev.result || {};
  const line = describeEvent("lembar", ev, ctx) || "";
  const ranks = (r.ranks || []).map((rank, s) => `<tr><th scope="row">${esc(ctx.name(s))}</th><td>${rank ?? "–"}</td><td>${r.values?.[s] ?? ""}</td></tr>`).join("");
  return `${line ? `<p class="hand-why">${esc(line)}</p>` : ""}<table class="result-table"><thead><tr><th scope="col">${esc(H.player)}</th><th scope="col">${esc(H.rank)}</th><th scope="col">${esc(H.total)}</th></tr></thead><tbody>${ranks}</tbody></table>`;
}

const RENDER = { baloot, cherki, otuzbir, lembar };

// The panel's inner HTML for a hand's closing events (null when none of them closes a hand).
export function handResultHTML(gameName, events, ctx, H, number) {
  const closing = closingEvents(gameName, events);
  const main = closing.find((e) => e.type !== "game_over") || closing[0];
  if (!main) return null;
  const title = gameName === "lembar" ? H.game_title : fmt(gameName === "otuzbir" ? H.hand_title : H.deal_title, { n: number ?? "" });
  return `<h2 class="hand-title">${esc(title)}</h2><div class="hand-body" data-kind="${esc(main.type)}">${RENDER[gameName]?.(main, ctx, H) || ""}</div>`;
}

// ----- live, at the table -------------------------------------------------------------------
function live() {
  const app = document.getElementById("table-app");
  const panel = document.getElementById("hand-result");
  if (!app || !panel) return;
  const labels = loadLabels();
  const H = loadLabels("hand-labels") || {};
  const gameName = app.dataset.game;
  let seats = [];
  const name = (seat) => (seats.find((s) => s.seat === seat) || {}).player || fmt(labels.common?.seat, { n: (seat ?? 0) + 1 });
  const ctx = { C: labels.common || {}, M: labels.moves || {}, G: labels.game || {}, L: labels.log || {}, facts: labels.facts || {}, name };
  const shown = [];  // what the panel showed (browser tests read it)
  let showing = 0;  // which panel an answer of hands.json belongs to: a slow answer never relabels a newer one

  // `version` is the table version of the step whose events these are: the hand they closed is the one
  // finished at that version, not the newest (fast bots may have finished another hand since).
  function show(events, version) {
    const html = handResultHTML(gameName, events, ctx, H, null);
    if (!html) return;
    // Not a dialog: the next hand's cards and actions stay usable beneath it.
    panel.innerHTML = `${html}<p class="row"><a class="hand-replay" hidden>${esc(H.replay)}</a>
      <button type="button" class="small secondary" data-action="close-hand-result">${esc(H.close)}</button></p>`;
    panel.hidden = false;
    shown.push(events.map((e) => e.type));
    const mine = ++showing;
    const url = `/tables/${app.dataset.table}/hands.json${location.search.includes("invite=") ? location.search : ""}`;
    fetch(url, { credentials: "same-origin" }).then((r) => (r.ok ? r.json() : null)).then((data) => {
      if (mine !== showing) return;
      const hands = data?.hands || [];
      const hand = hands.find((h) => h.version === version) || hands[hands.length - 1];
      const link = panel.querySelector(".hand-replay");
      if (!hand || !link) return;
      const title = panel.querySelector(".hand-title");
      if (title && gameName !== "lembar") title.textContent = fmt(gameName === "otuzbir" ? H.hand_title : H.deal_title, { n: hand.hand });
      link.href = hand.url;
      link.hidden = false;
    }).catch(() => {});
  }
  panel.addEventListener("click", (e) => {
    if (e.target.closest("[data-action=close-hand-result]")) { panel.hidden = true; panel.innerHTML = ""; }
  });
  app.addEventListener("table:frame", (e) => {
    const msg = e.detail || {};
    if (msg.type === "state" && Array.isArray(msg.seats)) seats = msg.seats;
    if (msg.type === "event") show(msg.events || [], msg.version);
  });
  window.cardroomHandResult = { shown: () => shown.slice() };
}

if (typeof document !== "undefined") live();
