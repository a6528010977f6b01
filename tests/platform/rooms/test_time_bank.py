"""The clock beyond the spec's timers (docs/rules/*.md, "Time bank and reconnecting"): each seated human's
time bank, charged by the time used past the turn timer, spent before the automatic move; bots have none;
the reconnect grace, once per turn. Through rooms.services, as the move path and the timer use them."""

from __future__ import annotations

import random
from datetime import timedelta
from unittest import mock

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone

from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.errors import TableError
from rooms.models import Room, Seat, SeatStatus, Table, TableDeadline, TableEvent
from rooms.services import clock, moves
from tests.conftest import make_due

pytestmark = pytest.mark.django_db

BANK_MS = 30_000
TURN_MS = 20_000  # the lembar_room fixture's timer


def _started(room, users) -> Table:
    table = services.table_open(room=room, host=users[0], seat_count=len(users))
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    return Table.objects.select_related("room").get(pk=table.pk)


def _due(table: Table) -> dict:
    return get_engine(table.game).deadline(table.state)


def _turn_end_ms(table: Table) -> int:
    """When the spec's turn timer of the seat on turn runs out."""
    due = _due(table)
    since = due["since_ms"] if due["since_ms"] is not None else int(table.started_at.timestamp() * 1000)
    return since + (due["limit_ms"] if due["limit_ms"] is not None else TURN_MS)


def _ms(moment) -> int:
    return round(moment.timestamp() * 1000)


def _entry(table: Table, seat: int) -> dict:
    return next(e for e in table.seating if e["seat"] == seat)


def _play_first_legal(table: Table, *, at_ms: int) -> int:
    """The seat on turn ends its turn at ``at_ms``: its first legal move, and if that was a draw that
    keeps the turn (Lembar), the first legal move after it; returns that seat."""
    due = _due(table)
    seat = due["seat"]
    while _due(table)["seat"] == seat and _due(table)["since_ms"] == due["since_ms"]:
        move = get_engine(table.game).legal_moves(table.state, seat)[0]
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version,
                            at_ms=at_ms)
        table.refresh_from_db()
        if table.status != "running":
            break
    return seat


def _fire(table: Table) -> bool:
    """The timer fires the table's deadline when it is due. The moves here are made at chosen times (past
    the turn timer, so in the future): the firing's clock reads the deadline, and the row says it is due."""
    at = max(_ms(table.deadline_at), table.state["last_move_ms"] or 0)
    make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
    with mock.patch.object(moves, "now_ms", lambda: at):
        fired = services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
    table.refresh_from_db()
    return fired


def _drop(table: Table, user) -> None:
    """The user's only table socket opened and then closed (the consumer's calls)."""
    services.table_connection(table_id=table.pk, user_id=user.pk, change="open")
    services.table_connection(table_id=table.pk, user_id=user.pk, change="close")


def test_each_human_starts_with_the_rooms_bank_and_its_deadline_waits_for_it(lembar_room, make_user):
    lembar_room.time_bank_seconds = 30
    lembar_room.save(update_fields=["time_bank_seconds"])
    table = _started(lembar_room, [make_user(), make_user()])
    assert [e["bank_ms"] for e in table.seating] == [BANK_MS, BANK_MS]
    assert _ms(table.deadline_at) == _turn_end_ms(table) + BANK_MS
    assert table.deadline_seat == _due(table)["seat"]
    # The frames every viewer gets carry each seat's bank.
    frame = selectors.table_frame(table=table, seat_number=None)
    assert [s["bank_ms"] for s in frame["seats"]] == [BANK_MS, BANK_MS]
    # The timer does not claim the deadline when the turn timer runs out, only when the bank has too.
    turn_end = clock._ms_to_datetime(_turn_end_ms(table))
    assert services.due_tables(now=turn_end + timedelta(seconds=1)) == []
    assert services.due_tables(now=table.deadline_at) == [(table.pk, table.version)]


def test_a_room_without_a_bank_keeps_the_spec_timer(lembar_room, make_user):
    lembar_room.time_bank_seconds = 0
    lembar_room.save(update_fields=["time_bank_seconds"])
    table = _started(lembar_room, [make_user(), make_user()])
    assert _ms(table.deadline_at) == _turn_end_ms(table)


