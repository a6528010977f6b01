"""The revenue report (wallets.reports and its admin page) adds up to the ledger."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta

import pytest
from django.db import transaction
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from core.api import http_status
from rooms import services as rooms
from rooms.models import StopReason, Table, TableStatus
from wallets import reports, services, table_money
from wallets.models import Account, AccountKind, Entry, LedgerTransaction, WalletSettings

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
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        table_money.on_hand_over(table=locked, event=event)


def staff_user():
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="report-staff", defaults={"is_staff": True})
    return user


def tournament(name: str, users, *, fee: int, rake_bps: int = 0):
    from rooms.models import Room
    from tournaments import services as tournaments

    room = Room.objects.filter(slug="report-31").first() or Room.objects.create(
        name="31 cups", slug="report-31", game="otuzbir", seats=7, min_seats=2)
    t = tournaments.tournament_create(name=name, room=room, starts_at=timezone.now() + timedelta(hours=1),
                                      entry_fee=fee, rake_bps=rake_bps)
    return t, [tournaments.register(tournament_id=t.pk, user=u) for u in users]


@pytest.fixture
def ledger(rich, make_room, make_user, make_bot, make_arena, pay_arena_prizes):
    """A few days of money: pots, a stop, 31 hands with a bailout, Cherki, a bot, tournaments, arenas."""
    from arenas import services as arenas
    from tournaments import money

    users = [make_user() for _ in range(4)]
    kel = make_room("lembar", stake_kind="pot", currency="KEL", stake=100)  # the default rake: 5 %
    mut = make_room("lembar", stake_kind="pot", currency="MUT", stake=50, rake_bps=1000)
    t = {}
    t["kel"] = seated(kel, users[:3])
    finish_with(t["kel"], {"ranks": [1, 2, 3], "winners": [0]})  # pot 300: rake 15
    t["mut"] = seated(mut, users[:2])
    finish_with(t["mut"], {"ranks": [2, 1], "winners": [1]})  # pot 100 MUT: rake 10, 90 issued in KEL
    t["gone"] = seated(kel, users[:2])
    finish_with(t["gone"], {"ranks": [1, 2], "winners": []})  # no first place still in: pot 200, rake 10
    t["stop"] = seated(kel, users)
    rooms.table_stand(table_id=t["stop"].pk, user=users[3])  # leaves after the start: forfeits 100
    rooms.table_stop(table_id=t["stop"].pk, reason=StopReason.STAFF, by=staff_user())

    ante = make_room("otuzbir", stake_kind="ante", currency="CHP", stake=5, rake_bps=500)
    services.transfer(key="spend-chp", source=services.wallet(user=users[0], currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=990)  # 10 Chip left: "other" revenue
    t["31"] = seated(ante, users[:3])
    hand_over(t["31"], {"hand": 0, "pot": 60, "contributions": [30, 25, 5], "payouts": [0, 57, 0], "rake": 3})
    # users[0] went to -20: bailed out to 500 (520 issued, 20 written off)

    cherki = make_room("cherki", stake_kind="per_point", currency="CHP", stake=5)  # sitting needs 500
    t["cherki"] = seated(cherki, users[1:4])
    services.transfer(key="spend-chp-2", source=services.wallet(user=users[1], currency="CHP"),
                      target=services.revenue(currency="CHP"), amount=1000)  # 1032 - 1000: 32 left
    finish_with(t["cherki"], {"ranks": [2, 2, 1], "winners": [2], "winner": 2, "settled": True, "points": 25,
                              "deltas": [-25, -25, 50]})  # users[1] pays 32 of the 125 owed: 93 covered

    bot = make_bot()
    services.transfer(key="bot-spend", source=services.wallet(user=bot, currency="KEL"),
                      target=services.revenue(currency="KEL"), amount=1000)  # the bot must be topped up
    t["bot"] = seated(kel, [users[0], bot])
    finish_with(t["bot"], {"ranks": [2, 1], "winners": [1]})  # the bot wins 190 of its 200 pot

    cup, cup_entries = tournament("Cup", [users[0], users[2], users[3]], fee=20, rake_bps=1000)  # users[1]: 0 Chip
    money.pay_prizes(tournament=cup, rake=6, prizes={cup_entries[0]: 54})
    void, void_entries = tournament("Void", users[2:], fee=20)
    money.cancel(tournament=void, refund_entries=void_entries[:1])  # the other entry's 20: forfeited

    arena = make_arena("Blitz", entry_fee=30, currency="MUT", rake_bps=1000, payouts=[100])
    for user in users:
        arenas.join(arena_id=arena.pk, user=user)
    arenas.pause(arena_id=arena.pk, user=users[3])  # withdrawn before the start: 30 back
    pay_arena_prizes(arena, rake=9, prizes={users[0]: 81})  # pool 90: rake 9
    calm = make_arena("Calm", entry_fee=30, currency="MUT")
    arenas.join(arena_id=calm.pk, user=users[2])
    arenas.cancel(arena_id=calm.pk)  # every entry back: nothing to revenue
    return {"users": users, "bot": bot, "tables": t, "rooms": {"kel": kel, "mut": mut, "ante": ante, "cherki": cherki},
            "cup": cup, "void": void, "arena": arena, "calm": calm}


def whole() -> reports.Period:
    today = timezone.localdate()
    return reports.period(start=today - timedelta(days=10), end=today)


def test_every_revenue_leg_is_counted_once_and_the_totals_are_the_revenue_accounts(ledger):
    lines = list(reports.iter_revenue_lines(period=whole()))
    revenue_legs = Entry.objects.filter(account__kind=AccountKind.REVENUE)
    assert sorted(line.entry_id for line in lines) == sorted(revenue_legs.values_list("pk", flat=True))
    assert all(sum(line.parts.values()) == line.amount for line in lines)
    data = reports.report(period=whole())
    balances = dict(Account.objects.filter(kind=AccountKind.REVENUE).values_list("currency", "balance"))
    assert {t["currency"]: t["total"] for t in data["totals"]} == balances
    assert all(t["matches"] for t in data["totals"])
    assert sum(r["total"] for r in data["revenue"]) == sum(balances.values())
    arena = [line for line in lines if line.source == "arena"]  # the arena's rake, under its own source
    assert [(line.source_id, line.currency, line.parts) for line in arena] == [(ledger["arena"].pk, "MUT", {"rake": 9})]
    from arenas.checks import escrow_problems

    assert escrow_problems() == []  # the arenas and their escrows are in step (what ledger_check verifies)


def test_rake_forfeits_and_converted_pots_by_currency(ledger):
    totals = {t["currency"]: t for t in reports.report(period=whole())["totals"]}
    assert {k: totals["KEL"][k] for k in reports.CATEGORIES} == {
        "rake": 15 + 10 + 10, "forfeits": 190 + 100, "converted": 0, "other": 1000}
    assert {k: totals["MUT"][k] for k in reports.CATEGORIES} == {"rake": 10 + 9, "forfeits": 0, "converted": 90,
                                                                 "other": 0}
    assert {k: totals["CHP"][k] for k in reports.CATEGORIES} == {
        "rake": 3 + 6, "forfeits": 20, "converted": 0, "other": 990 + 1000}


def test_revenue_rows_name_the_room_game_and_tournament(ledger):
    rows = reports.report(period=whole())["revenue"]
    kel = [r for r in rows if r["source"] == "room" and r["source_id"] == ledger["rooms"]["kel"].pk]
    assert len(kel) == 1 and (kel[0]["game"], kel[0]["currency"], kel[0]["rake"], kel[0]["forfeits"]) == (
        "lembar", "KEL", 35, 290)
    ante = next(r for r in rows if r["source_id"] == ledger["rooms"]["ante"].pk and r["source"] == "room")
    assert (ante["game"], ante["rake"], ante["total"]) == ("otuzbir", 3, 3)
    cup = next(r for r in rows if r["source"] == "tournament" and r["source_id"] == ledger["cup"].pk)
    assert (cup["name"], cup["rake"]) == ("Cup", 6)
    [arena] = [r for r in rows if r["source"] == "arena"]
    assert (arena["source_id"], arena["name"], arena["game"], arena["currency"], arena["rake"], arena["total"]) == (
        ledger["arena"].pk, "Blitz", "lembar", "MUT", 9, 9)
    other = [r for r in rows if r["source"] == "other"]
    assert sum(r["other"] for r in other) == 1000 + 990 + 1000


def test_tournament_entries_prizes_and_escrow(ledger):
    rows = {r["name"]: r for r in reports.report(period=whole())["tournaments"]}
    cup, void = rows["Cup"], rows["Void"]
    assert {k: cup[k] for k in reports.TOURNAMENT_FIELDS} == {
        "entries": 3, "fees": 60, "refunds": 0, "prizes": 54, "rake": 6, "forfeits": 0, "escrow_change": 0}
    assert {k: void[k] for k in reports.TOURNAMENT_FIELDS} == {
        "entries": 2, "fees": 40, "refunds": 20, "prizes": 0, "rake": 0, "forfeits": 20, "escrow_change": 0}
    for row in rows.values():  # the escrow moves by exactly what the report says came in and went out
        assert row["fees"] - row["refunds"] - row["prizes"] - row["rake"] - row["forfeits"] == row["escrow_change"]


def test_arena_entries_refunds_prizes_and_escrow(ledger):
    rows = {r["name"]: r for r in reports.report(period=whole())["arenas"]}
    blitz, calm = rows["Blitz"], rows["Calm"]
    assert (blitz["arena_id"], blitz["currency"], calm["arena_id"]) == (ledger["arena"].pk, "MUT", ledger["calm"].pk)
    assert {k: blitz[k] for k in reports.ARENA_FIELDS} == {  # 4 entries, one withdrawn and refunded
        "entries": 4, "fees": 120, "refunds": 30, "prizes": 81, "rake": 9, "forfeits": 0, "escrow_change": 0}
    assert {k: calm[k] for k in reports.ARENA_FIELDS} == {
        "entries": 1, "fees": 30, "refunds": 30, "prizes": 0, "rake": 0, "forfeits": 0, "escrow_change": 0}
    assert "Blitz" not in {r["name"] for r in reports.report(period=whole())["tournaments"]}


def test_bot_results_and_write_offs(ledger):
    data = reports.report(period=whole())
    bot = next(r for r in data["bots"] if r["bot_id"] == ledger["bot"].pk and r["currency"] == "KEL")
    assert (bot["welcome"], bot["funded"], bot["play"]) == (1000, 100, -1000 - 100 + 190)
    assert bot["change"] == services.balance_of(user=ledger["bot"], currency="KEL")
    writeoffs = {r["kind"]: r for r in data["writeoffs"]}
    bailout, cherki = writeoffs[reports.BAILOUT], writeoffs[reports.CHERKI_SHORTFALL]
    assert (bailout["count"], bailout["issued"], bailout["written_off"], bailout["name"]) == (
        1, 520, 20, ledger["rooms"]["ante"].name)
    assert (cherki["count"], cherki["issued"], cherki["written_off"]) == (1, 93, 93)
    issued = -Entry.objects.filter(account__kind=AccountKind.ISSUANCE, transaction__kind="bailout").aggregate(
        s=Sum("amount"))["s"]
    assert issued == bailout["issued"]


def test_the_period_filters_by_day(ledger):
    stop = LedgerTransaction.objects.get(key=f"table:{ledger['tables']['stop'].pk}:stop")
    three_days_ago = timezone.now() - timedelta(days=3)
    LedgerTransaction._base_manager.filter(pk=stop.pk).update(created_at=three_days_ago)  # as if posted then
    today = timezone.localdate()
    recent = reports.report(period=reports.period(start=today, end=today))
    kel = next(t for t in recent["totals"] if t["currency"] == "KEL")
    assert kel["forfeits"] == 190 and kel["matches"]
    then = reports.report(period=reports.period(start=three_days_ago.date(), end=three_days_ago.date()))
    assert [(r["day"], r["currency"], r["forfeits"]) for r in then["revenue"]] == [
        (timezone.localtime(three_days_ago).date(), "KEL", 100)]
    assert reports.report(period=reports.period(start=today + timedelta(days=1), end=today + timedelta(days=2)))[
        "revenue"] == []


@pytest.mark.parametrize("start, end, code", [
    ("2026-13-01", None, "bad_date"), ("yesterday", None, "bad_date"), ("2026-03-02", "2026-03-01", "bad_range"),
    ("2024-01-01", "2026-01-01", "range_too_long"), (["2026-01-01"], None, "bad_date")])
def test_a_bad_period_is_refused_with_a_stable_code(start, end, code):
    with pytest.raises(reports.ReportError) as exc:
        reports.period(start=start, end=end)
    assert (exc.value.code, http_status(exc.value)) == (code, 400)


def test_the_default_period_is_the_last_30_days():
    p = reports.period(today=date(2026, 3, 31))
    assert (p.start, p.end, p.days) == (date(2026, 3, 2), date(2026, 3, 31), 30)


# ----- the admin page -----------------------------------------------------------------------------

@pytest.fixture
def report_url():
    return reverse("admin:wallets_revenuereport_changelist")


def test_only_staff_with_the_report_permission_see_it(client, django_user_model, report_url):
    from django.contrib.auth.models import Permission

    staff = django_user_model.objects.create_user(username="clerk", password="pass-word-123", is_staff=True)
    client.force_login(staff)
    assert client.get(report_url).status_code == 403
    assert "revenuereport" not in client.get(reverse("admin:index")).content.decode()
    staff.user_permissions.add(Permission.objects.get(codename="view_revenuereport"))
    assert client.get(report_url).status_code == 200
    assert report_url in client.get(reverse("admin:index")).content.decode()  # linked from the index


def test_the_page_and_its_csv_match_the_report(client, admin_user, ledger, report_url):
    client.force_login(admin_user)
    today = timezone.localdate()
    query = {"start": (today - timedelta(days=10)).isoformat(), "end": today.isoformat()}
    page = client.get(report_url, query)
    assert page.status_code == 200 and "✗" not in page.content.decode()
    response = client.get(report_url, {**query, "export": "revenue"})
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    header, body = rows[0], rows[1:]
    total = header.index("total")
    assert sum(int(r[total]) for r in body) == Account.objects.filter(kind=AccountKind.REVENUE).aggregate(
        s=Sum("balance"))["s"]
    tournaments = list(csv.reader(io.StringIO(client.get(report_url, {**query, "export": "tournaments"})
                                              .content.decode())))
    assert {r[1] for r in tournaments[1:]} == {"Cup", "Void"}
    arenas = list(csv.reader(io.StringIO(client.get(report_url, {**query, "export": "arenas"}).content.decode())))
    assert arenas[0][:2] == ["id", "arena"] and {r[1] for r in arenas[1:]} == {"Blitz", "Calm"}
    assert 'id="section-arenas"' in page.content.decode()
    revenue = list(csv.reader(io.StringIO(response.content.decode())))
    assert any(r[1] == "arena" and r[2] == "Blitz" for r in revenue[1:])


def test_bad_input_on_the_page_is_a_clear_400(client, admin_user, report_url):
    client.force_login(admin_user)
    page = client.get(report_url, {"start": "02/03/2026"})
    assert page.status_code == 400 and 'data-code="bad_date"' in page.content.decode()
    page = client.get(report_url, {"export": "everything"})
    assert page.status_code == 400 and 'data-code="bad_section"' in page.content.decode()


def test_csv_cells_never_start_a_formula():
    from wallets.admin import _cell

    assert (_cell("=HYPERLINK(1)"), _cell("-5"), _cell("Salon"), _cell(-5)) == ("'=HYPERLINK(1)", "'-5", "Salon", -5)
