"""Arena lifecycle: schedule, join, pause, start, pair, score, finish or cancel (docs/arenas.md).

Every state change locks the arena row (``select_for_update``), so pairing, scoring, joining and the
finish never interleave; money moves through ``arenas.money`` (the ledger's public services) in the
same transaction; pushes run after commit. Games are rooms tables of the arena's casual room, seated
whole with ``rooms.services.table_open_seated`` (the same checks as a sit; a full table starts at
once). A finished table comes back through ``rooms.signals.table_finished`` → ``tasks.game_over``;
the timer's housekeeping (once a second while an arena runs) starts arenas, seats bots for players
who waited ``bot_fill_seconds``, scores games whose signal was lost or whose table was stopped, and
ends the window.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from arenas import logic, money
from arenas.errors import ArenaError
from arenas.models import HOLDING, Arena, ArenaGame, ArenaPlayer, PlayerStatus, Status
from core.transactions import after_commit
from gameworkers.engines import game_spec
from rooms import services as rooms_services
from rooms.errors import TableError
from rooms.models import ENDED_STATUSES, Room, SeatStatus, Table, TableStatus
from wallets.services import rake_of

log = logging.getLogger(__name__)

# Games still running this long after the window are not waited for: they count nothing (a stuck
# table must not hold the prizes back for ever).
OVERTIME = timedelta(minutes=30)
NOTE_LEFT = "left_game"  # paused by the arena: the player left (or was removed from) a game

Seated = tuple[int, int]  # (user id, rooms table id): a human seated at a new arena game


class PayoutError(ArenaError):
    """Paying the prizes failed: the finish is rolled back and the failure recorded on the arena."""


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _lock(arena_id: int) -> Arena:
    try:
        # Only the arena's row: the room is read, never locked (its tables run without it).
        return Arena.objects.select_for_update(of=("self",)).select_related("room").get(pk=arena_id)
    except (Arena.DoesNotExist, ValueError, TypeError):
        raise ArenaError("no_such_arena", "There is no such arena.") from None


def _after_commit_push(arena_id: int, seated: list[Seated] | None = None, *, force: bool = False) -> None:
    def push() -> None:
        from arenas import broadcast

        broadcast.arena_changed(arena_id, seated=seated or [], force=force)

    after_commit(push)


# ----- admin: create, schedule ------------------------------------------------------------------

def arena_create(*, name: str, room: Room, starts_at: datetime, duration_minutes: int = 60,
                 game: str | None = None, repeat_every: timedelta | None = None, table_seats: int | None = None,
                 bot_fill_seconds: int = 10, currency: str = "CHP", entry_fee: int = 0, rake_bps: int = 0,
                 payouts: list[int] | None = None) -> Arena:
    """Schedule an arena (players may join at once; pairing starts at ``starts_at``)."""
    arena = Arena(name=name, room=room, game=game or room.game, starts_at=starts_at,
                  duration_minutes=duration_minutes, repeat_every=repeat_every, table_seats=table_seats,
                  bot_fill_seconds=bot_fill_seconds, currency=currency, entry_fee=entry_fee, rake_bps=rake_bps,
                  payouts=list(payouts) if payouts is not None else [50, 30, 20])
    try:
        arena.full_clean()
    except ValidationError as exc:
        raise ArenaError("bad_arena", "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
    arena.save()
    return arena


def _schedule_next(arena: Arena) -> None:
    """Recurring arenas: the next one, once, when this one starts or is cancelled."""
    if not arena.repeat_every or arena.next_created:
        return
    Arena.objects.create(
        name=arena.name, game=arena.game, room=arena.room, starts_at=arena.starts_at + arena.repeat_every,
        duration_minutes=arena.duration_minutes, repeat_every=arena.repeat_every, table_seats=arena.table_seats,
        bot_fill_seconds=arena.bot_fill_seconds, currency=arena.currency, entry_fee=arena.entry_fee,
        rake_bps=arena.rake_bps, payouts=list(arena.payouts))
    arena.next_created = True
    arena.save(update_fields=["next_created"])


# ----- players: join, pause ----------------------------------------------------------------------

def join(*, arena_id: int, user, now: datetime | None = None) -> ArenaPlayer:
    """Join (or come back after a pause) before or during the window. The entry fee is paid once per
    arena (again only after a withdrawal before the start, which refunded it)."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise ArenaError("not_logged_in", "Log in to join.")
    if user.is_bot:
        raise ArenaError("bots_cannot_join", "Bots fill seats; they do not join arenas.")
    now = _now(now)
    opened: list[Seated] = []
    with transaction.atomic():
        arena = _lock(arena_id)
        if arena.status not in (Status.SCHEDULED, Status.RUNNING) or now >= arena.ends_at:
            raise ArenaError("arena_closed", "This arena is over.")
        if arena.status == Status.RUNNING and ArenaPlayer.objects.filter(
                user=user, status=PlayerStatus.ACTIVE, arena__status=Status.RUNNING).exclude(arena=arena).exists():
            raise ArenaError("in_another_arena", "You are playing in another arena: pause it first.")
        player = arena.players.filter(user=user).select_related("user").first()
        if player is not None and player.status == PlayerStatus.ACTIVE:
            raise ArenaError("already_joined", "You have joined this arena already.")
        if player is None:
            player = ArenaPlayer.objects.create(arena=arena, user=user)
            player.user = user
            money.pay_entry(arena=arena, player=player)
        elif player.status == PlayerStatus.WITHDRAWN:
            player.registrations += 1
            player.status = PlayerStatus.ACTIVE
            player.note = ""
            player.save(update_fields=["registrations", "status", "note"])
            money.pay_entry(arena=arena, player=player)
        else:  # paused: back in, score and streak kept
            player.status = PlayerStatus.ACTIVE
            player.note = ""
            player.save(update_fields=["status", "note"])
        if arena.status == Status.RUNNING:
            if player.table_id is None:
                player.waiting_since = now
                player.save(update_fields=["waiting_since"])
            opened = _pair_locked(arena, now)
            player.refresh_from_db(fields=["table", "waiting_since", "last_opponents"])
        _after_commit_push(arena.pk, opened)
    return player


