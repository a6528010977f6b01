// A tournament table across hands (loaded before table.js on /tournaments/<id>/table/<n>/).
//
// Every hand is its own rooms table (its own seed and proof); this page stays. When the tournament
// deals the next hand (or balancing moves the player), table.js switches to the new table in place over
// a new socket (window.cardroomTable.switchTable): no reload, no new page; the address follows with
// history.replaceState. Between hands the page shows the hand result; the header shows the
// tournament's name, level, players left, average stack, your stack and place, all pushed over the
// tournament socket.
import { esc, fmt, loadLabels } from "./util.js";
import { connectTournament, notifyIfHidden, levelText } from "./tournament_common.js";

const data = loadLabels("tournament-table-data");
const L = data.labels || {};
const $ = (id) => document.getElementById(id);
let current = { table: data.table, number: data.number };
let snap = null;          // the latest tournament snapshot
let clockOffset = 0;      // server - local (ms), from the table frames
let movingTo = null;      // balancing moved the player: the table number of their next hand

const table = () => window.cardroomTable;

function myRow(f = snap) {
  return data.entry ? (f?.standings || []).find((r) => r.entry === data.entry) : null;
}

// ----- following the tournament ------------------------------------------------------------------
function switchTo(tableId, number, { moved = false } = {}) {
  tableId = Number(tableId);
  if (!Number.isInteger(tableId) || tableId <= 0 || tableId === current.table) return;
  const old = current.table;
  current = { table: tableId, number };
  movingTo = null;
  // links and forms of this page that name the old table (proof, replay, leave)
  const app = $("table-app");
  app.querySelectorAll(`a[href*="/tables/${old}/"]`).forEach((a) => { a.href = a.getAttribute("href").replace(`/tables/${old}/`, `/tables/${tableId}/`); });
  app.querySelectorAll(`form[action*="/tables/${old}/"]`).forEach((f) => { f.action = f.getAttribute("action").replace(`/tables/${old}/`, `/tables/${tableId}/`); });
  const money = $("money-movement");  // fetched once per table: the new hand fetches its own
  if (money) { money.hidden = true; delete money.dataset.loaded; money.dataset.url = (money.dataset.url || "").replace(`/tables/${old}/`, `/tables/${tableId}/`); }
  $("tt-number").textContent = `· ${fmt(L.table_n, { n: number })}`;
  const url = `/tournaments/${data.tournament}/table/${number}/`;
  if (location.pathname !== url) history.replaceState(null, "", url);
  if (moved) {
    const text = fmt(L.moved_to, { n: number });
    announce(text);
    notifyIfHidden(L.seat_ready_title, text, url);
  }
  table()?.switchTable(tableId);
}

// A "tournament" frame for this user (from the table socket or the tournament socket).
function onSeat(msg) {
  if (Number(msg.tournament) !== data.tournament) {
    // another tournament of this player: say so, but never take them away from this table
    if (msg.start) announce(fmt(L.seat_ready, { n: msg.number }));
    return true;
  }
  switchTo(msg.table, msg.number, { moved: msg.number !== current.number });
  return true;
}

function onStandings(f) {
  snap = f;
  renderHead(f);
  const me = myRow(f);
  if (me && (me.status === "out" || me.status === "won")) {
    // Out (or the winner): the page stays on the last hand with the result; no following.
  } else if (me && me.status === "playing" && me.table_number) {
    const t = (f.tables || []).find((x) => x.number === me.table_number);
    const moved = t && t.number !== current.number;
    // Moved by balancing during the pause: the new table still shows its last hand (other players');
    // the next deal's push (or the standings after it) takes the player to their new hand there.
    if (moved && (t.status === "finished" || t.status === "stopped")) { movingTo = t.number; tickNext(); }
    else if (t && t.table) switchTo(t.table, t.number, { moved });
  } else if (f.tables) {
    const t = f.tables.find((x) => x.number === current.number);
    if (t && t.table) switchTo(t.table, t.number);
    else if (f.status === "running") showNotice(L.table_broken);
  }
  const frame = table()?.frame();
  if (frame && (frame.status === "finished" || frame.status === "stopped")) renderResult(frame, $("result"), null);
}

