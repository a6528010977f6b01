"""Each game's table at a phone (390×844) and a desktop (1366×900) size, with the display settings, the
bot badge, the per-hand result panel and a finished hand's replay while the table runs (issue 25).

Run: .venv/bin/pytest tests/frontend/test_screens.py
Screenshots: tests/artifacts/screen-<game>-<phone|desktop>.png, screen-hand-result-*.png, screen-hand-replay-*.png
"""

from __future__ import annotations

import pytest

from accounts.services import bot_create, user_create
from rooms import services
from rooms.models import Room, TableStatus
from tests.frontend.conftest import ARTIFACTS, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "desktop": (1366, 900)}
GAMES = [("lembar", 3), ("baloot", 4), ("cherki", 3), ("otuzbir", 3)]


def _shots(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(100)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{size}.png"), full_page=False)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= w + 1, f"{name}: the page scrolls sideways at {w}px ({width}px)"


def test_every_game_at_both_sizes_with_display_settings_hand_result_and_hand_replay(page):
    user = user_create(username="sofi", password="pass-word-123", display_name="Sofi")
    for i in range(4):
        bot_create(username=f"bot-careful-{i}", display_name=f"Bot {i}", style="careful",
                   description="Plays it safe.")
    login(page, "sofi")
    for game, seats in GAMES:
        room = Room.objects.create(name=f"{game} screens", slug=f"{game}-screens", game=game, seats=seats,
                                   min_seats=seats, turn_seconds=30)
        table = services.play_with_bots(room=room, user=user)
        page.goto(f"/tables/{table.pk}/")
        # 31 deals after the pre-deal raises: its hand may still be empty.
        page.wait_for_selector("#seats .bot-badge" if game == "otuzbir" else "#hand .card-btn")
        badge = page.locator(".bot-badge").first
        assert badge.get_attribute("href").startswith("/accounts/bots/bot-careful-")
        assert badge.get_attribute("data-bot-style") == "careful"
        if game == "lembar":
            # Display settings: applied as CSS variables and kept per user across a reload.
            page.locator("#display-settings summary").click()
            page.locator("#display-contrast").fill("80")
            page.locator("#display-temperature").fill("90")
            page.locator("#display-large").check()
            page.reload()
            page.wait_for_selector("#hand .card-btn")
            got = page.evaluate("window.cardroomDisplay.settings()")
            assert got == {"contrast": 80, "grain": 50, "temperature": 90, "large": True}
            style = page.evaluate("getComputedStyle(document.getElementById('table-app'))"
                                  ".getPropertyValue('--felt-contrast').trim()")
            assert style == "1.180"
            assert page.locator("#table-app.large-cards").count() == 1
        _shots(page, f"screen-{game}")
    page.locator("#display-settings summary").click()
    page.locator("#display-reset").click()
    assert page.evaluate("window.cardroomDisplay.settings()")["contrast"] == 50

    # A table of bots only, watched: the 31 hand's result panel appears when the hand ends, and its
    # replay link opens that hand with every card while the table plays on.
    room = Room.objects.get(slug="otuzbir-screens")
    table = services.table_open(room=room, host=user)
    page.goto(f"/tables/{table.pk}/")
    for _ in range(3):
        services.table_add_bot(table_id=table.pk, by=user)
    panel = page.locator("#hand-result:not([hidden])")
    panel.wait_for(timeout=30_000)
    assert panel.locator(".hand-body[data-kind=hand_over]").count() == 1
    link = panel.locator("a.hand-replay:not([hidden])")
    link.wait_for()
    _shots(page, "screen-hand-result")
    # The link and title name the hand whose events the panel shows, even when the bots have finished
    # another hand before the panel asked for the list: replay hand 1's closing frame once two are over.
    hands = page.evaluate(f"""async () => {{
        for (let i = 0; i < 300; i++) {{
            const data = await (await fetch('/tables/{table.pk}/hands.json')).json();
            if (data.hands.length >= 2) return data.hands;
            await new Promise((r) => setTimeout(r, 100));
        }}
        return [];
    }}""")
    assert len(hands) >= 2
    first = hands[0]
    # (A real hand ending in between replaces the panel: then show hand 1 again.)
    href = page.evaluate("""async (hand) => {
        const app = document.getElementById('table-app');
        for (let i = 0; i < 20; i++) {
            app.dispatchEvent(new CustomEvent('table:frame', {detail: {type: 'event', version: hand.version, events: hand.events}}));
            await new Promise((r) => setTimeout(r, 500));
            const link = document.querySelector('#hand-result a.hand-replay:not([hidden])');
            const title = document.querySelector('#hand-result .hand-title');
            if (link && title && title.textContent.trim() === 'Hand 1 is over') return link.getAttribute('href');
        }
        return null;
    }""", first)
    assert href and href.endswith("?hand=1"), href
    page.goto(href)
    page.wait_for_selector("#replay-seats .card")
    assert page.locator("[data-testid=replay-hand]").count() == 1
    page.locator("[data-step=last]").click()
    page.wait_for_selector("#replay-seats .mini-card")  # every seat's cards, the closed ones too
    page.locator("#replay-result:not([hidden]) .hand-body").wait_for()
    _shots(page, "screen-hand-replay")
    table.refresh_from_db()
    assert table.status in (TableStatus.RUNNING, TableStatus.FINISHED)
