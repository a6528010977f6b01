"""The player's money in the pages (issue 26): the wallet page, a table's money movement, stakes that say
what they mean, and quick play refusing at once. Django's test client; no browser, nothing queued."""

from __future__ import annotations

import json
import re

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.services import user_create
from rooms import services
from rooms.models import Room, Table, TableStatus
from wallets import services as wallet_services
from wallets import table_money

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_background_work(monkeypatch):
    from gameworkers import tasks
    from matchmaking import broadcast as mm_broadcast
    from matchmaking import tasks as mm_tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks.run_matcher, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_broadcast, "_send", lambda pairs: None)


@pytest.fixture
def players(db):
    return [user_create(username=f"wp{i}", password="pass-word-123", display_name=f"Player {i}") for i in range(3)]


@pytest.fixture
def pot_room(db):
    return Room.objects.create(name="Pot Kelereng 25", slug="pot-kel", game="lembar", seats=2, min_seats=2,
                               stake_kind="pot", currency="KEL", stake=25, rake_bps=500)


def _finish(table: Table, result: dict) -> None:
    """Settle as rooms.services.ending._finish_locked does, with a chosen result."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        locked.status, locked.ended_at, locked.result = TableStatus.FINISHED, timezone.now(), result
        locked.save()
        table_money.on_finish(table=locked, result=result)


def _pot_game(room: Room, players) -> Table:
    """A two-player pot table played to a finish that player 0 wins."""
    table = services.table_open(room=room, host=players[0], seat_count=2)
    for user in players[:2]:
        services.table_sit(table_id=table.pk, user=user)
    _finish(table, {"winners": [0]})
    return table


def _rows(html: str) -> list[str]:
    body = html.split('<table class="wallet-history">')[1].split("</table>")[0]
    return [row.split(">", 1)[1] for row in body.split("<tr data-purpose=")[1:]]


def test_wallet_needs_login(client, db):
    response = client.get("/wallet/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_wallet_shows_the_welcome_grant_an_entry_and_a_payout_after_a_pot_game(client, players, pot_room):
    """Issue 26, "Done when": a new player finds their wallet history with the welcome grant, an entry and a
    payout after a pot game, each saying what it was for and linking its table."""
    table = _pot_game(pot_room, players)
    client.force_login(players[0])
    lobby = client.get("/").content.decode()
    assert 'href="/wallet/" data-nav="wallet"' in lobby  # the header and the lobby's balances link it
    html = client.get("/wallet/?currency=KEL").content.decode()
    assert 'data-testid="balance">123<' in html  # 100 - 25 + (50 - 2 rake)
    prize, entry, welcome = _rows(html)
    assert "Prize" in prize and f'href="/tables/{table.pk}/"' in prize and "Pot Kelereng 25, table #" in prize
    assert 'data-amount="48"' in prize and 'data-balance="123"' in prize and "pot 50, rake 2" in prize
    assert "Entry into the pot" in entry and 'data-amount="-25"' in entry and 'data-balance="75"' in entry
    assert "Welcome grant" in welcome and 'data-amount="100"' in welcome and "/tables/" not in welcome
    assert '<a href="?currency=KEL" data-currency="KEL" aria-current="page">' in html
    # Only the player's own entries: the loser's wallet has no prize.
    client.force_login(players[1])
    assert re.findall(r'<tr data-purpose="(\w+)"', client.get("/wallet/?currency=KEL").content.decode()) == [
        "entry", "welcome"]


def test_an_arena_prize_row_links_the_arena_by_its_name(client, players):
    from arenas import money
    from arenas import services as arenas
    from arenas.models import Arena, ArenaPlayer, Status

    room = Room.objects.create(name="Casual lembar", slug="casual-lembar", game="lembar", seats=2, min_seats=2)
    arena = arenas.arena_create(name="Friday Blitz", room=room, starts_at=timezone.now() + timezone.timedelta(hours=1),
                                currency="CHP", entry_fee=10, payouts=[100])
    for user in players[:2]:
        arenas.join(arena_id=arena.pk, user=user)
    winner = ArenaPlayer.objects.select_related("user").get(arena=arena, user=players[0])
    money.pay_prizes(arena=arena, rake=0, prizes={winner: 20})
    Arena.objects.filter(pk=arena.pk).update(status=Status.FINISHED, pool=20)
    client.force_login(players[0])
    prize, entry, _welcome = _rows(client.get("/wallet/?currency=CHP").content.decode())
    assert "Arena prize" in prize and f'<a href="/arenas/{arena.pk}/">Friday Blitz</a>' in prize
    assert 'data-amount="20"' in prize and "/tables/" not in prize
    assert "Arena entry" in entry and f'href="/arenas/{arena.pk}/"' in entry and 'data-amount="-10"' in entry


def test_the_mutiara_tab_states_that_pot_prizes_are_paid_in_kelereng(client, players):
    room = Room.objects.create(name="Pot Mutiara 10", slug="pot-mut", game="lembar", seats=2, min_seats=2,
                               stake_kind="pot", currency="MUT", stake=10, rake_bps=500)
    _pot_game(room, players)
    client.force_login(players[0])
    mut = client.get("/wallet/?currency=MUT").content.decode()
    assert 'data-rule="mutiara-prize"' in mut and "always paid in Kelereng" in mut and "1 Kelereng for 1 Mutiara" in mut
    kel = client.get("/wallet/?currency=KEL").content.decode()
    assert "Prize of a Mutiara pot, paid in Kelereng" in _rows(kel)[0] and 'data-rule="mutiara-prize"' not in kel
    chip = client.get("/wallet/").content.decode()  # Chip first; the bailout rule and count there
    assert 'data-currency="CHP"' in chip and "bailout" in chip and 'data-testid="bailouts">0<' in chip


def test_wallet_pages_hold_25_postings_newest_first(client, players):
    chip = wallet_services.wallet(user=players[0], currency="CHP")
    for i in range(26):
        wallet_services.transfer(key=f"gift{i}", source=wallet_services.issuance(currency="CHP"), target=chip,
                                 amount=i + 1)
    client.force_login(players[0])
    first = client.get("/wallet/?currency=CHP").content.decode()
    assert len(_rows(first)) == 25 and 'data-amount="26"' in _rows(first)[0] and 'rel="next"' in first
    second = client.get("/wallet/?currency=CHP&page=2").content.decode()
    assert len(_rows(second)) == 2 and "Welcome grant" in _rows(second)[1] and 'rel="prev"' in second
    assert client.get("/wallet/?currency=NOPE&page=abc").status_code == 200


def test_table_money_movement_for_the_result_panel(client, players, pot_room):
    table = _pot_game(pot_room, players)
    client.force_login(players[0])
    data = client.get(f"/tables/{table.pk}/money.json").json()
    html = data["html"]
    assert "Your money at this table" in html and "Entry into the pot" in html and "Prize" in html
    assert '<tr data-currency="KEL" data-total="net"><th scope="row">Net</th><td>+23 Kelereng</td></tr>' in html
    assert 'data-total="rake"><th scope="row">Rake at this table</th><td>2 Kelereng</td>' in html
    assert 'data-total="paid"><th scope="row">Paid in</th><td>−25 Kelereng</td>' in html
    assert [t["net"] for t in data["totals"]] == [23]
    client.force_login(players[2])  # never sat there: nothing to show (the section stays hidden)
    assert client.get(f"/tables/{table.pk}/money.json").json() == {"html": "", "totals": []}
    client.logout()
    assert client.get(f"/tables/{table.pk}/money.json").status_code == 302
    client.force_login(players[0])
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert f'id="money-movement" class="result money-movement" hidden aria-live="polite" data-url="/tables/{table.pk}/money.json"' in page


def test_a_private_tables_money_is_not_shown_to_strangers(client, players, pot_room):
    table = services.table_open(room=pot_room, host=players[0], private=True, seat_count=2)
    services.table_sit(table_id=table.pk, user=players[0])
    client.force_login(players[2])
    assert client.get(f"/tables/{table.pk}/money.json").status_code == 404


def test_31_rooms_say_raises_are_pot_limit_with_the_largest_pot_this_week(client, players):
    salon = Room.objects.create(name="Salon", slug="salon", game="otuzbir", seats=3, min_seats=2,
                                stake_kind="ante", currency="CHP", stake=5)
    table = services.table_open(room=salon, host=players[0], seat_count=3)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    with transaction.atomic():
        table_money.on_hand_over(table=Table.objects.select_for_update().select_related("room").get(pk=table.pk),
                                 event={"hand": 0, "pot": 5877, "contributions": [5, 5000, 872],
                                        "payouts": [5877, 0, 0], "rake": 0})
    client.force_login(players[0])
    row = client.get("/").content.decode().split('data-room="salon"')[1].split("</tr>")[0]
    assert "Ante 5 Chip" in row and "pot-limit raises · largest pot this week 5,877" in row
    # The sit-down and invite pages say it too.
    other = services.table_open(room=salon, host=players[0], private=True)
    page = client.get(f"/tables/{other.pk}/").content.decode()
    assert 'data-fact="stake-range">Ante 5 Chip · pot-limit raises · largest pot this week 5,877<' in page
    invite = client.get(f"/play/invite/{other.invite_code}/").content.decode()
    assert "pot-limit raises · largest pot this week 5,877" in invite


def test_quick_play_with_too_little_balance_is_refused_at_once_and_the_widget_knows_how_to_say_it(client, players):
    Room.objects.create(name="High", slug="high", game="lembar", seats=2, min_seats=2, stake_kind="pot",
                        currency="KEL", stake=500, rake_bps=500)
    client.force_login(players[0])
    html = client.get("/").content.decode()
    labels = json.loads(html.split('<script id="queue-labels" type="application/json">')[1].split("</script>")[0])
    funds = labels["funds"]
    assert "%(needed)s" in funds["needs"] and funds["currencies"]["KEL"] == "Kelereng" and funds["wallet_url"] == "/wallet/"
    assert "500 Chip" in funds["how"]["CHP"] and "Kelereng" in funds["how"]["KEL"]
    refused = client.post("/api/matchmaking/queue/", {"room": "high"}, content_type="application/json")
    body = refused.json()
    assert refused.status_code == 402 and body["code"] == "insufficient_funds"
    assert (body["needed"], body["balance"], body["currency"]) == (500, 100, "KEL")
