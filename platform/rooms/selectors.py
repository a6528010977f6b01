"""Reads about rooms and tables: the lobby, a viewer's frame, public events, the proof document."""

from __future__ import annotations

import time

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from core.cache import cache
from gameworkers.engines import get_engine
from rooms.models import (
    ENDED_STATUSES,
    Game,
    Room,
    Seat,
    SeatStatus,
    StakeKind,
    Table,
    TableEvent,
    TableMove,
    TableStatus,
)
from wallets import selectors as wallet_selectors


def lobby_games() -> list[dict]:
    rooms = list(Room.objects.filter(is_open=True))
    waiting: dict[int, int] = {}
    playing: dict[int, int] = {}
    for room_id, status in Seat.objects.filter(
            status=SeatStatus.SEATED, table__status__in=[TableStatus.OPEN, TableStatus.RUNNING],
            user__is_bot=False).values_list("table__room_id", "table__status"):
        bucket = waiting if status == TableStatus.OPEN else playing
        bucket[room_id] = bucket.get(room_id, 0) + 1
    for room in rooms:
        room.players_waiting = waiting.get(room.pk, 0)
        room.players_playing = playing.get(room.pk, 0)
    return [
        {"name": value, "title": label, "rooms": [r for r in rooms if r.game == value]}
        for value, label in Game.choices
    ]


