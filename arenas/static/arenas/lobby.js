// The lobby's arena cards follow the lobby socket (frontend/js/lobby_socket.js, shared with the
// tournament cards): status, players joined and the leader are pushed whenever an arena changes (never
// polled); the time to the start or the time left counts down here, from the server's clock.
import { esc, fmt, loadLabels } from "../frontend/js/util.js";
import { windowText } from "../frontend/js/arena_common.js";
import { followLobby } from "../frontend/js/lobby_socket.js";

const L = loadLabels("arena-lobby-labels");
const cards = new Map();  // arena id -> { card, offset (server - local, ms) }

function fromPage(li) {
  const d = li.dataset;
  return { id: Number(d.arena), status: d.status, starts_at: d.startsAt, ends_at: d.endsAt, server_time: d.serverTime };
}

function clock(li, card, offset) {
  const el = li.querySelector('[data-k="clock"]');
  if (!el) return;
  // scheduled: the start time is on the card already; the count only in the last hour
  const soon = card.status !== "scheduled" || Date.parse(card.starts_at) - (Date.now() + offset) < 3600_000;
  el.textContent = soon ? `· ${windowText(card, L, offset)}` : "";
}

function update(card, { fromServer = true } = {}) {
  const li = document.querySelector(`li[data-arena="${Number(card.id)}"]`);
  if (!li) return;
  const offset = card.server_time ? Date.parse(card.server_time) - Date.now() : 0;
  cards.set(Number(card.id), { card, offset });
  li.dataset.status = card.status;
  clock(li, card, offset);
  if (!fromServer) return;
  const status = li.querySelector('[data-k="status"]');
  if (status && card.status !== "scheduled") {
    status.innerHTML = card.status === "running" ? `<strong>${esc(L.running_now)}</strong>` : esc((L.status || {})[card.status] || card.status);
  }
  const players = li.querySelector('[data-k="players"]');
  if (players) players.textContent = fmt(card.players === 1 ? L.players_one : L.players_many, { n: card.players });
  const leader = li.querySelector('[data-k="leader"]');
  if (leader) leader.textContent = card.leader ? ` · ${fmt(L.leader, { name: card.leader.name, score: card.leader.score })}` : "";
}

const items = document.querySelectorAll("li[data-arena]");
if (items.length) {
  items.forEach((li) => update(fromPage(li), { fromServer: false }));
  setInterval(() => {
    for (const [id, { card, offset }] of cards) {
      const li = document.querySelector(`li[data-arena="${id}"]`);
      if (li) clock(li, card, offset);
    }
  }, 1000);
  followLobby({
    frame: (f) => {
      if (f.type === "arena.card" && f.card) update(f.card);
      else if (f.type === "arena.cards") (f.cards || []).forEach((c) => update(c));
    },
  });
}