def test_only_the_time_used_past_the_turn_timer_is_charged(lembar_room, make_user):
    table = _started(lembar_room, [make_user(), make_user()])
    first = _play_first_legal(table, at_ms=_turn_end_ms(table) - 5_000)  # within the timer: free
    assert _entry(table, first)["bank_ms"] == BANK_MS
    # (a Skip may give a two-seat table's turn back to the same seat: a new turn all the same)
    second = _play_first_legal(table, at_ms=_turn_end_ms(table) + 7_250)  # 7.25 s into the bank
    assert _entry(table, second)["bank_ms"] == BANK_MS - 7_250
    assert _entry(table, second)["timeouts"] == 0  # a move made in the bank time is the player's own
    # The bank does not refill: that seat's next turn waits only for what is left of it.
    while _due(table)["seat"] != second:
        _play_first_legal(table, at_ms=_turn_end_ms(table) - 1_000)
    assert _ms(table.deadline_at) == _turn_end_ms(table) + BANK_MS - 7_250


def test_the_automatic_move_comes_once_the_bank_is_spent_and_spends_it(lembar_room, make_user):
    table = _started(lembar_room, [make_user(), make_user()])
    seat = _due(table)["seat"]
    # Due only once the bank has run out: the timer's look before that does nothing.
    assert not services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
    assert _fire(table)
    entry = _entry(table, seat)
    assert entry["bank_ms"] == 0 and entry["timeouts"] == 1
    # From now on that seat's automatic move comes when its turn timer runs out.
    while _due(table)["seat"] != seat:
        _play_first_legal(table, at_ms=_turn_end_ms(table) - 1_000)
    assert _ms(table.deadline_at) == _turn_end_ms(table)


def test_lembar_removal_counts_only_the_automatic_moves_made_after_the_bank(lembar_room, make_user):
    a, b = make_user(), make_user()
    table = _started(lembar_room, [a, b])
    idle = _due(table)["seat"]
    # The idle seat overruns its timer but moves in its bank time: not a timeout.
    _play_first_legal(table, at_ms=_turn_end_ms(table) + 2_000)
    assert _entry(table, idle)["timeouts"] == 0 and _entry(table, idle)["bank_ms"] == BANK_MS - 2_000
    timeouts = 0
    for _ in range(200):
        if _entry(table, idle)["status"] != SeatStatus.SEATED or table.status != "running":
            break
        due = _due(table)
        if due["seat"] == idle and due["limit_ms"] != 0:
            before = _ms(table.deadline_at)
            assert before == _turn_end_ms(table) + (BANK_MS - 2_000 if timeouts == 0 else 0)
            assert _fire(table)
            timeouts += 1
            assert _entry(table, idle)["bank_ms"] == 0
        elif due["seat"] is None or due["limit_ms"] == 0:
            assert _fire(table)  # a catch window closing, or the rest of an automatic turn
        else:
            _play_first_legal(table, at_ms=_turn_end_ms(table) - 1_000)
    # (the other player cannot shed a whole hand in the four turns this takes)
    assert timeouts == 3
    assert _entry(table, idle)["status"] == SeatStatus.REMOVED and _entry(table, idle)["timeouts"] == 3
    assert Seat.objects.get(table=table, number=idle).consecutive_timeouts == 3


def test_bots_have_no_bank(lembar_room, make_user, bots):
    human = make_user()
    table = _started(lembar_room, [human, bots[0]])
    bot_seat = next(e["seat"] for e in table.seating if e["bot"])
    assert _entry(table, bot_seat)["bank_ms"] == 0
    while _due(table)["seat"] != bot_seat:
        _play_first_legal(table, at_ms=_turn_end_ms(table) - 1_000)
    # A bot's deadline is its rescue look or its own turn timer, never more.
    assert _ms(table.deadline_at) <= _turn_end_ms(table)
    assert clock._overtime_ms(table, _due(table)) == 0


def test_a_seat_marked_out_keeps_the_others_banks(make_user, lembar_room):
    users = [make_user(), make_user(), make_user()]
    table = _started(lembar_room, users)
    charged = _play_first_legal(table, at_ms=_turn_end_ms(table) + 4_000)
    leaver = next(e for e in table.seating if e["seat"] != charged)
    services.table_stand(table_id=table.pk, user=next(u for u in users if u.pk == leaver["user_id"]))
    table.refresh_from_db()
    assert _entry(table, leaver["seat"])["status"] == SeatStatus.LEFT
    assert _entry(table, charged)["bank_ms"] == BANK_MS - 4_000


