// Per-game presentation of the engine views: what the centre shows, per-seat details, the own hand,
// and the words for each legal move. No rules here: legality comes from the server's `legal` list.
import { cardSVG, backSVG, cardName } from "./cards.js";
import { fmt, esc } from "./util.js";

const mini = (game, code, L) => `<span class="mini-card">${code ? cardSVG(game, code, L) : backSVG("")}</span>`;

function moveBase(move, M) {
  return M[move.type] || move.type;
}

const lembar = {
  hand: (view) => view?.hand || [],
  counts: (view) => view?.hand_counts || [],
  turn: (view) => view?.turn,
  seatExtra(view, i, ctx) {
    const out = [`<span class="count">${fmt(ctx.C.cards, { n: view.hand_counts?.[i] ?? 0 })}</span>`];
    if (view.calls?.[i] === "called") out.push(`<span class="badge call">${esc(ctx.G.called)}</span>`);
    if ((view.windows || []).some((w) => w.seat === i)) {
      out.push(`<span class="badge call" role="status">${esc(fmt(ctx.G.caught_window, { name: ctx.name(i) }))}</span>`);
    }
    if (view.active && !view.active[i]) out.push(`<span class="badge">${esc(ctx.C.left)}</span>`);
    return out.join(" ");
  },
  center(view, ctx) {
    const motif = view.motif ? `<span class="motif-chip motif-${view.motif}">${esc(ctx.G.motif)}: ${esc(ctx.G["motif_" + view.motif])}</span>` : "";
    const dir = view.direction === -1 ? "↺" : "↻";
    return `<div class="pile-area">
      <div class="stock" aria-label="${esc(ctx.C.stock)}: ${view.stock_count}">${backSVG(ctx.C.stock)}<span class="count">${view.stock_count}</span></div>
      <div class="pile-top" aria-label="${esc(ctx.C.pile)}">${view.top ? cardSVG("lembar", view.top, ctx.G) : ""}</div>
      <div class="pile-info">${motif}<span class="direction" title="${esc(ctx.G.direction)}">${dir}</span></div>
    </div>`;
  },
  label(move, ctx) {
    if (move.type === "play") {
      let s = `${ctx.M.play} ${cardName("lembar", move.card, ctx.G)}`;
      if (move.motif) s += ` → ${ctx.G["motif_" + move.motif]}`;
      if (move.call) s += ` + ${ctx.G.call}`;
      return s;
    }
    if (move.type === "catch") return fmt(ctx.M.catch, { name: ctx.name(move.target) });
    if (move.type === "call") return ctx.G.call;
    return moveBase(move, ctx.M);
  },
  acting: (view) => (view && view.turn !== null && view.turn !== undefined ? [view.turn] : []),
  fresh(prev, view) {
    const out = [];
    if ((view.pile || []).length !== (prev.pile || []).length || view.top !== prev.top) out.push(".pile-top");
    if (view.stock_count < prev.stock_count) out.push(".stock");
    return out;
  },
  event(ev, ctx) {
    const L = ctx.L, name = ctx.name(ev.seat);
    const card = ev.card ? cardName("lembar", ev.card, ctx.G) : "";
    switch (ev.type) {
      case "play":
        if (ev.call) return fmt(L.play_call, { name, card });
        if (ev.card === "W" || ev.card === "F") return fmt(L.play_motif, { name, card, motif: ctx.G["motif_" + ev.motif] || "" });
        return fmt(L.played, { name, card });
      case "window": return fmt(L.window, { name });
      case "skip": return fmt(L.skip, { name });
      case "reverse": return L.reverse;
      case "penalty": return fmt(ev.reason === "caught" ? L.penalty_caught : L.penalty, { name, n: ev.count });
      case "draw": return ev.count ? fmt(L.draw, { name }) : null;  // an empty draw is told by `pass`
      case "pass": return fmt(L.pass, { name });
      case "keep": return fmt(L.keep, { name });
      case "reshuffle": return L.reshuffle;
      case "call": return fmt(L.call, { name });
      case "catch": return fmt(L.catch, { name, target: ctx.name(ev.target) });
      case "timeout": return fmt(L.timeout, { name, n: ev.count, max: ctx.facts.timeouts_to_remove });
      case "removed":
        if (ev.reason !== "timeouts") return null;  // a leave is told by its `leave` event
        return fmt(ctx.stake === "pot" ? L.removed_timeouts_entry : L.removed_timeouts, { name, n: ctx.facts.timeouts_to_remove });
      case "game_over": {
        const winner = ev.result?.winners?.[0];
        if (ev.end === "win") return fmt(L.won, { name: ctx.name(winner) });
        if (ev.end === "last_standing") return fmt(L.last_standing, { name: ctx.name(winner) });
        if (ev.end === "stalemate") return L.stalemate;
        return null;
      }
      default: return undefined;
    }
  },
};

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