function showNotice(text) {
  const el = $("tt-next");
  if (el) el.textContent = text;
}

function announce(text) {
  const el = $("announcer");
  if (!el || !text) return;
  const p = document.createElement("p");
  p.textContent = text;
  el.append(p);
}

// ----- the header -----------------------------------------------------------------------------------
function renderHead(f) {
  if (f.status === "finished") $("tt-level").textContent = L.tournament_over;
  else if (f.level) $("tt-level").textContent = levelText(f.level, L);
  $("tt-left").textContent = f.players_left ?? "–";
  $("tt-avg").textContent = f.average_stack ?? "–";
  const me = myRow(f);
  if (me && $("tt-place")) {
    $("tt-place").textContent = me.rank ? fmt(L.place_of, { place: me.rank, n: me.status === "playing" ? f.players_left : f.entrants }) : "–";
    if (me.status === "out") $("tt-stack").textContent = L.eliminated;
  }
}

// ----- the table (hooks called by table.js) ----------------------------------------------------------
function rendered(frame) {
  if (frame.server_time) clockOffset = Date.parse(frame.server_time) - Date.now();
  const view = frame.view;
  if (!view || !Array.isArray(view.players)) return;
  // each seat: its stack now (never a negative number: "eliminated")
  for (const p of view.players) {
    const extra = document.querySelector(`#seats .seat[data-seat="${p.seat}"] .seat-extra`);
    if (!extra || p.chips === undefined) continue;
    const out = !p.in_table || (view.phase === "over" && p.chips <= 0);
    let badge = extra.querySelector(".tt-stack");
    if (!badge) {
      badge = document.createElement("span");
      badge.className = "tt-stack";
      extra.querySelector(".muted")?.replaceWith(badge);  // the per-hand net: the stack says more here
      if (!badge.isConnected) extra.prepend(badge);
    }
    badge.textContent = out ? L.eliminated : `${L.stack} ${p.chips}`;
    badge.classList.toggle("out", out);
  }
  // the pot line: the tournament's hand number, not "Hand 1 of 1"
  const pot = document.querySelector("#center .pot");
  if (pot) pot.innerHTML = esc(fmt(L.pot_line, { pot: "\u0000", ante: view.ante, hand: (view.level_hand ?? 0) + 1 }))
    .replace("\u0000", `<strong data-testid="pot">${esc(view.pot)}</strong>`);
  const mine = view.players.find((p) => p.seat === frame.seat);
  if (mine && $("tt-stack")) $("tt-stack").textContent = mine.chips > 0 || mine.in_table ? mine.chips : L.eliminated;
  if (frame.status === "finished" || frame.status === "stopped") $("turn-line").textContent = snap?.status === "finished" ? L.tournament_over : L.hand_result;
}

function placeOf(frame, seat) {
  const e = (snap?.eliminations || []).find((x) => x.table === frame.table && x.seat === seat);
  return e ? e.place : null;
}

