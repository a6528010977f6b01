"""Two players chatting while a spectator's message stays in the spectators' chat, then report and mute,
in headless Chromium against the live stack (tests/frontend/conftest.py); the player on a phone."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from accounts.services import user_create
from chat.models import ChatReport
from rooms import services as room_services
from rooms.models import Room
from tests.frontend.conftest import ARTIFACTS, CHROMIUM, browser, live_stack, login  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def _context(browser, live_stack, viewport):  # noqa: F811
    context = browser.new_context(viewport=viewport, base_url=live_stack)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    return context, page


def _texts(page) -> list[str]:
    return page.locator("#chat-log .chat-text").all_text_contents()


def _wait_texts(page, expected: list[str], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while _texts(page) != expected:
        assert time.monotonic() < deadline, (_texts(page), expected)
        page.wait_for_timeout(50)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing")
def test_players_chat_spectator_chat_report_and_mute(browser, live_stack):  # noqa: F811
    room = Room.objects.create(name="Chat room", slug="chat-browser", game="lembar", seats=2, min_seats=2,
                               turn_seconds=90)
    ayu = user_create(username="ayu", password="pass-word-123", display_name="Ayu")
    budi = user_create(username="budi", password="pass-word-123", display_name="Budi")
    user_create(username="wati", password="pass-word-123", display_name="Wati")
    table = room_services.table_open(room=room, host=ayu)
    room_services.table_sit(table_id=table.pk, user=ayu)
    room_services.table_sit(table_id=table.pk, user=budi)
    pages = {}
    contexts = []
    for name, viewport in (("ayu", PHONE), ("budi", {"width": 1366, "height": 900}), ("wati", {"width": 1366, "height": 900})):
        context, page = _context(browser, live_stack, viewport)
        contexts.append(context)
        login(page, name)
        page.goto(f"/tables/{table.pk}/")
        page.wait_for_selector("#chat-panel[data-state=ready]")
        pages[name] = page
    ayu_page, budi_page, wati_page = pages["ayu"], pages["budi"], pages["wati"]
    try:
        # On a phone the panel starts folded; the player opens it.
        assert not ayu_page.evaluate("document.getElementById('chat-panel').open")
        ayu_page.click("#chat-panel summary")
        ayu_page.fill("#chat-input", "Hi <b>Budi</b>")
        ayu_page.press("#chat-input", "Enter")
        for page in (ayu_page, budi_page):
            _wait_texts(page, ["Hi <b>Budi</b>"])  # shown as text, never as markup
            assert page.locator("#chat-log b").count() == 0

        # The spectator reads both chats (in tabs; its own is on view) and writes in the spectators'
        # chat: the players never see that during the game.
        assert wati_page.locator("#chat-tabs").is_visible() and not budi_page.locator("#chat-tabs").is_visible()
        wati_page.wait_for_selector("#chat-tab-players[data-unread]")
        wati_page.click("#chat-panel [data-phrase=gl]")
        _wait_texts(wati_page, ["Good luck!"])
        wati_page.click("#chat-tab-players")
        _wait_texts(wati_page, ["Hi <b>Budi</b>"])
        assert wati_page.locator("#chat-log b").count() == 0 and not wati_page.locator("#chat-compose").is_visible()
        budi_page.click("#chat-panel [data-phrase=gg]")
        _wait_texts(ayu_page, ["Hi <b>Budi</b>", "Good game"])
        _wait_texts(budi_page, ["Hi <b>Budi</b>", "Good game"])
        assert "Good luck!" not in _texts(ayu_page) + _texts(budi_page)

        # Budi reports Ayu's message, then mutes her: her messages go, the next one never comes.
        first = budi_page.locator("#chat-log .chat-msg").first
        first.locator(".chat-more").click()
        first.locator("select").select_option("spam")
        first.locator("[data-action=chat-report]").click()
        budi_page.wait_for_selector("#chat-note:has-text('Reported')")
        assert ChatReport.objects.filter(reporter=budi, reported=ayu, reason="spam").count() == 1
        budi_page.locator("#chat-log .chat-msg").first.locator(".chat-more").click()
        budi_page.locator("#chat-log [data-action=chat-mute]").click()
        _wait_texts(budi_page, ["Good game"])
        ayu_page.fill("#chat-input", "still there?")
        ayu_page.click("[data-action=chat-send]")
        _wait_texts(wati_page, ["Hi <b>Budi</b>", "Good game", "still there?"])
        budi_page.wait_for_timeout(300)
        assert _texts(budi_page) == ["Good game"]
        budi_page.reload()
        budi_page.wait_for_selector("#chat-panel[data-state=ready]")
        _wait_texts(budi_page, ["Good game"])  # remembered

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        ayu_page.screenshot(path=str(ARTIFACTS / "chat-phone.png"), full_page=True)
        wati_page.screenshot(path=str(ARTIFACTS / "chat-spectator-desktop.png"), full_page=True)
        assert ayu_page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for name, page in pages.items():
            assert not page.problems, (name, page.problems)
    finally:
        for context in contexts:
            context.close()