const baloot = {
  hand: (view) => view?.hand || [],
  counts: (view) => view?.counts || [],
  turn: (view) => view?.to_act?.[0],
  seatExtra(view, i, ctx) {
    const out = [`<span class="count">${fmt(ctx.C.cards, { n: view.counts?.[i] ?? 0 })}</span>`,
      `<span class="muted">${fmt(ctx.G.team, { n: (i % 2) + 1 })}</span>`];
    if (view.dealer === i) out.push(`<span class="badge">${esc(ctx.C.dealer)}</span>`);
    const bid = (view.bids || []).filter((b) => b.seat === i).pop();
    if (bid && view.phase === "bidding") out.push(`<span class="badge">${esc(ctx.M[bid.bid] || bid.bid)}</span>`);
    return out.join(" ");
  },
  center(view, ctx) {
    const parts = [];
    parts.push(`<p class="scores">${esc(ctx.C.scores)}: ${fmt(ctx.G.team, { n: 1 })} <strong>${view.scores?.[0] ?? 0}</strong> · ${fmt(ctx.G.team, { n: 2 })} <strong>${view.scores?.[1] ?? 0}</strong></p>`);
    if (view.contract) {
      const c = view.contract;
      const trump = c.trump ? ` ${SUITS[c.trump]} ${ctx.G["suit_" + c.trump]}` : "";
      let dbl = "";
      if (view.doubling && view.doubling.level > 1) dbl = ` · ${fmt(ctx.G.level, { n: view.doubling.level })}`;
      if (view.doubling?.lock) dbl += ` (${ctx.G.locked})`;
      parts.push(`<p class="contract">${esc(ctx.G.contract)}: <strong>${esc(ctx.M[c.kind] || c.kind)}${esc(trump)}</strong> — ${esc(ctx.name(c.player))}${esc(dbl)}</p>`);
    }
    if (view.phase === "bidding" && view.exposed) {
      parts.push(`<div class="pile-area"><div class="pile-top" aria-label="${esc(ctx.G.exposed)}">${cardSVG("baloot", view.exposed, ctx.G)}</div><span>${esc(ctx.G.exposed)}</span></div>`);
    }
    const trick = view.trick || [];
    if (trick.length || view.phase === "play") {
      parts.push(`<div class="trick" aria-label="${esc(ctx.G.trick)}">${trick.map((p) =>
        `<figure>${cardSVG("baloot", p.card, ctx.G)}<figcaption>${esc(ctx.name(p.seat))}</figcaption></figure>`).join("")}</div>`);
    }
    return parts.join("");
  },
  label(move, ctx) {
    if (move.type === "play") return `${ctx.M.play} ${cardName("baloot", move.card, ctx.G)}${move.baloot ? " + " + ctx.M.baloot : ""}`;
    if (move.type === "confirm" && move.trump) return `${ctx.M.confirm}: ${SUITS[move.trump]} ${ctx.G["suit_" + move.trump]}`;
    if (move.type === "double") return move.lock ? ctx.M.double_lock : ctx.M.double;
    if (move.type === "declare") {
      if (!move.projects || !move.projects.length) return ctx.M.declare_none;
      return `${ctx.M.declare}: ${move.projects.map((p) => {
        const kind = ctx.G["project_" + p.kind] || p.kind;
        return `${kind} (${(p.cards || []).map((c) => cardName("baloot", c, {})).join(" ")})`;
      }).join(", ")}`;
    }
    if (move.type === "sawa" && move.baloot) return `${ctx.M.sawa} + ${ctx.M.baloot}`;
    return moveBase(move, ctx.M);
  },
  acting: (view) => view?.to_act || [],
  fresh(prev, view) {
    const now = (view.trick || []).length, before = (prev.trick || []).length;
    return now > before ? [`.trick figure:nth-child(${now})`] : [];
  },
  event(ev, ctx) {
    const L = ctx.L, name = ctx.name(ev.seat);
    const team = (t) => fmt(ctx.G.team, { n: t + 1 });
    switch (ev.type) {
      case "deal": return fmt(L.deal, { n: (ev.deal ?? 0) + 1, name: ctx.name(ev.dealer), card: cardName("baloot", ev.exposed, ctx.G) });
      case "bid": return L["bid_" + ev.bid] ? fmt(L["bid_" + ev.bid], { name }) : undefined;
      case "void_deal": return L.void_deal;
      case "contract": {
        const trump = ev.trump ? ` ${SUITS[ev.trump]} ${ctx.G["suit_" + ev.trump]}` : "";
        return fmt(L.contract, { name: ctx.name(ev.player), contract: `${ctx.M[ev.kind] || ""}${trump}` });
      }
      case "doubling": {
        if (ev.call === "pass") return fmt(L.double_pass, { name });
        const key = ev.call === "double" && ev.lock ? "double_lock" : ev.call;
        return L[key] ? fmt(L[key], { name }) : undefined;
      }
      case "declared": {
        const kinds = ev.kinds || [];
        if (!kinds.length) return fmt(L.declared_none, { name });
        return fmt(L.declared, { name, projects: kinds.map((k) => ctx.G["project_" + k] || "").join(", ") });
      }
      case "play": return fmt(L.played, { name, card: cardName("baloot", ev.card, ctx.G) });
      case "baloot": return fmt(L.baloot, { name });
      case "trick": return fmt(L.trick, { name: ctx.name(ev.winner), points: ev.points });
      case "sawa": return fmt(L.sawa, { name });
      case "deal_scored": {
        const d = ev.deal_score || [0, 0], t = ev.scores || [0, 0];
        let text = fmt(L.deal_scored, { team1: team(0), team2: team(1), a: d[0], b: d[1], s1: t[0], s2: t[1] });
        if (ev.sweep !== null && ev.sweep !== undefined) text += " " + fmt(L.sweep, { team: team(ev.sweep) });
        else if (ev.failed) text += " " + L.bid_failed;
        return text;
      }
      case "left": return fmt(L.left_auto, { name });
      default: return undefined;
    }
  },
};

