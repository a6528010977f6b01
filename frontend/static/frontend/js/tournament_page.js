// The tournament page: everything on it follows the tournament socket's pushes (never polled), and a
// registered player is taken to their seat the moment the tournament assigns it.
import { esc, fmt, loadLabels } from "./util.js";
import { connectTournament, notifyIfHidden, askNotifyPermission, levelText, cancelText } from "./tournament_common.js";

const data = loadLabels("tournament-page-data");
const L = data.labels || {};
const $ = (id) => document.getElementById(id);
const myEntry = data.entry;
let last = null;
let shownEliminations = null;   // entry ids already on the page (new ones are announced)
let leaving = false;

function setK(key, value) {
  document.querySelectorAll(`#tournament-page [data-k="${key}"]`).forEach((el) => { el.textContent = value ?? "–"; });
}

function render(f) {
  last = f;
  const status = $("t-status");
  status.textContent = (L.status || {})[f.status] || f.status;
  status.dataset.status = f.status;
  const cancel = $("t-cancel");
  const why = cancelText(f.cancel, L);
  cancel.hidden = !why;
  if (why) cancel.textContent = why;
  $("t-round").textContent = f.round;
  setK("registered", f.registered);
  setK("prize_pool", f.prize_pool);
  setK("players_left", f.players_left);
  setK("average_stack", f.average_stack);
  $("t-payouts").innerHTML = (f.payouts || []).map((p) =>
    `<span class="t-payout">#${esc(p.place)} · ${esc(p.amount)} (${esc(p.percent)} %)</span>`).join(" · ");
  const level = $("t-level");
  const span = level?.querySelector("[data-level]");
  if (span) span.textContent = f.level && !["finished", "cancelled"].includes(f.status) ? levelText(f.level, L) : "";
  // Registration closes at the start: the forms go, the seat link comes.
  if (!["announced", "registering"].includes(f.status)) document.querySelectorAll("#t-register form").forEach((el) => el.remove());
  const mine = (f.standings || []).find((r) => r.entry === myEntry);
  const place = $("t-myplace");
  if (place && mine) {
    const n = mine.status === "playing" ? f.players_left : f.entrants;
    place.textContent = mine.rank ? fmt(L.place_of, { place: mine.rank, n }) : "–";
  }
  if (mine && mine.table_number && f.status === "running") {
    const url = `/tournaments/${f.tournament}/table/${mine.table_number}/`;
    showMyTable(url);
    // Registered when this page opened and seated since: go there even if the seat's push was missed
    // (e.g. the socket was reconnecting at the start).
    if (data.entry_status === "registered" && mine.status === "playing") onSeat({ tournament: f.tournament, url, number: mine.table_number, start: true });
  }
  else if (mine && mine.status !== "playing") $("t-mytable-p")?.setAttribute("hidden", "");
  renderTables(f);
  renderEliminations(f);
  renderStandings(f);
}

function showMyTable(url) {
  const link = $("t-mytable");
  if (!link) return;
  link.href = url;
  $("t-mytable-p").hidden = false;
}

function renderTables(f) {
  const el = $("t-tables");
  if (!el || !f.tables) return;
  const live = f.status === "running" ? f.tables.filter((t) => t.table) : [];
  el.innerHTML = live.length ? live.map((t) =>
    `<li><a href="${esc(t.url)}">${esc(fmt(L.table_n, { n: t.number }))}</a> <span class="muted">· ${esc(fmt(t.players === 1 ? L.players_one : L.players_n, { n: t.players }))} · ${esc(fmt(L.hand_n, { n: t.hands + 1 }))}</span></li>`).join("")
    : `<li class="muted">${esc(L.no_tables)}</li>`;
}

function renderEliminations(f) {
  const el = $("t-eliminations");
  const list = f.eliminations || [];
  const fresh = shownEliminations ? list.filter((e) => !shownEliminations.has(e.entry)) : [];
  shownEliminations = new Set(list.map((e) => e.entry));
  el.innerHTML = list.length ? list.map((e) =>
    `<li${fresh.includes(e) ? ' class="fresh"' : ""}>${esc(fmt(L.out_in_place, { player: e.player, place: e.place }))}</li>`).join("")
    : `<li class="muted">${esc(L.no_eliminations)}</li>`;
  // only what is new is read out (the list itself is redrawn on every push)
  const live = $("t-announce");
  for (const e of fresh) {
    const p = document.createElement("p");
    p.textContent = fmt(L.out_in_place, { player: e.player, place: e.place });
    live.append(p);
    while (live.childNodes.length > 5) live.firstChild.remove();
  }
}

function renderStandings(f) {
  const body = document.querySelector("#t-standings tbody");
  body.innerHTML = (f.standings || []).map((r) => {
    const stack = r.status === "out" ? esc(L.eliminated) : esc(r.stack);
    const table = r.table_number ? `<a href="/tournaments/${f.tournament}/table/${r.table_number}/">${esc(r.table_number)}</a>` : "";
    const me = r.entry === myEntry ? ' class="me" aria-current="true"' : "";
    return `<tr data-entry="${esc(r.entry)}"${me}><td>${esc(r.rank ?? "")}</td><td>${esc(r.player)}</td><td>${stack}</td><td>${table}</td><td>${r.prize || ""}</td></tr>`;
  }).join("");
}

// The tournament seated this player (the start, or a new table): take them there at the start.
function onSeat(msg) {
  if (Number(msg.tournament) !== data.tournament) return;  // the player's other tournaments
  showMyTable(msg.url);
  if (!msg.start || leaving) return;
  leaving = true;
  notifyIfHidden(L.seat_ready_title, fmt(L.seat_ready, { n: msg.number }), msg.url);
  location.assign(msg.url);
}

// Ask for notifications when the player registers (the browser shows the prompt on that click).
document.querySelector('#t-register form[data-role="register"]')?.addEventListener("submit", (e) => {
  const form = e.currentTarget;
  if (form.dataset.asked || !("Notification" in window) || Notification.permission !== "default") return;
  e.preventDefault();
  form.dataset.asked = "1";
  // submit again once asked, outside this submit event (a form ignores a submit from within its own)
  askNotifyPermission().finally(() => setTimeout(() => form.requestSubmit(), 0));
});

const sock = connectTournament(data.tournament, {
  standings: render,
  seat: onSeat,
});
window.cardroomTournament = { last: () => last, socket: () => sock.socket() };