def seat_of(*, table: Table, user) -> Seat | None:
    """The user's seat still in the game at this table, if any."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return table.seats.filter(user=user, status=SeatStatus.SEATED).first()


def may_watch(*, table: Table, user, invite_code: str | None = None) -> bool:
    """A private table is visible to its host, its players (past or present), staff and invite holders."""
    if not table.is_private:
        return True
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff or table.host_id == user.pk:
        return True
    if table.seats.filter(user=user).exclude(status=SeatStatus.STOOD).exists():
        return True
    return bool(invite_code) and invite_code == table.invite_code


def watchable_table(*, table_id, user, invite_code: str | None = None) -> Table | None:
    """The table, or None when there is none or it is private and ``user`` may not watch it: the one
    visibility check behind every surface of a table (page, proof, proof JSON, replay, events, API, socket)."""
    try:
        table = Table.objects.select_related("room", "host").filter(pk=int(table_id)).first()
    except (TypeError, ValueError, OverflowError):
        return None
    if table is None or not may_watch(table=table, user=user, invite_code=invite_code):
        return None
    return table


def publicly_watchable() -> QuerySet[Table]:
    """The tables anyone may watch (those ``may_watch`` admits for a visitor: not private). Every list of
    tables shown to all starts here, so a private table never appears in one (the lobby's "Live now")."""
    return Table.objects.filter(is_private=False)


LIVE_TABLES_SCANNED = 60  # the newest running public tables "Live now" looks at
LIVE_TABLES_PER_GAME = 6


def live_tables(*, per_game: int = LIVE_TABLES_PER_GAME) -> list[dict]:
    """The lobby's "Live now": running tables anyone may watch, by game (in the games' order, games with
    none left out), the most watched first and then the newest; each with its room, stake, players (bots
    marked), spectator count and spectators' delay. Nothing here is translated: one list serves every
    lobby (frontend/static/frontend/js/live_now.js words it)."""
    tables = [table for table in publicly_watchable().filter(status=TableStatus.RUNNING).select_related("room")
              .order_by("-started_at", "-pk")[:LIVE_TABLES_SCANNED] if may_watch(table=table, user=None)]
    counts = spectator_counts(table_ids=[table.pk for table in tables])
    by_game: dict[str, list[dict]] = {}
    for table in sorted(tables, key=lambda t: -counts.get(t.pk, 0)):  # stable: the newest first among equals
        listed = by_game.setdefault(table.game, [])
        if len(listed) < per_game:
            listed.append(_live_entry(table, spectators=counts.get(table.pk, 0)))
    return [{"game": game, "tables": by_game[game]} for game in Game.values if game in by_game]


def _live_entry(table: Table, *, spectators: int) -> dict:
    room = table.room
    return {
        "table": table.pk, "room": room.name, "seat_count": table.seat_count,
        "stake": {"kind": room.stake_kind, "amount": room.stake, "currency": room.currency or None},
        "players": [{"name": entry["player"], "bot": bool(entry["bot"])} for entry in table.seating
                    if entry["status"] == SeatStatus.SEATED],
        "spectators": spectators, "delay": room.spectator_delay_s,
        "started_at": table.started_at.isoformat() if table.started_at else None,
    }


def spectator_counts(*, table_ids: list[int]) -> dict[int, int]:
    """How many watch each table now, across every ASGI process (``live.relay.Watchers`` keeps the count
    in Redis with an expiry: no database row per spectator)."""
    from live import relay  # imported here: live.relay imports this app

    return relay.spectator_counts(table_ids)


def seats_public(table: Table) -> list[dict]:
    """The seats not stood up as every viewer sees them (from ``Table.seating``, kept by the services)."""
    return [{key: value for key, value in entry.items() if key != "user_id"} for entry in table.seating]


def seating_entry(*, table: Table, seat_number: int) -> dict | None:
    """The ``Table.seating`` entry of a seat still in the game (no query)."""
    for entry in table.seating:
        if entry["seat"] == seat_number and entry["status"] == SeatStatus.SEATED:
            return entry
    return None


def seat_number_of(*, table: Table, user_id: int) -> int | None:
    """The seat number of a user still in the game, from ``Table.seating`` (no query)."""
    for entry in table.seating:
        if entry["user_id"] == user_id and entry["status"] == SeatStatus.SEATED:
            return entry["seat"]
    return None


# ----- presence: whether a seated player's table socket is up (kept in the cache by the socket) -----
# Two cache entries per (table, user): how many of the user's table sockets are open (changed only by the
# cache's atomic increment and decrement, so a page reload's close and open never lose one another), and
# when one of them last said it is alive (at open and every 20 s). A count above 0 counts only while that
# is fresh (PRESENCE_FRESH_S): the sockets of an ASGI process that died without closing them stop counting.
# An entry with nothing counted: the player dropped ("reconnecting…"); no entry: not known (never connected
# here, or long gone), which gives no grace.
ONLINE, DROPPED = "online", "dropped"
PRESENCE_FRESH_S = 60


def presence_keys(*, table_id: int, user_id: int) -> tuple[str, str]:
    """The cache keys of the open-socket count and of the last time one was heard from (ms)."""
    return f"presence:{table_id}:{user_id}:n", f"presence:{table_id}:{user_id}:seen"


def presence_state(count, seen, *, now_ms: int | None = None) -> str | None:
    """ONLINE, DROPPED or None (not known) for a stored count and last-heard time."""
    if not isinstance(count, int):
        return None
    now = int(time.time() * 1000) if now_ms is None else now_ms
    fresh = isinstance(seen, int) and now - seen < PRESENCE_FRESH_S * 1000
    return ONLINE if count > 0 and fresh else DROPPED


def presence(*, table_id: int, user_id: int) -> str | None:
    """Whether the user's socket at the table is up (ONLINE), dropped (DROPPED) or not known (None)."""
    keys = presence_keys(table_id=table_id, user_id=user_id)
    try:
        found = cache.get_many(list(keys))
    except Exception:  # the cache is down: nobody is known to have dropped
        return None
    return presence_state(found.get(keys[0]), found.get(keys[1]))


def away_seats(*, table: Table) -> list[int]:
    """The seats of a running table whose player's connection dropped (one cache read): a snapshot frame's
    ``away``; the socket's ``presence`` frames keep it current afterwards."""
    if table.status != TableStatus.RUNNING:
        return []
    keys = {e["seat"]: presence_keys(table_id=table.pk, user_id=e["user_id"]) for e in table.seating
            if e["status"] == SeatStatus.SEATED and not e["bot"]}
    try:
        found = cache.get_many([key for pair in keys.values() for key in pair])
    except Exception:
        return []
    now = int(time.time() * 1000)
    return sorted(seat for seat, (count, seen) in keys.items()
                  if presence_state(found.get(count), found.get(seen), now_ms=now) == DROPPED)


def move_log(*, table: Table) -> list[dict]:
    """The engine's move log, re-assembled from its rows (private until the table has ended)."""
    return [m.as_entry() for m in TableMove.objects.filter(table=table).order_by("seq")]


def full_state(*, table: Table) -> dict:
    """The engine state with its move log, as the engine's proof and replays need it."""
    return {**table.state, "moves": move_log(table=table)}


def table_frame(*, table: Table, seat_number: int | None, seats: list[dict] | None = None,
                host: str | None = "") -> dict:
    """The `state` frame for one viewer: their own view, legal moves, version and deadline."""
    return table_frames(table=table, seat_numbers=[seat_number], seats=seats, host=host)[0]


def table_frames(*, table: Table, seat_numbers: list[int | None], seats: list[dict] | None = None,
                 host: str | None = "") -> list[dict]:
    """The `state` frame of each viewer (a seat number, or None for a spectator), in that order. What
    every viewer shares (seats, deadline, clock, host, who is to act) is worked out once: the
    broadcaster builds a frame for every seat and the spectators at each move."""
    game = table.game
    head = {"type": "state", "table": table.pk, "game": game, "status": table.status, "version": table.version}
    tail = {
        "seats": seats if seats is not None else seats_public(table),
        "seat_count": table.seat_count,
        "commitment": table.commitment,
        "deadline": table.deadline_at.isoformat() if table.deadline_at else None,
        "deadline_seat": table.deadline_seat,
        "server_time": timezone.now().isoformat(),
        "host": host_name(table) if host == "" else host,
    }
    state = table.state
    engine = get_engine(game) if state is not None else None
    to_act = engine.to_act(state) if engine is not None and table.status == TableStatus.RUNNING else ()
    ended = ({"result": table.result, "stop_reason": table.stop_reason or None}
             if table.status in ENDED_STATUSES else None)
    frames = []
    for seat_number in seat_numbers:
        frame = {**head, "seat": seat_number, **tail}
        if engine is not None:
            frame["view"] = engine.view(state, seat_number)
            frame["legal"] = (engine.legal_moves(state, seat_number)
                              if seat_number is not None and seat_number in to_act else [])
        else:
            frame["view"] = None
            frame["legal"] = []
        if ended is not None:
            frame.update(ended)
        frames.append(frame)
    return frames


def host_name(table: Table) -> str | None:
    if not table.host_id:
        return None
    cache = table._state.fields_cache
    if "host" in cache and cache["host"] is not None:
        return cache["host"].username
    from accounts.models import User

    return User.objects.filter(pk=table.host_id).values_list("username", flat=True).first()


def public_events(*, table: Table, after: int = 0, limit: int = 500) -> list[dict]:
    return [
        {"seq": e.seq, "kind": e.kind, "version": e.version, "at": e.created_at.isoformat(),
         "payload": _public_payload(table, e)}
        for e in TableEvent.objects.filter(table=table, seq__gt=after).order_by("seq")[:limit]
    ]


def _public_payload(table: Table, event: TableEvent) -> dict:
    # The seed rides on the finishing event; before the end nothing here may carry it.
    if "seed" in event.payload and table.status not in ENDED_STATUSES:
        return {k: v for k, v in event.payload.items() if k != "seed"}
    return event.payload


def proof_document(*, table: Table) -> dict:
    """The engine's proof document plus the seated players; before the end only the commitment."""
    doc: dict = {
        "game": table.game,
        "version": 1,
        "table": table.pk,
        "status": table.status,
        "commitment": table.commitment,
        "committed_at": table.committed_at.isoformat(),
        "seats": [{"seat": s["seat"], "player": s["player"], "bot": s["bot"]} for s in seats_public(table)],
    }
    if table.status not in ENDED_STATUSES:
        return doc
    doc["seed"] = table.seed_hex
    if table.state is None:  # never started: nothing was dealt
        doc.update({"options": table.options, "shuffles": [], "first": None, "moves": [], "result": None})
        return doc
    engine = get_engine(table.game)
    state = full_state(table=table)
    engine_doc = engine.proof(state)
    doc.update({
        "options": engine_doc.get("options", state.get("options", {})),
        "shuffles": state["shuffles"],
        "first": state["first"],
        "moves": state["moves"],
        "result": engine_doc.get("result") if engine.is_over(state) else None,
    })
    for key, value in engine_doc.items():  # engine-specific extras (e.g. 31's starting ebe)
        doc.setdefault(key, value)
    return doc


def replay_frames(*, table: Table) -> list[dict]:
    """Every step of an ended table with every card shown (replays)."""
    if table.status not in ENDED_STATUSES or table.state is None:
        return []
    engine = get_engine(table.game)
    log = move_log(table=table)
    # As tools/verify_proof.py: a log recorded under older numbering (Lembar) is replayed with it.
    state = engine.replay_start(table.seed, table.state["seats"], table.state.get("options"), log)
    frames = [{"seq": 0, "seat": None, "move": None, "view": engine.replay_view(state)}]
    for entry in log:
        state, _ = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        frames.append({"seq": entry["seq"], "seat": entry["seat"], "move": entry["move"],
                       "view": engine.replay_view(state)})
    return frames


# ----- per-hand results and replays (docs/frontend.md, "Hands") ----------------------------------
# The public event that closes a hand (a Baloot or Cherki deal, a 31 hand); Lembar is one game, so only
# its `game_over` closes its one hand. A step that ends the table mid-hand (a forfeit) closes it too.
HAND_END_KINDS: dict[str, frozenset[str]] = {
    "baloot": frozenset({"deal_scored", "void_deal"}),
    "cherki": frozenset({"deal_void", "win"}),
    "otuzbir": frozenset({"hand_over"}),
    "lembar": frozenset(),
}


def _hand_end_kinds(game: str) -> frozenset[str]:
    return HAND_END_KINDS.get(game, frozenset()) | {"game_over"}


def finished_hands(*, table: Table) -> list[dict]:
    """The hands (deals) of the table that are over, numbered from 1, each with its closing public
    events (what the result panel explains). Read from the public event log: no replay, no secret."""
    kinds = _hand_end_kinds(table.game)
    hands: list[dict] = []
    last_version = None
    for event in TableEvent.objects.filter(table=table, kind__in=kinds).order_by("seq"):
        # One step may close a hand and end the table (deal_scored + game_over): one hand.
        if hands and event.version == last_version:
            hands[-1]["events"].append(_public_payload(table, event))
            continue
        last_version = event.version
        hands.append({"hand": len(hands) + 1, "version": event.version, "events": [_public_payload(table, event)]})
    return hands


def _without_seed(value):
    # The seed is revealed only when the table has ended; a running table's replay frames never carry it.
    if isinstance(value, dict):
        return {k: _without_seed(v) for k, v in value.items() if k != "seed"}
    if isinstance(value, list):
        return [_without_seed(v) for v in value]
    return value


def hand_replay(*, table: Table, hand: int) -> list[dict] | None:
    """Every step of one finished hand with every card of THAT hand shown, or None when the hand is not
    over (or does not exist). Available as soon as the hand ends, while the table may still run.

    Why it is safe on a running table: the server re-plays the move log from its seed (the seed never
    leaves the server), but only the frames of states inside the asked hand are kept. Every deal is an
    independent shuffle of the seed (fairness.md), so the cards of a finished deal say nothing of a later
    deal's order. The step that closes the hand has already dealt the next hand into its state: that
    step's frame shows the view *before* it, with the closing step's public events (trick, scores,
    showdown) beside it, never the state after it, unless the table is over with it."""
    if table.state is None or isinstance(hand, bool) or not isinstance(hand, int) or hand < 1:
        return None
    ended = table.status in ENDED_STATUSES
    if not ended and hand > len(finished_hands(table=table)):
        return None
    engine = get_engine(table.game)
    kinds = _hand_end_kinds(table.game)
    log = move_log(table=table)
    state = engine.replay_start(bytes.fromhex(table.seed_hex), table.state["seats"], table.state.get("options"), log)
    current = 1
    frames: list[dict] = [{"seq": 0, "seat": None, "move": None, "view": engine.replay_view(state)}]
    for entry in log:
        before = state
        state, events = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        closes = any(e.get("type") in kinds for e in events)
        if current == hand:
            step = {"seq": entry["seq"], "seat": entry["seat"], "move": entry["move"]}
            if closes:
                over = engine.is_over(state)
                frames.append({**step, "view": engine.replay_view(state if over else before), "end": True,
                               "events": [e for e in events if e.get("type") != "deal" or over]})
                break
            frames.append({**step, "view": engine.replay_view(state)})
        elif closes:
            if engine.is_over(state):  # the step ended the table too: no hand follows
                return None
            current += 1
            if current == hand:  # the first frame of the asked hand: the deal just made
                frames = [{"seq": entry["seq"], "seat": None, "move": None, "view": engine.replay_view(state)}]
        if current > hand:
            break
    else:
        # The log ran out inside the hand: only an ended table (stopped mid-hand) may show it.
        if current != hand or not ended:
            return None
    return frames if ended else _without_seed(frames)


def has_finished_game(*, user) -> bool:
    """Whether the player sat at a table that finished by the rules (the welcome grant's first condition)."""
    return Seat.objects.filter(user=user, table__status=TableStatus.FINISHED).exists()


def seats_blocking_deletion(user) -> list[dict]:
    """The open or running tables where the user holds a seat: they leave those before deleting their
    account (``accounts.selectors.DELETION_BLOCKERS``)."""
    return [{"kind": "table", "id": seat.table_id, "name": seat.table.room.name, "status": seat.table.status}
            for seat in Seat.objects.filter(user=user, status=SeatStatus.SEATED,
                                            table__status__in=[TableStatus.OPEN, TableStatus.RUNNING])
            .select_related("table__room").order_by("table_id")]


def welcome_section(user) -> dict:
    """The profile's welcome-grant status (``accounts.selectors.PROFILE_SECTIONS``): the ledger holds the
    grant, the tables know whether the player has finished a game."""
    from wallets.selectors import welcome_status

    return {"welcome": welcome_status(user=user, played=has_finished_game(user=user))}


def stake_ranges(rooms) -> dict[int, str]:
    """Room id -> what a 31 room's "Ante 1 Chip" really risks: raises are pot-limit (otuzbir.md), and
    the largest pot of the last 7 days shows how far that went ("pot-limit raises · largest pot this week
    5,877"). Other rooms are left out: their stake label says it all."""
    ante = [room for room in rooms if room.stake_kind == StakeKind.ANTE]
    if not ante:
        return {}
    pots = wallet_selectors.largest_pots(room_ids=[room.pk for room in ante])
    out = {}
    for room in ante:
        parts = [_("pot-limit raises")]
        if pots.get(room.pk):
            parts.append(_("largest pot this week %(pot)s") % {"pot": number_format(pots[room.pk], force_grouping=True)})
        out[room.pk] = " · ".join(parts)
    return out
