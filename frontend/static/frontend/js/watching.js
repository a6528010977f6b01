// Spectators on the table page (table.html's header): how many watch the table, asked with a `spectators`
// frame after every (re)connect and then pushed by the server at each change; and, for a spectator at a
// table watched late (a staked table), a note until the first frame arrives, `delay` seconds behind the
// play. It rides on table.js's socket through the "table:open", "table:frame" and "table:send" events, like
// chat.js. Protocol: docs/protocol.md, "Spectators".
import { fmt } from "./util.js";

const app = document.getElementById("table-app");
const facts = document.getElementById("watch-facts");

if (app && facts) {
  const countEl = document.getElementById("spectator-count");
  const wait = document.getElementById("watch-wait");
  const delayFact = facts.querySelector("[data-fact=spectator-delay]");
  let sawState = false;  // a state frame since the socket (re)opened

  app.addEventListener("table:open", () => {
    sawState = false;
    app.dispatchEvent(new CustomEvent("table:send", { detail: { type: "spectators" }, cancelable: true }));
  });

  app.addEventListener("table:frame", (ev) => {
    const msg = ev.detail;
    if (msg.type === "spectators") { ev.preventDefault(); show(msg); }
    else if (msg.type === "state") { sawState = true; wait.hidden = true; }
  });

  function show(msg) {
    if (typeof msg.count === "number") {
      countEl.textContent = fmt(facts.dataset.watching, { n: msg.count });
      countEl.dataset.count = String(msg.count);
      countEl.hidden = msg.count <= 0;
    }
    facts.hidden = countEl.hidden && !delayFact;
    // Nothing yet on this socket at a table watched late: this user is a spectator waiting for the play.
    if (!sawState && Number(msg.delay) > 0) {
      wait.textContent = fmt(facts.dataset.wait, { s: Number(msg.delay) });
      wait.hidden = false;
    }
  }
}
