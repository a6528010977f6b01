"""The player's own money, read back: what each posting was for (from its key), the wallet history with
running balances, one table's money movement, what a seat costs, and a 31 room's largest pot."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from rooms import services as rooms
from rooms.models import StopReason, Table, TableStatus
from wallets import selectors, services, table_money
from wallets.models import LedgerTransaction, WalletSettings

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich(db):
    conf = WalletSettings.load()
    conf.welcome_mutiara = conf.welcome_kelereng = 1000
    conf.save()


def seated(room, users) -> Table:
    table = rooms.table_open(room=room, host=users[0], seat_count=len(users))
    for user in users:
        rooms.table_sit(table_id=table.pk, user=user)
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING
    return table


def finish_with(table: Table, result: dict) -> None:
    """Settle as rooms.services.ending._finish_locked does, with a chosen result."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        locked.status, locked.ended_at, locked.result = TableStatus.FINISHED, timezone.now(), result
        locked.save()
        table_money.on_finish(table=locked, result=result)


def hand_over(table: Table, event: dict) -> None:
    with transaction.atomic():
        table_money.on_hand_over(table=Table.objects.select_for_update().select_related("room").get(pk=table.pk),
                                 event=event)


# ----- causes ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("key", "cause"), [
    ("user:7:welcome", selectors.Cause("welcome")),
    ("user:7:welcome:real", selectors.Cause("welcome_real")),
    ("table:42:entry:seat9", selectors.Cause("entry", table_id=42)),
    ("table:42:refund:seat9", selectors.Cause("refund", table_id=42)),
    ("table:42:botfund:seat9", selectors.Cause("bot_funding", table_id=42)),
    ("table:42:settle", selectors.Cause("settle", table_id=42)),
    ("table:42:stop", selectors.Cause("stop", table_id=42)),
    ("table:42:hand:3", selectors.Cause("hand", table_id=42, hand=3)),
    ("table:42:hand:3:bailout:user7", selectors.Cause("bailout", table_id=42, hand=3)),
    ("tournament:5:entry:7:1", selectors.Cause("tournament_entry", tournament_id=5)),
    ("tournament:5:refund:7:1", selectors.Cause("tournament_refund", tournament_id=5)),
    ("tournament:5:botfund:7:2", selectors.Cause("bot_funding", tournament_id=5)),
    ("tournament:5:cancel", selectors.Cause("tournament_cancel", tournament_id=5)),
    ("tournament:5:prizes", selectors.Cause("tournament_prize", tournament_id=5)),
    ("arena:3:entry:7:1", selectors.Cause("arena_entry", arena_id=3)),
    ("arena:3:entry:7:2", selectors.Cause("arena_entry", arena_id=3)),
    ("arena:3:refund:7:1", selectors.Cause("arena_refund", arena_id=3)),
    ("arena:3:cancel", selectors.Cause("arena_cancel", arena_id=3)),
    ("arena:3:prizes", selectors.Cause("arena_prize", arena_id=3)),
    ("arena:3:entry:7", selectors.Cause("other")), ("arena:x:prizes", selectors.Cause("other")),
    ("spend", selectors.Cause("other")), ("table:x:settle", selectors.Cause("other")), ("", selectors.Cause("other")),
])
def test_a_postings_cause_is_read_from_its_key(key, cause):
    assert selectors.cause_of(key) == cause


# ----- the wallet history ------------------------------------------------------------------------

def test_history_after_a_pot_game_has_the_welcome_grant_the_entry_and_the_prize(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=60, rake_bps=500)
    winner, loser = make_user(), make_user()
    table = seated(room, [winner, loser])
    finish_with(table, {"winners": [0]})
    page = selectors.wallet_history(user=winner, currency="KEL")
    assert page["balance"] == 1000 - 60 + 114
    rows = page["rows"]
    assert [r["purpose"] for r in rows] == ["prize", "entry", "welcome"]  # newest first
    assert [r["amount"] for r in rows] == [114, -60, 1000]
    assert [r["balance_after"] for r in rows] == [1054, 940, 1000]
    prize, entry, welcome = rows
    assert prize["table_id"] == entry["table_id"] == table.pk and welcome["table_id"] is None
    assert (prize["pot"], prize["rake"], prize["text"]) == (120, 6, "Prize")
    assert entry["text"] == "Entry into the pot" and welcome["text"] == "Welcome grant"
    # The loser sees only their own postings: no prize row.
    assert [r["purpose"] for r in selectors.wallet_history(user=loser, currency="KEL")["rows"]] == ["entry", "welcome"]