def pause(*, arena_id: int, user) -> ArenaPlayer:
    """Stop being paired. Before the start this withdraws, with the entry back; during the window the
    score stays on the leaderboard (and can still win a prize) and a game in progress still counts."""
    with transaction.atomic():
        arena = _lock(arena_id)
        signed_in = user is not None and getattr(user, "is_authenticated", False)
        player = arena.players.filter(user=user).select_related("user").first() if signed_in else None
        if player is None or player.status != PlayerStatus.ACTIVE:
            raise ArenaError("not_joined", "You are not playing in this arena.")
        if arena.status in (Status.FINISHED, Status.CANCELLED):
            raise ArenaError("arena_closed", "This arena is over.")
        if arena.status == Status.SCHEDULED:
            player.status = PlayerStatus.WITHDRAWN
            player.save(update_fields=["status"])
            money.refund_entry(arena=arena, player=player)
        else:
            player.status = PlayerStatus.PAUSED
            player.waiting_since = None
            player.save(update_fields=["status", "waiting_since"])
        _after_commit_push(arena.pk)
    return player


# ----- start, cancel ------------------------------------------------------------------------------

def start(*, arena_id: int, now: datetime | None = None, force: bool = False) -> Arena:
    """Open the window at ``starts_at`` (housekeeping), or now (``force``: an admin's "start now",
    which moves the window to begin now); pairs everyone who joined."""
    now = _now(now)
    with transaction.atomic():
        arena = _lock(arena_id)
        if arena.status != Status.SCHEDULED:
            raise ArenaError("not_scheduled", "This arena has started or is over.")
        if now < arena.starts_at:
            if not force:
                raise ArenaError("not_yet", "This arena starts later.")
            arena.starts_at = now
        arena.status = Status.RUNNING
        arena.started_at = now
        arena.save(update_fields=["status", "started_at", "starts_at", "ends_at"])
        arena.players.filter(status=PlayerStatus.ACTIVE, table__isnull=True).update(waiting_since=now)
        _schedule_next(arena)
        opened = _pair_locked(arena, now)
        _after_commit_push(arena.pk, opened, force=True)
    return arena


