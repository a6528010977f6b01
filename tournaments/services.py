"""Tournament lifecycle: schedule, register, start, play rounds, finish or cancel.

Every state change locks the tournament row (``select_for_update``); money moves through
``tournaments.money`` (the ledger's public services) in the same transaction; pushes and task
enqueues run after commit. The 31 freezeout plays hand for hand: each tournament table plays one
hand on a fresh rooms Table (``hands: 1`` with the table's stacks, hand count and ebe), then
``advance`` ranks the busts, rebalances (``logic.balance``) and, after the tournament's pause between
hands (``next_deal_at``), ``deal`` deals the next hand everywhere. Players keep one page per
tournament table across hands (docs/tournaments.md, "One table across hands").
Brackets (Lembar, Cherki, Baloot pairs) play one rooms Table per match; the top advances.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from gameworkers.engines import game_spec
from rooms import services as rooms_services
from rooms.errors import TableError
from rooms.models import ENDED_STATUSES, Room, SeatStatus, StakeKind, Table, TableStatus
from tournaments import logic, money
from tournaments.errors import TournamentError
from tournaments.models import (
    HOLDING,
    Entry,
    EntryStatus,
    LevelsBy,
    PayoutStructure,
    Status,
    Tournament,
    TournamentTable,
)

log = logging.getLogger(__name__)

# (user id, rooms table id, tournament table number): a human seated at a freshly dealt table.
SeatPush = tuple[int, int, int]

ACTIVE = (EntryStatus.REGISTERED, EntryStatus.PLAYING)


class PayoutError(TournamentError):
    """Paying the prizes failed: the finish is rolled back and the failure is recorded on the tournament."""


def _lock(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().select_related("room").get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise TournamentError("no_such_tournament", "There is no such tournament.", status=404) from None


def _after_commit_push(tournament_id: int, moves: list[SeatPush] | None = None) -> None:
    def push() -> None:
        from tournaments import broadcast

        broadcast.tournament_changed(tournament_id, moves=moves or [])

    transaction.on_commit(push)


# ----- admin: create, schedule ------------------------------------------------------------------

def tournament_create(*, name: str, room: Room, starts_at: datetime | None = None, game: str | None = None,
                      registration_opens_at: datetime | None = None, repeat_every: timedelta | None = None,
                      entry_fee: int = 20, rake_bps: int = 0, starting_stack: int = 100,
                      ante_schedule: dict | list | None = None, seats_per_table: int | None = None,
                      min_entrants: int = 2, max_entrants: int | None = None,
                      fill_with_bots: bool = True, hand_pause_seconds: int = 3,
                      payout_structure: PayoutStructure | None = None, sit_and_go: bool = False,
                      fill_after_seconds: int = 60, late_registration_level: int | None = None,
                      max_entries: int = 1, levels_by: str = LevelsBy.HANDS, level_minutes: int = 10) -> Tournament:
    """Schedule a tournament (announced; registering at once when registration opens now or earlier).

    A sit & go has no start time of its own (``starts_at`` defaults to now): it starts when
    ``max_entrants`` have registered, or when bots fill it ``fill_after_seconds`` after the first
    registration (``fill_with_bots``)."""
    from django.core.exceptions import ValidationError

    if starts_at is None and sit_and_go:
        starts_at = timezone.now()  # it starts when full; this only orders the lists
    tournament = Tournament(
        name=name, room=room, game=game or room.game, starts_at=starts_at,
        registration_opens_at=registration_opens_at, repeat_every=repeat_every, entry_fee=entry_fee,
        rake_bps=rake_bps, starting_stack=starting_stack,
        ante_schedule=ante_schedule if ante_schedule is not None else {"base": 1, "double_every": 5},
        seats_per_table=seats_per_table or min(7, room.seats), min_entrants=min_entrants,
        max_entrants=max_entrants, fill_with_bots=fill_with_bots, hand_pause_seconds=hand_pause_seconds,
        payout_structure=payout_structure, sit_and_go=sit_and_go, fill_after_seconds=fill_after_seconds,
        late_registration_level=late_registration_level, max_entries=max_entries, levels_by=levels_by,
        level_minutes=level_minutes,
    )
    try:
        tournament.full_clean()
    except ValidationError as exc:
        raise TournamentError("bad_tournament", "; ".join(f"{k}: {' '.join(v)}" for k, v in
                                                          exc.message_dict.items())) from None
    if registration_opens_at is None or registration_opens_at <= timezone.now():
        tournament.status = Status.REGISTERING
    tournament.save()
    return tournament


def open_registration(*, tournament_id: int) -> Tournament:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Status.ANNOUNCED:
            raise TournamentError("not_announced", "Registration is open already or over.", status=409)
        tournament.status = Status.REGISTERING
        tournament.save(update_fields=["status"])
    _after_commit_push(tournament.pk)
    return tournament


# The settings a recurring tournament or a sit & go hands to the next one (not its state, nor the
# frozen payout rows: the next one freezes its own at its first registration).
SETTINGS = ("name", "game", "room", "repeat_every", "currency", "entry_fee", "rake_bps", "starting_stack",
            "ante_schedule", "seats_per_table", "min_entrants", "max_entrants", "fill_with_bots",
            "hand_pause_seconds", "payout_structure", "sit_and_go", "fill_after_seconds",
            "late_registration_level", "max_entries", "levels_by", "level_minutes")


def _schedule_next(tournament: Tournament) -> None:
    """Recurring tournaments: the next occurrence, once, when this one starts or is cancelled."""
    if not tournament.repeat_every or tournament.next_created:
        return
    fields = {name: getattr(tournament, name) for name in SETTINGS}
    opens = tournament.registration_opens_at + tournament.repeat_every if tournament.registration_opens_at else None
    Tournament.objects.create(
        **fields, starts_at=tournament.starts_at + tournament.repeat_every, registration_opens_at=opens,
        status=Status.REGISTERING if opens is None or opens <= timezone.now() else Status.ANNOUNCED)
    tournament.next_created = True
    tournament.save(update_fields=["next_created"])


def _open_next_sit_and_go(tournament: Tournament) -> None:
    """A sit & go that starts opens the next one with the same settings at once, once. [decided] One
    cancelled by staff opens none: the operator is stopping it."""
    if not tournament.sit_and_go or tournament.next_created:
        return
    Tournament.objects.create(**{name: getattr(tournament, name) for name in SETTINGS}, starts_at=timezone.now(),
                              status=Status.REGISTERING)
    tournament.next_created = True
    tournament.save(update_fields=["next_created"])


# ----- registration -------------------------------------------------------------------------------

def register(*, tournament_id: int, user, partner=None) -> Entry:
    """Register (paying the entry into the tournament escrow). Baloot: name the ``partner`` whose
    team you join, or register alone to open a team your partner then joins.

    While a 31 tournament runs and its late registration is open, this is a **late registration** (or,
    for a player whose last entry is out, a **re-entry**, up to ``max_entries`` entries each paying the
    entry): the new entry waits, registered, for the end of the hand in play and is then seated with
    the starting stack (``_advance_freezeout``). A sit & go starts as soon as it is full."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise TournamentError("not_logged_in", "Log in to register.", status=401)
    with transaction.atomic():
        tournament = _lock(tournament_id)
        late = tournament.status == Status.RUNNING
        if late and not _late_registration_open(tournament):
            raise TournamentError("registration_closed", "Late registration is over.", status=409)
        if not late and tournament.status != Status.REGISTERING:
            raise TournamentError("registration_closed", "Registration is not open.", status=409)
        active = tournament.entries.filter(status__in=ACTIVE)
        if tournament.max_entrants and active.count() >= tournament.max_entrants:
            raise TournamentError("tournament_full", "Every place is taken.", status=409)
        team = None
        if partner is not None:
            if tournament.team_size < 2:
                raise TournamentError("no_teams", "This tournament is not played in pairs.")
            lead = active.filter(user=partner).first()
            if lead is None or partner == user:
                raise TournamentError("no_such_partner", "Your partner is not registered.", status=409)
            if active.filter(team=lead.unit).count() >= tournament.team_size:
                raise TournamentError("team_full", "That team is complete.", status=409)
            team = lead.unit
        entry = _new_entry(tournament, user, team)
        if tournament.team_size > 1 and team is None:
            entry.team = entry.pk
            entry.save(update_fields=["team"])
        money.pay_entry(tournament=tournament, entry=entry)
        _freeze_payout_rows(tournament)
        if late:
            _count_late_entry(tournament, entry)
        full = _sit_and_go_registered(tournament)
    _after_commit_push(tournament.pk)
    if full:
        _start_full(tournament.pk)
    return entry