def test_a_mutiara_pots_prize_shows_in_kelereng_with_the_rule(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="MUT", stake=10, rake_bps=500)
    a, b = make_user(), make_user()
    finish_with(seated(room, [a, b]), {"winners": [1]})
    [prize, _welcome] = selectors.wallet_history(user=b, currency="KEL")["rows"]
    assert prize["purpose"] == "prize_mutiara" and prize["amount"] == 19 and (prize["pot"], prize["rake"]) == (20, 1)
    assert "paid in Kelereng" in prize["text"]
    [entry, _welcome] = selectors.wallet_history(user=b, currency="MUT")["rows"]
    assert entry["purpose"] == "entry" and entry["amount"] == -10
    assert "Kelereng" in str(selectors.MUTIARA_PRIZE_RULE) and "1 Kelereng for 1 Mutiara" in str(selectors.MUTIARA_PRIZE_RULE)


def test_31_hands_are_one_row_each_with_what_went_in_and_out_and_bailouts(make_room, make_user):
    room = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5, rake_bps=500)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    hand_over(table, {"hand": 0, "pot": 40, "contributions": [5, 30, 5], "payouts": [0, 38, 0], "rake": 2})
    services.transfer(key="spend", source=services.wallet(user=users[0], currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=985)  # 10 Chip left
    hand_over(table, {"hand": 1, "pot": 60, "contributions": [30, 25, 5], "payouts": [0, 57, 0], "rake": 3})
    won = selectors.wallet_history(user=users[1], currency="CHP")["rows"]
    assert [(r["purpose"], r["amount"], r["paid"], r["received"]) for r in won[:2]] == [
        ("hand_won", 32, 25, 57), ("hand_won", 8, 30, 38)]
    assert won[0]["text"] == "31 hand 2: pot won" and (won[0]["pot"], won[0]["rake"]) == (60, 3)
    lost = selectors.wallet_history(user=users[0], currency="CHP")["rows"]
    assert [r["purpose"] for r in lost] == ["bailout", "hand", "other", "hand", "welcome"]
    assert [r["balance_after"] for r in lost] == [500, -20, 10, 995, 1000]  # -20 inside the hand, then bailed out
    assert lost[0]["amount"] == 520 and lost[0]["table_id"] == table.pk and "Bailout after 31 hand 2" in lost[0]["text"]
    assert lost[2]["text"] == "Adjustment"  # a key of no known format: the posting's kind


def test_history_is_paged_newest_first_with_balances_carried_across_pages(make_room, make_user):
    user, other = make_user(), make_user()
    chip = services.wallet(user=user, currency="CHP")
    for i in range(30):
        services.transfer(key=f"t{i}", source=services.issuance(currency="CHP"), target=chip, amount=i + 1)
    services.transfer(key="other", source=services.issuance(currency="CHP"),
                      target=services.wallet(user=other, currency="CHP"), amount=7)
    first = selectors.wallet_history(user=user, currency="CHP")
    assert first["balance"] == 1000 + sum(range(1, 31))
    assert len(first["rows"]) == 25 and first["page"].paginator.count == 31 and first["page"].has_next()
    assert first["rows"][0]["amount"] == 30 and first["rows"][0]["balance_after"] == first["balance"]
    second = selectors.wallet_history(user=user, currency="CHP", page=2)
    assert [r["amount"] for r in second["rows"]] == [5, 4, 3, 2, 1, 1000]
    assert second["rows"][-1]["balance_after"] == 1000 and second["rows"][0]["balance_after"] == 1015
    # A page past the end or not a number gives a page, never an error; an unknown currency is Chip.
    assert selectors.wallet_history(user=user, currency="CHP", page="x")["page"].number == 1
    assert selectors.wallet_history(user=user, currency="CHP", page=99)["page"].number == 2
    assert selectors.wallet_history(user=user, currency="XXX")["currency"] == "CHP"


def test_arena_postings_say_what_they_were_for_and_carry_the_arena(make_arena, make_user, pay_arena_prizes):
    from arenas import services as arenas

    arena = make_arena(entry_fee=10, currency="CHP", rake_bps=1000, payouts=[100])
    void = make_arena("Void", entry_fee=10, currency="CHP")
    ayla, bora = make_user(), make_user()
    arenas.join(arena_id=arena.pk, user=ayla)
    arenas.pause(arena_id=arena.pk, user=ayla)  # before the start: withdrawn, the entry back
    arenas.join(arena_id=arena.pk, user=ayla)  # a second registration: a second entry posting
    arenas.join(arena_id=arena.pk, user=bora)
    arenas.join(arena_id=void.pk, user=bora)
    arenas.cancel(arena_id=void.pk)
    pay_arena_prizes(arena, rake=2, prizes={ayla: 18})
    rows = selectors.wallet_history(user=ayla, currency="CHP")["rows"]
    assert [(r["purpose"], r["amount"], r["balance_after"]) for r in rows] == [
        ("arena_prize", 18, 1008), ("arena_entry", -10, 990), ("arena_refund", 10, 1000), ("arena_entry", -10, 990),
        ("welcome", 1000, 1000)]
    assert [r["text"] for r in rows[:3]] == ["Arena prize", "Arena entry", "Arena entry back: withdrawn"]
    assert all(r["arena_id"] == arena.pk and r["table_id"] is r["tournament_id"] is None for r in rows[:4])
    assert rows[4]["arena_id"] is None
    mine = selectors.wallet_history(user=bora, currency="CHP")["rows"]
    assert [(r["purpose"], r["arena_id"], r["amount"]) for r in mine[:3]] == [
        ("arena_cancel", void.pk, 10), ("arena_entry", void.pk, -10), ("arena_entry", arena.pk, -10)]
    assert mine[0]["text"] == "Arena entry back: the arena was cancelled"


# ----- one table's money -------------------------------------------------------------------------

def test_table_money_of_a_pot_winner_and_a_loser(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=60, rake_bps=500)
    winner, loser, stranger = make_user(), make_user(), make_user()
    table = seated(room, [winner, loser])
    finish_with(table, {"winners": [0]})
    mine = selectors.table_money_for(user=winner, table_id=table.pk)
    assert [(x["purpose"], x["amount"]) for x in mine["lines"]] == [("entry", -60), ("prize", 114)]
    [kel] = mine["totals"]
    assert {k: kel[k] for k in ("currency", "paid", "back", "won", "net", "rake")} == {
        "currency": "KEL", "paid": 60, "back": 0, "won": 114, "net": 54, "rake": 6}
    [lost] = selectors.table_money_for(user=loser, table_id=table.pk)["totals"]
    assert (lost["paid"], lost["won"], lost["net"], lost["rake"]) == (60, 0, -60, 6)
    assert selectors.table_money_for(user=stranger, table_id=table.pk) == {
        "table_id": table.pk, "lines": [], "totals": [], "mutiara_pot": False}


def test_table_money_of_a_mutiara_pot_says_the_prize_is_in_kelereng(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="MUT", stake=10, rake_bps=500)
    a, b = make_user(), make_user()
    table = seated(room, [a, b])
    finish_with(table, {"winners": [0]})
    money = selectors.table_money_for(user=a, table_id=table.pk)
    assert money["mutiara_pot"] is True
    assert {t["currency"]: (t["paid"], t["won"], t["net"], t["rake"]) for t in money["totals"]} == {
        "MUT": (10, 0, -10, 1), "KEL": (0, 19, 19, 0)}


def test_table_money_of_a_refund_and_a_stop(rich, make_room, make_user):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=60, rake_bps=500)
    host, guest = make_user(), make_user()
    table = rooms.table_open(room=room, host=host, seat_count=3)
    rooms.table_sit(table_id=table.pk, user=host)
    rooms.table_sit(table_id=table.pk, user=guest)
    rooms.table_stand(table_id=table.pk, user=guest)
    rooms.table_stop(table_id=table.pk, reason=StopReason.HOST, by=host)
    guest_money = selectors.table_money_for(user=guest, table_id=table.pk)
    assert [(x["purpose"], x["amount"]) for x in guest_money["lines"]] == [("entry", -60), ("refund", 60)]
    assert guest_money["totals"][0]["back"] == 60 and guest_money["totals"][0]["net"] == 0
    host_money = selectors.table_money_for(user=host, table_id=table.pk)
    assert [x["purpose"] for x in host_money["lines"]] == ["entry", "stop"]
    assert (host_money["totals"][0]["back"], host_money["totals"][0]["rake"]) == (60, 0)


