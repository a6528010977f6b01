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
  event(ev, ctx) {
    if (ev.type === "play") return fmt(ctx.C.played, { name: ctx.name(ev.seat), card: cardName("lembar", ev.card, ctx.G) });
    if (ev.type === "draw") return fmt(ctx.C.drew, { name: ctx.name(ev.seat) });
    return null;
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
  event(ev, ctx) {
    if (ev.type === "play") return fmt(ctx.C.played, { name: ctx.name(ev.seat), card: cardName("baloot", ev.card, ctx.G) });
    if (ev.type === "bid") return fmt(ctx.C.event, { name: ctx.name(ev.seat), what: ctx.M[ev.bid] || ev.bid });
    return null;
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
  event(ev, ctx) {
    if (ev.type === "discard") return fmt(ctx.C.played, { name: ctx.name(ev.seat), card: cardName("cherki", ev.card, ctx.G) });
    if (ev.type === "take") return fmt(ctx.C.event, { name: ctx.name(ev.seat), what: `${ctx.M.take} ${cardName("cherki", ev.card, ctx.G)}` });
    if (ev.type === "call") return fmt(ctx.C.event, { name: ctx.name(ev.seat), what: ctx.G.call });
    return null;
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
    if (me && me.totals) parts.push(`<p>${esc(ctx.G.total)}: <strong data-testid="total">${me.totals.join(" / ")}</strong>${me.category && me.category !== "none" ? " · " + esc(me.category) : ""}</p>`);
    return parts.join("");
  },
  label(move, ctx) {
    const base = moveBase(move, ctx.M);
    return move.amount !== undefined ? `${base} ${move.amount}` : base;
  },
  event(ev, ctx) {
    if (ev.type === "open_card") return fmt(ctx.C.event, { name: ctx.name(ev.seat), what: `${ctx.M.open} ${cardName("otuzbir", ev.card, ctx.G)}` });
    if (ev.type === "raise") return fmt(ctx.C.event, { name: ctx.name(ev.seat), what: `${ctx.M.raise} ${ev.amount}` });
    if (["see", "fold", "stand", "closed_card", "bust", "pass"].includes(ev.type)) {
      return fmt(ctx.C.event, { name: ctx.name(ev.seat), what: ctx.M[ev.type] || ctx.G["status_" + ev.type] || ev.type });
    }
    return null;
  },
};

export const GAMES = { lembar, baloot, cherki, otuzbir };