@override_settings(RECONNECT_GRACE_S=15)
def test_a_player_down_when_their_time_runs_out_gets_the_grace_once_and_it_is_never_charged(lembar_room, make_user):
    a, b = make_user(), make_user()
    table = _started(lembar_room, [a, b])
    seat = _due(table)["seat"]
    user = a if _entry(table, seat)["user_id"] == a.pk else b
    version, turn_end = table.version, _turn_end_ms(table)
    _drop(table, user)
    table.refresh_from_db()
    assert _ms(table.deadline_at) == turn_end + BANK_MS  # a drop by itself buys no time (a page reload)
    assert not _fire(table)  # the timer and the bank have run out, the player is still away: the grace
    assert table.version == version  # a move in flight stays valid
    assert _ms(table.deadline_at) == turn_end + BANK_MS + 15_000
    entry = TableDeadline.objects.get(table=table)  # where the timer looks: the new deadline, not handed out
    assert (entry.due_at, entry.version, entry.enqueued_at) == (table.deadline_at, version, None)
    assert _entry(table, seat)["grace"] == [turn_end - TURN_MS, 15_000]
    assert TableEvent.objects.filter(table=table, kind="grace").count() == 1
    # Back, and moving 40 s past the timer: the grace counts as coming first, 25 s come from the bank.
    services.table_connection(table_id=table.pk, user_id=user.pk, change="open")
    _play_first_legal(table, at_ms=turn_end + 40_000)
    assert _entry(table, seat)["bank_ms"] == BANK_MS - 25_000 and _entry(table, seat)["grace"] is None
    assert _entry(table, seat)["timeouts"] == 0


@override_settings(RECONNECT_GRACE_S=15)
def test_a_player_still_down_after_the_grace_gets_the_automatic_move(lembar_room, make_user):
    a, b = make_user(), make_user()
    table = _started(lembar_room, [a, b])
    seat = _due(table)["seat"]
    user = a if _entry(table, seat)["user_id"] == a.pk else b
    # Dropped during the other player's turn.
    while _due(table)["seat"] == seat:  # (a Skip gives a two-seat table's turn back)
        _play_first_legal(table, at_ms=_turn_end_ms(table) - 1_000)
    _drop(table, user)
    while _due(table)["seat"] != seat or _due(table)["limit_ms"] == 0:
        _play_first_legal(table, at_ms=_turn_end_ms(table) - 1_000)
    version, deadline = table.version, _ms(table.deadline_at)
    assert not _fire(table)  # at the deadline the player is still down: the grace first
    assert table.version == version and _ms(table.deadline_at) == deadline + 15_000
    assert _fire(table)  # still down once the grace has run out: no second grace, the automatic move
    assert table.version > version and _entry(table, seat)["bank_ms"] == 0


@override_settings(RECONNECT_GRACE_S=15)
def test_a_connected_or_unknown_player_gets_no_grace(lembar_room, make_user):
    a, b = make_user(), make_user()
    table = _started(lembar_room, [a, b])
    seat = _due(table)["seat"]
    user = a if _entry(table, seat)["user_id"] == a.pk else b
    services.table_connection(table_id=table.pk, user_id=user.pk, change="open")
    assert selectors.presence(table_id=table.pk, user_id=user.pk) == selectors.ONLINE
    assert _fire(table)  # connected: the automatic move
    cache.clear()
    assert selectors.presence(table_id=table.pk, user_id=user.pk) is None


def test_presence_counts_open_sockets_only_while_they_are_heard_from(lembar_room, make_user):
    a, b = make_user(), make_user()
    table = _started(lembar_room, [a, b])
    assert selectors.presence(table_id=table.pk, user_id=a.pk) is None  # never connected: not known
    for change in ("open", "open", "close"):  # two tabs, one closed
        services.table_connection(table_id=table.pk, user_id=a.pk, change=change)
    assert selectors.presence(table_id=table.pk, user_id=a.pk) == selectors.ONLINE
    assert selectors.away_seats(table=table) == []
    # A page reload: the new socket may open before the old one's close is handled; nothing is lost.
    for change in ("open", "close"):
        services.table_connection(table_id=table.pk, user_id=a.pk, change=change)
    assert selectors.presence(table_id=table.pk, user_id=a.pk) == selectors.ONLINE
    # A socket of a process that died is never closed: it stops counting once it is not heard from.
    count_key, seen_key = selectors.presence_keys(table_id=table.pk, user_id=a.pk)
    cache.set(seen_key, services.now_ms() - selectors.PRESENCE_FRESH_S * 1000 - 1)
    assert selectors.presence(table_id=table.pk, user_id=a.pk) == selectors.DROPPED
    assert selectors.away_seats(table=table) == [_entry_of(table, a.pk)["seat"]]
    services.table_connection(table_id=table.pk, user_id=a.pk, change="alive")  # the live one says so
    assert selectors.presence(table_id=table.pk, user_id=a.pk) == selectors.ONLINE
    services.table_connection(table_id=table.pk, user_id=a.pk, change="close")
    assert selectors.presence(table_id=table.pk, user_id=a.pk) == selectors.DROPPED
    assert cache.get(count_key) == 0


