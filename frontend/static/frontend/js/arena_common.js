// Shared by the arena page and the arena game page: the arena socket with its reconnects, the clock
// and browser notifications.
import { fmt } from "./util.js";

// One socket to /ws/arenas/<id>/; "standings" gets each leaderboard frame, "seat" each "your next
// game" frame of this user (the arena's; other frames of the user group are ignored here).
export function connectArena(id, handlers) {
  let socket = null;
  let retry = 0;
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${proto}//${location.host}/ws/arenas/${id}/`);
    socket.onopen = () => { retry = 0; };
    socket.onmessage = (m) => {
      let f;
      try { f = JSON.parse(m.data); } catch { return; }
      if (f.type === "arena.standings") handlers.standings?.(f);
      else if (f.type === "arena" && Number(f.arena) === Number(id) && f.table) handlers.seat?.(f);
    };
    // 4404: no such arena (stop); 4401: logged out; 4429: closed for flooding (wait out the back-off).
    socket.onclose = (e) => {
      if (e.code === 4404 || e.code === 4401) return;
      setTimeout(connect, e.code === 4429 ? 60000 : Math.min(5000, 500 * 2 ** retry++));
    };
  }
  connect();
  return { socket: () => socket };
}

// "12:05" (or "1:02:05"): the time to the start or the end, counted from the frame's server time.
export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

// The line under the arena's name: time to the start, time left, or why it is over.
export function windowText(f, L, offsetMs) {
  if (!f) return "";
  const now = Date.now() + offsetMs;
  if (f.status === "cancelled") return f.cancel_reason === "no_games" ? L.no_games_cancelled : L.cancelled;
  if (f.status === "finished") return L.over;
  if (f.status === "scheduled") return fmt(L.starts_in, { time: clockText((Date.parse(f.starts_at) - now) / 1000) });
  const left = (Date.parse(f.ends_at) - now) / 1000;
  return left > 0 ? fmt(L.ends_in, { time: clockText(left) }) : L.time_up;
}

export function myRow(f, player) {
  return player ? (f?.standings || []).find((r) => r.player === player) || null : null;
}

// What the player should know about themselves now.
export function mineText(f, me, L) {
  if (!f || !me) return "";
  const parts = [fmt(L.your_rank, { rank: me.place ?? me.rank, n: f.players }), fmt(L.your_score, { score: me.score, games: me.games })];
  if (f.status === "finished") parts.push(me.place === 1 ? L.you_won : (me.place ? fmt(L.you_placed, { place: me.place }) : ""));
  else if (me.fire) parts.push(L.on_fire);
  if (f.status === "running" && !f.window_over) {
    if (me.status === "paused") parts.push(me.note === "left_game" ? L.left_game : L.paused);
    else if (me.table) parts.push(L.playing_now);
    else if (me.status === "active") parts.push(`${L.waiting} ${fmt(L.bots_after, { s: f.bot_fill_seconds })}`);
  }
  return parts.filter(Boolean).join(" · ");
}

// A browser notification when the tab is in the background (and the player allowed them).
export function notifyIfHidden(title, url) {
  if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const n = new Notification(title, { tag: "cardroom-arena" });
    n.onclick = () => { window.focus(); if (url) location.assign(url); n.close(); };
  } catch { /* some browsers only notify from a service worker */ }
}