def _new_entry(tournament: Tournament, user, team: int | None) -> Entry:
    """The entry row this registration pays for: the player's first, the one they unregistered (registered
    again), or, once their last entry is out, a re-entry (a new row, numbered on)."""
    latest = tournament.entries.filter(user=user).order_by("-number").first()
    if latest is not None and latest.status in ACTIVE:
        raise TournamentError("already_registered", "You are registered already.", status=409)
    used = tournament.entries.filter(user=user, status__in=HOLDING).count()
    if used >= tournament.max_entries:
        if tournament.max_entries > 1:
            raise TournamentError("no_entries_left", f"You have used all {tournament.max_entries} of your entries.",
                                  status=409)
        raise TournamentError("already_registered", "You have entered this tournament already.", status=409)
    stack = tournament.starting_stack if tournament.status == Status.RUNNING else 0
    if latest is None:
        return Entry.objects.create(tournament=tournament, user=user, team=team, stack=stack)
    if latest.status == EntryStatus.UNREGISTERED:
        latest.status = EntryStatus.REGISTERED
        latest.registrations += 1
        latest.team = team
        latest.stack = stack
        latest.save(update_fields=["status", "registrations", "team", "stack"])
        return latest
    if latest.status != EntryStatus.OUT:  # refunded at the start (an odd bracket field) or the winner
        raise TournamentError("registration_closed", "Registration is not open.", status=409)
    # A re-entry: a new row; the ledger keys number on from the player's last registration.
    return Entry.objects.create(tournament=tournament, user=user, team=team, stack=stack, number=latest.number + 1,
                                registrations=latest.registrations + 1)


def _late_registration_open(tournament: Tournament, now: datetime | None = None) -> bool:
    from tournaments import selectors

    return selectors.late_registration_open(tournament=tournament, now=now)


