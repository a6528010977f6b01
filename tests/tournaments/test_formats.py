"""Tournament formats (issue 24): payout structures, sit & go, late registration, re-entry and ante
levels by minutes, through the services (hands end with crafted results where a test needs a given
bust order; tests/tournaments/test_live_formats.py runs them through Celery)."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from rooms.models import Room, Table, TableStatus
from tournaments import selectors, services, tasks
from tournaments.errors import TournamentError
from tournaments.models import (
    Entry,
    EntryStatus,
    PayoutRow,
    PayoutStructure,
    Status,
    Tournament,
    TournamentTable,
    default_payout_rows,
)
from tournaments.services import registration
from wallets.checks import ledger_problems
from wallets.models import Currency
from wallets.services import balance_of, tournament_escrow

pytestmark = pytest.mark.usefixtures("quiet")


def escrow(tournament) -> int:
    account = tournament_escrow(tournament_id=tournament.pk, currency=Currency.CHIP)
    account.refresh_from_db()
    return account.balance


def structure(name: str, rows: dict[int, str]) -> PayoutStructure:
    s = PayoutStructure.objects.create(name=name)
    for n, percents in rows.items():
        row = PayoutRow(structure=s, from_entrants=n, percents=percents)
        row.full_clean()
        row.save()
    return s


def end_hand(t: Tournament, stacks: dict[int, int]) -> None:
    """Every running table's hand ends with these stacks (entry id -> stack; missing: unchanged), as
    the engine records it (a stack at or below 0 is eliminated), then the tournament settles it."""
    for tt in TournamentTable.objects.filter(tournament=t, broken=False, table__status=TableStatus.RUNNING):
        seated = list(Entry.objects.filter(pk__in=tt.players).values_list("pk", "stack"))
        order = {pk: stack for pk, stack in seated}
        after = [stacks.get(p, order[p]) for p in tt.players]
        Table.objects.filter(pk=tt.table_id).update(status=TableStatus.FINISHED, result={
            "stacks": after, "eliminated": [0 if s <= 0 else None for s in after], "hands_played": 1,
            "left": [False] * len(after)})
    services.advance(tournament_id=t.pk)


def playing(t: Tournament) -> list[Entry]:
    return list(Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING).order_by("pk"))


def started(make_tournament, make_user, n: int, **kw) -> tuple[Tournament, list]:
    t = make_tournament(min_entrants=2, **kw)
    users = [make_user() for _ in range(n)]
    for user in users:
        services.register(tournament_id=t.pk, user=user)
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    return t, users


# ----- payout structures ------------------------------------------------------------------------------

def test_the_default_structure_is_the_seeds_70_30_from_4_entrants(make_tournament, make_user):
    migration = importlib.import_module("tournaments.migrations.0004_formats_payout_structures")
    from django.apps import apps

    PayoutStructure.objects.filter(tournaments__isnull=True).delete()  # as before the migration
    migration.default_structure(apps, None)
    migration.default_structure(apps, None)  # once
    (default,) = PayoutStructure.objects.filter(is_default=True)
    assert default.as_rows() == [(1, [10_000]), (4, [7_000, 3_000])] == default_payout_rows()
    t = make_tournament()  # names no structure: the default one
    for _ in range(3):
        services.register(tournament_id=t.pk, user=make_user())
    assert selectors.live_snapshot(tournament_id=t.pk)["payouts"] == [{"place": 1, "percent": 100, "amount": 60}]
    services.register(tournament_id=t.pk, user=make_user())
    assert selectors.live_snapshot(tournament_id=t.pk)["payouts"] == [
        {"place": 1, "percent": 70, "amount": 56}, {"place": 2, "percent": 30, "amount": 24}]


def test_a_structure_splits_by_entrants_shows_before_registration_and_freezes_at_the_first(client, make_tournament,
                                                                                         make_user):
    s = structure("Top three", {1: "100", 5: "50, 30, 20", 8: "40, 25.5, 20, 14.5"})
    t = make_tournament(payout_structure=s, name="Cup")
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "1st 100 % (0 Chip)" in page and "From 5 entrants: 50 % · 30 % · 20 %" in page
    for _ in range(5):
        services.register(tournament_id=t.pk, user=make_user())
    card = selectors.lobby_card(tournament_id=t.pk)
    assert [(p["percent"], p["amount"]) for p in card["payouts"]] == [(50, 50), (30, 30), (20, 20)]
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "1st 50 % (50 Chip) · 2nd 30 % (30 Chip) · 3rd 20 % (20 Chip)" in page
    client.force_login(make_user())
    lobby = client.get(reverse("frontend:lobby")).content.decode()
    assert "1st 50 % (50 Chip)" in lobby and "tournaments/lobby.js" in lobby
    # an edit of the structure after players registered changes later tournaments only
    PayoutRow.objects.filter(structure=s, from_entrants=5).update(percents="60, 40")
    t.refresh_from_db()
    assert t.payout_rows_now()[1] == (5, [5_000, 3_000, 2_000])
    assert selectors.payouts(tournament=make_tournament(payout_structure=s), pool=100, entrants=5)[0]["percent"] == 60
    # and the tournament's structure itself is locked, like the fee
    other = structure("Winner takes all", {1: "100"})
    t.payout_structure = other
    with pytest.raises(ValidationError) as err:
        t.save()
    assert err.value.error_dict["payout_structure"][0].code == "money_locked"
    for _ in range(3):
        services.register(tournament_id=t.pk, user=make_user())
    snap = selectors.live_snapshot(tournament_id=t.pk)
    assert [p["percent"] for p in snap["payouts"]] == [40, 25.5, 20, 14.5]
    assert [p["amount"] for p in snap["payouts"]] == [65, 40, 32, 23]  # floor each; the rest to 1st


@pytest.mark.parametrize("text, code", [
    ("70, 20", "bad_sum"), ("33.333, 33.333, 33.334", "bad_percent"), ("30, 70", "bad_order"),
    ("100, 0", "bad_percent"), ("lots", "bad_percent"), ("", "no_percents"), ("25, 25, 25, 25", "too_many_places"),
])
def test_a_row_is_refused_with_a_clear_reason(db, text, code):
    s = PayoutStructure.objects.create(name=f"Bad {code}")
    with pytest.raises(ValidationError) as err:
        PayoutRow(structure=s, from_entrants=3, percents=text).full_clean()
    assert code in [error.code for error in err.value.error_dict["percents"]]


def test_prizes_paid_equal_the_escrow_for_several_entrant_counts_and_ties(make_tournament, make_user):
    s = structure("Deep", {1: "100", 3: "60, 40", 4: "50, 30, 20", 6: "40, 25, 20, 15"})

    def run(n: int, busts: list[list[int]], fee: int = 21, rake_bps: int = 0) -> dict[int, int]:
        """``busts``: per hand, the seat-draw-independent indexes (registration order) going out."""
        t, users = started(make_tournament, make_user, n, payout_structure=s, entry_fee=fee, rake_bps=rake_bps)
        entries = {e.user_id: e.pk for e in Entry.objects.filter(tournament=t)}
        for out in busts:
            end_hand(t, {entries[users[i].pk]: 0 for i in out})
        t.refresh_from_db()
        assert t.status == Status.FINISHED, (n, busts)
        prizes = dict(Entry.objects.filter(tournament=t).values_list("user_id", "prize"))
        paid = n * fee
        assert sum(prizes.values()) == t.pool == paid - paid * rake_bps // 10_000
        assert escrow(t) == 0
        return {i: prizes[u.pk] for i, u in enumerate(users)}

    # 2 and 3 entrants: one place / 60-40
    assert run(2, [[0]]) == {0: 0, 1: 42}
    assert run(3, [[2], [0]]) == {0: 25, 1: 38, 2: 0}  # 63: 40 % is 25.2 -> 25, the rest (38) to 1st
    # 4 entrants, two share 2nd (equal start stacks, same hand): 2nd + 3rd = 25 + 16 = 41, 21/20
    four = run(4, [[3], [1, 2]])
    assert four[0] == 43 and sorted([four[1], four[2]]) == [20, 21] and four[3] == 0
    # 5 entrants with a rake and a three-way tie for 2nd in the last hand
    five = run(5, [[4], [1, 2, 3]], fee=20, rake_bps=300)
    assert five[0] == 49 and sorted([five[1], five[2], five[3]]) == [16, 16, 16] and five[4] == 0
    # 7 entrants: ties below the paid places pay nothing; everyone out at once but the winner
    # (2nd-5th share 36 + 29 + 22 + 0 = 87: 21 each, the 3 chips left to the smallest seat)
    seven = run(7, [[5, 6], [1, 2, 3, 4]])
    assert seven[0] == 60 and sorted(seven[i] for i in (1, 2, 3, 4)) == [21, 21, 21, 24]
    assert seven[5] == seven[6] == 0
    assert ledger_problems() == []


# ----- sit & go -------------------------------------------------------------------------------------------

def test_a_sit_and_go_starts_when_full_and_opens_the_next_with_the_same_settings(make_tournament, make_user):
    s = structure("S&G", {1: "100", 3: "65, 35"})
    t = make_tournament(name="S&G 3", sit_and_go=True, max_entrants=3, starts_at=None, payout_structure=s,
                        fill_with_bots=False, starting_stack=50)
    assert t.status == Status.REGISTERING
    assert services.housekeeping(now=timezone.now() + timedelta(days=2))["started"] == 0  # no start time
    for user in [make_user() for _ in range(3)]:
        services.register(tournament_id=t.pk, user=user)
    t.refresh_from_db()
    assert t.status == Status.RUNNING and t.entrants == 3 and t.next_created
    nxt = Tournament.objects.get(name="S&G 3", status=Status.REGISTERING)
    assert (nxt.sit_and_go, nxt.max_entrants, nxt.payout_structure, nxt.starting_stack, nxt.payout_rows) == (
        True, 3, s, 50, None)
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=make_user())
    assert err.value.code == "registration_closed"
    assert ledger_problems() == []


def test_a_full_sit_and_go_whose_start_failed_is_started_by_housekeeping(make_tournament, make_user, monkeypatch):
    from django.core.cache import cache

    t = make_tournament(name="S&G 2", sit_and_go=True, max_entrants=2, starts_at=None)
    real_start = services.start

    def broken(**kw):
        raise RuntimeError("database went away")

    monkeypatch.setattr(registration, "start", broken)  # as _start_full calls it
    users = [make_user() for _ in range(2)]
    for user in users:
        services.register(tournament_id=t.pk, user=user)  # the registration stands
    assert Tournament.objects.get(pk=t.pk).status == Status.REGISTERING
    monkeypatch.setattr(registration, "start", real_start)
    asked = []
    monkeypatch.setattr(tasks.housekeeping, "delay", lambda: asked.append(1))
    cache.delete(tasks.KICK_KEY)
    assert tasks.kick() and asked
    assert services.housekeeping()["started"] == 1
    assert Tournament.objects.get(pk=t.pk).status == Status.RUNNING


def test_bots_fill_a_sit_and_go_after_the_wait_from_the_first_registration(make_tournament, make_user, make_bots):
    make_bots(5)
    t = make_tournament(name="S&G 4", sit_and_go=True, max_entrants=4, starts_at=None, fill_after_seconds=60)
    from django.core.cache import cache

    cache.delete(tasks.KICK_KEY)
    assert t.bots_fill_at is None and not tasks.kick()  # nobody waiting: nothing for housekeeping to do
    user = make_user()
    services.register(tournament_id=t.pk, user=user)
    t.refresh_from_db()
    assert abs((t.bots_fill_at - timezone.now()).total_seconds() - 60) < 5
    services.unregister(tournament_id=t.pk, user=user)  # nobody left: the wait starts again with the next
    t.refresh_from_db()
    assert t.bots_fill_at is None
    services.register(tournament_id=t.pk, user=user)
    t.refresh_from_db()
    assert services.housekeeping(now=t.bots_fill_at - timedelta(seconds=1))["started"] == 0
    cache.delete(tasks.KICK_KEY)
    with pytest.MonkeyPatch.context() as mp:
        asked = []
        mp.setattr(tasks.housekeeping, "delay", lambda: asked.append(1))
        mp.setattr(timezone, "now", lambda: t.bots_fill_at + timedelta(seconds=1))
        assert tasks.kick() and asked  # due: the timer sweep asks for housekeeping
    assert services.housekeeping(now=t.bots_fill_at + timedelta(seconds=1))["started"] == 1
    t.refresh_from_db()
    entries = list(Entry.objects.filter(tournament=t).select_related("user"))
    assert t.status == Status.RUNNING and t.entrants == 4 and sum(e.user.is_bot for e in entries) == 3
    assert Tournament.objects.filter(name="S&G 4", status=Status.REGISTERING).count() == 1
    assert ledger_problems() == []


def test_format_settings_are_checked(make_tournament, room):
    lembar = Room(name="Lembar cup", slug="t-lembar-formats", game="lembar", seats=4, min_seats=2)
    lembar.full_clean()
    lembar.save()
    for kw, field, words in [
        (dict(sit_and_go=True, starts_at=None), "max_entrants", "set the maximum"),
        (dict(sit_and_go=True, max_entrants=4, repeat_every=timedelta(days=1)), "repeat_every", "by itself"),
        (dict(room=lembar, late_registration_level=2), "late_registration_level", "does not apply to brackets"),
        (dict(room=lembar, levels_by="minutes"), "levels_by", "no ante levels"),
        (dict(max_entries=2), "max_entries", "late registration level"),
        (dict(starts_at=None), "starts_at", "start time"),
    ]:
        with pytest.raises(TournamentError) as err:
            make_tournament(**kw)
        assert err.value.code == "bad_tournament" and field in err.value.message and words in err.value.message


# ----- late registration and re-entry -------------------------------------------------------------------

def test_late_registration_until_level_l_seats_the_entrant_at_the_next_hand(make_tournament, make_user):
    # the ante doubles every 2 hands: level 1 is hands 0-1, level 2 hands 2-3, level 3 from hand 4
    t, _ = started(make_tournament, make_user, 4, late_registration_level=2,
                   ante_schedule={"base": 1, "double_every": 2})
    early_out = playing(t)[0]
    end_hand(t, {early_out.pk: 0})  # one bust: 4th of 4 for now
    assert Entry.objects.get(pk=early_out.pk).place == 4
    late = make_user()
    before = balance_of(user=late, currency=Currency.CHIP)
    entry = services.register(tournament_id=t.pk, user=late)
    t.refresh_from_db()
    assert (entry.status, entry.stack, entry.paid, t.entrants, t.pool) == (EntryStatus.REGISTERED, 100, 20, 5, 100)
    assert balance_of(user=late, currency=Currency.CHIP) == before - 20 and escrow(t) == 100
    assert Entry.objects.get(pk=early_out.pk).place == 5  # the late entrant is still in: ranks above
    snap = selectors.live_snapshot(tournament_id=t.pk)
    assert snap["late_registration"] and snap["waiting"] == 1 and snap["entrants"] == 5
    assert ledger_problems() == []
    end_hand(t, {})  # the hand in play ends: the late entrant sits down for the next one
    entry.refresh_from_db()
    assert entry.status == EntryStatus.PLAYING and entry.table is not None and entry.stack == 100
    assert entry.pk in entry.table.players and entry.table.table.status == TableStatus.RUNNING
    seat = entry.table.players.index(entry.pk)
    assert entry.table.table.state["options"]["stacks"][seat] == 100
    end_hand(t, {})
    end_hand(t, {})  # table hands: 4 -> level 3, past the late registration level
    assert selectors.level_of(tournament=t)["level"] == 3 and not selectors.late_registration_open(tournament=t)
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=make_user())
    assert err.value.code == "registration_closed" and "Late registration is over" in err.value.message


def test_late_entrants_get_a_new_table_when_every_seat_is_taken(make_tournament, make_user):
    t, _ = started(make_tournament, make_user, 4, seats_per_table=2, late_registration_level=5)
    assert TournamentTable.objects.filter(tournament=t, broken=False).count() == 2
    late = [services.register(tournament_id=t.pk, user=make_user()) for _ in range(2)]
    end_hand(t, {})
    tables = list(TournamentTable.objects.filter(tournament=t, broken=False).order_by("number"))
    assert [tt.number for tt in tables] == [1, 2, 3] and all(len(tt.players) == 2 for tt in tables)
    assert all(tt.table is not None and tt.table.status == TableStatus.RUNNING for tt in tables)  # all dealt
    assert tables[2].hands == max(tt.hands for tt in tables[:2])  # nobody's ante goes back
    seated = {p for tt in tables for p in tt.players}
    assert {e.pk for e in late} <= seated and len(seated) == 6
    assert ledger_problems() == []


def test_re_entry_up_to_k_entries_each_paying_the_entry(client, make_tournament, make_user):
    t, users = started(make_tournament, make_user, 3, late_registration_level=3, max_entries=2)
    ayla = users[0]
    first = Entry.objects.get(tournament=t, user=ayla)
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=ayla)
    assert err.value.code == "already_registered"  # still in: no re-entry
    end_hand(t, {first.pk: -4})
    first.refresh_from_db()
    assert first.status == EntryStatus.OUT and first.place == 3
    client.force_login(ayla)
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Re-enter (20 Chip)" in page and 'id="t-late" class="row" hidden' not in page
    assert client.post(reverse("tournaments:register", args=[t.pk])).status_code == 302
    again = Entry.objects.get(tournament=t, user=ayla, number=2)
    t.refresh_from_db()
    first.refresh_from_db()
    assert (again.status, again.registrations, again.paid, t.entrants, t.pool) == (EntryStatus.REGISTERED, 2, 20, 4, 80)
    assert first.place == 4  # the re-entry is still in: the first entry's place moves down
    assert escrow(t) == 80 and ledger_problems() == []
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "you get a seat with 100 chips" in page
    end_hand(t, {})
    again.refresh_from_db()
    assert again.status == EntryStatus.PLAYING
    end_hand(t, {again.pk: 0})
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=ayla)
    assert err.value.code == "no_entries_left"
    assert selectors.can_register(tournament=t, entry=selectors.entry_of(tournament=t, user=ayla),
                                  used=selectors.entries_used(tournament=t, user=ayla)) is None
    # to the end: both of the player's entries have their place; the prizes empty the escrow
    while Tournament.objects.get(pk=t.pk).status == Status.RUNNING:
        alive = playing(t)
        end_hand(t, {alive[0].pk: 0})
    t.refresh_from_db()
    places = sorted(Entry.objects.filter(tournament=t).values_list("place", flat=True))
    assert places == [1, 2, 3, 4] and escrow(t) == 0
    assert sum(Entry.objects.filter(tournament=t).values_list("prize", flat=True)) == 80
    assert ledger_problems() == []


def test_cancel_after_re_entries_refunds_the_entries_still_in(make_tournament, make_user):
    t, users = started(make_tournament, make_user, 3, late_registration_level=3, max_entries=2)
    out = playing(t)[0]
    end_hand(t, {out.pk: 0})
    services.register(tournament_id=t.pk, user=out.user)
    services.cancel(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.CANCELLED and t.cancel_detail["refunded"] == 3 and t.cancel_detail["refund"] == 60
    assert escrow(t) == 0 and ledger_problems() == []


# ----- levels by minutes -----------------------------------------------------------------------------------

def test_levels_by_minutes_follow_the_clock_from_the_start(client, make_tournament, make_user):
    t, users = started(make_tournament, make_user, 3, levels_by="minutes", level_minutes=10,
                       ante_schedule={"base": 1, "double_every": 5}, late_registration_level=2)
    first = Table.objects.get(pk=TournamentTable.objects.get(tournament=t, number=1).table_id)
    assert first.state["ante"] == 1
    Tournament.objects.filter(pk=t.pk).update(started_at=timezone.now() - timedelta(minutes=25, seconds=10))
    t.refresh_from_db()
    level = selectors.level_of(tournament=t)
    assert (level["by"], level["level"], level["ante"], level["next_ante"]) == ("minutes", 3, 4, 8)
    assert 285 <= level["seconds_to_next"] <= 290 and level["hands_to_next"] is None
    assert not selectors.late_registration_open(tournament=t)  # level 3 > 2, whatever the hand count
    end_hand(t, {})  # the next hand takes the level in force when it is dealt
    dealt = Table.objects.get(pk=TournamentTable.objects.get(tournament=t, number=1).table_id)
    assert dealt.pk != first.pk and dealt.state["ante"] == 4 and dealt.state["pot"] == 4 * 3
    client.force_login(users[0])
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "next level in 4:4" in page and "tournaments/formats.js" in page
    table_page = client.get(reverse("tournaments:table", args=[t.pk, 1])).content.decode()
    assert "next level in 4:4" in table_page and 'id="tournament-clock"' in table_page
    # a list schedule ends: no next level at its last one
    Tournament.objects.filter(pk=t.pk).update(ante_schedule={"levels": [1, 2, 3], "every": 1})
    t.refresh_from_db()
    level = selectors.level_of(tournament=t)
    assert (level["level"], level["ante"], level["next_level_at"], level["seconds_to_next"]) == (3, 3, None, None)
