// The player's arena game (loaded before table.js on /arenas/<id>/play/).
//
// Every arena game is its own rooms table (its own seed and proof); this page stays. When the arena
// seats the player at the next game, table.js switches to it in place over a new socket
// (window.cardroomTable.switchTable): no reload. The frame ("arena", with the new table) arrives on the
// table socket (table.js hands every frame to the page first, as a cancelable "table:frame" event) and
// on the arena socket. A bar above the table shows the arena, the time left, the player's rank, points
// and streak, and between games "Waiting for your next game…".
import { esc, loadLabels } from "./util.js";
import { connectArena, mineText, myRow, notifyIfHidden, windowText } from "./arena_common.js";

const data = loadLabels("arena-table-data");
const L = data.labels || {};
const $ = (id) => document.getElementById(id);
const app = $("table-app");
let current = Number(data.table);
let snap = null;
let offset = 0;

document.body.dataset.arena = String(data.arena);  // arenas.css: no "Play again" or quick play here

// The bar above the table.
const bar = document.createElement("div");
bar.className = "arena-bar";
bar.id = "arena-bar";
bar.innerHTML = `<p><a href="${esc(data.detail_url)}" id="arena-back">${esc(L.back)}</a> · <strong id="arena-clock" role="timer" aria-live="off"></strong></p>`
  + `<p id="arena-mine" class="arena-mine" role="status"></p>`;
app.querySelector(".table-head")?.prepend(bar);

function switchTo(tableId) {
  tableId = Number(tableId);
  if (!Number.isInteger(tableId) || tableId <= 0 || tableId === current) return;
  const old = current;
  current = tableId;
  // links and forms of this page that name the old table (proof, replay, leave)
  app.querySelectorAll(`a[href*="/tables/${old}/"]`).forEach((a) => { a.href = a.getAttribute("href").replace(`/tables/${old}/`, `/tables/${tableId}/`); });
  app.querySelectorAll(`form[action*="/tables/${old}/"]`).forEach((f) => { f.action = f.getAttribute("action").replace(`/tables/${old}/`, `/tables/${tableId}/`); });
  const money = $("money-movement");
  if (money) { money.hidden = true; delete money.dataset.loaded; money.dataset.url = (money.dataset.url || "").replace(`/tables/${old}/`, `/tables/${tableId}/`); }
  const head = app.querySelector(".table-head h1 .muted");
  if (head) head.textContent = `#${tableId}`;
  notifyIfHidden(L.next_game, location.href);
  window.cardroomTable?.switchTable(tableId);
  renderBar();
}

// "Your next game" from the table socket: follow it, and keep table.js from acting on it.
app.addEventListener("table:frame", (e) => {
  const msg = e.detail;
  if (msg?.type !== "arena") return;
  e.preventDefault();
  if (Number(msg.arena) === Number(data.arena)) switchTo(msg.table);
});

function renderBar() {
  $("arena-clock").textContent = windowText(snap, L, offset);
  const me = myRow(snap, data.player);
  $("arena-mine").textContent = me ? mineText(snap, me, L) : "";
}
setInterval(() => { if (snap) $("arena-clock").textContent = windowText(snap, L, offset); }, 500);

function onStandings(f) {
  snap = f;
  offset = Date.parse(f.server_time) - Date.now();
  const me = myRow(f, data.player);
  if (me && me.table) switchTo(me.table);  // a seat frame lost on the way: the snapshot knows
  renderBar();
}

window.cardroomHooks = { rendered: renderBar };
connectArena(data.arena, { standings: onStandings, seat: (msg) => switchTo(msg.table) });
