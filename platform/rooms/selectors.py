"""Reads about rooms and tables: the lobby, a viewer's frame, public events, the proof document."""

from __future__ import annotations

from django.utils import timezone

from gameworkers.engines import get_engine
from rooms.models import ENDED_STATUSES, Game, Room, Seat, SeatStatus, Table, TableEvent, TableMove, TableStatus


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
    state = engine.replay_start(bytes.fromhex(table.seed_hex), table.state["seats"], table.state.get("options"), log)
    frames = [{"seq": 0, "seat": None, "move": None, "view": engine.replay_view(state)}]
    for entry in log:
        state, _ = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        frames.append({"seq": entry["seq"], "seat": entry["seat"], "move": entry["move"],
                       "view": engine.replay_view(state)})
    return frames
