// The lobby's one live socket (/ws/tournaments/lobby/): the tournament cards and the arena cards both
// follow it. Each card script adds its handlers; the socket opens with the first and is shared.
import { connectTournament } from "./tournament_common.js";

const followers = [];
let socket = null;

function each(kind, value) {
  for (const handlers of followers) handlers[kind]?.(value);
}

// handlers: card / cards (tournament cards), frame (any other frame, e.g. "arena.card", "arena.cards").
export function followLobby(handlers) {
  followers.push(handlers);
  if (!socket) {
    socket = connectTournament("lobby", {
      card: (card) => each("card", card),
      cards: (cards) => each("cards", cards),
      frame: (f) => each("frame", f),
    });
    window.cardroomLobby = socket;  // the browser tests wait for it to be open
  }
  return socket;
}