def _count_late_entry(tournament: Tournament, entry: Entry) -> None:
    """A late entry counts in the field and the pool at once; every player already out ranks below it
    (it is still in), so their places move down one. [reading] Places of players out during late
    registration are final once it closes."""
    tournament.entrants += 1
    tournament.pool += entry.paid
    tournament.save(update_fields=["entrants", "pool"])
    tournament.entries.filter(status=EntryStatus.OUT, place__isnull=False).update(place=F("place") + 1)


def _freeze_payout_rows(tournament: Tournament) -> None:
    """The first registration freezes the split players register under (like the fee)."""
    if tournament.payout_rows is None:
        tournament.payout_rows = [[n, percents] for n, percents in tournament.payout_rows_now()]
        tournament.save(update_fields=["payout_rows"])


def _sit_and_go_registered(tournament: Tournament) -> bool:
    """A sit & go after a registration: full (start it), or the bots' wait runs from the first entry."""
    if not tournament.sit_and_go or tournament.status != Status.REGISTERING:
        return False
    count = tournament.entries.filter(status__in=ACTIVE).count()
    if tournament.max_entrants and count >= tournament.max_entrants:
        return True
    if tournament.fill_with_bots and tournament.bots_fill_at is None and count:
        tournament.bots_fill_at = timezone.now() + timedelta(seconds=tournament.fill_after_seconds)
        tournament.save(update_fields=["bots_fill_at"])
    return False


def _start_full(tournament_id: int) -> None:
    """Start a full sit & go now (after the registration committed: that registration stands whatever
    happens here); housekeeping starts a full one whose start failed."""
    try:
        start(tournament_id=tournament_id)
    except TournamentError as exc:  # e.g. started by a concurrent registration or housekeeping
        log.info("sit & go %s not started: %s", tournament_id, exc.code)
    except Exception:  # e.g. a database error: the timer's housekeeping starts it within a second
        log.exception("sit & go %s: the start failed", tournament_id)


def unregister(*, tournament_id: int, user) -> Entry:
    """Before the start: what the entry paid comes back in full (``Entry.paid``)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = tournament.entries.filter(user=user, status=EntryStatus.REGISTERED).first() if user else None
        if entry is None:
            raise TournamentError("not_registered", "You are not registered.", status=409)
        if tournament.status not in (Status.ANNOUNCED, Status.REGISTERING):
            raise TournamentError("already_started", "The tournament has started.", status=409)
        entry.status = EntryStatus.UNREGISTERED
        entry.save(update_fields=["status"])
        money.refund_entry(tournament=tournament, entry=entry)
        if tournament.bots_fill_at is not None and not tournament.entries.filter(status__in=ACTIVE).exists():
            tournament.bots_fill_at = None  # a sit & go nobody is waiting in: bots wait for the next player
            tournament.save(update_fields=["bots_fill_at"])
        if tournament.team_size > 1 and entry.team == entry.pk:
            # the team's founder leaves: the partner (if any) now leads the team
            partner = tournament.entries.filter(team=entry.pk, status__in=ACTIVE).exclude(pk=entry.pk).first()
            if partner is not None:
                tournament.entries.filter(pk=partner.pk).update(team=partner.pk)
    _after_commit_push(tournament.pk)
    return entry


# ----- cancel ------------------------------------------------------------------------------------

def cancel(*, tournament_id: int, reason: str = "staff", by=None) -> Tournament:
    """Before the start every entry comes back; after it, the entries of players still in, nothing split."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if by is not None and not by.is_staff:
            raise TournamentError("not_staff", "Only staff can cancel tournaments.", status=403)
        _cancel_locked(tournament, reason)
    return tournament


def _cancel_locked(tournament: Tournament, reason: str, detail: dict | None = None) -> None:
    """``detail``: numbers that say why (too few entrants: registered and minimum); the page words them."""
    if tournament.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentError("tournament_over", "This tournament is over.", status=409)
    started = tournament.status == Status.RUNNING
    refund = list(tournament.entries.filter(status__in=ACTIVE).select_related("user").order_by("pk"))
    money.cancel(tournament=tournament, refund_entries=refund)
    Entry.objects.filter(pk__in=[e.pk for e in refund]).update(status=EntryStatus.REFUNDED, table=None)
    tournament.status = Status.CANCELLED
    tournament.cancel_reason = reason[:40]
    tournament.cancel_detail = {**(detail or {}), "started": started, "refunded": len(refund),
                                "refund": sum(e.paid for e in refund)}
    tournament.finished_at = timezone.now()
    tournament.next_deal_at = None
    tournament.save(update_fields=["status", "cancel_reason", "cancel_detail", "finished_at", "next_deal_at"])
    if started:
        for tt in tournament.tables.filter(table__isnull=False).select_related("table"):
            if tt.table.status not in ENDED_STATUSES:
                table_id = tt.table_id
                transaction.on_commit(lambda table_id=table_id: _stop_table(table_id))
    _schedule_next(tournament)
    if reason == "too_few_entrants":
        _open_next_sit_and_go(tournament)  # bots could not fill it: the sit & go stays on offer
    _after_commit_push(tournament.pk)


def _stop_table(table_id: int) -> None:
    try:
        rooms_services.table_stop(table_id=table_id, reason="staff", by=_staff_user())
    except TableError:
        pass


def _staff_user():
    from accounts.models import User

    return User(is_staff=True)


# ----- start ---------------------------------------------------------------------------------------

