"""Table money through the real table lifecycle (rooms.services), with exact numbers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from core.api import http_status
from gameworkers.engines import get_engine
from rooms import services as rooms
from rooms.errors import TableError
from rooms.models import Seat, SeatStatus, StopReason, Table, TableStatus
from tests.conftest import make_due
from wallets import services, table_money
from wallets.checks import ledger_problems
from wallets.models import Account, AccountKind, LedgerTransaction, WalletSettings

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich(db):
    """Players start with enough of everything for big stakes."""
    conf = WalletSettings.load()
    conf.welcome_mutiara = conf.welcome_kelereng = 1000
    conf.save()


def bal(user, currency: str = "KEL") -> int:
    return services.balance_of(user=user, currency=currency)


def escrow(table, currency: str = "KEL") -> int:
    account = Account.objects.filter(kind=AccountKind.TABLE_ESCROW, owner_key=f"table:{table.pk}",
                                     currency=currency).first()
    return account.balance if account else 0


def revenue(currency: str = "KEL") -> int:
    return services.revenue(currency=currency).balance


def seated(room, users) -> Table:
    """A running table with ``users`` in seats 0.. (a full table starts itself)."""
    table = rooms.table_open(room=room, host=users[0], seat_count=len(users))
    for user in users:
        rooms.table_sit(table_id=table.pk, user=user)
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING
    return table


def staff_user():
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="staff-stopper", defaults={"is_staff": True})
    return user


def test_host_stop_is_refused_once_a_table_with_an_entry_has_started(rich, make_room, make_user):
    """economy.md [host stop]: before the start the host may stop (entries back); after it, not."""
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=60, rake_bps=500)
    host, guest = make_user(), make_user()
    waiting = rooms.table_open(room=room, host=host, seat_count=3)
    rooms.table_sit(table_id=waiting.pk, user=host)
    rooms.table_sit(table_id=waiting.pk, user=guest)
    rooms.table_stop(table_id=waiting.pk, reason=StopReason.HOST, by=host)
    assert [bal(host), bal(guest)] == [1000, 1000] and escrow(waiting) == 0

    table = seated(room, [host, guest])
    before = LedgerTransaction.objects.count()
    with pytest.raises(TableError) as exc:
        rooms.table_stop(table_id=table.pk, reason=StopReason.HOST, by=host)
    assert exc.value.code == "host_stop_after_start" and http_status(exc.value) == 409
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING and LedgerTransaction.objects.count() == before
    assert escrow(table) == 120
    rooms.table_stop(table_id=table.pk, reason=StopReason.STAFF, by=staff_user())  # staff still can
    assert [bal(host), bal(guest)] == [1000, 1000] and ledger_problems() == []


@pytest.mark.parametrize("game, stake_kind, currency, stake", [
    ("cherki", "per_point", "CHP", 1), ("otuzbir", "ante", "CHP", 1)])
def test_host_stop_is_refused_at_a_started_staked_table_of_any_kind(make_room, make_user,
                                                                    game, stake_kind, currency, stake):
    """A Cherki value per point or a 31 ante is a stake like an entry: stopping would undo a losing hand."""
    room = make_room(game, stake_kind=stake_kind, currency=currency, stake=stake)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    with pytest.raises(TableError) as exc:
        rooms.table_stop(table_id=table.pk, reason=StopReason.HOST, by=users[0])
    assert exc.value.code == "host_stop_after_start"


def finish_with(table: Table, result: dict) -> None:
    """Settle as rooms.services.ending._finish_locked does, with a chosen result (exact-number tests)."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        locked.status = TableStatus.FINISHED
        locked.ended_at = timezone.now()
        locked.result = result
        locked.save()
        table_money.on_finish(table=locked, result=result)


def play_out(table: Table, *, limit: int = 5000) -> Table:
    """Play the first legal move for whoever is due (firing automatic deadlines) until the table ends."""
    engine = get_engine(table.room.game)
    for _ in range(limit):
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING:
            return table
        due = engine.deadline(table.state)
        acting = engine.to_act(table.state)
        seat = acting[0] if acting else (due or {}).get("seat")
        if seat is None or not engine.legal_moves(table.state, seat):
            make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
            rooms.table_fire_deadline(table_id=table.pk, expected_version=table.version)
            continue
        move = engine.legal_moves(table.state, seat)[0]
        rooms.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)
    raise AssertionError("the table did not end")


