"""One tournament table across hands (issue 24): the pause between hands, the table's one page that
follows each hand's rooms table, the pushes that take players there, and the hand result's facts."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from rooms.models import TableStatus
from tests.tournaments.conftest import play_round, play_table
from tournaments import broadcast, selectors, services
from tournaments import tasks as t_tasks
from tournaments.models import Entry, EntryStatus, Status, Tournament, TournamentTable
from wallets.checks import ledger_problems


@pytest.fixture
def deals(monkeypatch):
    """The deals the pause scheduled (tournament id, delay), instead of Celery."""
    calls: list[tuple[int, float]] = []
    monkeypatch.setattr(t_tasks, "enqueue_deal", lambda pk, delay: calls.append((pk, delay)))
    return calls


@pytest.fixture
def pushes(monkeypatch):
    """Every (group, message) the tournament published."""
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    monkeypatch.setattr(t_tasks, "enqueue_advance", lambda *a, **k: None)
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    return sent


def _started(make_tournament, make_user, make_bots, *, humans: int = 1, bots: int = 3, **kw):
    t = make_tournament(min_entrants=humans + bots, **kw)
    make_bots(bots)
    users = [make_user() for _ in range(humans)]
    for user in users:
        services.register(tournament_id=t.pk, user=user)
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    return t, users


def _play_hand(t: Tournament, rng: random.Random) -> None:
    for tt in TournamentTable.objects.filter(tournament=t, table__status=TableStatus.RUNNING):
        play_table(tt.table_id, rng)


def test_the_next_hand_waits_for_the_pause_and_housekeeping_deals_it_once_over(
        make_tournament, make_user, make_bots, deals, pushes, django_capture_on_commit_callbacks):
    t, _ = _started(make_tournament, make_user, make_bots, hand_pause_seconds=3)
    tt = TournamentTable.objects.get(tournament=t)
    first = tt.table_id
    _play_hand(t, random.Random(4))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.advance(tournament_id=t.pk)
    t.refresh_from_db()
    tt.refresh_from_db()
    assert t.status == Status.RUNNING and not t.round_dealt and t.round == 2
    assert t.next_deal_at is not None and tt.table_id == first  # the hand result stays on the page
    assert deals == [(t.pk, 3)]
    assert services.deal(tournament_id=t.pk, now=t.next_deal_at - timedelta(seconds=1)) == []
    services.housekeeping(now=t.next_deal_at - timedelta(milliseconds=10))  # still pausing
    assert TournamentTable.objects.get(pk=tt.pk).table_id == first
    services.housekeeping(now=t.next_deal_at + timedelta(milliseconds=10))
    tt.refresh_from_db()
    t.refresh_from_db()
    assert tt.table_id != first and tt.table.status == TableStatus.RUNNING and t.round_dealt
    assert t.next_deal_at is None and tt.table.options["hand_offset"] == 1  # the hand count carries over
    assert ledger_problems() == []


def test_no_pause_deals_at_once_and_a_bracket_never_pauses(make_tournament, make_user, make_bots, deals, pushes):
    t, _ = _started(make_tournament, make_user, make_bots, hand_pause_seconds=0)
    first = TournamentTable.objects.get(tournament=t).table_id
    _play_hand(t, random.Random(4))
    services.advance(tournament_id=t.pk)
    t.refresh_from_db()
    if t.status == Status.RUNNING:
        assert t.round_dealt and TournamentTable.objects.get(tournament=t).table_id != first
    assert deals == []


def test_each_hand_pushes_the_players_the_stable_page_of_their_table(make_tournament, make_user, make_bots, pushes):
    t, (user,) = _started(make_tournament, make_user, make_bots)
    tt = TournamentTable.objects.get(tournament=t)
    seat = [m for g, m in pushes if m["type"] == "tournament.table"]
    assert len(seat) == 1  # the human only; bots have no pages
    frame = seat[0]["frame"]
    assert frame == {"type": "tournament", "tournament": t.pk, "table": tt.table_id, "number": tt.number,
                     "round": 1, "start": True, "url": f"/tournaments/{t.pk}/table/{tt.number}/"}
    assert dict(pushes)[broadcast.player_group(user.pk)] == seat[0]
    card = next(m["frame"]["card"] for g, m in pushes if g == broadcast.LOBBY_GROUP)
    assert card["status"] == Status.RUNNING and card["players_left"] == 4 and card["ante"] == 1
    pushes.clear()
    play_round(t.pk, random.Random(5))
    t.refresh_from_db()
    if t.status == Status.RUNNING and Entry.objects.get(tournament=t, user=user).status == EntryStatus.PLAYING:
        frame = next(m["frame"] for g, m in pushes if m["type"] == "tournament.table")
        assert frame["start"] is False and frame["round"] == 2 and frame["url"].endswith(f"/table/{tt.number}/")


def test_the_table_page_stays_across_hands_and_shows_the_tournament(client, make_tournament, make_user, make_bots,
                                                                   pushes):
    t, (user,) = _started(make_tournament, make_user, make_bots)
    tt = TournamentTable.objects.get(tournament=t)
    url = reverse("tournaments:table", args=[t.pk, tt.number])
    assert client.get(url).status_code == 302  # players log in first
    client.force_login(user)
    html = client.get(url).content.decode()
    data = json.loads(re.search(r'id="tournament-table-data" type="application/json">(.*?)</script>', html).group(1))
    assert data["table"] == tt.table_id and data["tournament"] == t.pk and data["playing"] is True
    assert t.name in html and "tournament_table.js" in html and 'id="tt-level"' in html
    assert "Level 1 · ante 1" in html and 'id="play-again"' not in html
    assert f'data-ws="/ws/tables/{tt.table_id}/' in html
    assert client.get(reverse("tournaments:play", args=[t.pk])).url == url
    rng = random.Random(8)
    for _ in range(3):  # the same address shows the hand being played now
        play_round(t.pk, rng)
        t.refresh_from_db()
        if t.status != Status.RUNNING or not Entry.objects.filter(user=user, status=EntryStatus.PLAYING).exists():
            break
        tt.refresh_from_db()
        html = client.get(url).content.decode()
        assert f'data-ws="/ws/tables/{tt.table_id}/' in html and tt.table.status == TableStatus.RUNNING
    if Entry.objects.filter(user=user, status=EntryStatus.PLAYING).exists():
        assert client.get(reverse("tournaments:table", args=[t.pk, 99])).url == url  # a player: to their table
    client.force_login(make_user())  # anyone else: to the tournament page
    assert client.get(reverse("tournaments:table", args=[t.pk, 99])).url == reverse("tournaments:detail", args=[t.pk])


def test_the_snapshot_has_the_tournament_view(make_tournament, make_user, make_bots, pushes):
    t = make_tournament(min_entrants=4)
    for user in [make_user() for _ in range(4)]:
        services.register(tournament_id=t.pk, user=user)
    snap = selectors.live_snapshot(tournament_id=t.pk)
    assert (snap["registered"], snap["prize_pool"], snap["players_left"]) == (4, 80, 0)
    assert snap["payouts"] == [{"place": 1, "percent": 70, "amount": 56}, {"place": 2, "percent": 30, "amount": 24}]
    assert snap["name"] == t.name and snap["cancel"] is None and snap["eliminations"] == []
    services.start(tournament_id=t.pk)
    rng = random.Random(2)
    t.refresh_from_db()
    while t.status == Status.RUNNING and not Entry.objects.filter(tournament=t, status=EntryStatus.OUT).exists():
        play_round(t.pk, rng)
        t.refresh_from_db()
    snap = selectors.live_snapshot(tournament_id=t.pk)
    playing = list(Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING))
    assert snap["players_left"] == len(playing)
    if playing:
        assert snap["average_stack"] == sum(e.stack for e in playing) // len(playing)
    out = Entry.objects.filter(tournament=t, status=EntryStatus.OUT).order_by("place").first()
    elimination = next(e for e in snap["eliminations"] if e["entry"] == out.pk)
    assert elimination["place"] == out.place and elimination["table"] == out.out_table is not None
    assert elimination["seat"] == out.out_seat
    row = next(r for r in snap["standings"] if r["entry"] == out.pk)
    assert row["rank"] == out.place
    ranks = sorted(r["rank"] for r in snap["standings"] if r["status"] == EntryStatus.PLAYING)
    assert ranks and ranks[0] == 1
    assert snap["level"]["level"] >= 1 and {"ante", "next_ante", "hands_to_next"} <= set(snap["level"])


def test_an_eliminated_player_reads_eliminated_never_a_negative_stack(client, make_tournament, make_user, make_bots,
                                                                      pushes):
    t, _ = _started(make_tournament, make_user, make_bots, humans=4, bots=0)
    rng = random.Random(3)
    while t.status == Status.RUNNING and not Entry.objects.filter(tournament=t, status=EntryStatus.OUT).exists():
        play_round(t.pk, rng)
        t.refresh_from_db()
    out = Entry.objects.filter(tournament=t, status=EntryStatus.OUT).first()
    Entry.objects.filter(pk=out.pk).update(stack=-22)  # the rules allow a stack below zero at the end
    html = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    row = html.split(f'data-entry="{out.pk}"')[1].split("</tr>")[0]
    assert "eliminated" in row and "-22" not in row


def test_a_cancelled_tournament_says_why(client, make_tournament, make_user, pushes):
    t = make_tournament(min_entrants=4, fill_with_bots=True)  # no bot exists to fill
    services.register(tournament_id=t.pk, user=make_user())
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.CANCELLED and t.cancel_reason == "too_few_entrants"
    assert t.cancel_detail == {"registered": 1, "minimum": 4, "bots": 0, "started": False, "refunded": 1, "refund": 20}
    text = "Cancelled: only 1 of the minimum 4 registered. Entries refunded."
    assert selectors.cancel_text(tournament=t) == text
    assert text in client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert text in client.get(reverse("tournaments:list")).content.decode()
    assert selectors.live_snapshot(tournament_id=t.pk)["cancel"]["registered"] == 1
    staff = make_tournament()
    services.cancel(tournament_id=staff.pk)
    staff.refresh_from_db()
    assert selectors.cancel_text(tournament=staff) == "Cancelled by the organisers."  # nobody to refund


def test_bots_fill_to_the_minimum_by_default_and_a_recurring_one_keeps_the_pause(room):
    from django.utils import timezone

    t = services.tournament_create(name="Defaults", room=room, starts_at=timezone.now() + timedelta(hours=1),
                                   repeat_every=timedelta(days=1), hand_pause_seconds=5)
    assert t.fill_with_bots is True and Tournament(name="x").fill_with_bots is True
    services.cancel(tournament_id=t.pk)
    nxt = Tournament.objects.exclude(pk=t.pk).get(name="Defaults")
    assert nxt.fill_with_bots is True and nxt.hand_pause_seconds == 5


def test_lobby_cards(make_tournament, make_user, pushes):
    soon = make_tournament(name="Soon")
    later = make_tournament(name="Later", starts_at=soon.starts_at + timedelta(hours=2))
    services.register(tournament_id=later.pk, user=make_user())
    cards = {t.name: t.card for t in selectors.lobby_tournaments()}
    assert list(cards) == ["Soon", "Later"]
    assert cards["Later"]["registered"] == 1 and cards["Later"]["prize_pool"] == 20
    assert cards["Later"]["url"] == f"/tournaments/{later.pk}/"
    assert selectors.lobby_card(tournament_id=later.pk) == cards["Later"]
    assert selectors.lobby_card(tournament_id=999999) is None


def test_after_balancing_every_player_is_pushed_their_own_table(make_tournament, make_user, pushes):
    t, users = _started(make_tournament, make_user, lambda n: [], humans=9, bots=0, seats_per_table=4)
    rng = random.Random(12)
    moved = False
    for _ in range(60):
        before = dict(Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING).values_list("pk", "table__number"))
        pushes.clear()
        play_round(t.pk, rng)
        t.refresh_from_db()
        if t.status != Status.RUNNING:
            break
        now = {e.pk: e for e in Entry.objects.filter(tournament=t, status=EntryStatus.PLAYING)
               .select_related("table")}
        frames = {g: m["frame"] for g, m in pushes if m["type"] == "tournament.table"}
        for entry in now.values():
            frame = frames[broadcast.player_group(entry.user_id)]
            assert (frame["number"], frame["table"]) == (entry.table.number, entry.table.table_id)
            assert frame["url"] == f"/tournaments/{t.pk}/table/{entry.table.number}/"
            moved |= before.get(entry.pk) != entry.table.number
        if moved:
            break
    assert moved, "no balancing move happened"
