// Words and clocks shared by the tournament formats' scripts (lobby.js, formats.js): the prize split
// as it stands ("1st 70 % (140 Chip) · 2nd 30 % (60 Chip)") and "next level in 3:12".
import { fmt } from "../frontend/js/util.js";

export function ordinal(n, L) {
  const key = n % 100 >= 11 && n % 100 <= 13 ? "ordinal_th"
    : ({ 1: "ordinal_st", 2: "ordinal_nd", 3: "ordinal_rd" }[n % 10] || "ordinal_th");
  return fmt(L[key], { n });
}

// The labels are Python formats: "%%" is a percent sign.
export function payoutsText(payouts, currency, L) {
  return (payouts || []).map((p) => fmt(L.payout, {
    place: ordinal(p.place, L), percent: p.percent, amount: p.amount, currency,
  }).replaceAll("%%", "%")).join(" · ");
}

export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (x) => String(x).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

// Levels by minutes: when the next level begins (ms, server clock), from a known boundary `level`
// that begins at `at` (ms) and lasts `minutes`; null at the schedule's last level.
export function nextLevelAt(clock, now) {
  if (!clock || !clock.next_level_at || !clock.level_minutes) return null;
  const len = clock.level_minutes * 60000;
  let at = Date.parse(clock.next_level_at);
  let level = clock.next_level;
  while (at <= now) { at += len; level += 1; }
  return clock.last_level && level > clock.last_level ? null : at;
}

// Counts down to the next level in `el` every second (the level changes by the clock, not by a push).
export function startCountdown(el, getClock, offsetMs, label, prefix = "") {
  function tick() {
    const now = Date.now() + offsetMs;
    const at = nextLevelAt(getClock(), now);
    el.textContent = at === null ? "" : prefix + fmt(label, { time: clockText((at - now) / 1000) });
  }
  tick();
  return setInterval(tick, 1000);
}
