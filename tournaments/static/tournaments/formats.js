// Tournament formats on the tournament page and the tournament table's header (issue 24):
// - the prize split as it stands, "1st 70 % (140 Chip) · 2nd 30 % (60 Chip)";
// - levels by minutes: "next level in 3:12", counted down here every second;
// - late registration and re-entry: "Register late (20 Chip)" / "Re-enter (20 Chip)" for a player who
//   may, and "you get a seat when the hand in play ends" while a late entry waits.
// The tournament page (frontend/js/tournament_page.js) redraws itself from every pushed snapshot; this
// script follows those redraws (its status line changes each time) and reads the same snapshot, so
// nothing is fetched or polled and the tournament socket stays the only one.
import { fmt, loadLabels } from "../frontend/js/util.js";
import { payoutsText, startCountdown } from "./common.js";

const $ = (id) => document.getElementById(id);

function tournamentPage() {
  const data = loadLabels("tournament-page-data");
  const L = data.labels || {};
  const offset = data.server_now ? Date.parse(data.server_now) - Date.now() : 0;
  let clock = data.clock;
  let running = $("t-status")?.dataset.status === "running";
  const next = $("t-next-level");
  if (next) startCountdown(next, () => (running ? clock : null), offset, L.next_level_in, " · ");

  function lateBox(f) {
    const box = $("t-late");
    if (!box) return;
    const mine = (f.standings || []).find((r) => r.entry === data.entry);
    const status = mine ? mine.status : data.entry_status;
    const inNow = ["registered", "playing", "won"].includes(status);
    const open = f.status === "running" && f.late_registration && !inNow && data.entries_used < data.max_entries;
    box.hidden = !open;
    if (open) {
      $("t-late-button").textContent = fmt(status === "out" ? L.reenter : L.register_late,
        { fee: data.fee, currency: data.currency });
    }
    const waiting = $("t-waiting");
    if (waiting) waiting.hidden = !(status === "registered" && f.status === "running");
  }

  function redrawn() {
    const f = window.cardroomTournament?.last?.();
    if (!f) return;
    running = f.status === "running";
    if (f.level && f.level.by === "minutes") clock = f.level;
    const payouts = $("t-payouts");
    if (payouts) payouts.textContent = payoutsText(f.payouts, data.currency, L);
    lateBox(f);
  }

  const status = $("t-status");
  if (status) new MutationObserver(redrawn).observe(status, { childList: true, characterData: true, subtree: true });
}

function tableHeader() {
  const data = loadLabels("tournament-clock");
  const el = $("tt-next-level");
  if (!el || !data.clock) return;
  const offset = Date.parse(data.clock.server_now) - Date.now();
  startCountdown(el, () => data.clock, offset, data.labels.next_level_in, " · ");
}

if ($("tournament-page-data")) tournamentPage();
else if ($("tournament-clock")) tableHeader();