def test_one_call_says_many_sockets_are_alive_and_can_renew_their_counts(lembar_room, make_user):
    tables = [_started(lembar_room, [make_user(), make_user()]) for _ in range(2)]
    pairs = [(t.pk, e["user_id"]) for t in tables for e in t.seating]
    for table_id, user_id in pairs:
        services.table_connection(table_id=table_id, user_id=user_id, change="open")
        cache.set(selectors.presence_keys(table_id=table_id, user_id=user_id)[1],
                  services.now_ms() - selectors.PRESENCE_FRESH_S * 1000 - 1)
    assert all(selectors.presence(table_id=t, user_id=u) == selectors.DROPPED for t, u in pairs)
    services.tables_alive(connections=pairs)
    assert all(selectors.presence(table_id=t, user_id=u) == selectors.ONLINE for t, u in pairs)
    count_key = selectors.presence_keys(table_id=pairs[0][0], user_id=pairs[0][1])[0]
    cache.touch(count_key, 5)
    services.tables_alive(connections=pairs[:1], keep_counts=True)
    ttl = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"]).ttl(cache.make_key(count_key))
    assert ttl > 3600  # renewed to hours
    services.tables_alive(connections=[])  # nothing to say: no round trip, no error


def _entry_of(table: Table, user_id: int) -> dict:
    return next(e for e in table.seating if e["user_id"] == user_id)


SEATS = {"lembar": 3, "baloot": 4, "cherki": 3, "otuzbir": 3}


@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_game_keeps_the_bank_and_the_deadline_consistent(game, make_user):
    """Random play in each game, moves made within the timer, in the bank time, or left to the timer: a
    bank never grows or goes below 0, an automatic move spends it, and the deadline of a player's turn
    is always the spec's timer plus what is left of that player's bank."""
    room = Room.objects.create(name=f"Bank {game}", slug=f"bank-{game}", game=game, seats=SEATS[game],
                               min_seats=SEATS[game], turn_seconds=20, time_bank_seconds=30)
    table = _started(room, [make_user() for _ in range(SEATS[game])])
    engine = get_engine(game)
    rng = random.Random(game)
    banks = {e["seat"]: e["bank_ms"] for e in table.seating}
    for _ in range(120):
        if table.status != "running":
            break
        due = _due(table)
        entry = None if due["seat"] is None else _entry(table, due["seat"])
        if entry is not None and entry["status"] == SeatStatus.SEATED and due["limit_ms"] != 0:
            assert _ms(table.deadline_at) == _turn_end_ms(table) + entry["bank_ms"]
        choice = rng.random()
        if entry is None or due["limit_ms"] == 0 or choice < 0.15:
            seat = due["seat"]
            assert _fire(table)
            if entry is not None and due["limit_ms"] != 0:
                assert _entry(table, seat)["bank_ms"] == 0
        else:
            seat = due["seat"]
            late = rng.choice([-5_000, 0, 3_000, 12_000])
            move = rng.choice(engine.legal_moves(table.state, seat))
            services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version,
                                at_ms=max(_turn_end_ms(table) + late, table.state.get("last_move_ms") or 0))
            table.refresh_from_db()
        for e in table.seating:
            assert 0 <= e["bank_ms"] <= banks[e["seat"]]
            banks[e["seat"]] = e["bank_ms"]
    assert any(b < BANK_MS for b in banks.values())


def test_an_unknown_connection_change_is_refused_with_its_code(lembar_room, make_user):
    table = _started(lembar_room, [make_user(), make_user()])
    with pytest.raises(TableError) as refused:
        services.table_connection(table_id=table.pk, user_id=table.seating[0]["user_id"], change="reload")
    assert refused.value.code == "bad_connection_change"
