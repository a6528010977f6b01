// The live table: one websocket, driven only by the server's `state` frames.
import { ensureDefs, cardSVG, cardName } from "./cards.js";
import { GAMES } from "./games.js";
import { fmt, esc, loadLabels } from "./util.js";
import { createQueue } from "./queue.js";

const app = document.getElementById("table-app");
const labels = loadLabels();
const C = labels.common, M = labels.moves, G = labels.game, E = labels.errors, EV = labels.events || {};
const gameName = app.dataset.game;
const game = GAMES[gameName];
const $ = (id) => document.getElementById(id);

let ws = null;
let frame = null;          // the last state frame
let clockOffset = 0;       // server time - local time (ms)
let pending = false;       // a move was sent; wait for the next frame
let armedCall = false;     // Lembar: the next card play carries the call
let retry = 0;
let everConnected = false;
let resyncTimer = null;
let lastTurnAnnounced = null;
let msgId = 0;
let closedForGood = false;

ensureDefs();

function nameOf(seat) {
  const s = (frame?.seats || []).find((x) => x.seat === seat);
  if (!s) return fmt(C.seat, { n: seat + 1 });
  return s.username === app.dataset.user ? `${s.player} (${C.you})` : s.player;
}
const ctx = { C, M, G, name: nameOf };

function announce(text) {
  if (!text) return;
  const el = $("announcer");
  const p = document.createElement("p");
  p.textContent = text;
  el.append(p);
  while (el.childNodes.length > 5) el.firstChild.remove();
  const log = $("log");
  const li = document.createElement("li");
  li.textContent = text;
  log.prepend(li);
  while (log.childNodes.length > 60) log.lastChild.remove();
}

function setConn(state, text) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = text;
}

function showError(code, message) {
  const el = $("error");
  const text = E[code] || message || code;
  el.innerHTML = `<strong>${esc(C.error)}</strong> <span data-code="${esc(code)}">${esc(text)}</span>`;
  el.hidden = false;
  clearTimeout(showError.t);
  showError.t = setTimeout(() => { el.hidden = true; }, 6000);
  announce(text);
}