const cherki = {
  hand: (view) => view?.hand || [],
  counts: (view) => view?.counts || [],
  turn: (view) => view?.turn,
  seatExtra(view, i, ctx) {
    const out = [`<span class="count">${fmt(ctx.C.cards, { n: view.counts?.[i] ?? 0 })}</span>`];
    if (view.dealer === i) out.push(`<span class="badge">${esc(ctx.C.dealer)}</span>`);
    if (view.called?.[i]) out.push(`<span class="badge call">${esc(ctx.G.called)}</span>`);
    const known = view.known?.[i] || [];
    if (known.length) out.push(`<span class="known" title="${esc(ctx.G.known)}">${known.map((c) => mini("cherki", c, ctx.G)).join("")}</span>`);
    return out.join(" ");
  },
  center(view, ctx) {
    return `<p class="scores">${esc(ctx.C.scores)}: ${(view.scores || []).map((s, i) => `${esc(ctx.name(i))} <strong>${s}</strong>`).join(" · ")}</p>
    <div class="pile-area">
      <div class="stock" aria-label="${esc(ctx.C.stock)}: ${view.stock_count}">${backSVG(ctx.C.stock)}<span class="count">${view.stock_count}</span></div>
      <div class="pile-top" aria-label="${esc(ctx.C.pile)}">${view.top ? cardSVG("cherki", view.top, ctx.G) : ""}</div>
    </div>`;
  },
  label(move, ctx) {
    if (move.type === "discard") return `${ctx.M.discard} ${cardName("cherki", move.card, ctx.G)}${move.call ? " + " + ctx.G.call : ""}`;
    if (move.type === "call") return ctx.G.call;
    return moveBase(move, ctx.M);
  },
  acting: (view) => (view && view.turn !== null && view.turn !== undefined ? [view.turn] : []),
  fresh(prev, view) {
    const out = [];
    if ((view.pile || []).length !== (prev.pile || []).length || view.top !== prev.top) out.push(".pile-top");
    if (view.stock_count < prev.stock_count) out.push(".stock");
    (view.known || []).forEach((k, i) => {
      if ((k || []).length > (prev.known?.[i] || []).length) out.push(`.seat[data-seat="${i}"] .known .mini-card:last-child`);
    });
    return out;
  },
  event(ev, ctx) {
    const L = ctx.L, name = ctx.name(ev.seat);
    const card = ev.card ? cardName("cherki", ev.card, ctx.G) : "";
    switch (ev.type) {
      case "deal": return fmt(L.deal, { n: (ev.deal ?? 0) + 1, name: ctx.name(ev.dealer) });
      case "draw": return fmt(L.draw, { name });
      case "take": return fmt(L.take, { name, card });
      case "discard": return fmt(ev.forced ? L.discard_forced : L.discard, { name, card });
      case "call": return fmt(L.call, { name });
      case "win": return fmt(L.win, { name, card, points: ev.points });
      case "deal_void": return ev.reason === "turn_limit" ? fmt(L.void_turn_limit, { n: ctx.facts.turn_limit }) : L.void_stock_out;
      case "leave": return fmt(L.left_auto, { name });
      default: return undefined;
    }
  },
};