def _add_bots(tournament: Tournament, needed: int) -> None:
    from accounts.models import User

    taken = tournament.entries.values_list("user_id", flat=True)
    bots = list(User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=list(taken))
                .order_by("pk")[:needed])
    for bot in bots:
        entry = Entry.objects.create(tournament=tournament, user=bot)
        if tournament.team_size > 1:
            entry.team = entry.pk
            entry.save(update_fields=["team"])
        money.pay_entry(tournament=tournament, entry=entry)


def _units(tournament: Tournament) -> dict[int, list[Entry]]:
    units: dict[int, list[Entry]] = {}
    for entry in tournament.entries.filter(status__in=ACTIVE).select_related("user").order_by("registered_at", "pk"):
        units.setdefault(entry.unit, []).append(entry)
    return units


def start(*, tournament_id: int) -> Tournament:
    """Close registration: too few entrants cancels (bots fill first when allowed); else deal."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status not in (Status.ANNOUNCED, Status.REGISTERING):
            raise TournamentError("not_registering", "This tournament cannot start now.", status=409)
        if tournament.team_size > 1:
            _complete_teams(tournament)
        units = _units(tournament)
        count = len(units)  # registered players (teams), before any bot
        if tournament.sit_and_go and tournament.fill_with_bots and tournament.max_entrants:
            # a sit & go fills every empty seat (its maximum counts players, as registration does)
            missing = tournament.max_entrants - tournament.entries.filter(status__in=ACTIVE).count()
            if missing > 0:
                _add_bots(tournament, missing)
                if tournament.team_size > 1:
                    _complete_teams(tournament)
                units = _units(tournament)
        if len(units) < tournament.min_entrants and tournament.fill_with_bots:
            _add_bots(tournament, (tournament.min_entrants - len(units)) * tournament.team_size)
            if tournament.team_size > 1:
                _complete_teams(tournament)
            units = _units(tournament)
        if tournament.needs_odd_field and len(units) % 2 == 0 and units:
            # Tables of exactly three reach one winner only from an odd count: a bot takes the seat
            # (or, without bots, the latest registration is refunded).
            if tournament.fill_with_bots:
                _add_bots(tournament, 1)
            else:
                last = tournament.entries.filter(status__in=ACTIVE).order_by("-registered_at", "-pk").first()
                last.status = EntryStatus.REFUNDED
                last.save(update_fields=["status"])
                money.refund_entry(tournament=tournament, entry=last)
            units = _units(tournament)
        if len(units) < max(2, tournament.min_entrants):
            _cancel_locked(tournament, "too_few_entrants",
                           {"registered": count, "minimum": max(2, tournament.min_entrants),
                            "bots": max(0, len(units) - count)})
            return tournament
        entries = [e for members in units.values() for e in members]
        Entry.objects.filter(pk__in=[e.pk for e in entries]).update(status=EntryStatus.PLAYING,
                                                                   stack=tournament.starting_stack)
        tournament.status = Status.RUNNING
        tournament.started_at = timezone.now()
        tournament.entrants = len(entries)
        tournament.pool = sum(e.paid for e in entries)  # what they paid, whatever the fee says now
        tournament.round = 1
        tournament.round_dealt = False
        order = list(units)
        secrets.SystemRandom().shuffle(order)  # the seat draw
        if tournament.is_freezeout:
            for state in logic.seat_players(order, seats=tournament.seats_per_table):
                TournamentTable.objects.create(tournament=tournament, number=state.id, round=0,
                                               players=state.players, hands=0)
                Entry.objects.filter(pk__in=state.players).update(
                    table=TournamentTable.objects.get(tournament=tournament, number=state.id))
        else:
            order = list(units)  # brackets: byes go to the earliest registrations
            try:
                groups = logic.first_round(order, k=tournament.table_size, low=_bracket_low(tournament))
            except logic.LogicError as exc:
                raise TournamentError(exc.code, exc.message, status=409) from None
            _create_matches(tournament, 1, groups)
        tournament.bots_fill_at = None
        tournament.save()
        _schedule_next(tournament)
        _open_next_sit_and_go(tournament)
    deal(tournament_id=tournament.pk)
    return tournament


def _complete_teams(tournament: Tournament) -> None:
    """Baloot: a team still missing its partner is refunded at the start (or filled by a bot)."""
    from accounts.models import User

    for unit, members in _units(tournament).items():
        if len(members) >= 2:
            continue
        if tournament.fill_with_bots:
            taken = tournament.entries.values_list("user_id", flat=True)
            bot = User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=list(taken)).order_by("pk").first()
            if bot is not None:
                entry = Entry.objects.create(tournament=tournament, user=bot, team=unit)
                money.pay_entry(tournament=tournament, entry=entry)
                continue
        for entry in members:
            entry.status = EntryStatus.REFUNDED
            entry.save(update_fields=["status"])
            money.refund_entry(tournament=tournament, entry=entry)


def _bracket_low(tournament: Tournament) -> int:
    """The fewest entrants a bracket table may have: a fixed-size game's size, else the room's minimum."""
    spec = game_spec(tournament.game)
    if spec.bracket_size is None:
        return max(spec.min_seats, tournament.room.min_seats)
    return tournament.table_size


def _create_matches(tournament: Tournament, round_number: int, groups: list[list[int]]) -> None:
    for number, group in enumerate(groups, start=1):
        TournamentTable.objects.create(tournament=tournament, number=number, round=round_number, players=group,
                                       winner=group[0] if len(group) == 1 else None)


# ----- dealing tables ----------------------------------------------------------------------------------

def _otuzbir_options(tournament: Tournament, tt: TournamentTable, stacks: list[int],
                     now: datetime | None = None) -> dict:
    """The engine options of one table's next hand. Levels by hands: the schedule with the table's hand
    count (the engine picks the ante). Levels by minutes: the ante in force when the hand is dealt, as a
    one-level schedule (hand for hand: each new hand takes the level of its deal)."""
    schedule = tournament.ante_schedule
    if tournament.levels_by_minutes:
        from tournaments import selectors

        schedule = {"levels": [selectors.level_of(tournament=tournament, hands=tt.hands, now=now)["ante"]],
                    "every": 1}
    options = {"stacks": stacks, "hands": 1, "ante_schedule": schedule, "hand_offset": tt.hands,
               "rake_bps": 0}
    if tt.ebe is not None and tt.ebe in tt.players:
        options["ebe"] = tt.players.index(tt.ebe)
    return options


def deal(*, tournament_id: int, now: datetime | None = None) -> list[int]:
    """Open the current round's rooms Tables (one transaction per table; idempotent); returns their ids.

    Not before ``next_deal_at`` (the pause between hands): called early (a task that fired before
    its time), it does nothing and housekeeping deals once the pause is over."""
    tournament = Tournament.objects.select_related("room").get(pk=tournament_id)
    if tournament.status != Status.RUNNING or tournament.round_dealt:
        return []
    if tournament.next_deal_at is not None and tournament.next_deal_at > (now or timezone.now()):
        return []
    opened: list[int] = []
    moves: list[SeatPush] = []
    if tournament.is_freezeout:
        pending = tournament.tables.filter(broken=False).exclude(round=tournament.round).order_by("number")
    else:
        pending = tournament.tables.filter(round=tournament.round, winner__isnull=True, table__isnull=True)
    failed = False
    for tt_id in list(pending.values_list("pk", flat=True)):
        try:
            table_id = _deal_one(tournament, tt_id)
        except Exception:  # e.g. a locked database: housekeeping deals the rest of the round again
            log.exception("dealing tournament %s table %s failed", tournament_id, tt_id)
            failed = True
            continue
        if table_id is not None:
            opened.append(table_id)
    if failed:
        return opened
    Tournament.objects.filter(pk=tournament_id, round=tournament.round, status=Status.RUNNING).update(
        round_dealt=True, next_deal_at=None)
    humans = [e for e in tournament.entries.filter(status__in=ACTIVE, user__is_bot=False)]
    for tt in tournament.tables.filter(table_id__in=opened):
        for entry in humans:
            if (entry.pk if tournament.is_freezeout else entry.unit) in tt.players:
                moves.append((entry.user_id, tt.table_id, tt.number))
    from tournaments import broadcast

    broadcast.tournament_changed(tournament.pk, moves=moves)
    advance(tournament_id=tournament.pk)  # tables that already ended (or a round of byes) move on now
    return opened


def _deal_one(tournament: Tournament, tt_id: int) -> int | None:
    with transaction.atomic():
        # Claim first (a conditional write before any read): two dealers never open the same table.
        if tournament.is_freezeout:
            claimed = TournamentTable.objects.filter(pk=tt_id).exclude(round=tournament.round).update(
                round=tournament.round)
        else:
            claimed = TournamentTable.objects.filter(pk=tt_id, table__isnull=True, winner__isnull=True).update(
                hands=F("hands") + 1)  # bracket matches count their deals in ``hands``
        if not claimed:
            return None
        tt = TournamentTable.objects.select_for_update().get(pk=tt_id)
        if not tournament.is_freezeout and tt.hands > 1 and tt.table_id is not None:
            return None
        seats = _seating(tournament, tt)
        if len(seats) < 2:
            return None
        options = None
        if tournament.is_freezeout:
            stacks = [e.stack for e in seats]
            options = _otuzbir_options(tournament, tt, stacks)
        table = rooms_services.table_open_seated(room=tournament.room, players=[e.user for e in seats],
                                                 seat_count=len(seats), options=options)
        tt.table = table
        tt.save(update_fields=["table"])
        return table.pk


def _seating(tournament: Tournament, tt: TournamentTable) -> list[Entry]:
    """Entries in engine seat order (Baloot: team A on seats 0 and 2, team B on 1 and 3)."""
    if tournament.is_freezeout:
        by_id = {e.pk: e for e in Entry.objects.filter(pk__in=tt.players).select_related("user")}
        return [by_id[p] for p in tt.players if p in by_id]
    members = {}
    for entry in Entry.objects.filter(tournament=tournament, status__in=ACTIVE).select_related("user").order_by("pk"):
        members.setdefault(entry.unit, []).append(entry)
    if tournament.team_size > 1:
        a, b = (members.get(u, []) for u in tt.players)
        return [a[0], b[0], a[1], b[1]]
    return [members[u][0] for u in tt.players if u in members]


# ----- advancing ---------------------------------------------------------------------------------------

def advance(*, tournament_id: int) -> bool:
    """After tables end: when every table of the round has ended, settle it and deal the next round.

    A failed prize payout rolls the whole finish back (the round is retried by housekeeping) and is
    recorded on the tournament (``payout_error``), where ``ledger_check`` reports it."""
    try:
        return _advance(tournament_id)
    except PayoutError as exc:
        Tournament.objects.filter(pk=tournament_id).update(
            payout_error=f"{exc.code}: {exc.message}"[:200], payout_failed_at=timezone.now())
        raise


def _advance(tournament_id: int) -> bool:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Status.RUNNING or not tournament.round_dealt:
            return False
        if _round_tables(tournament) is None:
            return False
        # Claim the round (a conditional update): a second advance of the same round does nothing.
        if not Tournament.objects.filter(pk=tournament.pk, round=tournament.round, round_dealt=True,
                                         status=Status.RUNNING).update(round_dealt=False):
            return False
        tournament.round_dealt = False
        if tournament.is_freezeout:
            moved = _advance_freezeout(tournament)
        else:
            moved = _advance_bracket(tournament)
        if moved is None:
            return False
        pause = tournament.hand_pause_seconds if tournament.is_freezeout else 0
        if tournament.status == Status.RUNNING and pause:
            # Players read the hand result before the next hand's timer runs: the next deal waits.
            tournament.next_deal_at = timezone.now() + timedelta(seconds=pause)
            tournament.save(update_fields=["next_deal_at"])
            transaction.on_commit(lambda: _enqueue_deal(tournament.pk, pause))
        _after_commit_push(tournament.pk)
    if tournament.status == Status.RUNNING and not pause:
        deal(tournament_id=tournament.pk)
    return True


def _enqueue_deal(tournament_id: int, delay_s: float) -> None:
    """The next hand's deal on time (a Celery countdown); housekeeping deals it if this is lost."""
    try:
        from tournaments import tasks

        tasks.enqueue_deal(tournament_id, delay_s)
    except Exception:  # the broker is down: housekeeping deals within a second of the pause's end
        log.exception("tournament %s: scheduling the next deal failed", tournament_id)