# ----- pot tables ----------------------------------------------------------------------------

def test_entry_on_sit_refund_on_stand_and_a_new_entry_on_sitting_again(make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=30, rake_bps=500)
    a, b = make_user(), make_user()
    table = rooms.table_open(room=room, host=a)
    rooms.table_sit(table_id=table.pk, user=a)
    rooms.table_sit(table_id=table.pk, user=b)
    assert (bal(a), bal(b), escrow(table)) == (70, 70, 60)
    rooms.table_stand(table_id=table.pk, user=b)
    assert (bal(b), escrow(table)) == (100, 30)
    rooms.table_sit(table_id=table.pk, user=b)
    assert (bal(b), escrow(table)) == (70, 60)
    assert LedgerTransaction.objects.filter(key__startswith=f"table:{table.pk}:entry:").count() == 3
    assert ledger_problems() == []


def test_refused_entry_rolls_the_sit_back_with_402(make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="MUT", stake=150)
    a = make_user()
    table = rooms.table_open(room=room, host=a)
    with pytest.raises(TableError) as err:
        rooms.table_sit(table_id=table.pk, user=a)
    assert (err.value.code, http_status(err.value)) == ("insufficient_funds", 402)
    assert not Seat.objects.filter(table=table).exists()
    assert bal(a, "MUT") == 100 and escrow(table, "MUT") == 0


def test_bots_are_funded_by_the_platform_to_pay_an_entry(make_room, make_user, make_bot):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=150)
    bot = make_bot()
    table = rooms.table_open(room=room, host=make_user())
    rooms.table_sit(table_id=table.pk, user=bot)
    assert bal(bot) == 0 and escrow(table) == 150
    assert services.issuance(currency="KEL").balance == -(100 * 2 + 50)  # two welcomes and the 50 top-up
    assert ledger_problems() == []


def test_a_table_that_never_starts_refunds_every_entry(make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=40)
    a, b, c = make_user(), make_user(), make_user()
    table = rooms.table_open(room=room, host=a)  # four seats: three sitting do not start it
    for u in (a, b, c):
        rooms.table_sit(table_id=table.pk, user=u)
    assert [bal(u) for u in (a, b, c)] == [60, 60, 60] and escrow(table) == 120
    assert rooms.room_close(room=room) == 1
    assert [bal(u) for u in (a, b, c)] == [100, 100, 100]
    assert escrow(table) == 0
    assert revenue() == 0 and ledger_problems() == []


def test_bots_left_alone_before_the_start_close_the_table_with_refunds(make_room, make_user, make_bot):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=40)
    a, bot = make_user(), make_bot()
    table = rooms.table_open(room=room, host=a)
    rooms.table_sit(table_id=table.pk, user=a)
    rooms.table_sit(table_id=table.pk, user=bot)
    rooms.table_stand(table_id=table.pk, user=a)
    table.refresh_from_db()
    assert table.status == TableStatus.STOPPED
    assert (bal(a), bal(bot), escrow(table)) == (100, 100, 0)


@pytest.mark.parametrize(("bps", "rake", "prize"), [(0, 0, 1000), (1, 0, 1000), (19, 1, 999), (20, 2, 998),
                                                    (10_000, 1000, 0)])
def test_finish_rake_at_basis_points_and_the_rest_to_first_place(rich, make_room, make_user, bps, rake, prize):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=250, rake_bps=bps)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    finish_with(table, {"ranks": [2, 1, 3, 4], "winners": [1]})
    assert [bal(u) for u in users] == [750, 750 + prize, 750, 750]
    assert revenue() == rake and escrow(table) == 0
    assert ledger_problems() == []