const otuzbir = {
  hand(view) {
    if (!view || view.seat === null || view.seat === undefined) return [];
    const me = (view.players || []).find((p) => p.seat === view.seat);
    return me ? [...(me.closed || []), ...(me.open || [])] : [];
  },
  counts: (view) => (view?.players || []).map((p) => p.card_count),
  turn(view) {
    if (view?.turn !== null && view?.turn !== undefined) return view.turn;
    return view?.to_act?.[0];
  },
  seatExtra(view, i, ctx) {
    const p = (view.players || []).find((x) => x.seat === i);
    if (!p) return "";
    const cards = (p.open || []).map((c) => mini("otuzbir", c, ctx.G)).join("")
      + Array.from({ length: p.seat === view.seat ? 0 : p.closed_count || 0 }, () => mini("otuzbir", null, ctx.G)).join("");
    const out = [`<span class="badge status-${p.status}">${esc(ctx.G["status_" + p.status] || p.status)}</span>`];
    if (view.ebe === i) out.push(`<span class="badge">${esc(ctx.G.ebe)}</span>`);
    out.push(`<span class="muted">${esc(ctx.C.net)}: ${p.net}</span>`);
    return out.join(" ") + `<div class="seat-cards">${cards}</div>`;
  },
  center(view, ctx) {
    const parts = [`<p class="pot">${esc(ctx.G.pot)}: <strong data-testid="pot">${view.pot}</strong> · ${esc(ctx.G.ante)} ${view.ante} · ${fmt(ctx.G.hand_no, { n: (view.hand ?? 0) + 1, m: view.hands ?? "?" })}</p>`];
    if (view.raise) parts.push(`<p class="raise-note" role="status">${esc(fmt(ctx.G.raise_to_answer, { name: ctx.name(view.raise.seat), amount: view.raise.amount }))}</p>`);
    const me = (view.players || []).find((p) => p.seat === view.seat);
    if (me && me.totals) parts.push(`<p>${esc(ctx.G.total)}: <strong data-testid="total">${me.totals.join(" / ")}</strong>${me.category && me.category !== "none" ? " · " + esc(handName(me.category, ctx)) : ""}</p>`);
    return parts.join("");
  },
  label(move, ctx) {
    const base = moveBase(move, ctx.M);
    return move.amount !== undefined ? `${base} ${move.amount}` : base;
  },
  acting: (view) => view?.to_act || [],
  fresh(prev, view) {
    const out = [];
    for (const p of view.players || []) {
      const before = (prev.players || []).find((x) => x.seat === p.seat);
      const n = (p.open || []).length;
      if (before && n > (before.open || []).length) out.push(`.seat[data-seat="${p.seat}"] .seat-cards .mini-card:nth-child(${n})`);
    }
    return out;
  },
  event(ev, ctx) {
    const L = ctx.L, name = ctx.name(ev.seat);
    switch (ev.type) {
      case "hand_start": return fmt(L.hand_start, { n: (ev.hand ?? 0) + 1, ante: ev.ante, name: ctx.name(ev.ebe) });
      case "pass": return fmt(L.pass, { name });
      case "raise": return fmt(L["raise_" + ev.kind] || L.raise_predeal, { name, amount: ev.amount });
      case "see": return fmt(L.see, { name, amount: ev.amount });
      case "fold": return fmt(L.fold, { name });
      case "deal": return L.deal;
      case "open_card": return fmt(L.open_card, { name, card: cardName("otuzbir", ev.card, ctx.G) });
      case "closed_card": return fmt(L.closed_card, { name });
      case "stand": return fmt(L.stand, { name });
      case "made_31": return fmt(L.made_31, { name });
      case "bust": return fmt(L.bust, { name });
      case "hand_over": {
        const params = { name: ctx.name(ev.winner), pot: ev.pot, hand: ev.winner_category ? handName(ev.winner_category, ctx) : "" };
        const lines = [fmt(ev.winner_category ? L.hand_won_with : L.hand_won, params)];
        for (const s of ev.eliminated || []) lines.push(fmt(L.eliminated, { name: ctx.name(s) }));
        return lines.join(" ");
      }
      default: return undefined;
    }
  },
};