// The hand result instead of "Game over": who won the pot and how much, the stacks, who is out (with
// the place once the tournament has settled the hand); the tournament's end shows places and prizes.
function renderResult(frame, el, ctx) {
  const name = ctx?.name || ((s) => (frame.seats || []).find((x) => x.seat === s)?.player || `#${s + 1}`);
  const view = frame.view || {};
  const hand = view.last_hand;
  const stacks = frame.result?.stacks || [];
  const wasHidden = el.hidden;
  const parts = [];
  let headline = "";
  if (frame.status === "finished" && hand) {
    headline = fmt(L.wins_pot, { player: name(hand.winner), pot: hand.pot });
    parts.push(`<p class="winners"><strong>${esc(headline)}</strong></p>`);
  } else {
    headline = L.void_hand;
    parts.push(`<p>${esc(headline)}</p>`);
  }
  const rows = (view.players || []).map((p) => {
    const s = p.seat;
    const finished = frame.status === "finished";
    const end = finished ? stacks[s] ?? p.chips : p.stack;  // a stopped hand is void: stacks as at its start
    const change = finished && hand ? (hand.payouts?.[s] || 0) - (hand.contributions?.[s] || 0) : 0;
    const out = !p.in_table || end <= 0;
    const place = out ? placeOf(frame, s) : null;
    const stack = out ? (place ? fmt(L.eliminated_place, { place }) : L.eliminated) : end;
    const sign = change > 0 ? `+${change}` : `${change}`;
    return `<tr${out ? ' class="out"' : ""}><th scope="row">${esc(name(s))}</th><td>${esc(stack)}</td><td>${change ? esc(sign) : "0"}</td></tr>`;
  }).join("");
  parts.push(`<table class="result-table"><thead><tr><th scope="col">${esc(L.player)}</th><th scope="col">${esc(L.stack)}</th><th scope="col">${esc(L.change)}</th></tr></thead><tbody>${rows}</tbody></table>`);
  const me = myRow();
  if (snap?.status === "finished") {
    const paid = (snap.standings || []).filter((r) => r.prize > 0 || r.place === 1).sort((a, b) => a.place - b.place);
    parts.unshift(`<h2>${esc(L.tournament_over)}</h2>`);
    parts.push(`<h3>${esc(L.prizes)}</h3><table class="result-table"><thead><tr><th scope="col">${esc(L.place)}</th><th scope="col">${esc(L.player)}</th><th scope="col">${esc(L.prize)}</th></tr></thead><tbody>${
      paid.map((r) => `<tr><td>${esc(r.place)}</td><th scope="row">${esc(r.player)}</th><td>${esc(r.prize)}</td></tr>`).join("")}</tbody></table>`);
    if (me) parts.push(`<p><strong>${esc(me.place === 1 ? L.you_won : fmt(L.you_are_out, { place: me.place }))}</strong></p>`);
  } else {
    parts.unshift(`<h2>${esc(L.hand_result)}</h2>`);
    if (me && me.status === "out" && me.place) parts.push(`<p><strong>${esc(fmt(L.you_are_out, { place: me.place }))}</strong></p>`);
    parts.push(`<p id="tt-next" class="muted" role="status"></p>`);
  }
  parts.push(`<p><a href="/tables/${frame.table}/proof">${esc(labelsOf("proof"))}</a> · <a href="${esc(data.detail_url)}">${esc(L.back)}</a></p>`);
  el.innerHTML = parts.join("");
  el.hidden = false;
  $("turn-line").textContent = snap?.status === "finished" ? L.tournament_over : L.hand_result;
  tickNext();
  if (wasHidden) announce(`${L.hand_result}: ${headline}`);
  return true;
}

function labelsOf(key) {
  try { return JSON.parse(document.getElementById("labels").textContent).common[key] || key; } catch { return key; }
}

// "Next hand in 3 s…" while the tournament pauses between hands.
function tickNext() {
  const el = $("tt-next");
  if (!el || !snap) return;
  if (snap.status !== "running") { el.textContent = ""; return; }
  if (!snap.next_deal_at) { el.textContent = L.waiting_tables; return; }  // the round is not settled yet
  const left = Math.ceil((Date.parse(snap.next_deal_at) - (Date.now() + clockOffset)) / 1000);
  const next = left > 0 ? fmt(L.next_hand_in, { s: left }) : L.next_hand_soon;
  el.textContent = movingTo ? `${fmt(L.moved_to, { n: movingTo })} ${next}` : next;
}
setInterval(tickNext, 250);

// Leaving a tournament table is an elimination (otuzbir.md): say so before it happens.
document.addEventListener("submit", (e) => {
  if (e.target.id === "leave-form" && !window.confirm(L.leave_confirm)) e.preventDefault();
}, true);

window.cardroomHooks = { tournament: onSeat, result: renderResult, rendered };
connectTournament(data.tournament, { standings: onStandings, seat: onSeat });
