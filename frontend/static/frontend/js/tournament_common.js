// Shared by the tournament page, the tournament table and the lobby cards: the tournament socket with
// its reconnects, browser notifications, and the words for levels and cancellations.
import { fmt } from "./util.js";

// One socket to /ws/tournaments/<id>/ (or /ws/tournaments/lobby/ when id is "lobby"); every frame goes
// to handlers[kind]: "standings" (the snapshot), "seat" (this user was seated), "card"/"cards" (lobby).
export function connectTournament(id, handlers) {
  let socket = null;
  let retry = 0;
  let stopped = false;
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${proto}//${location.host}/ws/tournaments/${id}/`);
    socket.onopen = () => { retry = 0; };
    socket.onmessage = (m) => {
      let f;
      try { f = JSON.parse(m.data); } catch { return; }
      if (f.type === "tournament.standings") handlers.standings?.(f);
      else if (f.type === "tournament" && f.table) handlers.seat?.(f);
      else if (f.type === "tournament.card") handlers.card?.(f.card);
      else if (f.type === "tournament.cards") handlers.cards?.(f.cards || []);
      else handlers.frame?.(f);  // e.g. the arena cards on the lobby socket (lobby_socket.js)
    };
    // 4404: no such tournament (stop); 4429: closed for flooding (wait out the back-off).
    socket.onclose = (e) => {
      if (stopped || e.code === 4404) return;
      setTimeout(connect, e.code === 4429 ? 60000 : Math.min(5000, 500 * 2 ** retry++));
    };
  }
  connect();
  return { socket: () => socket, stop: () => { stopped = true; socket?.close(); } };
}

export function askNotifyPermission() {
  if (!("Notification" in window) || Notification.permission !== "default") return Promise.resolve();
  // A prompt the player ignores must not hold up what they clicked for.
  return Promise.race([Notification.requestPermission().catch(() => null),
    new Promise((resolve) => setTimeout(resolve, 8000))]);
}

// A browser notification when the tab is in the background (and the player allowed them).
export function notifyIfHidden(title, body, url) {
  if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const n = new Notification(title, { body, tag: "cardroom-tournament" });
    n.onclick = () => { window.focus(); if (url) location.assign(url); n.close(); };
  } catch { /* some browsers only notify from a service worker */ }
}

export function levelText(level, L) {
  if (!level) return "";
  let text = fmt(L.level, { level: level.level, ante: level.ante });
  if (level.hands_to_next) {
    text += " · " + fmt(level.hands_to_next === 1 ? L.next_ante_one : L.next_ante_many,
      { ante: level.next_ante, n: level.hands_to_next });
  }
  return text;
}

export function cancelText(cancel, L) {
  if (!cancel) return "";
  const why = cancel.reason === "too_few_entrants" && cancel.registered !== undefined
    ? fmt(L.cancel_too_few, { n: cancel.registered, min: cancel.minimum })
    : cancel.reason === "too_few_entrants" ? L.cancel_too_few_plain || L.cancel_staff : L.cancel_staff;
  if (cancel.started) return `${why} ${L.refunded_started}`;
  return cancel.refunded === 0 ? why : `${why} ${L.refunded}`;
}