def test_three_way_tie_splits_evenly_remainder_to_the_smallest_seat(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=25, rake_bps=0)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    finish_with(table, {"ranks": [4, 1, 1, 1], "winners": [3, 1, 2]})
    assert [bal(u) for u in users] == [975, 975 + 34, 975 + 33, 975 + 33]
    table2 = seated(room, users)  # another pot of 100; now seat 0 is the smallest tied seat
    finish_with(table2, {"ranks": [1, 4, 1, 1], "winners": [0, 2, 3]})
    assert [bal(u) for u in users] == [950 + 34, 984, 983 + 33, 983 + 33]
    assert ledger_problems() == []


def test_three_way_tie_after_rake(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=25, rake_bps=500)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    finish_with(table, {"ranks": [1, 1, 4, 1], "winners": [0, 1, 3]})
    # pot 100, rake 5; 95 = 3 × 31 remainder 2, all of it to seat 0
    assert [bal(u) for u in users] == [975 + 33, 975 + 31, 975, 975 + 31]
    assert revenue() == 5


def test_mutiara_pot_goes_to_revenue_and_the_prize_is_paid_in_kelereng(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="MUT", stake=50, rake_bps=500)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    kel_issued = services.issuance(currency="KEL").balance
    finish_with(table, {"ranks": [3, 2, 1, 4], "winners": [2]})
    assert [bal(u, "MUT") for u in users] == [950, 950, 950, 950]
    assert [bal(u, "KEL") for u in users] == [1000, 1000, 1190, 1000]
    assert revenue("MUT") == 200 and revenue("KEL") == 0 and escrow(table, "MUT") == 0
    assert services.issuance(currency="KEL").balance == kel_issued - 190
    assert ledger_problems() == []


def test_baloot_winning_pair_splits_the_prize_remainder_to_the_smaller_seat(rich, make_room, make_user):
    room = make_room("baloot", stake_kind="pot", currency="KEL", stake=25, rake_bps=500)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    finish_with(table, {"ranks": [2, 1, 2, 1], "winners": [1, 3], "winning_team": 1})
    assert [bal(u) for u in users] == [975, 975 + 48, 975, 975 + 47]  # pot 100, rake 5, 95 = 48 + 47


def test_a_first_place_seat_that_left_forfeits_its_share(rich, make_room, make_user):
    room = make_room("baloot", stake_kind="pot", currency="KEL", stake=25, rake_bps=0)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    rooms.table_stand(table_id=table.pk, user=users[3])  # leaves after the start: forfeit
    assert Seat.objects.get(table=table, user=users[3]).status == SeatStatus.LEFT
    assert escrow(table) == 100
    finish_with(Table.objects.get(pk=table.pk), {"ranks": [2, 1, 2, 1], "winners": [1, 3], "winning_team": 1})
    assert [bal(u) for u in users] == [975, 1075, 975, 975]


def test_stop_after_forfeits_refunds_players_still_in_and_forfeits_go_to_the_platform(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=60, rake_bps=500)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    rooms.table_stand(table_id=table.pk, user=users[1])
    rooms.table_stand(table_id=table.pk, user=users[2])
    assert escrow(table) == 240
    rooms.table_stop(table_id=table.pk, reason=StopReason.STAFF, by=staff_user())
    assert [bal(u) for u in users] == [1000, 940, 940, 1000]
    assert revenue() == 120 and escrow(table) == 0
    assert ledger_problems() == []


def test_desertion_stops_the_table_entries_back_to_bots_still_in(rich, make_room, make_user, make_bot):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=60)
    a, b1, b2 = make_user(), make_bot(), make_bot()
    table = seated(room, [a, b1, b2])
    rooms.table_stand(table_id=table.pk, user=a)  # the last human leaves: deserted
    table.refresh_from_db()
    assert (table.status, table.stop_reason) == (TableStatus.STOPPED, StopReason.DESERTED)
    assert (bal(a), bal(b1), bal(b2), revenue()) == (940, 1000, 1000, 60)


def test_admin_edits_to_a_room_do_not_change_a_running_tables_money(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=30)
    a, b = make_user(), make_user()
    table = rooms.table_open(room=room, host=a)
    rooms.table_sit(table_id=table.pk, user=a)
    room.stake, room.currency = 80, "MUT"
    room.save()
    rooms.table_sit(table_id=table.pk, user=b)  # the table keeps its terms: 30 KEL
    rooms.table_stand(table_id=table.pk, user=a)
    assert (bal(a), bal(b), bal(b, "MUT"), escrow(table)) == (1000, 970, 1000, 30)


