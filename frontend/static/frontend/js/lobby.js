// The lobby: "Quick play" buttons join a room's queue; the queue widget follows it live.
import { createQueue } from "./queue.js";
import { loadLabels } from "./util.js";

const queue = createQueue(loadLabels("queue-labels"), { connectNow: true });
if (queue) {
  document.querySelectorAll("[data-action=quick-play]").forEach((b) => {
    b.addEventListener("click", () => {
      queue.join(b.dataset.room);
      document.getElementById("queue-widget")?.scrollIntoView({ block: "nearest" });
    });
  });
  window.cardroomQueue = queue;
}