// 31's hand categories by name ("cin" → "Cin"); a plain total (26…30) is its number.
function handName(category, ctx) {
  return ctx.G["cat_" + category] || String(category);
}

export const GAMES = { lembar, baloot, cherki, otuzbir };

// Events that need no log line: the table shows them (whose turn, the result panel) or they are
// bookkeeping. Anything else without a sentence is left out rather than shown as a raw token.
const QUIET = new Set(["turn", "started", "game_over", "window_closed", "close_window", "timer", "deal_over"]);

// One log line for an event, naming its player; null when the event needs none. ``ctx``: the label
// dicts C, M, G, L (log sentences), `facts` (numbers from the server), `stake` (the room's stake kind)
// and `name(seat)`.
export function describeEvent(gameName, ev, ctx) {
  if (!ev || typeof ev.type !== "string") return null;
  const own = GAMES[gameName]?.event(ev, ctx);
  if (own !== undefined) return own || null;
  if (QUIET.has(ev.type)) return null;
  const L = ctx.L, name = ctx.name(ev.seat);
  switch (ev.type) {
    case "sat": return fmt(L.sat, { name });
    case "stood": return fmt(L.stood, { name });
    case "leave": case "left": return fmt(L.leave, { name });
    case "timeout": return fmt(L.timeout, { name });
    case "stopped": return L["stopped_" + ev.reason] || L.stopped;
    case "deal_void": case "void_deal": return L.deal_void;
    default: return null;
  }
}
