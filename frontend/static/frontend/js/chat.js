// The table chat panel (includes/chat_panel.html). It rides on table.js's websocket through three DOM
// events on #table-app: "table:open" (the socket (re)connected), "table:frame" (every frame; cancel it
// to keep it from table.js) and "table:send" (send a frame; cancelled when the socket is not open).
// Protocol: docs/protocol.md, "Chat". Everything a user wrote is shown with textContent, never as HTML.
import { fmt, loadLabels } from "./util.js";

const app = document.getElementById("table-app");
const panel = document.getElementById("chat-panel");

if (app && panel) {
  const L = loadLabels("chat-labels");
  const T = L.text || {}, ERR = L.errors || {}, PHRASES = L.phrases || {}, REASONS = L.reasons || {};
  const $ = (id) => document.getElementById(id);
  const log = $("chat-log"), input = $("chat-input"), form = $("chat-form"), errorEl = $("chat-error");
  const tabs = $("chat-tabs"), note = $("chat-note"), compose = $("chat-compose"), unreadEl = $("chat-unread");
  const myId = Number(app.dataset.userId);

  const messages = new Map();  // message_id -> chat frame (both channels this reader reads)
  let channel = null;          // the channel this user writes to
  let reads = ["players"];
  let shown = null;            // the tab on view
  let muted = new Set(), blocked = new Set();
  let mutedUntil = null;
  let status = null, seat;     // from table.js's state frames: ask for the history again when they change
  let openMenu = null;         // the message whose actions are shown
  let unread = 0;
  let lastText = "";

  input.maxLength = L.max_length || 200;
  // Open beside the table on a wide screen; on a phone it starts folded (its unread count shows).
  if (window.matchMedia("(min-width: 761px)").matches) panel.open = true;

  function send(frame) {
    const ev = new CustomEvent("table:send", { detail: { type: "chat", ...frame }, cancelable: true });
    if (!app.dispatchEvent(ev)) { showError("offline"); return false; }
    return true;
  }

  function showError(code) {
    errorEl.textContent = ERR[code] || ERR.other;
    errorEl.dataset.code = code;
    errorEl.hidden = false;
    clearTimeout(showError.t);
    showError.t = setTimeout(() => { errorEl.hidden = true; }, 6000);
  }

  // ----- frames -------------------------------------------------------------------------
  app.addEventListener("table:open", () => send({ action: "history" }));

  app.addEventListener("table:frame", (ev) => {
    const msg = ev.detail;
    if (msg.type === "chat") { ev.preventDefault(); onMessage(msg); }
    else if (msg.type === "chat_history") { ev.preventDefault(); onHistory(msg); }
    else if (msg.type === "chat_ack") { ev.preventDefault(); onAck(msg); }
    else if (msg.type === "error" && String(msg.code || "").startsWith("chat_")) { ev.preventDefault(); onChatError(msg); }
    else if (msg.type === "state") onState(msg);
  });

  function onState(msg) {
    // Taking a seat, losing it, or the end of the game changes which chats this user reads.
    const changed = (status !== null && msg.status !== status) || (seat !== undefined && msg.seat !== seat);
    status = msg.status;
    seat = msg.seat;
    if (changed) send({ action: "history" });
    renderChrome();
  }

  function onHistory(msg) {
    channel = msg.channel;
    reads = msg.reads || ["players"];
    muted = new Set(msg.muted || []);
    blocked = new Set(msg.blocked || []);
    mutedUntil = msg.muted_until;
    messages.clear();
    for (const m of msg.messages || []) messages.set(m.message_id, m);
    if (!shown || !reads.includes(shown)) shown = reads.includes(channel) ? channel : reads[0];
    render();
  }

  function onMessage(m) {
    if (messages.has(m.message_id) || !reads.includes(m.channel)) return;
    if (muted.has(m.user) || blocked.has(m.user)) return;
    messages.set(m.message_id, m);
    while (messages.size > 200) messages.delete(messages.keys().next().value);
    if (!panel.open && m.user !== myId) { unread += 1; renderUnread(); }
    if (m.channel === shown || !reads.includes(shown)) {
      log.append(item(m));
      trimLog();
      log.scrollTop = log.scrollHeight;
    } else {
      const tab = tabs.querySelector(`[data-channel="${m.channel}"]`);
      if (tab) tab.dataset.unread = "1";
    }
    renderEmpty();
  }

  function onAck(msg) {
    if (msg.action === "report") {
      closeMenu();
      note.textContent = T.reported;
      note.hidden = false;
      setTimeout(renderChrome, 5000);
    }
  }

  function onChatError(msg) {
    if (lastText && !input.value && (msg.code === "chat_rate_limited" || msg.code === "chat_too_long")) {
      input.value = lastText;  // not sent: give the text back
    }
    showError(msg.code);
  }

  // ----- rendering ----------------------------------------------------------------------
  function item(m) {
    const li = document.createElement("li");
    li.className = "chat-msg";
    li.dataset.message = m.message_id;
    li.dataset.channel = m.channel;
    if (m.user === myId) li.classList.add("mine");
    const name = document.createElement("span");
    name.className = "chat-name";
    name.textContent = m.user === myId ? `${m.name} (${T.you})` : m.name;
    li.append(name);
    if (m.bot) {
      const b = document.createElement("span");
      b.className = "badge chat-bot";
      b.textContent = T.bot;
      li.append(b);
    }
    const text = document.createElement("span");
    text.className = "chat-text";
    if (m.phrase) {
      text.classList.add("phrase");
      text.textContent = PHRASES[m.phrase] || m.phrase;
    } else {
      text.textContent = m.text;
    }
    li.append(" ", text);
    const at = new Date(m.at);
    if (!Number.isNaN(at.getTime())) li.title = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    if (m.user !== myId) {
      const more = document.createElement("button");
      more.type = "button";
      more.className = "chat-more";
      more.textContent = "⋯";
      more.setAttribute("aria-label", fmt(T.actions_for, { name: m.name }));
      more.setAttribute("aria-expanded", "false");
      more.addEventListener("click", () => toggleMenu(li, m, more));
      li.append(more);
    }
    return li;
  }

  function button(label, action, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "small secondary";
    b.dataset.action = action;
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  function toggleMenu(li, m, more) {
    const wasOpen = openMenu === m.message_id;
    closeMenu();
    if (wasOpen) return;
    openMenu = m.message_id;
    more.setAttribute("aria-expanded", "true");
    const box = document.createElement("div");
    box.className = "chat-actions";
    const isMuted = muted.has(m.user), isBlocked = blocked.has(m.user);
    box.append(
      button(isMuted ? T.unmute : T.mute, isMuted ? "chat-unmute" : "chat-mute",
        () => setMute(m.user, isMuted ? "unmute" : "mute")),
      button(isBlocked ? T.unblock : T.block, isBlocked ? "chat-unblock" : "chat-block",
        () => setMute(m.user, isBlocked ? "unblock" : "block")),
    );
    const label = document.createElement("label");
    label.className = "visually-hidden";
    label.textContent = T.reason;
    const select = document.createElement("select");
    select.id = `chat-reason-${m.message_id}`;
    label.htmlFor = select.id;
    for (const [value, text] of Object.entries(REASONS)) {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = text;
      select.append(o);
    }
    box.append(label, select, button(T.send_report, "chat-report",
      () => send({ action: "report", message: m.message_id, reason: select.value })));
    li.append(box);
    select.focus();
  }

  function closeMenu() {
    openMenu = null;
    for (const el of log.querySelectorAll(".chat-actions")) el.remove();
    for (const el of log.querySelectorAll(".chat-more")) el.setAttribute("aria-expanded", "false");
  }

  function setMute(userId, action) {
    // Hide their messages at once; the server answers with the history as it now reads.
    if (action === "mute") muted.add(userId);
    if (action === "block") blocked.add(userId);
    if (send({ action, user: userId })) {
      if (action === "mute" || action === "block") {
        for (const [key, m] of messages) if (m.user === userId) messages.delete(key);
      }
      closeMenu();
      render();
    }
  }

  function render() {
    closeMenu();
    log.replaceChildren(...[...messages.values()]
      .filter((m) => m.channel === shown || !reads.includes(shown))
      .map(item));
    trimLog();
    log.scrollTop = log.scrollHeight;
    renderEmpty();
    renderChrome();
  }

  function trimLog() {
    while (log.childNodes.length > 200) log.firstChild.remove();
  }

  function renderEmpty() {
    log.dataset.empty = log.childNodes.length ? "" : T.empty;
  }

  function renderChrome() {
    panel.dataset.state = channel ? "ready" : "connecting";
    const both = reads.length > 1;
    tabs.hidden = !both;
    for (const tab of tabs.querySelectorAll("[role=tab]")) {
      const on = tab.dataset.channel === shown;
      tab.setAttribute("aria-selected", String(on));
      tab.classList.toggle("secondary", !on);
      if (on) delete tab.dataset.unread;
    }
    const ended = status === "finished" || status === "stopped";
    const writesHere = !both || shown === channel;
    compose.hidden = !channel || !writesHere;
    input.placeholder = channel === "spectators" ? T.write_spectators : T.write_players;
    let text = "";
    if (mutedUntil && Date.parse(mutedUntil) > Date.now()) {
      text = fmt(T.muted_until, { until: new Date(mutedUntil).toLocaleString() });
    } else if (both && !writesHere) {
      text = T.players_only;
    } else if (channel === "spectators" && !ended) {
      text = T.hidden_from_players;
    }
    note.textContent = text;
    note.hidden = !text;
  }

  function renderUnread() {
    unreadEl.textContent = unread ? fmt(T.unread, { n: unread }) : "";
    unreadEl.hidden = !unread;
  }

  // ----- controls -----------------------------------------------------------------------
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) { showError("chat_empty"); return; }
    if (text.length > (L.max_length || 200)) { showError("chat_too_long"); return; }
    if (send({ text })) {
      lastText = text;
      input.value = "";
      errorEl.hidden = true;
    }
  });

  for (const b of panel.querySelectorAll("[data-phrase]")) {
    b.addEventListener("click", () => send({ phrase: b.dataset.phrase }));
  }

  tabs.addEventListener("click", (e) => {
    const tab = e.target.closest("[role=tab]");
    if (!tab || tab.dataset.channel === shown) return;
    shown = tab.dataset.channel;
    render();
  });

  panel.addEventListener("toggle", () => {
    if (panel.open) { unread = 0; renderUnread(); log.scrollTop = log.scrollHeight; }
  });

  renderChrome();
  renderEmpty();
}
