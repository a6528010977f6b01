// The lobby's tournament cards follow /ws/tournaments/lobby/: status, players registered or left (a sit &
// go: "3 of 6 registered"), ante, prize pool and the split as it stands, pushed whenever a tournament
// changes (never polled).
import { esc, fmt, loadLabels } from "../frontend/js/util.js";
import { followLobby } from "../frontend/js/lobby_socket.js";
import { payoutsText } from "./common.js";

const L = loadLabels("tournament-lobby-labels");

function update(card) {
  const li = document.querySelector(`li[data-tournament="${Number(card.id)}"]`);
  if (!li) return;
  const status = li.querySelector('[data-k="status"]');
  if (status) status.textContent = (L.status || {})[card.status] || card.status;
  const live = li.querySelector('[data-k="live"]');
  if (live) {
    let who;
    if (card.status === "running") {
      who = fmt(L.left_of, { left: card.players_left, n: card.registered }) + (card.ante ? ` · ${L.ante} ${card.ante}` : "");
    } else if (card.sit_and_go && card.max_entrants) {
      who = fmt(L.sit_and_go_of, { n: card.registered, max: card.max_entrants });
    } else {
      who = `${L.registered} ${card.registered}`;
    }
    live.innerHTML = `· ${esc(who)} · ${esc(L.prize_pool)} ${esc(card.prize_pool)}`;
  }
  let prizes = li.querySelector('[data-k="prizes"]');
  if (card.payouts && card.payouts.length) {
    if (!prizes) {
      prizes = document.createElement("span");
      prizes.className = "muted t-card-prizes";
      prizes.dataset.k = "prizes";
      li.append(" ", prizes);
    }
    prizes.textContent = `· ${L.prizes}: ${payoutsText(card.payouts, (L.currency || {})[card.currency] || card.currency, L)}`;
  }
  li.dataset.status = card.status;
}

if (document.querySelector("li[data-tournament]")) {
  followLobby({ card: update, cards: (cards) => cards.forEach(update) });
}
