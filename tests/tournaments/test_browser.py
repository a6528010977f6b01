"""A new player's tournament in headless Chromium (issue 24): register on the tournament page, be taken
to the seat by a push when it starts, play several hands on one page that never reloads (each hand's
rooms table switched in place), see the hand results, the level and the stack change, and the
tournament's end with the places and prizes.

Uses the front end's live stack (uvicorn + Celery worker + timer; tests/frontend/conftest.py): the bot,
the hand-over, the pause between hands and the next deal all run through Celery and the timer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import bot_create, user_create
from rooms.models import Room
from tests.frontend.conftest import CHROMIUM, browser, live_stack, login, screenshot  # noqa: F401  (fixtures)
from tournaments import services
from tournaments.models import Entry, Status, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Plays the human's turns as soon as they come: stands when it may, else opens a card, passes or sees.
AUTOPLAY = """
() => {
  window.__sameDocument = true;   // gone if the page ever reloads
  window.__tables = new Set();
  setInterval(() => {
    window.__tables.add(document.getElementById("table-app").dataset.table);
    for (const type of ["stand", "see", "pass", "open"]) {
      const b = document.querySelector(`#actions button[data-type="${type}"]:not([disabled])`);
      if (b) { b.click(); return; }
    }
  }, 150);
}
"""


def wait_until(page, expression: str, timeout_ms: int = 20_000) -> None:
    """Poll ``expression`` with page.evaluate (wait_for_function would need eval, which the CSP forbids)."""
    import time

    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_ms} ms: {expression}")
        page.wait_for_timeout(100)


@pytest.fixture
def fast_passwords():
    """The server processes verify passwords with the real hashers: no MD5 here (tests/tournaments/conftest.py)."""


@pytest.fixture
def page(browser, live_stack):  # noqa: F811
    from pathlib import Path

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing")
    context = browser.new_context(base_url=live_stack, permissions=["notifications"])
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    pg.problems = []
    pg.on("console", lambda m: pg.problems.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
    yield pg
    context.close()


def test_register_be_seated_by_a_push_and_play_hands_on_one_page(page):
    room = Room.objects.create(name="31 cup tables", slug="t-browser-31", game="otuzbir", seats=7, min_seats=2,
                               turn_seconds=20)
    user_create(username="t-ayla", password="pass-word-123", display_name="Ayla")
    bot_create(username="t-bot-browser", display_name="Bot Deniz", style="careful", description="A bot.")
    # Short stacks and a steep schedule: a few hands to the end; a 1 s pause shows each hand's result.
    t = services.tournament_create(name="Evening 31", room=room, starts_at=timezone.now() + timedelta(hours=1),
                                   min_entrants=2, starting_stack=12, ante_schedule={"base": 2, "double_every": 1},
                                   hand_pause_seconds=1)
    login(page, "t-ayla")
    page.goto(f"/tournaments/{t.pk}/")
    assert page.inner_text("#t-status") == "Registering"
    with page.expect_navigation():
        page.click('form[data-role="register"] button')
    assert page.is_visible('form[data-role="unregister"]')
    assert page.inner_text('[data-k="registered"]') == "1"
    wait_until(page, "window.cardroomTournament && window.cardroomTournament.socket()?.readyState === 1")
    with page.expect_navigation(url=f"**/tournaments/{t.pk}/table/1/"):
        services.start(tournament_id=t.pk)  # the bot fills the minimum; the seat comes by a push
    assert page.evaluate("Notification.permission") == "granted"
    page.wait_for_selector("#tt-level")
    assert "Level 1 · ante 2" in page.inner_text("#tt-facts") and "Evening 31" in page.inner_text("h1")
    page.evaluate(AUTOPLAY)
    # The first hand's result, then the next hands on the same page (no reload, no new address).
    page.wait_for_selector("#result:not([hidden]) .winners", timeout=60_000)
    assert "Hand result" in page.inner_text("#result") and "Game over" not in page.inner_text(".felt")
    screenshot(page, "tournament-table-hand-result")  # tests/artifacts/; fails if a phone scrolls sideways
    wait_until(page, "window.__tables.size >= 2", 60_000)
    assert page.evaluate("window.__sameDocument") is True
    assert page.url.endswith(f"/tournaments/{t.pk}/table/1/")
    wait_until(page, "document.getElementById('tt-level').textContent.includes('Level 2')", 60_000)
    # The end: places and prizes (winner takes all with two entrants), still the same document.
    wait_until(page, "document.querySelector('#result h2')?.textContent === 'Tournament over'", 120_000)
    assert page.evaluate("window.__sameDocument") is True and page.evaluate("window.__tables.size") >= 2
    screenshot(page, "tournament-table-over")
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    mine = Entry.objects.get(tournament=t, user__username="t-ayla")
    text = page.inner_text("#result")
    assert ("You won the tournament!" in text) == (mine.place == 1)
    assert mine.place == 1 or "You are out in place 2." in text
    assert "-" not in page.inner_text("#tt-stack")  # a busted stack reads "eliminated", never negative
    assert Tournament.objects.get(pk=t.pk).pool == 40
    # The tournament page: final standings, the elimination, the prize; the prize is in the wallet.
    page.click("#tt-back")
    page.wait_for_selector("#t-standings tbody tr")
    assert page.inner_text("#t-status") == "Finished" and "is out in place 2." in page.inner_text("#t-eliminations")
    assert "eliminated" in page.inner_text("#t-standings") and "-" not in page.inner_text("#t-standings td:nth-child(3)")
    screenshot(page, "tournament-page-finished")
    from wallets.models import LedgerTransaction

    prizes = LedgerTransaction.objects.get(key=f"tournament:{t.pk}:prizes")
    winner = Entry.objects.get(tournament=t, place=1)
    assert prizes.entries.get(account__user=winner.user).amount == 40
    assert not page.problems, page.problems


def test_a_sit_and_go_shows_its_split_takes_a_re_entry_and_seats_it_by_a_push(page):
    """Issue 24, formats: the lobby card and the page show the split as it stands and follow the pushes;
    a sit & go starts when full and takes the player to the seat; levels by minutes count down on the
    table; out (here by leaving), the player sees "Re-enter (20 Chip)" appear, re-enters, waits for the
    hand in play to end and is taken to the new seat by a push."""
    from rooms import services as rooms_services

    room = Room.objects.create(name="31 S&G tables", slug="t-browser-sng", game="otuzbir", seats=7, min_seats=2,
                               turn_seconds=20)
    user_create(username="t-selin", password="pass-word-123", display_name="Selin")
    bots = [bot_create(username=f"t-bot-sng{i}", display_name=f"Bot Sng {i}", style="careful",
                       description="A bot.") for i in range(2)]
    t = services.tournament_create(name="Quick S&G", room=room, sit_and_go=True, max_entrants=3,
                                   fill_after_seconds=600, late_registration_level=5, max_entries=2,
                                   levels_by="minutes", level_minutes=5, hand_pause_seconds=1)
    login(page, "t-selin")
    card = f'li[data-tournament="{t.pk}"]'
    assert "1st 100 % (0 Chip)" in page.inner_text(card) and "0 of 3 registered" in page.inner_text(card)
    wait_until(page, "document.querySelector('[data-k=live]') !== null")
    page.wait_for_timeout(500)  # the lobby socket connects
    services.register(tournament_id=t.pk, user=bots[0])
    wait_until(page, f"document.querySelector('{card} [data-k=prizes]').textContent.includes('1st 100 % (20 Chip)')")
    assert "1 of 3 registered" in page.inner_text(card)
    screenshot(page, "tournament-lobby-sit-and-go")

    page.goto(f"/tournaments/{t.pk}/")
    assert "1st 100 % (20 Chip)" in page.inner_text("#t-payouts")
    with page.expect_navigation():
        page.click('form[data-role="register"] button')
    wait_until(page, "window.cardroomTournament && window.cardroomTournament.socket()?.readyState === 1")
    with page.expect_navigation(url=f"**/tournaments/{t.pk}/table/1/"):
        services.register(tournament_id=t.pk, user=bots[1])  # full: it starts, the seat comes by a push
    page.wait_for_selector("#tt-level")
    wait_until(page, "/next level in 4:[0-5][0-9]/.test(document.getElementById('tt-next-level').textContent)")
    assert Tournament.objects.filter(name="Quick S&G", status=Status.REGISTERING).count() == 1  # the next one

    # Out: the player leaves the table (an elimination); the tournament page offers the re-entry.
    first = Entry.objects.get(tournament=t, user__username="t-selin")
    page.goto(f"/tournaments/{t.pk}/")
    wait_until(page, "window.cardroomTournament && window.cardroomTournament.socket()?.readyState === 1")
    rooms_services.table_stand(table_id=first.table.table_id, user=first.user)
    wait_until(page, "!document.getElementById('t-late').hidden", 60_000)  # pushed when the hand is settled
    assert page.inner_text("#t-late-button") == "Re-enter (20 Chip)"
    with page.expect_navigation():
        page.click("#t-late-button")
    assert page.is_visible("#t-waiting") and "1st 70 % (56 Chip) · 2nd 30 % (24 Chip)" in page.inner_text("#t-payouts")
    screenshot(page, "tournament-page-re-entry-waiting")
    with page.expect_navigation(url=f"**/tournaments/{t.pk}/table/*/", timeout=60_000):
        pass  # the hand in play ends: the re-entry is seated and the page goes there
    again = Entry.objects.get(tournament=t, user__username="t-selin", number=2)
    assert again.status == "playing" and again.paid == 20
    page.wait_for_selector("#tt-stack")
    assert 0 < int(page.inner_text("#tt-stack")) <= 100  # the starting stack (less the ante once dealt)
    screenshot(page, "tournament-sit-and-go-re-entry")
    services.cancel(tournament_id=t.pk)
    assert not page.problems, page.problems


def test_moved_by_balancing_on_the_same_page_then_the_prize_in_the_wallet(page, monkeypatch):
    """Issue 24: four entrants at two tables of two; the human's opponent leaves in the first hand, so
    balancing breaks the human's table (three players fit one table; the smaller table, on a tie the
    higher number, breaks) and the human is moved to table 1 by the next hand's push, on the same page.
    Then the wallet lists the entry and the prize, linked to the tournament."""
    import random

    from rooms import services as rooms_services
    from tournaments.models import PayoutRow, PayoutStructure, TournamentTable

    room = Room.objects.create(name="31 balancing tables", slug="t-browser-balance", game="otuzbir", seats=7,
                               min_seats=2, turn_seconds=20)
    human = user_create(username="t-mert", password="pass-word-123", display_name="Mert")
    bots = [bot_create(username=f"t-bot-bal{i}", display_name=f"Bot Bal {i}", style="careful",
                       description="A bot.") for i in range(3)]
    split = PayoutStructure.objects.create(name="Three paid")
    PayoutRow.objects.create(structure=split, from_entrants=3, percents="50, 30, 20")  # whoever is left is paid
    t = services.tournament_create(name="Balancing 31", room=room, starts_at=timezone.now() + timedelta(hours=1),
                                   min_entrants=4, seats_per_table=3, starting_stack=12, payout_structure=split,
                                   ante_schedule={"base": 2, "double_every": 1}, hand_pause_seconds=1)
    for user in (human, *bots):
        services.register(tournament_id=t.pk, user=user)
    mine = Entry.objects.get(tournament=t, user=human)
    # The seat draw puts the human second: table 2 (round robin), the table balancing breaks below.
    first = Entry.objects.get(tournament=t, user=bots[0]).unit
    monkeypatch.setattr(random.SystemRandom, "shuffle",
                        lambda self, order: order.sort(key=lambda u: {first: 0, mine.unit: 1}.get(u, 2)))
    login(page, "t-mert")
    page.goto(f"/tournaments/{t.pk}/")
    wait_until(page, "window.cardroomTournament && window.cardroomTournament.socket()?.readyState === 1")
    with page.expect_navigation(url=f"**/tournaments/{t.pk}/table/2/"):
        services.start(tournament_id=t.pk)
    mine.refresh_from_db()
    assert mine.table.number == 2
    page.wait_for_selector("#tt-level")
    other_hand = TournamentTable.objects.get(tournament=t, number=1).table_id  # the bots' first hand
    page.evaluate("""() => {
      window.__sameDocument = true;
      window.__seen = new Set();  // every rooms table this page showed
      setInterval(() => window.__seen.add(Number(document.getElementById("table-app").dataset.table)), 50);
    }""")
    # The human's opponent leaves: out in the first hand; the human is alone at table 2.
    opponent = next(e.user for e in Entry.objects.filter(table=mine.table).exclude(pk=mine.pk).select_related("user"))
    rooms_services.table_stand(table_id=TournamentTable.objects.get(tournament=t, number=2).table_id, user=opponent)
    wait_until(page, f"location.pathname === '/tournaments/{t.pk}/table/1/'", 60_000)
    assert page.evaluate("window.__sameDocument") is True  # moved in place: no reload
    assert "Table 1" in page.inner_text("#tt-number")
    assert "You move to table 1." in page.inner_text("#announcer")
    assert TournamentTable.objects.get(tournament=t, number=2).broken
    joined = TournamentTable.objects.get(tournament=t, number=1)
    assert mine.pk in joined.players and len(joined.players) >= 2 and joined.table_id != other_hand
    assert page.get_attribute("#table-app", "data-table") == str(joined.table_id)
    # straight to the new hand: never the other players' last hand at table 1 during the pause
    assert other_hand not in page.evaluate("[...window.__seen]")
    page.wait_for_selector("#conn[data-state=connected]")
    screenshot(page, "tournament-table-moved")
    page.evaluate(AUTOPLAY)
    wait_until(page, "document.querySelector('#result h2')?.textContent === 'Tournament over'", 120_000)
    assert page.evaluate("window.__sameDocument") is True
    mine.refresh_from_db()
    assert mine.place in (1, 2, 3) and Tournament.objects.get(pk=t.pk).status == Status.FINISHED

    # The wallet: the entry and the prize, each linked to the tournament.
    from wallets.models import LedgerTransaction

    prize = LedgerTransaction.objects.get(key=f"tournament:{t.pk}:prizes").entries.get(account__user=human).amount
    # 50/30/20 of 80; players busted in the same hand share their places' prizes (spec), e.g. 2nd and 3rd 20 each.
    tied = Entry.objects.filter(tournament=t, place=mine.place).count()
    shares = {1: 40, 2: 24, 3: 16, 4: 0}
    assert prize == mine.prize == sum(shares[p] for p in range(mine.place, mine.place + tied)) // tied > 0
    page.goto("/wallet/")
    row = page.locator('tr[data-purpose="tournament_prize"]').first
    assert "Tournament prize" in row.inner_text() and row.locator("[data-amount]").get_attribute("data-amount") == str(prize)
    assert row.locator("a").get_attribute("href") == f"/tournaments/{t.pk}/"
    assert "Balancing 31" in row.locator("a").inner_text()
    entry = page.locator('tr[data-purpose="tournament_entry"]').first
    assert entry.locator("[data-amount]").get_attribute("data-amount") == "-20"
    assert entry.locator("a").get_attribute("href") == f"/tournaments/{t.pk}/"
    screenshot(page, "wallet-tournament-prize")
    assert not page.problems, page.problems
