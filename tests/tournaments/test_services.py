"""Tournament services: registration and refunds, cancellation, a whole freezeout in process, brackets."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from rooms import services as rooms_services
from rooms.models import Room, Table, TableStatus
from tests.conftest import make_due
from tests.tournaments.conftest import play_round
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import Entry, EntryStatus, Status, Tournament, TournamentTable
from wallets.checks import ledger_problems
from wallets.models import AccountKind, Currency
from wallets.services import balance_of, revenue, tournament_escrow

pytestmark = pytest.mark.usefixtures("quiet")


def chip(user) -> int:
    return balance_of(user=user, currency=Currency.CHIP)


def escrow(tournament) -> int:
    account = tournament_escrow(tournament_id=tournament.pk, currency=Currency.CHIP)
    account.refresh_from_db()
    return account.balance


def test_register_unregister_refunds_in_full_and_registers_again(make_tournament, make_user):
    t = make_tournament()
    user = make_user()
    before = chip(user)
    services.register(tournament_id=t.pk, user=user)
    assert chip(user) == before - 20 and escrow(t) == 20
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=user)
    assert err.value.code == "already_registered" and chip(user) == before - 20
    services.unregister(tournament_id=t.pk, user=user)
    assert chip(user) == before and escrow(t) == 0
    services.register(tournament_id=t.pk, user=user)  # a second registration is a second posting
    assert chip(user) == before - 20 and escrow(t) == 20
    assert Entry.objects.get(tournament=t, user=user).registrations == 2
    assert ledger_problems() == []


def test_bad_requests_have_codes_and_change_nothing(make_tournament, make_user, room):
    user = make_user()
    before = chip(user)
    for call, code in [
        (lambda: services.register(tournament_id=999999, user=user), "no_such_tournament"),
        (lambda: services.register(tournament_id="x", user=user), "no_such_tournament"),
        (lambda: services.unregister(tournament_id=make_tournament().pk, user=user), "not_registered"),
        (lambda: services.register(tournament_id=make_tournament(entry_fee=10**6).pk, user=user), "insufficient_funds"),
        (lambda: services.register(tournament_id=make_tournament(
            registration_opens_at=timezone.now() + timedelta(hours=1)).pk, user=user), "registration_closed"),
        (lambda: make_tournament(rake_bps=20_000), "bad_tournament"),
        (lambda: make_tournament(ante_schedule={"base": 0}), "bad_tournament"),
    ]:
        with pytest.raises(TournamentError) as err:
            call()
        assert err.value.code == code
    assert chip(user) == before
    assert not Entry.objects.filter(user=user, status=EntryStatus.REGISTERED).exists()
    paid_room = Room(name="paid", slug="t-paid", game="otuzbir", seats=7, stake_kind="ante", stake=1,
                     currency="CHP")
    paid_room.save()
    with pytest.raises(TournamentError) as err:
        make_tournament(room=paid_room)
    assert err.value.code == "bad_tournament"  # tournament tables must not settle Chip per hand
    assert ledger_problems() == []


def test_too_few_entrants_cancels_with_every_entry_back(make_tournament, make_user):
    t = make_tournament(min_entrants=3)
    users = [make_user() for _ in range(2)]
    before = [chip(u) for u in users]
    for u in users:
        services.register(tournament_id=t.pk, user=u)
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.CANCELLED and t.cancel_reason == "too_few_entrants"
    assert [chip(u) for u in users] == before and escrow(t) == 0
    assert ledger_problems() == []


def test_cancel_before_the_start_refunds_every_entry(make_tournament, make_user, django_user_model):
    t = make_tournament()
    users = [make_user() for _ in range(3)]
    before = [chip(u) for u in users]
    for u in users:
        services.register(tournament_id=t.pk, user=u)
    with pytest.raises(TournamentError) as err:
        services.cancel(tournament_id=t.pk, by=users[0])
    assert err.value.code == "not_staff"
    services.cancel(tournament_id=t.pk, reason="staff")
    assert [chip(u) for u in users] == before and escrow(t) == 0
    assert Tournament.objects.get(pk=t.pk).status == Status.CANCELLED
    with pytest.raises(TournamentError) as err:
        services.cancel(tournament_id=t.pk)
    assert err.value.code == "tournament_over"
    assert ledger_problems() == []


def test_cancel_after_the_start_refunds_players_still_in_and_splits_nothing(make_tournament, make_bots, make_user):
    t = make_tournament(min_entrants=8, fill_with_bots=True)
    human = make_user()
    human_before = chip(human)
    make_bots(8)
    services.register(tournament_id=t.pk, user=human)
    services.start(tournament_id=t.pk)
    rng = random.Random(7)
    while not Entry.objects.filter(tournament=t, status=EntryStatus.OUT).exists():
        play_round(t.pk, rng)
    still_in = list(Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING).select_related("user"))
    out = list(Entry.objects.filter(tournament=t, status=EntryStatus.OUT).select_related("user"))
    balances = {e.pk: chip(e.user) for e in still_in + out}
    revenue_before = revenue(currency=Currency.CHIP).balance
    services.cancel(tournament_id=t.pk, reason="staff")
    for e in still_in:
        assert chip(e.user) == balances[e.pk] + 20
    for e in out:
        assert chip(e.user) == balances[e.pk]
    assert revenue(currency=Currency.CHIP).balance == revenue_before + 20 * len(out)
    assert escrow(t) == 0
    human_entry = Entry.objects.get(tournament=t, user=human)
    assert chip(human) == human_before - (20 if human_entry.status == EntryStatus.OUT else 0)
    assert ledger_problems() == []


def _sizes(t) -> list[int]:
    return [len(tt.players) for tt in TournamentTable.objects.filter(tournament=t, broken=False)]


def test_a_30_entrant_freezeout_plays_to_a_70_30_payout(make_tournament, make_bots):
    t = make_tournament(min_entrants=30, fill_with_bots=True, seats_per_table=7, starts_at=timezone.now())
    make_bots(30)
    services.housekeeping()  # due: starts it, bots fill to the minimum
    t.refresh_from_db()
    assert t.status == Status.RUNNING and t.entrants == 30 and escrow(t) == 600
    assert sorted(_sizes(t)) == [6, 6, 6, 6, 6]
    rng = random.Random(3)
    hands_seen: dict[int, int] = {}
    rounds = 0
    while t.status == Status.RUNNING:
        for tt in TournamentTable.objects.filter(tournament=t, broken=False).select_related("table"):
            # each hand is a fresh table with the tournament's stacks and the table's own hand count
            assert tt.table.options["hand_offset"] == tt.hands and tt.table.options["hands"] == 1
            for player in tt.players:
                assert tt.hands >= hands_seen.get(player, 0)
                hands_seen[player] = tt.hands
        play_round(t.pk, rng)
        t.refresh_from_db()
        rounds += 1
        if t.status == Status.RUNNING:
            sizes = _sizes(t)
            assert max(sizes) - min(sizes) <= 1 and max(sizes) <= 7
            alive = Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING).count()
            assert len(sizes) == -(-alive // 7)
        assert rounds < 500
    entries = list(Entry.objects.filter(tournament=t))
    assert [e.place for e in entries if e.status == EntryStatus.WON] == [1]
    assert all(e.place is not None for e in entries)
    assert sum(e.prize for e in entries) == 600 and escrow(t) == 0
    winner = next(e for e in entries if e.place == 1)
    assert winner.prize == 420
    assert sum(e.prize for e in entries if e.place == 2) == 180
    # players out in the same hand rank by their stack at its start
    for a in entries:
        for b in entries:
            if a.out_round and a.out_round == b.out_round and a.out_stack > b.out_stack:
                assert a.place < b.place
            if a.out_round and b.out_round and a.out_round > b.out_round:
                assert a.place < b.place
    assert ledger_problems() == []


def _play_automatic(table_id: int) -> None:
    """Play a rooms table to its end with automatic moves only: no raise, so nobody busts."""
    for _ in range(500):
        table = Table.objects.get(pk=table_id)
        if table.status != TableStatus.RUNNING:
            return
        make_due(table.pk, at=timezone.now())
        rooms_services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
    raise AssertionError("table did not end")


def _leave(tt: TournamentTable, entry: Entry) -> None:
    rooms_services.table_stand(table_id=tt.table_id, user=entry.user)


def test_31_leavers_are_out_at_that_moment_the_later_ranks_higher_and_prizes_follow(make_tournament, make_user):
    # otuzbir.md, Tournament: a leaver "is eliminated at that moment [...] ranks below everyone still
    # playing and below the players eliminated at the end of that hand, and of several who leave the
    # later ranks higher. Two players never share a place because of a leave."
    t = make_tournament(min_entrants=4)
    for user in [make_user() for _ in range(4)]:
        services.register(tournament_id=t.pk, user=user)
    services.start(tournament_id=t.pk)
    tt = TournamentTable.objects.get(tournament=t, broken=False)
    first = Entry.objects.get(pk=tt.players[0])
    _leave(tt, first)  # round 1: one leaves at once, the other three play the hand out
    _play_automatic(tt.table_id)
    services.advance(tournament_id=t.pk)
    first.refresh_from_db()
    assert first.status == EntryStatus.OUT and first.place == 4
    # round 2: the two with equal stacks (99: the hand's winner has 103) leave, one after the other
    tt.refresh_from_db()
    playing = list(Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING))
    equal = [e for e in playing if e.stack == 99]
    assert len(equal) == 2 and tt.table.status == TableStatus.RUNNING
    earlier, later = equal
    _leave(tt, earlier)
    _leave(tt, later)  # the last one left wins the hand and the tournament
    services.advance(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    winner = next(e for e in playing if e not in equal)
    places = {e.pk: (e.place, e.prize) for e in Entry.objects.filter(tournament=t)}
    assert places == {winner.pk: (1, 56), later.pk: (2, 24), earlier.pk: (3, 0), first.pk: (4, 0)}
    assert escrow(t) == 0 and ledger_problems() == []


def test_31_leavers_at_a_deserted_table_rank_by_when_they_left(make_tournament, make_user, make_bots):
    # Both humans leave the first hand; the second leave deserts the table (bots only), which stops
    # it and voids the hand: both are out, the later leaver above the earlier, no shared place.
    t = make_tournament(min_entrants=4, fill_with_bots=True)
    make_bots(2)
    humans = [make_user() for _ in range(2)]
    for user in humans:
        services.register(tournament_id=t.pk, user=user)
    services.start(tournament_id=t.pk)
    tt = TournamentTable.objects.get(tournament=t, broken=False)
    earlier, later = (Entry.objects.get(tournament=t, user=u) for u in humans)
    _leave(tt, earlier)
    _leave(tt, later)
    assert Table.objects.get(pk=tt.table_id).status == TableStatus.STOPPED
    services.advance(tournament_id=t.pk)
    earlier.refresh_from_db()
    later.refresh_from_db()
    assert (earlier.status, earlier.place, later.status, later.place) == (EntryStatus.OUT, 4, EntryStatus.OUT, 3)
    rng = random.Random(2)
    t.refresh_from_db()
    while t.status == Status.RUNNING:
        play_round(t.pk, rng)
        t.refresh_from_db()
    entries = list(Entry.objects.filter(tournament=t))
    assert sorted(e.place for e in entries) == [1, 2, 3, 4]
    assert sorted(e.prize for e in entries) == [0, 0, 24, 56] and earlier.prize == later.prize == 0
    assert escrow(t) == 0 and ledger_problems() == []


def test_fewer_than_four_entrants_winner_takes_all(make_tournament, make_bots):
    t = make_tournament(min_entrants=3, fill_with_bots=True, starts_at=timezone.now())
    make_bots(3)
    services.start(tournament_id=t.pk)
    rng = random.Random(11)
    t.refresh_from_db()
    while t.status == Status.RUNNING:
        play_round(t.pk, rng)
        t.refresh_from_db()
    prizes = sorted(Entry.objects.filter(tournament=t).values_list("prize", flat=True))
    assert prizes == [0, 0, 60]
    assert ledger_problems() == []


def test_rake_comes_off_the_pool(make_tournament, make_bots):
    t = make_tournament(min_entrants=2, fill_with_bots=True, rake_bps=1000)
    make_bots(2)
    services.start(tournament_id=t.pk)
    rng = random.Random(5)
    revenue_before = revenue(currency=Currency.CHIP).balance
    t.refresh_from_db()
    while t.status == Status.RUNNING:
        play_round(t.pk, rng)
        t.refresh_from_db()
    assert revenue(currency=Currency.CHIP).balance == revenue_before + 4
    assert sorted(Entry.objects.filter(tournament=t).values_list("prize", flat=True)) == [0, 36]
    assert ledger_problems() == []


def test_recurring_tournament_schedules_the_next_and_housekeeping_opens_registration(make_tournament):
    t = make_tournament(repeat_every=timedelta(days=1), min_entrants=2, starts_at=timezone.now(),
                        registration_opens_at=timezone.now() - timedelta(minutes=1))
    services.housekeeping()
    t.refresh_from_db()
    assert t.status == Status.CANCELLED  # nobody came
    nxt = Tournament.objects.exclude(pk=t.pk).get(name=t.name)
    assert nxt.starts_at == t.starts_at + timedelta(days=1) and nxt.status == Status.ANNOUNCED
    assert Tournament.objects.filter(name=t.name).count() == 2
    services.housekeeping(now=nxt.registration_opens_at + timedelta(seconds=1))
    nxt.refresh_from_db()
    assert nxt.status == Status.REGISTERING


def test_lembar_bracket_three_rounds_with_byes_pays_the_final(make_bots, make_user):
    room = Room(name="Lembar duel", slug="t-lembar-duel", game="lembar", seats=2, min_seats=2)
    room.full_clean()
    room.save()
    t = services.tournament_create(name="Lembar cup", room=room, starts_at=timezone.now(), entry_fee=20,
                                   min_entrants=5, fill_with_bots=True)
    make_bots(5)
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.RUNNING
    round1 = TournamentTable.objects.filter(tournament=t, round=1)
    assert sorted(len(tt.players) for tt in round1) == [1, 1, 1, 2]
    rng = random.Random(1)
    while t.status == Status.RUNNING:
        play_round(t.pk, rng)
        t.refresh_from_db()
    assert t.round == 3
    entries = list(Entry.objects.filter(tournament=t))
    assert sorted(e.prize for e in entries) == [0, 0, 0, 30, 70]
    assert [e.place for e in entries if e.prize == 70] == [1]
    assert Table.objects.filter(room=room).count() >= 3
    assert ledger_problems() == []
    assert not [a for a in ledger_problems() if AccountKind.TOURNAMENT_ESCROW in a]


# ----- issue 23: what each entry paid, money fields locked, failed payouts -----------------------------


def test_unregister_and_cancel_give_back_what_each_entry_paid_not_todays_fee(make_tournament, make_user):
    # Issue 23: the fee went 20 -> 50 after registration and a player who paid 20 got 50 back.
    t = make_tournament()
    early, late, third = (make_user() for _ in range(3))
    before = {u.pk: chip(u) for u in (early, late, third)}
    for user in (early, late):
        services.register(tournament_id=t.pk, user=user)
    # The fee moves behind the model's lock (a row edited before the lock existed, a queryset update).
    Tournament.objects.filter(pk=t.pk).update(entry_fee=50)
    services.register(tournament_id=t.pk, user=third)  # a new registration pays today's fee
    assert chip(third) == before[third.pk] - 50 and escrow(t) == 90
    services.unregister(tournament_id=t.pk, user=early)
    assert chip(early) == before[early.pk] and escrow(t) == 70  # 20 back, not 50
    paid = dict(Entry.objects.filter(tournament=t).values_list("user_id", "paid"))
    assert paid == {early.pk: 20, late.pk: 20, third.pk: 50}
    services.cancel(tournament_id=t.pk, reason="staff")
    assert [chip(u) for u in (early, late, third)] == [before[u.pk] for u in (early, late, third)]
    assert escrow(t) == 0 and ledger_problems() == []


def test_the_prize_pool_is_what_the_entrants_paid(make_tournament, make_user):
    # Issue 23: "Prizes 105 do not match the escrow 90" -- the pool was computed from today's fee.
    t = make_tournament(min_entrants=2)
    users = [make_user() for _ in range(2)]
    before = sum(chip(u) for u in users)
    for user in users:
        services.register(tournament_id=t.pk, user=user)
    Tournament.objects.filter(pk=t.pk).update(entry_fee=50)  # behind the lock, as above
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.RUNNING and t.pool == 40 and escrow(t) == 40
    rng = random.Random(4)
    while t.status == Status.RUNNING:
        play_round(t.pk, rng)
        t.refresh_from_db()
    assert t.status == Status.FINISHED and t.pool == 40
    assert sorted(Entry.objects.filter(tournament=t).values_list("prize", flat=True)) == [0, 40]
    assert sum(chip(u) for u in users) == before and escrow(t) == 0
    assert ledger_problems() == []


def test_fee_currency_and_rake_refuse_changes_once_anyone_registered(make_tournament, make_user):
    from django.core.exceptions import ValidationError

    t = make_tournament()
    t.entry_fee, t.rake_bps = 30, 100  # nobody registered yet: the terms may still change
    t.full_clean()
    t.save()
    user = make_user()
    services.register(tournament_id=t.pk, user=user)
    for field, value in [("entry_fee", 50), ("currency", Currency.KELERENG), ("rake_bps", 500)]:
        edited = Tournament.objects.get(pk=t.pk)
        setattr(edited, field, value)
        with pytest.raises(ValidationError) as err:  # the admin form's validation
            edited.full_clean()
        assert err.value.error_dict[field][0].code == "money_locked"
        with pytest.raises(ValidationError) as err:  # any other writer (shell, a service)
            edited.save()
        assert err.value.error_dict[field][0].code == "money_locked"
    stored = Tournament.objects.get(pk=t.pk)
    assert (stored.entry_fee, stored.currency, stored.rake_bps) == (30, Currency.CHIP, 100)
    stored.name, stored.min_entrants = "Renamed", 3  # everything else stays editable
    stored.full_clean()
    stored.save()
    services.unregister(tournament_id=t.pk, user=user)  # an entry row stays: still locked
    stored.entry_fee = 5
    with pytest.raises(ValidationError):
        stored.save()
    assert Tournament.objects.get(pk=t.pk).entry_fee == 30 and ledger_problems() == []


def test_a_failed_payout_is_recorded_and_housekeeping_moves_the_other_tournaments(make_tournament, make_user):
    from tests.tournaments.conftest import play_table
    from wallets.services import Leg, issuance, post_transaction, tournament_escrow

    now = timezone.now()
    stuck = make_tournament(name="Stuck", min_entrants=2, starts_at=now + timedelta(hours=2))
    other = make_tournament(name="Other", min_entrants=2, starts_at=now + timedelta(hours=1))
    for t in (stuck, other):
        for user in [make_user() for _ in range(2)]:
            services.register(tournament_id=t.pk, user=user)
        services.start(tournament_id=t.pk)
    stuck_escrow = tournament_escrow(tournament_id=stuck.pk, currency=Currency.CHIP)
    stray = Currency.CHIP
    post_transaction(key="test:stray", legs=[Leg(issuance(currency=stray), -5), Leg(stuck_escrow, 5)])
    rng = random.Random(6)
    with pytest.raises(TournamentError) as err:
        for _ in range(500):
            play_round(stuck.pk, rng)
    assert err.value.code == "pool_mismatch"
    assert any(p.startswith(f"tournament {stuck.pk} (running) is stuck: its prize payout failed")
               for p in ledger_problems())
    stuck.refresh_from_db()
    assert stuck.status == Status.RUNNING and stuck.payout_failed_at is not None
    assert stuck.payout_error == "pool_mismatch: Prizes 40 do not match the escrow 45."
    # The other tournament's hand ends; housekeeping tries the stuck one first and still advances it.
    other.refresh_from_db()
    hands_before = other.round
    for tt in TournamentTable.objects.filter(tournament=other, table__status=TableStatus.RUNNING):
        play_table(tt.table_id, rng)
    services.housekeeping()
    other.refresh_from_db()
    assert other.round > hands_before or other.status == Status.FINISHED
    # The stray Chip goes back: the next pass pays the prizes and clears the record.
    post_transaction(key="test:stray:back", legs=[Leg(stuck_escrow, -5), Leg(issuance(currency=stray), 5)])
    services.housekeeping()
    stuck.refresh_from_db()
    assert stuck.status == Status.FINISHED and stuck.payout_error == "" and stuck.payout_failed_at is None
    while other.status == Status.RUNNING:
        play_round(other.pk, rng)
        other.refresh_from_db()
    assert escrow(stuck) == escrow(other) == 0 and ledger_problems() == []
