"""Deadlines: the spec's turn timers, the time bank and the reconnect grace; the timer's claim of due tables."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

from live import rows
from rooms import selectors
from rooms.models import SeatStatus, Table
from rooms.services.base import _after_commit_broadcast, _record


def _ms_to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


# ----- deadlines -------------------------------------------------------------------------

def _is_bot_seat(table: Table, seat: int | None) -> bool:
    return seat is not None and any(e["seat"] == seat and e["bot"] and e["status"] == SeatStatus.SEATED
                                    for e in table.seating)


def _turn_since(table: Table, due: dict) -> int:
    """When the step's timer started (ms); with the seat, it names a turn (the bank's grace is per turn)."""
    since = due.get("since_ms")
    return int(table.started_at.timestamp() * 1000) if since is None else since


def _due_ms(table: Table, due: dict) -> int:
    """When the spec's timer of the step runs out (the engines' timers are the rules)."""
    limit = due.get("limit_ms")
    if limit is None:
        limit = table.room.turn_seconds * 1000
    return _turn_since(table, due) + limit


# ----- the clock beyond the spec's timer: time bank and reconnect grace ----------------------
# docs/rules/*.md, "Time bank and reconnecting". The platform, not the engine, gives a seated human
# more time: the deadline is the spec's timer plus what is left of the seat's bank (plus the grace, when
# granted for this turn). Both live in the seat's ``Table.seating`` entry, which every move already
# writes (no query of their own): ``bank_ms`` (what is left of the bank, charged when a turn ends) and
# ``grace`` ([turn start ms, ms granted] or None).

CLOCK_KEYS = ("bank_ms", "grace")


def _clock_entry(table: Table, due: dict | None) -> dict | None:
    """The seating entry of the seated human whose own time runs in ``due``: not a system step, a bot,
    or a step due at once (``limit_ms`` 0: the rest of an automatic turn, a seat that left)."""
    if due is None or due.get("seat") is None or due.get("limit_ms") == 0:
        return None
    entry = selectors.seating_entry(table=table, seat_number=due["seat"])
    return entry if entry is not None and not entry["bot"] else None


def _grace_ms(entry: dict, since: int) -> int:
    grace = entry.get("grace")
    return grace[1] if isinstance(grace, list) and len(grace) == 2 and grace[0] == since else 0


def _overtime_ms(table: Table, due: dict | None) -> int:
    """How far past the spec's timer the step's automatic move waits: the seat's bank and grace."""
    entry = _clock_entry(table, due)
    if entry is None:
        return 0
    return entry.get("bank_ms", 0) + _grace_ms(entry, _turn_since(table, due))


def _charge_bank(table: Table, engine, before: dict | None, move: dict, at: int) -> None:
    """After a step: if it ended the turn of the seat whose clock ran (``before``), take the time that
    seat used beyond its timer (and its grace) from its bank; an automatic move spends what was left.
    A turn that goes on (a Lembar draw keeps the turn's timer) is charged when it ends."""
    entry = _clock_entry(table, before)
    if entry is None:
        return
    since = _turn_since(table, before)
    bank = entry.get("bank_ms", 0)
    if isinstance(move, dict) and move.get("auto"):
        used = bank  # the seat's time ran out, bank and all
    else:
        after = None if engine.is_over(table.state) else engine.deadline(table.state)
        if (after is not None and after.get("seat") == before["seat"] and after.get("limit_ms") != 0
                and _turn_since(table, after) == since):
            return
        used = min(bank, max(0, at - _due_ms(table, before) - _grace_ms(entry, since)))
    if used or entry.get("grace") is not None:
        entry["bank_ms"] = bank - used
        entry["grace"] = None


def _grace_if_dropped(table: Table, engine) -> bool:
    """At the deadline of a seat whose player's connection is down (their socket dropped and has not come
    back): the grace instead of the automatic move, if not given this turn yet."""
    entry = _clock_entry(table, engine.deadline(table.state))
    if entry is None or selectors.presence(table_id=table.pk, user_id=entry["user_id"]) != selectors.DROPPED:
        return False
    return _grant_grace(table, engine)


def _grant_grace(table: Table, engine) -> bool:
    """RECONNECT_GRACE_S more for the seat whose own time runs, once per turn (the caller holds the lock).
    The version stays: nothing in the game changed, and a move in flight must not become stale. The
    deadline becomes timer + grace + bank, and ``_charge_bank`` takes only time beyond timer + grace: the
    grace counts as coming before the bank, so a player back within it keeps the bank it had."""
    grace_ms = int(settings.RECONNECT_GRACE_S * 1000)
    due = engine.deadline(table.state)
    entry = _clock_entry(table, due)
    if grace_ms <= 0 or entry is None:
        return False
    since = _turn_since(table, due)
    if _grace_ms(entry, since):
        return False
    entry["grace"] = [since, grace_ms]
    _set_deadline(table, engine)
    # In the table's event log (moderation, the fault harness); the players see the new deadline, and the
    # seat's "reconnecting…" from its presence.
    _record(table, "grace", {"seat": entry["seat"], "grace_ms": grace_ms})
    rows.execute([rows.update_statement(table, ["seating", "deadline_at"]), rows.deadline_statement(table)])
    _after_commit_broadcast(table, [])
    return True


def _set_deadline(table: Table, engine) -> None:
    due = engine.deadline(table.state) if table.state is not None else None
    if due is None or engine.is_over(table.state):
        table.deadline_at = None
        table.deadline_seat = None
    else:
        table.deadline_at = _ms_to_datetime(_due_ms(table, due) + _overtime_ms(table, due))
        table.deadline_seat = due.get("seat")
        if _is_bot_seat(table, table.deadline_seat):
            # A bot's turn is queued as a task; one lost with a killed worker would otherwise wait for
            # the whole turn timer and end in the bot's automatic move. The timer looks again after
            # BOT_RESCUE_S and has the bot play (gameworkers.tasks.fire_deadline).
            rescue = timezone.now() + timedelta(seconds=settings.BOT_RESCUE_S)
            table.deadline_at = min(table.deadline_at, rescue)


def _save_deadline(table: Table) -> None:
    """The timer's entry, after a ``table.save()`` that set the deadline (start, finish, stop); the move
    path writes it with the step (``rows.deadline_statement``)."""
    rows.execute([rows.deadline_statement(table)])


def deadline_resync(*, table: Table, handed_out_version: int) -> None:
    """The timer handed out a deadline of ``handed_out_version`` and the table (as read since) is past it:
    if the timer's entry still names that version, no step rewrote it, so it has drifted (a write of the
    deadline that missed it): set it from the table, or the timer would hand it out every few seconds
    while the table's real deadline never fires."""
    if table.version > handed_out_version:
        rows.execute([rows.stale_deadline_statement(table, handed_out_version)])


def due_tables(*, now: datetime | None = None, retry_after_s: float = 3.0, limit: int = 500,
               reclaim: bool = True) -> list[tuple[int, int]]:
    """Claim due deadlines for the timer: (table id, version) pairs not handed out in the last seconds.

    One conditional ``UPDATE … RETURNING`` (``live.rows.claim_due``), so two timer processes never
    both hand out the same deadline within ``retry_after_s``; a deadline whose task was lost is claimed
    again after it (only when ``reclaim``: the caller turns it off while the workers have a backlog).
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=retry_after_s) if reclaim else None
    return rows.claim_due(now=now, stale=stale, limit=limit)
