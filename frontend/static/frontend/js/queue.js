// The quick-play queue widget (lobby and "Play again" on the table page).
// Join/leave/rematch go over REST (/api/matchmaking/...); the live `queue` frames come from /ws/queue/
// (docs/matchmaking.md). A `seated` frame for the entry this page queued opens the table.
import { fmt } from "./util.js";

const ACTIVE = new Set(["waiting", "matching"]);
const RANK = { none: 0, waiting: 1, matching: 2, seated: 3, left: 3, refused: 3 };

export function createQueue(labels, options = {}) {
  const Q = labels.queue || {};
  const E = labels.errors || {};
  const box = document.getElementById("queue-widget");
  if (!box) return null;
  const $ = (id) => document.getElementById(id);
  const csrf = box.querySelector("input[name=csrfmiddlewaretoken]")?.value || "";
  const api = box.dataset.api || "/api/matchmaking/queue/";

  let ws = null;
  let retry = 0;
  let everConnected = false;
  let closedForGood = false;
  let frame = null;          // the last frame shown
  let clockOffset = 0;       // server time - local time (ms), from the frame's server_time
  let tracked = null;        // the entry this page knows to be the player's (queued here or seen waiting)
  let busy = false;
  let lastStatusText = "";
  let msgId = 0;
  const seen = new Map();    // entry id -> the most advanced frame seen (frames may overtake the REST answer)

  function roomName(slug) {
    const row = document.querySelector(`tr[data-room="${CSS.escape(slug || "")}"]`);
    return row?.dataset.roomName || box.dataset.roomName || slug || "";
  }

  function setStatus(text) {
    if (text === lastStatusText) return;
    lastStatusText = text;
    $("queue-status").textContent = text;
  }

  // `insufficient_funds` (REST refusal or refused frame) carries currency, needed, balance and
  // welcome_pending: say how much is missing and how to get more (labels.funds, economy.md's rules).
  function fundsText(d) {
    const F = labels.funds;
    if (!F || !d || typeof d.needed !== "number") return "";
    const parts = [fmt(F.needs, { needed: d.needed, balance: d.balance, currency: F.currencies?.[d.currency] || d.currency })];
    if (F.how?.[d.currency]) parts.push(F.how[d.currency]);
    if (d.welcome_pending && F.welcome_pending) parts.push(F.welcome_pending);
    return parts.join(" ");
  }

  function showError(code, message, details) {
    const el = $("queue-error");
    const funds = code === "insufficient_funds" ? fundsText(details) : "";
    el.textContent = `${Q.error}: ${funds || E[code] || message || code}`;
    if (funds && labels.funds?.wallet_url) {
      const a = document.createElement("a");
      a.href = labels.funds.wallet_url;
      a.textContent = labels.funds.wallet;
      el.append(" ", a);
    }
    el.dataset.code = code || "";
    el.hidden = false;
    box.hidden = false;
  }

  function clearError() {
    const el = $("queue-error");
    el.hidden = true;
    el.textContent = "";
  }

  function setBusy(on) {
    busy = on;
    box.setAttribute("aria-busy", String(on));
    $("queue-leave").disabled = on;
    document.querySelectorAll("[data-action=quick-play],[data-action=play-again]").forEach((b) => { b.disabled = on; });
  }

  function render() {
    const f = frame;
    const active = f && ACTIVE.has(f.status);
    $("queue-facts").hidden = !(f && f.status === "waiting");
    $("queue-leave").hidden = !active;
    const note = $("queue-note");
    note.hidden = true;
    if (!f) return;
    if (f.status === "waiting") {
      $("queue-position").textContent = fmt(Q.position_of, { position: f.position, waiting: f.waiting });
      $("queue-waiting").textContent = String(f.waiting ?? "");
      setStatus(`${fmt(Q.waiting, { room: roomName(f.room) })} — ${Q.position} ${fmt(Q.position_of, { position: f.position, waiting: f.waiting })}`);
      const extra = [];
      if (f.party) extra.push(Q.party);
      if (f.bots_after) extra.push(fmt(Q.bots_after, { s: f.bots_after }));
      if (extra.length) { note.textContent = extra.join(" · "); note.hidden = false; }
    } else if (f.status === "matching") setStatus(Q.matching);
    else if (f.status === "seated") setStatus(Q.seated);
    else if (f.status === "left") setStatus(Q.left);
    else if (f.status === "refused") { setStatus(Q.refused); showError(f.code, f.message, f); }
    tick();
  }

  function tick() {
    const el = $("queue-eta");
    if (!frame || frame.status !== "waiting" || typeof frame.estimated_wait !== "number") { el.textContent = ""; el.dataset.left = ""; return; }
    const since = (Date.now() + clockOffset - Date.parse(frame.server_time)) / 1000;
    const left = Math.max(0, Math.ceil(frame.estimated_wait - (Number.isFinite(since) ? since : 0)));
    el.textContent = left > 0 ? fmt(Q.seconds, { s: left }) : Q.any_moment;
    el.dataset.left = String(left);
  }

  function show(f) {
    frame = f;
    if (f.server_time) clockOffset = Date.parse(f.server_time) - Date.now();
    box.hidden = false;
    render();
    if (f.status === "seated" && f.table) {
      closedForGood = true;
      location.assign(`/tables/${Number(f.table)}/`);
    }
  }

  function onQueueFrame(f) {
    if (f.entry !== undefined) {
      const prev = seen.get(f.entry);
      if (!prev || (RANK[f.status] ?? 0) >= (RANK[prev.status] ?? 0)) seen.set(f.entry, f);
    }
    if (ACTIVE.has(f.status)) tracked = f.entry;
    if (f.status === "none") {
      if (!tracked && !busy) { frame = null; box.hidden = !$("queue-error").textContent; }
      return;
    }
    if (f.entry !== tracked) return;   // an old entry's last frame (e.g. seated at an earlier table)
    show(f);
    if (!ACTIVE.has(f.status)) tracked = null;
  }

  function onMessage(e) {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (msg.type === "queue") onQueueFrame(msg);
    else if (msg.type === "tournament" && msg.table) {
      setStatus(Q.tournament);
      box.hidden = false;
      closedForGood = true;
      location.assign(`/tables/${Number(msg.table)}/`);
    } else if (msg.type === "error") showError(msg.code, msg.message);
    else if (msg.type === "live_now") document.dispatchEvent(new CustomEvent("queue:live-now", { detail: msg }));
  }

  function connect() {
    if (ws || closedForGood) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // The lobby's "Live now" (live_now.js) follows this socket too: ?live=1 asks for its `live_now` frames.
    const live = document.getElementById("live-now") ? "?live=1" : "";
    ws = new WebSocket(`${proto}//${location.host}${box.dataset.ws || "/ws/queue/"}${live}`);
    ws.onopen = () => {
      if (everConnected) send({ type: "resync" });
      everConnected = true;
      retry = 0;
    };
    ws.onmessage = onMessage;
    ws.onclose = (e) => {
      ws = null;
      if (e.code === 4401) {
        closedForGood = true;
        if (frame || tracked) { box.hidden = false; setStatus(Q.logged_out); }
        return;
      }
      if (closedForGood) return;
      if (tracked) setStatus(Q.reconnecting);
      setTimeout(connect, e.code === 4429 ? 60000 : Math.min(5000, 400 * 2 ** retry++));
    };
  }

  function send(obj) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify({ ...obj, id: ++msgId }));
    return true;
  }

  async function request(method, url, body) {
    let res;
    try {
      res = await fetch(url, {
        method, credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return { error: { code: "network", message: "" } };
    }
    let data = null;
    try { data = await res.json(); } catch { data = null; }
    if (!res.ok) {
      const code = data?.code || (res.status === 403 ? "not_authenticated" : "malformed");
      const first = data && typeof data === "object" ? Object.values(data).flat().find((v) => typeof v === "string") : "";
      return { error: { code, message: data?.message || data?.detail || first || "", details: data } };
    }
    return { data };
  }

  async function enter(method, url, body) {
    if (busy) return;
    clearError();
    connect();                       // listen before asking, so a fast `seated` frame is not missed
    box.hidden = false;
    setStatus(Q.joining);
    setBusy(true);
    const { data, error } = await request(method, url, body);
    setBusy(false);
    if (error) {
      if (frame && ACTIVE.has(frame.status)) render(); else setStatus("");
      showError(error.code, error.message, error.details);
      return;
    }
    if (data && data.entry !== undefined) {
      tracked = data.entry;
      const later = seen.get(data.entry);
      onQueueFrame(later && (RANK[later.status] ?? 0) > (RANK[data.status] ?? 0) ? later : data);
      send({ type: "resync" });
    } else if (data) {
      setStatus(Q.none);             // not re-queued (e.g. already queued elsewhere): nothing to follow
    }
  }

  async function leave() {
    if (busy) return;
    clearError();
    setStatus(Q.leaving);
    setBusy(true);
    const { data, error } = await request("DELETE", api);
    setBusy(false);
    if (error) { render(); showError(error.code, error.message); return; }
    if (data) onQueueFrame(data);
  }

  $("queue-leave").addEventListener("click", leave);
  setInterval(tick, 500);
  if (options.connectNow) connect();

  return {
    join: (room) => enter("POST", api, { room }),
    rematch: (table) => enter("POST", `/api/matchmaking/rematch/${Number(table)}/`),
    leave,
    frame: () => frame,
  };
}