// ----- websocket ------------------------------------------------------------------------
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}${app.dataset.ws}`);
  ws.onopen = () => {
    setConn("connected", C.connected);
    if (everConnected) send({ type: "resync" });
    everConnected = true;
    retry = 0;
  };
  ws.onmessage = (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (msg.type === "state") onState(msg);
    else if (msg.type === "event") onEvent(msg);
    else if (msg.type === "error") onError(msg);
    else if (msg.type === "tournament") onTournament(msg);
  };
  ws.onclose = (e) => {
    pending = false;
    if (e.code === 4401 || e.code === 4404) {
      closedForGood = true;
      setConn("closed", e.code === 4401 ? C.logged_out : E.no_such_table);
      return;
    }
    if (closedForGood) return;
    setConn("reconnecting", C.reconnecting);
    // 4429: closed for flooding; the server refuses this user for a minute.
    const wait = e.code === 4429 ? 60000 : Math.min(5000, 400 * 2 ** retry++);
    setTimeout(connect, wait);
  };
}

function send(obj) {
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  ws.send(JSON.stringify({ ...obj, id: ++msgId }));
  return true;
}

function requestResync() {
  if (resyncTimer) return;
  resyncTimer = setTimeout(() => { resyncTimer = null; send({ type: "resync" }); }, 250);
}

function onState(msg) {
  // Versions only go up over a table's life (sits and the start included): a lower one is an old frame.
  if (frame && msg.version < frame.version && msg.id === undefined) return;
  if (resyncTimer && frame && msg.version >= frame.version) { clearTimeout(resyncTimer); resyncTimer = null; }
  const prevStatus = frame?.status;
  frame = msg;
  pending = false;
  clockOffset = Date.parse(msg.server_time) - Date.now();
  if (prevStatus && prevStatus !== msg.status && (msg.status === "running" || msg.status === "finished" || msg.status === "stopped")) {
    // Seats and the pre-game panel come from the page: reload it when the table starts.
    if (prevStatus === "open") { location.reload(); return; }
  }
  render();
}

function onEvent(msg) {
  if (frame && msg.version > frame.version + 1) requestResync();
  for (const ev of msg.events || []) {
    const text = game.event(ev, ctx) || describeEvent(ev);
    if (text) announce(text);
  }
}

const QUIET = new Set(["turn", "started", "sat", "stood", "game_over", "window_closed", "close_window", "keep"]);

function describeEvent(ev) {
  if (QUIET.has(ev.type)) return null;
  const what = EV[ev.type] || M[ev.type] || ev.type;
  const seat = typeof ev.seat === "number" ? ev.seat : typeof ev.winner === "number" ? ev.winner : null;
  return seat !== null ? fmt(C.event, { name: nameOf(seat), what }) : what;
}

// A tournament dealt this player's next table (forwarded by the table consumer): follow it.
function onTournament(msg) {
  const next = Number(msg.table);
  if (!Number.isInteger(next) || next <= 0 || String(next) === app.dataset.table) return;
  closedForGood = true;
  announce(labels.queue?.tournament || "");
  location.assign(`/tables/${next}/`);
}

// "Play again" on a finished table: re-queue its players as a party, then follow the queue widget.
let queue = null;
function renderPlayAgain() {
  const box = $("play-again");
  if (!box) return;
  box.hidden = !(frame && frame.status === "finished" && frame.seat !== null && frame.seat !== undefined);
  // Listen to the queue too: another player's "Play again" re-queues this player in the same party.
  if (!box.hidden && !queue) queue = createQueue(labels, { connectNow: true });
}
$("play-again")?.querySelector("button")?.addEventListener("click", () => {
  queue = queue || createQueue(labels);
  if (!queue) return;
  queue.rematch(app.dataset.table);
  document.getElementById("queue-widget")?.scrollIntoView({ block: "nearest" });
});

function onError(msg) {
  pending = false;
  showError(msg.code, msg.message);
  render();
}

// ----- moves ----------------------------------------------------------------------------
function play(move) {
  if (pending || !frame) return;
  focusWanted = focusMemo() || focusWanted;
  if (send({ type: "move", move, version: frame.version })) {
    pending = true;
    armedCall = false;
    hideChoice();
    renderControls();
  }
}

function hideChoice() {
  const el = $("choice");
  el.hidden = true;
  el.innerHTML = "";
}

function offerChoice(title, moves) {
  const el = $("choice");
  el.innerHTML = `<p id="choice-title">${esc(title)}</p>`;
  const row = document.createElement("div");
  row.className = "row";
  row.setAttribute("role", "group");
  row.setAttribute("aria-labelledby", "choice-title");
  for (const m of moves) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = m.motif ? `motif-btn motif-${m.motif}` : "";
    b.textContent = m.motif && gameName === "lembar" ? G["motif_" + m.motif] + (m.call ? ` + ${G.call}` : "") : game.label(m, ctx);
    b.dataset.move = JSON.stringify(m);
    b.addEventListener("click", () => play(m));
    row.append(b);
  }
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "secondary";
  cancel.textContent = C.cancel;
  cancel.addEventListener("click", hideChoice);
  row.append(cancel);
  el.append(row);
  el.hidden = false;
  row.querySelector("button")?.focus();
}

function onCard(code) {
  const legal = frame?.legal || [];
  let variants = legal.filter((m) => m.card === code);
  if (gameName === "lembar") {
    const withCall = variants.filter((m) => m.call);
    const plain = variants.filter((m) => !m.call);
    variants = armedCall && withCall.length ? withCall : plain;
  }
  if (variants.length === 1) return play(variants[0]);
  if (variants.length > 1) {
    const title = gameName === "lembar" && code.length === 1 ? G.choose_motif : `${C.choose}: ${cardName(gameName, code, G)}`;
    offerChoice(title, variants);
  }
}

// ----- rendering -------------------------------------------------------------------------
function focusMemo() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  if (a.closest("#hand")) return { where: "hand", index: Number(a.dataset.index) };
  if (a.closest("#actions") || a.closest("#choice")) return { where: "actions" };
  return null;
}

let focusWanted = null;   // where a keyboard user's focus was when re-rendering took it away

function restoreFocus(memo) {
  if (!memo || (document.activeElement && document.activeElement !== document.body)) return;
  const cards = [...document.querySelectorAll("#hand .card-btn")];
  const playable = cards.find((b) => b.classList.contains("playable"));
  const target = memo.where === "hand"
    ? cards[memo.index] || playable || cards[cards.length - 1]
    : document.querySelector("#actions button:not(:disabled)") || playable || cards[0];
  if (target) {
    target.focus();
    focusWanted = null;
  } else {
    focusWanted = memo;  // nothing to focus now: try again on the next frame
  }
}

function render() {
  if (!frame) return;
  const memo = focusMemo() || focusWanted;
  const view = frame.view;
  renderSeats(view);
  $("center").innerHTML = view ? game.center(view, ctx) : `<p>${esc(C.open_status)}</p>`;
  renderHand(view);
  renderControls();
  renderResult();
  renderPlayAgain();
  renderTurnLine();
  const leave = $("leave-form");
  if (leave) leave.hidden = frame.status !== "running" || frame.seat === null;
  restoreFocus(memo);
}

function seatCount() {
  return frame.view?.seats && typeof frame.view.seats === "number" ? frame.view.seats : frame.seat_count;
}

function renderSeats(view) {
  const el = $("seats");
  const n = seatCount();
  const turn = view ? game.turn(view) : null;
  const parts = [];
  for (let i = 0; i < n; i++) {
    const s = (frame.seats || []).find((x) => x.seat === i);
    const me = frame.seat === i;
    const isTurn = frame.status === "running" && (turn === i || (view?.to_act || []).includes(i));
    const name = s ? esc(s.player) + (s.bot ? ` <span class="badge">${esc(C.bot)}</span>` : "") + (me ? ` <span class="badge you">${esc(C.you)}</span>` : "") : `<span class="muted">${esc(C.empty_seat)}</span>`;
    const extra = view && s ? game.seatExtra(view, i, ctx) : "";
    parts.push(`<div class="seat${me ? " me" : ""}${isTurn ? " turn" : ""}" data-seat="${i}"${isTurn ? ' aria-current="true"' : ""}>
      <div class="seat-name">${name}</div><div class="seat-extra">${extra}</div></div>`);
  }
  el.innerHTML = parts.join("");
}

function renderHand(view) {
  const el = $("hand");
  el.innerHTML = "";
  if (frame.seat === null || frame.seat === undefined) {
    el.innerHTML = `<p class="muted spectator-note">${esc(C.spectator)}</p>`;
    return;
  }
  const cards = view ? game.hand(view) : [];
  const playable = new Set((frame.legal || []).filter((m) => m.card).map((m) => m.card));
  cards.forEach((code, idx) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "card-btn";
    b.dataset.card = code;
    b.dataset.index = idx;
    b.innerHTML = cardSVG(gameName, code, G);
    b.setAttribute("aria-label", cardName(gameName, code, G));
    // Cards stay focusable when they cannot be played (aria-disabled), so keyboard and screen-reader
    // users can read their hand at any time and keep their place between turns.
    const can = playable.has(code) && !pending && frame.status === "running";
    b.setAttribute("aria-disabled", String(!can));
    if (can) b.classList.add("playable");
    if (view?.drawn === code) b.classList.add("drawn");
    b.addEventListener("click", () => { if (b.getAttribute("aria-disabled") !== "true") onCard(code); });
    el.append(b);
  });
}

function renderControls() {
  const el = $("actions");
  el.innerHTML = "";
  const legal = frame && frame.status === "running" ? frame.legal || [] : [];
  // Hand buttons follow `pending` too.
  document.querySelectorAll("#hand .card-btn").forEach((b) => {
    const off = pending || !legal.some((m) => m.card === b.dataset.card);
    b.setAttribute("aria-disabled", String(off));
    b.classList.toggle("playable", !off);
  });
  const nonCard = legal.filter((m) => m.card === undefined);
  if (gameName === "lembar" && frame && frame.seat !== null && frame.status === "running") {
    const callMove = legal.find((m) => m.type === "call");
    const canArm = legal.some((m) => m.call);
    const b = button(G.call, () => {
      if (callMove) return play(callMove);
      armedCall = !armedCall;
      b.setAttribute("aria-pressed", String(armedCall));
      announce(armedCall ? G.call_armed : "");
    }, "call-btn");
    b.dataset.action = "lembar-call";
    b.disabled = pending || !(callMove || canArm);
    b.setAttribute("aria-pressed", String(armedCall && canArm));
    el.append(b);
  }
  const groups = new Map();
  for (const m of nonCard) {
    if (gameName === "lembar" && m.type === "call") continue;
    const key = m.amount !== undefined ? `amount:${m.type}` : JSON.stringify(m);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m);
  }
  for (const [key, moves] of groups) {
    if (key.startsWith("amount:")) el.append(amountControl(moves));
    else {
      const m = moves[0];
      const b = button(game.label(m, ctx), () => play(m));
      b.dataset.move = JSON.stringify(m);
      b.dataset.type = m.type;
      b.disabled = pending;
      el.append(b);
    }
  }
}

function button(text, onclick, cls = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (cls) b.className = cls;
  b.addEventListener("click", onclick);
  return b;
}

function amountControl(moves) {
  const type = moves[0].type;
  const wrap = document.createElement("div");
  wrap.className = "amount-control";
  wrap.dataset.type = type;
  const id = `amount-${type}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = `${M[type] || type} — ${C.amount}`;
  const select = document.createElement("select");
  select.id = id;
  for (const m of moves) {
    const o = document.createElement("option");
    o.value = String(m.amount);
    o.textContent = String(m.amount);
    select.append(o);
  }
  const b = button(M[type] || type, () => {
    const m = moves.find((x) => String(x.amount) === select.value);
    if (m) play(m);
  });
  b.dataset.type = type;
  b.disabled = pending;
  wrap.append(label, select, b);
  return wrap;
}

