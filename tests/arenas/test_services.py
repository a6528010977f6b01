"""Arena services: join and pay, pairing at the start and again as soon as a game ends, points and
streaks, bots after the wait, the end of the window, prizes and the ledger invariants."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from arenas import services
from arenas.errors import ArenaError
from arenas.models import Arena, ArenaGame, ArenaPlayer, PlayerStatus, Status
from rooms.models import SeatStatus, Table, TableStatus
from tests.arenas.conftest import finish_table, play_table
from wallets.checks import ledger_problems
from wallets.models import AccountKind, Currency, LedgerTransaction
from wallets.services import balance_of, wallet

pytestmark = pytest.mark.usefixtures("quiet")


def escrow_balance(arena: Arena) -> int:
    from wallets.models import Account

    account = Account.objects.filter(kind=AccountKind.ARENA_ESCROW, owner_key=f"arena:{arena.pk}").first()
    return account.balance if account else 0


def running(make_arena, **kw) -> Arena:
    arena = make_arena(starts_at=timezone.now() - timedelta(seconds=1), **kw)
    return services.start(arena_id=arena.pk)


def player(arena, user) -> ArenaPlayer:
    return ArenaPlayer.objects.get(arena=arena, user=user)


# ----- joining -------------------------------------------------------------------------------------

def test_join_pays_the_entry_once_and_a_withdrawal_before_the_start_refunds(make_arena, make_user, make_bots):
    arena = make_arena(entry_fee=10, currency=Currency.CHIP)
    ayla = make_user()
    before = balance_of(user=ayla, currency=Currency.CHIP)
    services.join(arena_id=arena.pk, user=ayla)
    assert balance_of(user=ayla, currency=Currency.CHIP) == before - 10 and escrow_balance(arena) == 10
    with pytest.raises(ArenaError) as exc:
        services.join(arena_id=arena.pk, user=ayla)
    assert exc.value.code == "already_joined"
    with pytest.raises(ArenaError) as exc:
        services.join(arena_id=arena.pk, user=make_bots(1)[0])
    assert exc.value.code == "bots_cannot_join"
    services.pause(arena_id=arena.pk, user=ayla)  # before the start: a withdrawal
    assert player(arena, ayla).status == PlayerStatus.WITHDRAWN
    assert balance_of(user=ayla, currency=Currency.CHIP) == before and escrow_balance(arena) == 0
    services.join(arena_id=arena.pk, user=ayla)  # back: a second entry posting
    assert player(arena, ayla).registrations == 2 and escrow_balance(arena) == 10
    assert LedgerTransaction.objects.filter(key=f"arena:{arena.pk}:entry:{ayla.pk}:2").exists()


def test_money_terms_lock_at_the_first_join(make_arena, make_user):
    arena = make_arena(entry_fee=5)
    arena.payouts = [60, 40]
    arena.save()  # nobody joined: free to change
    services.join(arena_id=arena.pk, user=make_user())
    arena.refresh_from_db()
    arena.entry_fee = 50
    with pytest.raises(ValidationError) as exc:
        arena.save()
    assert "entry_fee" in exc.value.message_dict
    arena.refresh_from_db()
    arena.name = "Renamed"
    arena.save()  # other fields stay editable


def test_bad_arenas_are_refused_with_a_code(make_arena, make_room):
    with pytest.raises(ArenaError) as exc:
        make_arena(payouts=[50, 40])
    assert exc.value.code == "bad_arena" and "payouts" in exc.value.message
    staked = make_room(stake_kind="pot", currency="KEL", stake=5)
    with pytest.raises(ArenaError) as exc:
        make_arena(room=staked)
    assert "room" in exc.value.message
    with pytest.raises(ArenaError):
        make_arena(table_seats=5)  # the room has 2 seats


def test_a_running_arena_closes_to_joins_after_the_window(make_arena, make_user):
    arena = running(make_arena, duration_minutes=1)
    with pytest.raises(ArenaError) as exc:
        services.join(arena_id=arena.pk, user=make_user(), now=arena.ends_at)
    assert exc.value.code == "arena_closed"


# ----- pairing, points, streaks ------------------------------------------------------------------------

def test_the_start_pairs_everyone_and_a_finished_game_pairs_its_players_again_at_once(make_arena, make_user):
    arena = make_arena(starts_at=timezone.now() + timedelta(minutes=5))
    users = [make_user() for _ in range(4)]
    for user in users:
        services.join(arena_id=arena.pk, user=user)
    assert not ArenaGame.objects.exists()  # before the start nobody plays
    services.start(arena_id=arena.pk, force=True)
    games = list(ArenaGame.objects.filter(arena=arena))
    assert len(games) == 2 and all(None not in g.players for g in games)
    assert all(g.table.status == TableStatus.RUNNING for g in games)
    first = games[0]
    play_table(first.table_id, random.Random(4))
    assert services.game_over(table_id=first.table_id)
    assert not services.game_over(table_id=first.table_id)  # counted once
    first.refresh_from_db()
    assert first.scored and sorted(first.points) in ([0, 2], [1, 1])
    # its two players were the only ones free: paired again at once (a rematch rather than a wait)
    again = ArenaGame.objects.filter(arena=arena, scored=False).exclude(pk=games[1].pk).get()
    assert sorted(again.players) == sorted(first.players)
    scored = ArenaPlayer.objects.filter(pk__in=first.players)
    assert sum(p.score for p in scored) == 2 and all(p.games == 1 and p.table_id == again.table_id for p in scored)


def test_points_and_streaks_through_game_results(make_arena, make_user, make_room):
    arena = running(make_arena, room=make_room(seats=2))
    ayla, bora = make_user(), make_user()
    services.join(arena_id=arena.pk, user=ayla)
    services.join(arena_id=arena.pk, user=bora)
    for expected in (2, 4, 8, 10):  # win, win, then on fire: 4 per win; a draw on fire is 2
        game = ArenaGame.objects.get(arena=arena, scored=False)
        a_seat = game.players.index(player(arena, ayla).pk)
        ranks = [1, 1] if expected == 10 else [1 if seat == a_seat else 2 for seat in range(2)]
        finish_table(game.table_id, ranks)
        services.game_over(table_id=game.table_id)
        assert player(arena, ayla).score == expected
    a, b = player(arena, ayla), player(arena, bora)
    assert (a.games, a.wins, a.streak, b.score) == (4, 3, 0, 1)
    assert a.sheet == [[2, 0], [2, 0], [4, 1], [2, 1]] and b.sheet == [[0, 0], [0, 0], [0, 0], [1, 0]]


def test_baloot_partners_are_drawn_per_game_and_both_get_the_team_points(make_arena, make_user, make_room):
    arena = running(make_arena, room=make_room(game="baloot", seats=4, options={"mode": "fast"}))
    users = [make_user() for _ in range(4)]
    for user in users:
        services.join(arena_id=arena.pk, user=user)
    game = ArenaGame.objects.get(arena=arena)
    finish_table(game.table_id, [1, 2, 1, 2])
    services.game_over(table_id=game.table_id)
    scores = {pk: ArenaPlayer.objects.get(pk=pk).score for pk in game.players}
    assert [scores[pk] for pk in game.players] == [2, 0, 2, 0]


def test_bots_fill_after_the_wait_and_never_join_the_leaderboard(make_arena, make_user, make_bots):
    make_bots(2)
    arena = running(make_arena, bot_fill_seconds=10)
    ayla = make_user()
    now = timezone.now()
    services.join(arena_id=arena.pk, user=ayla, now=now)
    assert services.pair(arena_id=arena.pk, now=now + timedelta(seconds=9)) == []
    (table_id,) = services.pair(arena_id=arena.pk, now=now + timedelta(seconds=10))
    game = ArenaGame.objects.get(table_id=table_id)
    assert sorted(game.players, key=lambda p: p is None) == [player(arena, ayla).pk, None]
    table = Table.objects.get(pk=table_id)
    assert sorted(e["bot"] for e in table.seating) == [False, True] and table.status == TableStatus.RUNNING
    assert ArenaPlayer.objects.filter(arena=arena).count() == 1  # the bot is no arena player


def test_pause_stops_pairing_and_a_player_who_left_a_game_is_paused(make_arena, make_user, make_bots):
    make_bots(1)
    arena = running(make_arena, bot_fill_seconds=0)
    ayla = make_user()
    services.join(arena_id=arena.pk, user=ayla)
    game = ArenaGame.objects.get(arena=arena)
    seat = game.players.index(player(arena, ayla).pk)
    from rooms import services as rooms_services

    rooms_services.table_stand(table_id=game.table_id, user=ayla)  # leaving a running game
    table = Table.objects.get(pk=game.table_id)
    if table.status == TableStatus.RUNNING:  # the engine may play on with the bot; end it as the rules would
        finish_table(table.pk, [2 if s == seat else 1 for s in range(2)])
    assert any(e["status"] in (SeatStatus.LEFT, SeatStatus.REMOVED) for e in Table.objects.get(pk=game.table_id).seating)
    services.game_over(table_id=game.table_id)
    p = player(arena, ayla)
    assert (p.status, p.note, p.table_id, p.games) == (PlayerStatus.PAUSED, "left_game", None, 1)
    assert ArenaGame.objects.filter(arena=arena).count() == 1  # not paired again unasked
    services.join(arena_id=arena.pk, user=ayla)  # resumes: score kept, paired at once (bots at 0 s)
    assert player(arena, ayla).table_id is not None and ArenaGame.objects.filter(arena=arena).count() == 2
    services.pause(arena_id=arena.pk, user=ayla)
    assert player(arena, ayla).status == PlayerStatus.PAUSED


def test_a_stopped_game_counts_nothing_and_housekeeping_frees_its_players(make_arena, make_user):
    arena = running(make_arena)
    users = [make_user(), make_user()]
    for user in users:
        services.join(arena_id=arena.pk, user=user)
    game = ArenaGame.objects.get(arena=arena)
    from accounts.models import User
    from rooms import services as rooms_services

    rooms_services.table_stop(table_id=game.table_id, reason="staff", by=User(is_staff=True))
    done = services.housekeeping()  # no table_finished signal for a stopped table: housekeeping scores it
    assert done["scored"] == 1
    game.refresh_from_db()
    assert game.scored and game.points == [None, None]
    assert all(p.games == 0 and p.score == 0 for p in ArenaPlayer.objects.filter(arena=arena))
    assert ArenaGame.objects.filter(arena=arena, scored=False).count() == 1  # paired again


# ----- the end of the window, prizes -------------------------------------------------------------------

def test_the_window_ends_games_in_progress_count_then_prizes_are_paid(make_arena, make_user):
    arena = running(make_arena, entry_fee=10, payouts=[70, 30], rake_bps=1000)
    users = [make_user() for _ in range(4)]
    for user in users:
        services.join(arena_id=arena.pk, user=user)
    first, second = ArenaGame.objects.filter(arena=arena).order_by("pk")
    finish_table(first.table_id, [1, 2])
    services.game_over(table_id=first.table_id)  # its players play again at once
    after = arena.ends_at + timedelta(seconds=1)
    assert services.pair(arena_id=arena.pk, now=after) == []
    assert not services.finish(arena_id=arena.pk, now=after)  # two games still running
    for game in ArenaGame.objects.filter(arena=arena, scored=False):
        # the first game's winner loses the rematch; the other game's first seat wins
        loser = game.players.index(first.players[0]) if first.players[0] in game.players else 1
        finish_table(game.table_id, [2 if seat == loser else 1 for seat in range(2)])
        services.game_over(table_id=game.table_id, now=after)  # counts; no new game; the last one finishes
    arena.refresh_from_db()
    assert arena.status == Status.FINISHED and ArenaGame.objects.filter(arena=arena).count() == 3
    rows = {p.pk: p for p in ArenaPlayer.objects.filter(arena=arena)}
    first_winner = rows[first.players[0]]
    assert first_winner.score == 2  # won, then lost the rematch after the window
    # pool 40, rake 4, prizes of 36: 70 % / 30 %; scores: 2, 2, 2, 0 → three share first and second
    winners = sorted((p for p in rows.values() if p.place == 1), key=lambda p: p.pk)
    assert len(winners) == 3 and [p.prize for p in winners] == [12, 12, 12]
    assert [p.prize for p in rows.values() if p.place == 4] == [0]
    assert arena.pool == 36 and escrow_balance(arena) == 0
    assert LedgerTransaction.objects.filter(key=f"arena:{arena.pk}:prizes").exists()


def test_only_players_who_finished_a_game_take_places(make_arena, make_user, make_bots):
    arena = running(make_arena, entry_fee=10, payouts=[100])
    ayla, bora, cem = make_user(), make_user(), make_user()
    for user in (ayla, bora):
        services.join(arena_id=arena.pk, user=user)
    services.join(arena_id=arena.pk, user=cem)  # waits alone: never plays (no bot comes in time)
    game = ArenaGame.objects.get(arena=arena)
    finish_table(game.table_id, [2, 2])  # a shared second place is no win: nobody first
    after = arena.ends_at
    services.game_over(table_id=game.table_id, now=after)
    arena.refresh_from_db()
    assert arena.status == Status.FINISHED
    places = {p.user_id: (p.place, p.prize) for p in ArenaPlayer.objects.filter(arena=arena)}
    assert places[cem.pk] == (None, 0)
    assert places[ayla.pk] == (1, 15) and places[bora.pk] == (1, 15)  # tied: the whole pool of 30, split


def test_nobody_played_every_entry_back(make_arena, make_user):
    arena = running(make_arena, entry_fee=10)
    ayla = make_user()
    before = balance_of(user=ayla, currency=Currency.CHIP)
    services.join(arena_id=arena.pk, user=ayla)
    assert services.finish(arena_id=arena.pk, now=arena.ends_at)
    arena.refresh_from_db()
    assert (arena.status, arena.cancel_reason) == (Status.CANCELLED, "no_games")
    assert balance_of(user=ayla, currency=Currency.CHIP) == before


def test_cancel_refunds_every_entry_and_running_games_count_nothing(make_arena, make_user):
    arena = running(make_arena, entry_fee=7)
    users = [make_user(), make_user()]
    for user in users:
        services.join(arena_id=arena.pk, user=user)
    with pytest.raises(ArenaError) as exc:
        services.cancel(arena_id=arena.pk, by=users[0])
    assert exc.value.code == "not_staff"
    services.cancel(arena_id=arena.pk)
    game = ArenaGame.objects.get(arena=arena)
    finish_table(game.table_id, [1, 2])
    services.game_over(table_id=game.table_id)
    assert all(p.score == 0 and p.table_id is None for p in ArenaPlayer.objects.filter(arena=arena))
    assert escrow_balance(arena) == 0 and Arena.objects.get(pk=arena.pk).status == Status.CANCELLED


def test_housekeeping_starts_due_arenas_and_schedules_the_next(make_arena, make_user):
    arena = make_arena(starts_at=timezone.now() - timedelta(seconds=2), repeat_every=timedelta(days=1))
    ayla, bora = make_user(), make_user()
    services.join(arena_id=arena.pk, user=ayla)
    services.join(arena_id=arena.pk, user=bora)
    done = services.housekeeping()
    assert done["started"] == 1
    arena.refresh_from_db()
    assert arena.status == Status.RUNNING and ArenaGame.objects.filter(arena=arena).count() == 1
    following = Arena.objects.exclude(pk=arena.pk).get()
    assert following.starts_at == arena.starts_at + timedelta(days=1) and following.status == Status.SCHEDULED
    services.housekeeping(now=arena.ends_at + services.OVERTIME)  # a game stuck past the overtime is void
    arena.refresh_from_db()
    assert arena.status == Status.FINISHED and not ArenaPlayer.objects.filter(arena=arena, table__isnull=False).exists()


def test_ledger_check_reports_an_arena_escrow_out_of_step(make_arena, make_user):
    arena = make_arena(entry_fee=10)
    ayla = make_user()
    services.join(arena_id=arena.pk, user=ayla)
    ArenaPlayer.objects.filter(arena=arena).update(paid=3)  # the books say 3, the escrow holds 10
    assert any(f"arena {arena.pk}" in line and "escrow holds 10" in line for line in ledger_problems())
    ArenaPlayer.objects.filter(arena=arena).update(paid=10)
    Arena.objects.filter(pk=arena.pk).update(status=Status.FINISHED)
    problems = ledger_problems()
    assert any("should hold nothing" in line for line in problems)
    assert any(f"arena:{arena.pk}:prizes" in line for line in problems)
    Arena.objects.filter(pk=arena.pk).update(status=Status.SCHEDULED)
    assert ledger_problems() == []
    assert wallet(user=ayla, currency=Currency.CHIP).balance >= 0