def test_a_real_lembar_game_settles_by_the_rules(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=100, rake_bps=500)
    users = [make_user() for _ in range(3)]
    table = play_out(seated(room, users))
    assert table.status == TableStatus.FINISHED
    winners = table.result["winners"]
    shares = services.split_evenly(amount=285, seats=winners)
    assert [bal(u) for u in users] == [900 + shares.get(i, 0) for i in range(3)]
    assert revenue() == 15 and escrow(table) == 0 and ledger_problems() == []


def test_casual_tables_move_nothing(make_room, make_user):
    room = make_room("lembar")
    users = [make_user() for _ in range(2)]
    before = LedgerTransaction.objects.count()
    table = play_out(seated(room, users))
    assert table.status == TableStatus.FINISHED
    assert LedgerTransaction.objects.count() == before
    assert [bal(u) for u in users] == [100, 100]


# ----- Cherki ---------------------------------------------------------------------------------

def test_cherki_minimum_balance_to_sit(make_room, make_user, make_bot):
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=11)  # needs 1100
    user, bot = make_user(), make_bot()
    table = rooms.table_open(room=room, host=user)
    with pytest.raises(TableError) as err:
        rooms.table_sit(table_id=table.pk, user=user)
    assert (err.value.code, http_status(err.value)) == ("insufficient_funds", 402)
    rooms.table_sit(table_id=table.pk, user=bot)
    assert bal(bot, "CHP") == 1100  # topped up to the minimum; nothing taken at the sit


def test_cherki_payout_arithmetic(make_room, make_user):
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=3)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    finish_with(table, {"ranks": [2, 1, 2], "winners": [1], "winner": 1, "settled": True, "points": 17,
                        "deltas": [-17, 34, -17]})
    assert [bal(u, "CHP") for u in users] == [1000 - 51, 1000 + 102, 1000 - 51]
    assert ledger_problems() == []


def test_cherki_void_game_settles_nothing(make_room, make_user):
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=3)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    finish_with(table, {"ranks": [1, 1, 1], "winners": [0, 1, 2], "winner": None, "settled": False,
                        "deltas": [0, 0, 0]})
    assert [bal(u, "CHP") for u in users] == [1000, 1000, 1000]


def test_cherki_loser_short_of_chip_pays_what_it_has_and_the_platform_covers_the_rest(make_room, make_user):
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=10)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    services.transfer(key="spend", source=services.wallet(user=users[0], currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=900)  # spent elsewhere meanwhile
    finish_with(table, {"ranks": [2, 2, 1], "winners": [2], "winner": 2, "settled": True, "points": 25,
                        "deltas": [-25, -25, 50]})
    assert [bal(u, "CHP") for u in users] == [0, 750, 1500]
    assert ledger_problems() == []


def test_a_real_cherki_game_settles_its_deltas(make_room, make_user):
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=2)
    users = [make_user() for _ in range(3)]
    table = play_out(seated(room, users))
    assert table.status == TableStatus.FINISHED
    deltas = table.result["deltas"]
    assert [bal(u, "CHP") for u in users] == [1000 + 2 * d for d in deltas]
    assert ledger_problems() == []


# ----- 31 -------------------------------------------------------------------------------------

def hand_over(table: Table, event: dict) -> None:
    with transaction.atomic():
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        table_money.on_hand_over(table=locked, event=event)


def test_31_hand_settlement_with_rake(make_room, make_user):
    room = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5, rake_bps=500)
    users = [make_user() for _ in range(4)]
    table = seated(room, users)
    hand_over(table, {"hand": 0, "pot": 40, "contributions": [5, 25, 5, 5], "payouts": [0, 38, 0, 0], "rake": 2})
    assert [bal(u, "CHP") for u in users] == [995, 1013, 995, 995]
    assert revenue("CHP") == 2 and escrow(table, "CHP") == 0
    hand_over(table, {"hand": 0, "pot": 40, "contributions": [5, 25, 5, 5], "payouts": [0, 38, 0, 0], "rake": 2})
    assert [bal(u, "CHP") for u in users] == [995, 1013, 995, 995]  # a replayed hand posts nothing
    with pytest.raises(Exception) as err:
        hand_over(table, {"hand": 1, "pot": 40, "contributions": [5, 25, 5, 5], "payouts": [0, 39, 0, 0], "rake": 2})
    assert getattr(err.value, "code", "") == "bad_hand"
    assert ledger_problems() == []