function renderResult() {
  const el = $("result");
  if (!frame || (frame.status !== "finished" && frame.status !== "stopped")) { el.hidden = true; return; }
  const r = frame.result || {};
  const n = seatCount();
  const cols = ["ranks", "scores", "points", "net", "deltas", "payouts", "stacks"]
    .filter((k) => Array.isArray(r[k]) && r[k].length === n);
  const head = cols.map((k) => `<th scope="col">${esc(C[k.replace(/s$/, "")] || C[k] || k)}</th>`).join("");
  const rows = Array.from({ length: n }, (_, i) =>
    `<tr><th scope="row">${esc(nameOf(i))}</th>${cols.map((k) => `<td>${esc(r[k][i] ?? "")}</td>`).join("")}</tr>`).join("");
  const winners = (r.winners || []).map(nameOf).join(", ");
  let extra = "";
  if (r.payouts && !Array.isArray(r.payouts) && typeof r.payouts === "object") {
    extra = `<h3>${esc(C.payouts)}</h3><ul>${Object.entries(r.payouts).map(([k, v]) => `<li>${esc(k)}: ${esc(typeof v === "object" ? JSON.stringify(v) : v)}</li>`).join("")}</ul>`;
  }
  if (Array.isArray(r.scores) && r.scores.length === 2 && n === 4) {
    extra += `<p>${esc(C.scores)}: ${fmt(G.team || "%(n)s", { n: 1 })} ${r.scores[0]} · ${fmt(G.team || "%(n)s", { n: 2 })} ${r.scores[1]}</p>`;
  }
  const title = frame.status === "finished" ? C.finished : C.stopped;
  const wasHidden = el.hidden;
  el.innerHTML = `<h2>${esc(title)}</h2>${winners ? `<p class="winners">${esc(C.winners)}: <strong>${esc(winners)}</strong></p>` : ""}
    ${cols.length ? `<table class="result-table"><thead><tr><th scope="col">${esc(C.player)}</th>${head}</tr></thead><tbody>${rows}</tbody></table>` : ""}${extra}
    <p><a href="/tables/${frame.table}/proof">${esc(C.proof)}</a> · <a href="/tables/${frame.table}/replay">${esc(C.replay)}</a></p>`;
  el.hidden = false;
  if (wasHidden) { announce(`${title}${winners ? " — " + C.winners + ": " + winners : ""}`); el.focus(); }
}