def cancel(*, arena_id: int, by=None, reason: str = "staff", now: datetime | None = None) -> Arena:
    """Every entry back (economy.md: a cancelled event refunds and splits nothing); games in progress
    play out but count nothing."""
    now = _now(now)
    with transaction.atomic():
        arena = _lock(arena_id)
        if by is not None and not by.is_staff:
            raise ArenaError("not_staff", "Only staff can cancel arenas.")
        if arena.status in (Status.FINISHED, Status.CANCELLED):
            raise ArenaError("arena_closed", "This arena is over.")
        players = list(arena.players.filter(status__in=HOLDING).select_related("user"))
        money.refund_all(arena=arena, players=players)
        _close(arena, Status.CANCELLED, now, reason=reason)
        _schedule_next(arena)
        _after_commit_push(arena.pk, force=True)
    return arena


def _close(arena: Arena, status: str, now: datetime, *, reason: str = "") -> None:
    arena.status = status
    arena.cancel_reason = reason[:40]
    arena.finished_at = now
    arena.payout_error, arena.payout_failed_at = "", None
    arena.save(update_fields=["status", "cancel_reason", "finished_at", "pool", "payout_error", "payout_failed_at"])
    arena.players.update(waiting_since=None)


# ----- pairing --------------------------------------------------------------------------------------

def pair(*, arena_id: int, now: datetime | None = None) -> list[int]:
    """Seat every group of waiting players that can play now; returns the rooms table ids opened."""
    now = _now(now)
    with transaction.atomic():
        arena = _lock(arena_id)
        opened = _pair_locked(arena, now)
        if opened:
            _after_commit_push(arena.pk, opened)
    return sorted({table_id for _user, table_id in opened})


def _pair_locked(arena: Arena, now: datetime) -> list[Seated]:
    # The clock is read again here: ``now`` may predate a wait for the arena's lock.
    if arena.status != Status.RUNNING or max(now, timezone.now()) >= arena.ends_at:
        return []  # the window is over: no new games
    free = list(arena.players.filter(status=PlayerStatus.ACTIVE, table__isnull=True).select_related("user"))
    if not free:
        return []
    # A player seated in another arena's game waits for it to end (two arenas at once: one game at a time).
    busy = set(ArenaPlayer.objects.filter(user_id__in=[p.user_id for p in free], table__isnull=False)
               .exclude(arena=arena).values_list("user_id", flat=True))
    by_id = {p.pk: p for p in free if p.user_id not in busy}
    waiting = [logic.Waiting(player=p.pk, user=p.user_id, score=p.score,
                             waited=(now - (p.waiting_since or now)).total_seconds(),
                             last_opponents=frozenset(p.last_opponents or []))
               for p in by_id.values()]
    seated: list[Seated] = []
    for group in logic.plan(waiting, seats=arena.seats, bot_after=arena.bot_fill_seconds):
        seated += _open_game(arena, [by_id[w.player] for w in group])
    return seated


def _open_game(arena: Arena, humans: list[ArenaPlayer]) -> list[Seated]:
    """One table: the group in a random seat order, bots in the seats nobody waiting fills."""
    from matchmaking.services import pick_bots

    needed = arena.seats - len(humans)
    bots = pick_bots(game=arena.game, count=needed, exclude={p.user_id for p in humans})
    if len(bots) < needed:
        log.warning("arena %s: %s bots needed, %s free; the players keep waiting", arena.pk, needed, len(bots))
        return []
    order = logic.seat_order([p.user for p in humans] + bots, secrets.SystemRandom())
    try:
        with transaction.atomic():  # a savepoint: a refused seat costs only this table
            table = rooms_services.table_open_seated(room=arena.room, players=order, seat_count=arena.seats)
    except TableError as exc:
        refused = getattr(exc, "player", None)
        player = next((p for p in humans if refused is not None and p.user_id == refused.pk), None)
        if player is None:
            log.warning("arena %s: a game could not be seated: %s", arena.pk, exc.code)
            return []
        # That player cannot sit now: paused with the reason; the others wait for the next pass.
        player.status, player.waiting_since, player.note = PlayerStatus.PAUSED, None, exc.code[:40]
        player.save(update_fields=["status", "waiting_since", "note"])
        return []
    seat_of = {entry["user_id"]: entry["seat"] for entry in table.seating}
    players: list[int | None] = [None] * arena.seats
    for p in humans:
        players[seat_of[p.user_id]] = p.pk
    ArenaGame.objects.create(arena=arena, table=table, players=players)
    for p in humans:
        p.table, p.waiting_since = table, None
        p.last_opponents = [o.user_id for o in humans if o.pk != p.pk]
    ArenaPlayer.objects.bulk_update(humans, ["table", "waiting_since", "last_opponents"])
    return [(p.user_id, table.pk) for p in humans]


