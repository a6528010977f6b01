// The lobby's "Live now" (includes/live_now.html): public games being played, by game, each with its room,
// stake, players (bots marked), spectators and a Watch link. The list comes as `live_now` frames on the
// lobby's queue socket (queue.js opens it with ?live=1 and hands the frames on as "queue:live-now" events):
// on connect, on resync, and whenever the server's list changed (each server process reads it every 10 s).
// Names are shown with textContent, never as HTML.
import { fmt } from "./util.js";

const box = document.getElementById("live-now");

const STAKE_KEYS = { casual: "stakeCasual", pot: "stakePot", per_point: "stakePerPoint", ante: "stakeAnte" };

function stakeText(stake) {
  const D = box.dataset;
  const template = D[STAKE_KEYS[stake?.kind]] || "";
  const code = String(stake?.currency || "");
  const currency = code ? D[`currency${code[0]}${code.slice(1).toLowerCase()}`] || code : "";
  return fmt(template, { amount: stake?.amount ?? "", currency });
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function row(t) {
  const D = box.dataset;
  const li = el("li", "live-table");
  li.dataset.table = String(Number(t.table));
  li.append(el("span", "live-room", t.room), el("span", "live-stake", stakeText(t.stake)));
  const players = el("span", "live-players");
  (t.players || []).forEach((p, i) => {
    if (i) players.append(", ");
    players.append(el("span", "live-player", p.name));
    if (p.bot) players.append(el("span", "badge", D.bot));
  });
  li.append(players);
  const watching = Number(t.spectators) || 0;
  if (watching > 0) li.append(el("span", "live-count", fmt(D.watching, { n: watching })));
  if (Number(t.delay) > 0) li.append(el("span", "live-count live-delay", fmt(D.delay, { s: Number(t.delay) })));
  const watch = el("a", "live-watch", D.watch);
  watch.href = `/tables/${Number(t.table)}/`;
  watch.dataset.action = "watch";
  watch.append(el("span", "visually-hidden", ` — ${t.room} #${Number(t.table)}`));
  li.append(watch);
  return li;
}

function render(frame) {
  const byGame = new Map((frame.games || []).map((g) => [g.game, g.tables || []]));
  let any = false;
  box.querySelectorAll(".live-game[data-game]").forEach((section) => {
    const tables = byGame.get(section.dataset.game) || [];
    section.querySelector(".live-tables").replaceChildren(...tables.map(row));
    section.hidden = tables.length === 0;
    any = any || tables.length > 0;
  });
  document.getElementById("live-now-empty").hidden = any;
  box.dataset.state = "ready";
}

if (box) document.addEventListener("queue:live-now", (e) => render(e.detail));
