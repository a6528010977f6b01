// The arena page (/arenas/<id>/): the leaderboard, the clock, the player's rank and streak, the games
// to watch, all from the pushed snapshot; when the arena seats this player at a game, the page takes
// them there (a notification if the tab is in the background).
import { esc, loadLabels } from "./util.js";
import { connectArena, mineText, myRow, notifyIfHidden, windowText } from "./arena_common.js";

const data = loadLabels("arena-page-data");
const L = data.labels || {};
const $ = (id) => document.getElementById(id);
let snap = null;
let offset = 0;  // server - local (ms)
let leaving = false;

function sheet(r) {
  return (r.sheet || []).map(([p, doubled]) => `<span${doubled ? ' class="doubled"' : ""}>${esc(p)}</span>`).join("");
}

function render(f) {
  snap = f;
  offset = Date.parse(f.server_time) - Date.now();
  const status = $("a-status");
  status.dataset.status = f.status;
  status.textContent = (L.status || {})[f.status] || f.status;
  document.querySelectorAll("[data-k]").forEach((el) => { if (el.dataset.k in f) el.textContent = f[el.dataset.k]; });
  const payouts = $("a-payouts");
  if (payouts) payouts.innerHTML = (f.payouts || []).map((p) => `<span class="a-payout">#${esc(p.place)} · ${esc(p.amount)} (${esc(p.percent)} %)</span>`).join(" · ");
  const rows = (f.standings || []).map((r) => `<tr data-player="${esc(r.player)}"${r.player === data.player ? ' class="me"' : ""}>`
    + `<td>${esc(r.place ?? r.rank)}</td><td>${esc(r.name)}${r.fire ? ` <span class="a-fire" title="${esc(L.fire_title)}">🔥</span>` : ""}</td>`
    + `<td class="a-sheet">${sheet(r)}</td><td>${esc(r.score)}</td><td>${esc(r.games)}</td>`
    + `<td>${r.table_url ? `<a href="${esc(r.table_url)}">${esc(L.watch)}</a>` : (r.prize ? esc(r.prize) : "")}</td></tr>`).join("");
  $("a-standings").tBodies[0].innerHTML = rows || `<tr><td colspan="6" class="muted">${esc(L.no_players)}</td></tr>`;
  $("a-games").innerHTML = (f.games || []).map((g) => `<li><a href="${esc(g.url)}">${
    g.players.map((p) => esc(p.bot ? `${p.name} (${L.bot})` : p.name)).join(" · ")}</a></li>`).join("")
    || `<li class="muted">${esc(L.no_games)}</li>`;
  const me = myRow(f, data.player);
  if (me && $("a-mine")) $("a-mine").textContent = mineText(f, me, L);
  const mine = $("a-mygame");
  if (mine) mine.hidden = !(me && me.table);
  const notice = $("a-notice");
  if (f.status === "cancelled") { notice.textContent = windowText(f, L, offset); notice.hidden = false; }
  // Joining and pausing are forms; once the window is over they go.
  if (f.window_over || f.status === "finished" || f.status === "cancelled") $("a-actions")?.querySelectorAll("form").forEach((el) => el.remove());
  tick();
}

function tick() {
  $("a-clock").textContent = windowText(snap, L, offset);
}
setInterval(tick, 500);

// This player was seated at a game: go there.
function onSeat(msg) {
  if (leaving) return;
  leaving = true;
  notifyIfHidden(L.next_game, msg.url);
  location.assign(msg.url || data.play_url);
}

// Ask for notifications when the player joins (the browser shows the prompt on that click).
document.querySelector('#a-actions form[data-role="join"]')?.addEventListener("submit", () => {
  if ("Notification" in window && Notification.permission === "default") Notification.requestPermission().catch(() => null);
});

connectArena(data.arena, { standings: render, seat: onSeat });