# ----- results -------------------------------------------------------------------------------------

def game_over(*, table_id: int, now: datetime | None = None) -> bool:
    """Score a finished (or stopped) arena game once and pair its players again at once."""
    now = _now(now)
    arena_id = ArenaGame.objects.filter(table_id=table_id, scored=False).values_list("arena_id", flat=True).first()
    if arena_id is None:
        return False
    with transaction.atomic():
        arena = _lock(arena_id)
        table = Table.objects.filter(pk=table_id).first()
        if table is None or table.status not in ENDED_STATUSES:
            return False
        # Claimed once (a conditional update): a re-sent signal or housekeeping scores nothing twice.
        if not ArenaGame.objects.filter(table_id=table_id, scored=False).update(scored=True, scored_at=now):
            return False
        game = ArenaGame.objects.get(table_id=table_id)
        _score(arena, game, table, now)
        opened = _pair_locked(arena, now)
        _after_commit_push(arena.pk, opened)
    if now >= arena.ends_at and arena.status == Status.RUNNING:
        finish(arena_id=arena.pk, now=now)  # the last game of the window: standings and prizes now
    return True


def _score(arena: Arena, game: ArenaGame, table: Table, now: datetime) -> None:
    """Points and streaks (``logic``) for a finished table of a running arena; a stopped table, or
    any table of an arena that is over, counts nothing. Its players are free again; one who left or
    was removed from the game is paused (``note`` = ``left_game``)."""
    players = {p.pk: p for p in ArenaPlayer.objects.filter(pk__in=[pk for pk in game.players if pk])}
    ranks = (table.result or {}).get("ranks") if table.status == TableStatus.FINISHED else None
    points: list[int | None] = [None] * len(game.players)
    if ranks and arena.status == Status.RUNNING:
        outcomes = logic.outcomes(ranks, game_spec(arena.game).sides(len(game.players)))
        for seat, pk in enumerate(game.players):
            if pk is None or pk not in players:
                continue
            p = players[pk]
            gained, p.streak, doubled = logic.score(p.streak, outcomes[seat])
            p.score += gained
            p.games += 1
            p.wins += int(outcomes[seat].win)
            p.sheet = [*(p.sheet or []), [gained, int(doubled)]]
            points[seat] = gained
    status_of = {entry["seat"]: entry["status"] for entry in table.seating or []}
    for seat, pk in enumerate(game.players):
        if pk is None or pk not in players:
            continue
        p = players[pk]
        if p.table_id == table.pk:
            p.table = None
        if status_of.get(seat) in (SeatStatus.LEFT, SeatStatus.REMOVED) and p.status == PlayerStatus.ACTIVE:
            p.status, p.note = PlayerStatus.PAUSED, NOTE_LEFT  # gone from the table: not paired again unasked
        p.waiting_since = now if p.status == PlayerStatus.ACTIVE and p.table is None else None
    ArenaPlayer.objects.bulk_update(list(players.values()), ["score", "games", "wins", "streak", "sheet", "table",
                                                             "status", "note", "waiting_since"])
    game.points = points
    game.save(update_fields=["points"])


# ----- the end of the window -------------------------------------------------------------------------

