// The lobby's tournament cards follow /ws/tournaments/lobby/: status, players registered or left, ante
// and prize pool, pushed whenever a tournament changes (never polled).
import { esc, fmt, loadLabels } from "./util.js";
import { connectTournament } from "./tournament_common.js";

const L = loadLabels("tournament-lobby-labels");

function update(card) {
  const li = document.querySelector(`li[data-tournament="${Number(card.id)}"]`);
  if (!li) return;
  const status = li.querySelector('[data-k="status"]');
  if (status) status.textContent = (L.status || {})[card.status] || card.status;
  const live = li.querySelector('[data-k="live"]');
  if (!live) return;
  const who = card.status === "running"
    ? fmt(L.left_of, { left: card.players_left, n: card.registered }) + (card.ante ? ` · ${L.ante} ${card.ante}` : "")
    : `${L.registered} ${card.registered}`;
  live.innerHTML = `· ${esc(who)} · ${esc(L.prize_pool)} ${esc(card.prize_pool)}`;
  li.dataset.status = card.status;
}

if (document.querySelector("li[data-tournament]")) {
  connectTournament("lobby", { card: update, cards: (cards) => cards.forEach(update) });
}