def test_31_balance_below_zero_within_a_hand_is_bailed_out_to_500(make_room, make_user):
    from wallets import selectors

    room = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    services.transfer(key="spend", source=services.wallet(user=users[0], currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=990)  # 10 Chip left
    hand_over(table, {"hand": 0, "pot": 60, "contributions": [30, 25, 5], "payouts": [0, 60, 0], "rake": 0})
    # users[0] went to -20 inside the hand; the bailout writes the debt off and restores 500.
    assert [bal(u, "CHP") for u in users] == [500, 1035, 995]
    assert selectors.bailout_count(user=users[0]) == 1 and selectors.bailout_count(user=users[1]) == 0
    bailout = LedgerTransaction.objects.get(key=f"table:{table.pk}:hand:0:bailout:user{users[0].pk}")
    assert bailout.entries.get(account__kind="player").amount == 520
    assert ledger_problems() == []


def test_31_real_game_hands_post_and_stop_mid_hand_moves_nothing_more(make_room, make_user):
    room = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=10, rake_bps=1000,
                     options={"hands": 3})
    users = [make_user() for _ in range(3)]
    table = play_out(seated(room, users))
    assert table.status == TableStatus.FINISHED
    net = table.result["net"]
    assert [bal(u, "CHP") for u in users] == [1000 + n for n in net]
    assert revenue("CHP") == table.result["rake"] > 0
    # A second table stopped during its first hand: the unfinished hand was never posted.
    table2 = seated(room, users)
    before = LedgerTransaction.objects.count()
    rooms.table_stop(table_id=table2.pk, reason=StopReason.STAFF, by=staff_user())
    assert LedgerTransaction.objects.count() == before
    assert ledger_problems() == []


def test_31_sit_needs_the_ante(make_room, make_user, make_bot):
    room = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=25)
    user, bot = make_user(), make_bot()
    services.transfer(key="spend", source=services.wallet(user=user, currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=990)
    services.transfer(key="spend-bot", source=services.wallet(user=bot, currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=990)
    table = rooms.table_open(room=room, host=user)
    with pytest.raises(TableError) as err:
        rooms.table_sit(table_id=table.pk, user=user)
    assert err.value.code == "insufficient_funds"
    rooms.table_sit(table_id=table.pk, user=bot)
    assert bal(bot, "CHP") == 25


@pytest.mark.django_db(transaction=True)
def test_cherki_settlement_reads_a_losers_balance_under_its_lock(make_room, make_user):
    """Issue 23 #10 (PostgreSQL, threads): a loser's Chip is spent elsewhere while the game settles.
    The settlement waits for that posting and then takes what is left; reading the balance before
    locking made the posting refuse (insufficient_funds) and the game could not finish."""
    import threading
    import time

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=10)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    loser = services.wallet(user=users[0], currency="CHP")
    holding, errors = threading.Event(), []

    def spend_elsewhere() -> None:
        try:
            with transaction.atomic():
                Account.objects.select_for_update().get(pk=loser.pk)
                holding.set()
                time.sleep(0.5)  # the settlement starts meanwhile
                services.transfer(key="spend", source=loser, target=services.revenue(currency="CHP"), amount=900)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    def settle() -> None:
        try:
            holding.wait(5)
            finish_with(table, {"ranks": [2, 2, 1], "winners": [2], "winner": 2, "settled": True, "points": 25,
                                "deltas": [-25, -25, 50]})
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=spend_elsewhere), threading.Thread(target=settle)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert [bal(u, "CHP") for u in users] == [0, 750, 1500]  # 100 left was paid, the platform covered 150
    assert ledger_problems() == []