function renderTurnLine() {
  const el = $("turn-line");
  if (!frame) return;
  if (frame.status === "open") { el.textContent = C.open_status; return; }
  if (frame.status !== "running") { el.textContent = frame.status === "finished" ? C.finished : C.stopped; return; }
  const mine = (frame.legal || []).length > 0;
  const turn = frame.view ? game.turn(frame.view) : null;
  el.textContent = mine ? C.your_turn : (turn !== null && turn !== undefined ? fmt(C.turn_of, { name: nameOf(turn) }) : C.waiting);
  el.classList.toggle("mine", mine);
  const key = `${frame.version}:${mine}`;
  if (mine && lastTurnAnnounced !== key) { announce(C.your_turn); lastTurnAnnounced = key; }
}

function tick() {
  const el = $("countdown");
  if (!frame || !frame.deadline || frame.status !== "running") { el.textContent = ""; el.dataset.left = ""; return; }
  const left = Math.max(0, Math.ceil((Date.parse(frame.deadline) - (Date.now() + clockOffset)) / 1000));
  el.textContent = fmt(C.seconds_left, { s: left });
  el.dataset.left = String(left);
  el.classList.toggle("urgent", left <= 5);
}

setInterval(tick, 250);
connect();
// A small hook for the browser tests and for debugging in the console: drop the socket to see the
// reconnect path, read the last frame.
window.cardroomTable = { dropSocket: () => ws && ws.close(), frame: () => frame };