def test_table_money_of_31_counts_antes_payouts_rake_and_keeps_bailouts_out_of_the_net(make_room, make_user):
    room = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5, rake_bps=500)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    hand_over(table, {"hand": 0, "pot": 40, "contributions": [5, 30, 5], "payouts": [0, 38, 0], "rake": 2})
    services.transfer(key="spend", source=services.wallet(user=users[0], currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=985)
    hand_over(table, {"hand": 1, "pot": 60, "contributions": [30, 25, 5], "payouts": [0, 57, 0], "rake": 3})
    [chip] = selectors.table_money_for(user=users[0], table_id=table.pk)["totals"]
    assert (chip["paid"], chip["won"], chip["bailouts"], chip["net"], chip["rake"]) == (35, 0, 520, -35, 5)
    [chip] = selectors.table_money_for(user=users[1], table_id=table.pk)["totals"]
    assert (chip["paid"], chip["won"], chip["net"]) == (55, 95, 40)
    assert [x["purpose"] for x in selectors.table_money_for(user=users[0], table_id=table.pk)["lines"]] == [
        "hand", "hand", "bailout"]


def test_table_money_of_cherki_points(make_room, make_user):
    room = make_room("cherki", stake_kind="per_point", currency="CHP", stake=2)
    users = [make_user() for _ in range(3)]
    table = seated(room, users)
    finish_with(table, {"settled": True, "winner": 0, "deltas": [20, -10, -10], "winners": [0]})
    win = selectors.table_money_for(user=users[0], table_id=table.pk)
    assert [(x["purpose"], x["amount"]) for x in win["lines"]] == [("cherki_won", 40)]
    lose = selectors.table_money_for(user=users[1], table_id=table.pk)
    assert [(x["purpose"], x["amount"]) for x in lose["lines"]] == [("cherki_lost", -20)]
    assert lose["totals"][0]["net"] == -20


# ----- what a seat costs -------------------------------------------------------------------------

@pytest.mark.parametrize(("game", "kind", "currency", "stake", "options", "need"), [
    ("lembar", "casual", "", 0, {}, None),
    ("lembar", "pot", "MUT", 10, {}, ("MUT", 10)),
    ("cherki", "per_point", "CHP", 3, {}, ("CHP", 300)),
    ("otuzbir", "ante", "CHP", 5, {}, ("CHP", 5)),
    ("otuzbir", "ante", "CHP", 5, {"ante": 8}, ("CHP", 8)),  # the engine's ante, as table_open sets it
])
def test_what_a_seat_needs(make_room, game, kind, currency, stake, options, need):
    room = make_room(game, stake_kind=kind, currency=currency, stake=stake, options=options)
    assert selectors.sit_requirement(room=room) == need


def test_shortfall_and_the_pending_welcome(make_room, make_user, settings):
    settings.WELCOME_REAL_VALUE_DELAY_H = 24
    user = make_user()  # Chip now, Mutiara and Kelereng later
    pot = make_room("lembar", stake_kind="pot", currency="MUT", stake=10)
    assert selectors.shortfall(user=user, room=pot) == {"currency": "MUT", "needed": 10, "balance": 0,
                                                        "welcome_pending": True}
    assert selectors.shortfall(user=user, room=make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5)) is None
    assert selectors.shortfall(user=user, room=make_room("lembar")) is None
    services.grant_welcome_real(user=user)
    assert selectors.shortfall(user=user, room=pot) is None
    assert "24 hours" in selectors.welcome_pending_help() and "e-mail" not in selectors.welcome_pending_help()
    settings.WELCOME_REQUIRES_VERIFIED_EMAIL = True
    assert "verified your e-mail" in selectors.welcome_pending_help()
    assert "500 Chip" in selectors.funding_help(currency="CHP")