def _round_tables(tournament: Tournament) -> list[TournamentTable] | None:
    tts = list(tournament.tables.filter(broken=False, round=tournament.round).select_related("table"))
    if tournament.is_freezeout:
        tts = [tt for tt in tts if tt.table is not None]
    for tt in tts:
        if tt.table is not None and tt.table.status not in ENDED_STATUSES:
            return None
    return tts


def _advance_freezeout(tournament: Tournament) -> list | None:
    tts = _round_tables(tournament)
    if tts is None:
        return None
    entries = {e.pk: e for e in tournament.entries.filter(status=EntryStatus.PLAYING)}
    # late entries and re-entries registered while the hand was played: seated now, with the starting stack
    waiting = list(tournament.entries.filter(status=EntryStatus.REGISTERED).order_by("registered_at", "pk"))
    busts: list[logic.Bust] = []
    states: list[logic.TableState] = []
    out_tables: dict[int, int] = {}  # entry -> the rooms table of the hand it went out in
    for tt in tts:
        table: Table = tt.table
        out_tables.update(dict.fromkeys(tt.players, table.pk))
        seated = [p for p in tt.players if p in entries]
        out: set[int] = set()
        ebe = tt.ebe
        if table.status == TableStatus.FINISHED and table.result:
            result = table.result
            left = result.get("left") or [False] * len(seated)
            moments = _leave_moments(table)
            for seat, player in enumerate(seated):
                entry = entries[player]
                start_stack = entry.stack
                entry.stack = int(result["stacks"][seat])
                if result["eliminated"][seat] is not None:
                    # a leaver went out at its leave, not at the hand's end (spec: ranks below)
                    left_at = moments.get(seat, (0, 0)) if left[seat] else None
                    busts.append(logic.Bust(player, start_stack, seat, left_at))
                    out.add(player)
            tt.hands += int(result.get("hands_played", 1))
            engine_ebe = (table.state or {}).get("ebe")
            if isinstance(engine_ebe, int) and 0 <= engine_ebe < len(seated):
                ebe = seated[engine_ebe]
        else:  # stopped: the hand is void; players who left or were removed are out with their stack
            gone = dict(table.seats.exclude(status__in=[SeatStatus.SEATED, SeatStatus.STOOD])
                        .values_list("number", "left_at"))
            moments = _leave_moments(table)
            for seat, player in enumerate(seated):
                if seat in gone:
                    # out at the moment it left (the engine's record; else the seat's own time)
                    left_at = moments.get(seat) or (_ms(gone[seat]), 0)
                    busts.append(logic.Bust(player, entries[player].stack, seat, left_at))
                    out.add(player)
        staying = [p for p in seated if p not in out]
        ebe = logic.pass_ebe(seated, ebe, staying) if ebe is not None else None
        tt.players, tt.ebe = staying, ebe
        states.append(logic.TableState(tt.number, staying, tt.hands, ebe))
    alive = [p for p in entries if p not in {b.player for b in busts}] + [e.pk for e in waiting]
    places = logic.rank_busts(busts, remaining=len(alive))
    for entry in waiting:
        entry.status, entry.stack = EntryStatus.PLAYING, tournament.starting_stack
        entries[entry.pk] = entry
    for bust in busts:
        entry = entries[bust.player]
        entry.status = EntryStatus.OUT
        entry.place = places[bust.player]
        entry.out_round = tournament.round
        entry.out_stack = bust.start_stack
        entry.out_seat = bust.seat
        entry.out_table = out_tables.get(bust.player)
        entry.table = None
    by_number = {tt.number: tt for tt in tts}
    moves: list[tuple[int, int]] = []
    if len(alive) <= 1:
        for player in alive:
            entries[player].status = EntryStatus.WON
            entries[player].place = 1
            entries[player].table = None
        for tt in tts:
            tt.broken = len(tt.players) == 0
    else:
        if waiting:  # a free seat each, or new tables; the balancing below evens them out
            last = max(tournament.tables.values_list("number", flat=True), default=0)
            states = logic.seat_late(states, [e.pk for e in waiting], seats=tournament.seats_per_table,
                                     next_id=last + 1)
        result = logic.balance(states, seats=tournament.seats_per_table)
        new = {s.id: s for s in result.tables}
        for number, tt in by_number.items():
            if number in new:
                tt.players, tt.hands, tt.ebe = new[number].players, new[number].hands, new[number].ebe
                for player in tt.players:
                    entries[player].table = tt
            else:
                tt.broken = True
                tt.players = []
        for number, state in new.items():
            if number not in by_number:  # a new table for late entrants: dealt with the next hand
                tt = TournamentTable.objects.create(tournament=tournament, number=number, round=0,
                                                    players=state.players, hands=state.hands, ebe=state.ebe)
                for player in state.players:
                    entries[player].table = tt
        moves = [(m.player, m.to_table) for m in result.moves]
    Entry.objects.bulk_update(list(entries.values()),
                              ["status", "stack", "place", "out_round", "out_stack", "out_seat", "out_table", "table"])
    TournamentTable.objects.bulk_update(tts, ["players", "hands", "ebe", "broken"])
    if len(alive) <= 1:
        _finish_locked(tournament)
    else:
        tournament.round += 1
        tournament.round_dealt = False
        tournament.save(update_fields=["round", "round_dealt"])
    return moves


