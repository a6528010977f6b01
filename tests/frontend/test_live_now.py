"""The lobby's "Live now" and watching a table from it: the page parts with Django's test client, and one
browser test (Chromium) where a spectator picks a table from the list and watches it with the delay.

Run: .venv/bin/pytest tests/frontend/test_live_now.py
Screenshots: tests/artifacts/live-now-<width>.png, tests/artifacts/live-now-watching.png.
"""

from __future__ import annotations

import time

import pytest
from django.test import Client

from accounts.services import bot_create, user_create
from rooms import services
from rooms.models import Room, StakeKind, Table

PASSWORD = "pass-word-123"


@pytest.fixture
def no_bot_turns(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_lobby_has_the_live_now_list_with_a_place_for_every_game_and_its_words():
    for i, game in enumerate(("lembar", "baloot")):
        Room.objects.create(name=f"R{i}", slug=f"r{i}", game=game, seats=4, min_seats=2)
    html = _client(user_create(username="lv", password=PASSWORD)).get("/").content.decode()
    assert html.count(' id="live-now"') == 1 and "frontend/js/live_now.js" in html
    for game in ("lembar", "baloot", "cherki", "otuzbir"):
        assert f'class="live-game" data-game="{game}"' in html
    # The script words each table with these: the placeholders survive the translation tags.
    for attribute in ('data-watching="%(n)s watching"', 'data-delay="%(s)s s delay"',
                      'data-stake-pot="Entry %(amount)s %(currency)s"', 'data-stake-ante="Ante %(amount)s %(currency)s"',
                      'data-stake-per-point="%(amount)s %(currency)s per point"', 'data-currency-mut="Mutiara"'):
        assert attribute in html, attribute


@pytest.mark.django_db
@pytest.mark.parametrize(("setting", "stake_kind", "stake", "currency", "shown"), [
    (None, StakeKind.CASUAL, 0, "", None),
    (5, StakeKind.CASUAL, 0, "", 5),
    (None, StakeKind.POT, 10, "MUT", 20),
])
def test_the_table_page_says_how_late_spectators_watch(no_bot_turns, setting, stake_kind, stake, currency, shown):
    room = Room.objects.create(name="W", slug="w", game="lembar", seats=2, min_seats=2, stake_kind=stake_kind,
                               stake=stake, currency=currency, spectator_delay_seconds=setting)
    host = user_create(username="wh", password=PASSWORD)
    table = services.table_open(room=room, host=host)
    html = _client(user_create(username="ww", password=PASSWORD)).get(f"/tables/{table.pk}/").content.decode()
    assert 'id="spectator-count"' in html and "frontend/js/watching.js" in html
    assert 'data-wait="You watch %(s)s s behind the play: the table appears in a moment."' in html
    if shown is None:
        assert 'data-fact="spectator-delay"' not in html
    else:
        assert f"Spectators see the play {shown} s late." in html


# ----- in Chromium ------------------------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_spectator_joins_from_live_now_and_watches_with_the_delay(page):
    from tests.frontend.conftest import ARTIFACTS, login

    delay = 3
    room = Room.objects.create(name="Live room", slug="live-room", game="lembar", seats=2, min_seats=2,
                               turn_seconds=20, spectator_delay_seconds=delay)
    bot_create(username="live-bot-0", display_name="Bot Ani", style="careful", description="Test bot.")
    host = user_create(username="livehost", password=PASSWORD, display_name="Hostess")
    table = services.play_with_bots(room=room, user=host)
    assert Table.objects.get(pk=table.pk).status == "running"
    private = services.table_open(room=room, host=host, private=True)
    user_create(username="livewatcher", password=PASSWORD, display_name="Watcher")
    login(page, "livewatcher")

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((390, 844), (1366, 900)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto("/")
        entry = page.locator(f"#live-now .live-table[data-table='{table.pk}']")
        entry.wait_for()
        assert page.locator(f"#live-now .live-table[data-table='{private.pk}']").count() == 0
        text = entry.inner_text()
        assert "Live room" in text and "Hostess" in text and "Bot Ani" in text and "Free" in text, text
        assert entry.locator(".badge").inner_text() == "bot" and "3 s delay" in text
        box = entry.locator("[data-action=watch]").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        entry.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"live-now-{width}.png"), full_page=True)

    entry.locator("[data-action=watch]").click()
    page.wait_for_url(f"**/tables/{table.pk}/")
    page.wait_for_selector("#conn[data-state=connected]")
    connected_at = time.monotonic()
    # The spectator is told why the felt is empty, and sees nothing of the running game before the delay.
    page.wait_for_selector("#watch-wait:not([hidden])")
    assert "3 s behind the play" in page.inner_text("#watch-wait")
    assert page.evaluate("window.cardroomTable.frame()") is None
    assert "Spectators see the play 3 s late." in page.inner_text("#watch-facts")
    page.wait_for_selector("#spectator-count:not([hidden])")
    assert page.inner_text("#spectator-count") == "1 watching"  # this spectator
    deadline = time.monotonic() + 15
    while not page.evaluate("window.cardroomTable.frame() !== null"):
        assert time.monotonic() < deadline, "no state frame"
        page.wait_for_timeout(50)
    assert time.monotonic() - connected_at >= delay - 0.5
    assert page.evaluate("window.cardroomTable.frame().seat") is None
    page.wait_for_selector("#watch-wait", state="hidden")
    page.wait_for_selector(".spectator-note")
    assert page.locator(".seat").count() == 2 and page.locator("#hand .card-btn").count() == 0
    page.screenshot(path=str(ARTIFACTS / "live-now-watching.png"), full_page=True)