# ----- a 31 room's largest pot -----------------------------------------------------------------

def test_largest_pot_this_week_per_room_cached(make_room, make_user, django_assert_num_queries):
    salon = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5)
    other = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5)
    users = [make_user() for _ in range(3)]
    table = seated(salon, users)
    hand_over(table, {"hand": 0, "pot": 40, "contributions": [5, 30, 5], "payouts": [0, 40, 0], "rake": 0})
    hand_over(table, {"hand": 1, "pot": 90, "contributions": [30, 30, 30], "payouts": [90, 0, 0], "rake": 0})
    hand_over(seated(other, users), {"hand": 0, "pot": 15, "contributions": [5, 5, 5], "payouts": [15, 0, 0],
                                     "rake": 0})
    # A hand older than a week does not count (its posting's time moved back: rows are otherwise immutable).
    LedgerTransaction._base_manager.filter(key=f"table:{table.pk}:hand:1").update(
        created_at=timezone.now() - timedelta(days=8))
    assert selectors.largest_pots(room_ids=[salon.pk, other.pk]) == {salon.pk: 40, other.pk: 15}
    with django_assert_num_queries(0):
        assert selectors.largest_pots(room_ids=[salon.pk]) == {salon.pk: 40}
    assert selectors.largest_pots(room_ids=[make_room("otuzbir", stake_kind="ante", currency="CHP", stake=1).pk]) == {}