def _leave_moments(table: Table) -> dict[int, tuple[int, int]]:
    """Seat -> ``(now_ms, seq)`` of its leave move, as the 31 engine recorded it (the result of a
    finished table, the state of a stopped one); seats without a record are left out."""
    record = (table.result or {}).get("left_at") or (table.state or {}).get("left_at") or []
    moments: dict[int, tuple[int, int]] = {}
    for seat, moment in enumerate(record):
        if isinstance(moment, dict):
            moments[seat] = (int(moment["ms"]), int(moment["seq"]))
    return moments


def _ms(when: datetime | None) -> int:
    return int(when.timestamp() * 1000) if when is not None else 0


def _unit_of_seat(tournament: Tournament, tt: TournamentTable, seat: int) -> int:
    if tournament.team_size > 1:
        return tt.players[seat % 2]
    return tt.players[seat]


def _advance_bracket(tournament: Tournament) -> list | None:
    tts = _round_tables(tournament)
    if tts is None:
        return None
    replay = []
    for tt in tts:
        if tt.winner is not None:
            continue
        table = tt.table
        if table is None:
            return None
        if table.status == TableStatus.FINISHED and table.result and not table.result.get("void"):
            ranks = table.result.get("ranks") or []
            scored = [(r, s) for s, r in enumerate(ranks) if isinstance(r, int)]
            best = min(scored)[1] if scored else 0  # ties at the top: the smallest seat (docs)
            tt.winner = _unit_of_seat(tournament, tt, best)
            tt.result = {"ranks": ranks}
        elif table.status == TableStatus.FINISHED:
            replay.append(tt)  # a void Cherki game: the match is played again
        else:
            still = list(table.seats.filter(status=SeatStatus.SEATED).order_by("number").values_list("number", flat=True))
            tt.winner = _unit_of_seat(tournament, tt, still[0] if still else 0)
            tt.result = {"stopped": True}
        tt.save(update_fields=["winner", "result"])
    if replay:
        for tt in replay:
            tt.table = None
            tt.save(update_fields=["table"])
        tournament.round_dealt = False
        tournament.save(update_fields=["round_dealt"])
        return []
    winners = [tt.winner for tt in sorted(tts, key=lambda t: t.number)]
    units = _units(tournament)
    losers = [u for tt in tts for u in tt.players if u != tt.winner]
    for unit in losers:
        for entry in units.get(unit, []):
            entry.status = EntryStatus.OUT
            entry.out_round = tournament.round
            entry.save(update_fields=["status", "out_round"])
    if len(winners) == 1:
        final = tts[0]
        ranks = (final.result or {}).get("ranks") or []
        unit_rank: dict[int, int] = {}
        for seat, rank in enumerate(ranks):
            if isinstance(rank, int):
                unit = _unit_of_seat(tournament, final, seat)
                unit_rank[unit] = min(rank, unit_rank.get(unit, rank))
        others = {u: r for u, r in unit_rank.items() if u != winners[0]}
        places = {winners[0]: 1}
        for unit, rank in others.items():
            places[unit] = 2 + sum(1 for r in others.values() if r < rank)
        for unit, place in places.items():
            for entry in tournament.entries.filter(status__in=[*ACTIVE, EntryStatus.OUT]):
                if entry.unit == unit:
                    entry.place = place
                    if place == 1:
                        entry.status = EntryStatus.WON
                    entry.save(update_fields=["place", "status"])
        _finish_locked(tournament)
        return []
    tournament.round += 1
    tournament.round_dealt = False
    tournament.save(update_fields=["round", "round_dealt"])
    _create_matches(tournament, tournament.round, logic.next_round(winners, k=tournament.table_size))
    return []


