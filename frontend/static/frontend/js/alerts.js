// Turn alerts: a short sound when it becomes this player's turn and when its timer is nearly out; while
// the tab is hidden also a browser notification (if the player asked for them) and a flashing title.
// Sounds are made with the Web Audio API (no files); browsers let a page start audio only after a user
// gesture, so the audio context is created on the first click or key press. Preferences are kept per
// user in this browser.
import { fmt, prefGet, prefSet } from "./util.js";

const TONES = {  // [frequency Hz, start s, length s]
  turn: [[660, 0, 0.12], [880, 0.13, 0.18]],
  hurry: [[988, 0, 0.08], [988, 0.16, 0.08], [988, 0.32, 0.08]],
};

// ``myTurn()``: whether the player may act now; ``version()``: the frame's version, for the record.
export function createAlerts({ app, C, myTurn, version }) {
  const $ = (id) => document.getElementById(id);
  const user = app.dataset.userId || app.dataset.user;
  const SOUND_KEY = `cardroom:sound:${user}`;
  const NOTIFY_KEY = `cardroom:notify:${user}`;
  const alertLog = [];     // what fired: for the browser tests and for debugging
  const baseTitle = document.title;
  let audio = null;
  let wasMyTurn = false;
  let titleTimer = null;

  const soundOn = () => prefGet(SOUND_KEY, "on") !== "off";
  const notifySupported = () => "Notification" in window;
  const notifyOn = () => prefGet(NOTIFY_KEY, "off") === "on" && notifySupported() && Notification.permission === "granted";

  function unlockAudio() {
    if (audio) {
      if (audio.state === "suspended") audio.resume().catch(() => {});
      return;
    }
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try { audio = new Ctx(); } catch { audio = null; }
  }
  document.addEventListener("pointerdown", unlockAudio, { capture: true });
  document.addEventListener("keydown", unlockAudio, { capture: true });

  function beep(kind) {
    if (!soundOn()) return "muted";
    if (!audio || audio.state !== "running") return "blocked";  // no click or key press yet on this page
    const t0 = audio.currentTime;
    for (const [freq, at, len] of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + at);
      gain.gain.exponentialRampToValueAtTime(0.2, t0 + at + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + len + 0.02);
    }
    return "played";
  }

  function notify() {
    if (!document.hidden || !notifyOn()) return false;
    try {
      const n = new Notification(C.your_turn_title, {
        body: fmt(C.notify_body, { table: baseTitle }), tag: `cardroom-table-${app.dataset.table}` });
      n.onclick = () => { window.focus(); n.close(); };
      return true;
    } catch {
      return false;  // e.g. a browser that shows notifications only from a service worker
    }
  }

  function fire(kind) {
    const record = { kind, version: version(), sound: beep(kind), notified: kind === "turn" && notify(), hidden: document.hidden };
    alertLog.push(record);
    if (alertLog.length > 50) alertLog.shift();
    app.dispatchEvent(new CustomEvent("cardroom:alert", { detail: record }));
  }

  function flashTitle(on) {
    if (on && document.hidden) {
      if (titleTimer) return;
      let lit = true;
      document.title = `▶ ${C.your_turn_title}`;
      titleTimer = setInterval(() => {
        lit = !lit;
        document.title = lit ? `▶ ${C.your_turn_title}` : baseTitle;
      }, 1000);
    } else if (titleTimer) {
      clearInterval(titleTimer);
      titleTimer = null;
      document.title = baseTitle;
    }
  }
  document.addEventListener("visibilitychange", () => flashTitle(myTurn()));

  function checkTurn() {
    const mine = myTurn();
    if (mine && !wasMyTurn) fire("turn");
    wasMyTurn = mine;
    flashTitle(mine);
  }

  function renderTools() {
    const sound = $("sound-toggle");
    if (sound) {
      sound.dataset.state = soundOn() ? "on" : "off";
      sound.textContent = soundOn() ? C.sound_on : C.sound_off;
    }
    const bell = $("notify-toggle");
    if (bell) {
      bell.hidden = !notifySupported();
      const on = notifyOn();
      bell.dataset.state = on ? "on" : "off";
      bell.setAttribute("aria-pressed", String(on));
      bell.textContent = on ? C.notify_on : C.notify;
    }
  }

  $("sound-toggle")?.addEventListener("click", () => {
    prefSet(SOUND_KEY, soundOn() ? "off" : "on");
    renderTools();
  });

  // Permission is asked only here, when the player presses the button (never on page load).
  $("notify-toggle")?.addEventListener("click", async () => {
    const note = $("alert-note");
    if (note) note.textContent = "";
    if (notifyOn()) {
      prefSet(NOTIFY_KEY, "off");
      renderTools();
      return;
    }
    let permission = Notification.permission;
    if (permission === "default") {
      try { permission = await Notification.requestPermission(); } catch { permission = "denied"; }
    }
    prefSet(NOTIFY_KEY, permission === "granted" ? "on" : "off");
    if (permission !== "granted" && note) note.textContent = C.notify_blocked;
    renderTools();
  });
  renderTools();

  return { fire, checkTurn, log: () => [...alertLog] };
}
