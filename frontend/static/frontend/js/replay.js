// Step through a finished table's moves, or one finished hand's (?hand=N), with every card shown
// (frames built by the server: rooms.selectors.replay_frames / hand_replay).
import { ensureDefs, cardSVG } from "./cards.js";
import { GAMES } from "./games.js";
import { handResultHTML } from "./hand_result.js";
import { fmt, esc, loadLabels } from "./util.js";

ensureDefs();
const app = document.getElementById("replay-app");
const gameName = app.dataset.game;
const game = GAMES[gameName];
const labels = loadLabels();
const C = labels.common, M = labels.moves, G = labels.game;
const frames = JSON.parse(document.getElementById("replay-frames").textContent);
const seats = JSON.parse(document.getElementById("replay-seat-names").textContent);
const nameOf = (i) => (seats.find((s) => s.seat === i) || {}).player || fmt(C.seat, { n: i + 1 });
const H = loadLabels("hand-labels") || {};
const handNo = app.dataset.hand ? Number(app.dataset.hand) : null;
const ctx = { C, M, G, L: labels.log || {}, facts: labels.facts || {}, name: nameOf };
const range = document.getElementById("replay-range");
range.max = String(frames.length - 1);
let pos = 0;

function handsOf(view) {
  if (Array.isArray(view.hands)) return view.hands;
  if (Array.isArray(view.players)) return view.players.map((p) => [...(p.closed || []), ...(p.open || [])]);
  return [];
}

function show(i) {
  pos = Math.max(0, Math.min(frames.length - 1, i));
  const f = frames[pos];
  range.value = String(pos);
  document.getElementById("replay-pos").textContent = fmt(C.step, { i: pos, n: frames.length - 1 });
  document.getElementById("replay-move").textContent = f.move
    ? `#${f.seq} ${f.seat === null ? C.auto : nameOf(f.seat)}: ${game.label(f.move, ctx)}${f.move.auto ? " (" + C.auto + ")" : ""}`
    : C.start_position;
  document.getElementById("replay-center").innerHTML = game.center(f.view, ctx);
  document.getElementById("replay-seats").innerHTML = handsOf(f.view).map((hand, s) =>
    `<div class="card"><h2>${esc(nameOf(s))}</h2><div class="replay-hand">${hand.map((c) => `<span class="mini-card">${cardSVG(gameName, c, G)}</span>`).join("")}</div></div>`).join("");
  // The step that closed the hand: its result (the frame shows the cards just before that step).
  const result = document.getElementById("replay-result");
  const html = f.end ? handResultHTML(gameName, f.events || [], ctx, H, handNo) : null;
  result.innerHTML = html || "";
  result.hidden = !html;
}

app.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => {
  const step = b.dataset.step;
  show(step === "first" ? 0 : step === "last" ? frames.length - 1 : step === "prev" ? pos - 1 : pos + 1);
}));
range.addEventListener("input", () => show(Number(range.value)));
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") return;
  if (e.key === "ArrowRight") show(pos + 1);
  if (e.key === "ArrowLeft") show(pos - 1);
});
show(0);