# ----- finishing ---------------------------------------------------------------------------------------

def _finish_locked(tournament: Tournament) -> None:
    """Pay the prizes: pool = what the entries paid less rake, split by the payout structure's row for
    the number of entries; shared places split (``logic.split_places``)."""
    placed = list(tournament.entries.filter(place__isnull=False).select_related("user"))
    pool = sum(tournament.entries.filter(status__in=HOLDING).values_list("paid", flat=True))
    from wallets.services import rake_of

    rake = rake_of(pot=pool, rake_bps=tournament.rake_bps)
    # the tournament's payout structure (frozen at the first registration) for the entries it counted
    prizes = logic.prize_table(pool=pool - rake, entrants=tournament.entrants, rows=tournament.payout_rows_now())
    if tournament.team_size > 1:
        # Baloot: a team holds a place; its prize is split between its two players
        team_places = {e.team: e.place for e in placed}
        team_prize = logic.split_places(places=team_places, prizes=prizes, seats={u: u for u in team_places})
        paid: dict[int, int] = {}
        for unit, amount in team_prize.items():
            members = sorted([e for e in placed if e.team == unit], key=lambda e: e.pk)
            share, remainder = divmod(amount, len(members))
            for index, entry in enumerate(members):
                paid[entry.pk] = share + (remainder if index == 0 else 0)
    else:
        paid = logic.split_places(places={e.pk: e.place for e in placed}, prizes=prizes,
                                  seats={e.pk: e.out_seat or 0 for e in placed})
    by_pk = {e.pk: e for e in placed}
    short = (pool - rake) - sum(paid.values())
    if short and placed:  # nobody covers a prize place (cannot happen with a full ranking): to first
        first = min(placed, key=lambda e: (e.place, e.pk))
        paid[first.pk] = paid.get(first.pk, 0) + short
    try:
        money.pay_prizes(tournament=tournament, rake=rake,
                         prizes={by_pk[pk]: amount for pk, amount in paid.items()})
    except TournamentError as exc:
        log.error("tournament %s: paying the prizes failed: %s %s", tournament.pk, exc.code, exc.message)
        raise PayoutError(exc.code, exc.message, status=exc.status) from exc
    for pk, amount in paid.items():
        Entry.objects.filter(pk=pk).update(prize=amount)
    tournament.status = Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.pool = pool - rake
    tournament.payout_error, tournament.payout_failed_at = "", None
    tournament.save(update_fields=["status", "finished_at", "pool", "payout_error", "payout_failed_at"])