def finish(*, arena_id: int, now: datetime | None = None) -> bool:
    """After the window, once every game in progress has ended and counted: final standings, prizes."""
    now = _now(now)
    try:
        with transaction.atomic():
            arena = _lock(arena_id)
            if arena.status != Status.RUNNING or now < arena.ends_at:
                return False
            pending = arena.games.filter(scored=False)
            if pending.exists():
                if now < arena.ends_at + OVERTIME:
                    return False  # games in progress finish and count first
                stuck = list(pending.values_list("table_id", flat=True))
                log.warning("arena %s: games on tables %s still running after the overtime count nothing",
                            arena.pk, stuck)
                pending.update(scored=True, scored_at=now)
                arena.players.filter(table_id__in=stuck).update(table=None)
            _finish_locked(arena, now)
            _after_commit_push(arena.pk, force=True)
    except PayoutError as exc:
        Arena.objects.filter(pk=arena_id).update(payout_error=f"{exc.code}: {exc.message}"[:200],
                                                 payout_failed_at=now)
        raise
    return True


def _finish_locked(arena: Arena, now: datetime) -> None:
    """Places among the players who finished a game (equal scores share a place and split its
    prizes); nobody did and entries were paid: every entry back (cancelled, ``no_games``)."""
    players = list(arena.players.filter(status__in=HOLDING).select_related("user"))
    pool = sum(p.paid for p in players)
    ranked = {p.pk: p.score for p in players if p.games}
    try:
        if not ranked and pool:
            money.refund_all(arena=arena, players=players)
            _close(arena, Status.CANCELLED, now, reason="no_games")
            return
        rake = rake_of(pot=pool, rake_bps=arena.rake_bps)
        places = logic.competition_ranks(ranked)
        amounts = logic.prize_amounts(pool=pool - rake, payouts=list(arena.payouts), places=len(ranked))
        prizes = logic.split_prizes(ranks=places, amounts=amounts) if ranked else {}
        by_pk = {p.pk: p for p in players}
        money.pay_prizes(arena=arena, rake=rake, prizes={by_pk[pk]: amount for pk, amount in prizes.items()})
    except ArenaError as exc:
        log.error("arena %s: paying the prizes failed: %s %s", arena.pk, exc.code, exc.message)
        raise PayoutError(exc.code, exc.message) from exc
    for p in players:
        p.place = places.get(p.pk)
        p.prize = prizes.get(p.pk, 0)
    ArenaPlayer.objects.bulk_update(players, ["place", "prize"])
    arena.pool = pool - rake
    _close(arena, Status.FINISHED, now)


# ----- housekeeping (the timer sweep) ------------------------------------------------------------------

def housekeeping(*, now: datetime | None = None) -> dict:
    """Start due arenas; in running ones score games whose end was not heard (a lost signal, a stopped
    table), seat bots for players who waited long enough, and close the window."""
    from arenas import broadcast

    now = _now(now)
    done = {"started": 0, "scored": 0, "paired": 0, "finished": 0}
    if broadcast.held_back():  # running arenas flush below; a scheduled one's joins would wait for its start
        for pk in Arena.objects.filter(status=Status.SCHEDULED).values_list("pk", flat=True):
            broadcast.flush(pk)
    for pk in Arena.objects.filter(status=Status.SCHEDULED, starts_at__lte=now).values_list("pk", flat=True):
        try:
            start(arena_id=pk, now=now)
            done["started"] += 1
        except ArenaError as exc:  # e.g. another pass started it first
            log.info("arena %s not started: %s", pk, exc.code)
    for pk, ends_at in Arena.objects.filter(status=Status.RUNNING).values_list("pk", "ends_at"):
        try:
            for table_id in ArenaGame.objects.filter(arena_id=pk, scored=False, table__status__in=ENDED_STATUSES
                                                     ).values_list("table_id", flat=True):
                done["scored"] += game_over(table_id=table_id, now=now)
            if now >= ends_at:
                done["finished"] += finish(arena_id=pk, now=now)
            else:
                done["paired"] += len(pair(arena_id=pk, now=now))
            broadcast.flush(pk)
        except ArenaError as exc:  # e.g. a failed payout (recorded): the other arenas go on
            log.warning("arena %s: housekeeping stopped: %s %s", pk, exc.code, exc.message)
    return done