# ----- housekeeping (the timer sweep) ----------------------------------------------------------------

def housekeeping(*, now: datetime | None = None) -> dict:
    """Open registrations and start tournaments that are due; re-kick rounds whose tables all ended."""
    now = now or timezone.now()
    done = {"opened": 0, "started": 0, "advanced": 0}
    from django.db.models import Count, OuterRef, Q, Subquery

    for pk in Tournament.objects.filter(Q(registration_opens_at__lte=now) | Q(registration_opens_at__isnull=True),
                                        status=Status.ANNOUNCED).values_list("pk", flat=True):
        try:
            open_registration(tournament_id=pk)
            done["opened"] += 1
        except TournamentError:
            pass
    due = Tournament.objects.filter(status__in=[Status.ANNOUNCED, Status.REGISTERING], sit_and_go=False,
                                    starts_at__lte=now).values_list("pk", flat=True)
    # a sit & go whose bots' wait is over, or that is full but whose start failed (it starts at once)
    sit_and_go = Tournament.objects.filter(status=Status.REGISTERING, sit_and_go=True).filter(
        Q(bots_fill_at__lte=now, fill_with_bots=True) | Q(max_entrants__isnull=False, max_entrants__lte=Subquery(
            Entry.objects.filter(tournament=OuterRef("pk"), status__in=ACTIVE).order_by().values("tournament")
            .annotate(n=Count("pk")).values("n")[:1]))).values_list("pk", flat=True)
    for pk in [*due, *sit_and_go]:
        try:
            start(tournament_id=pk)
            done["started"] += 1
        except TournamentError as exc:  # e.g. another housekeeping pass started it first
            log.info("tournament %s not started: %s", pk, exc.code)
    for pk, dealt in Tournament.objects.filter(status=Status.RUNNING).values_list("pk", "round_dealt"):
        try:
            if not dealt:
                deal(tournament_id=pk, now=now)
                done["advanced"] += 1
                continue
            busy = TournamentTable.objects.filter(
                tournament_id=pk, broken=False, table__isnull=False,
                table__status__in=[TableStatus.OPEN, TableStatus.RUNNING]).exists()
            if not busy and advance(tournament_id=pk):
                done["advanced"] += 1
        except TournamentError as exc:  # e.g. a failed payout (recorded): the other tournaments go on
            log.warning("tournament %s not advanced: %s %s", pk, exc.code, exc.message)
    return done


def casual_room_check(room: Room) -> None:
    if room.stake_kind != StakeKind.CASUAL:
        raise TournamentError("room_not_casual", "Tournament tables play in a casual room.")
