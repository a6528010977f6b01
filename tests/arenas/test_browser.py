"""An arena in headless Chromium: a player joins on the arena page, is taken to the game by a push
when a bot fills the free seat, and when the game ends is switched to the next one on the same page
(no reload), with the arena bar showing the points.

Uses the front end's live stack (uvicorn + Celery worker + timer; tests/frontend/conftest.py): the
bot's turns, ``table_finished`` → ``game_over`` and the bot fill after the wait run through Celery and
the timer. The test process plays the player's turns on the server (the page is what is tested)."""

from __future__ import annotations

import random
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import bot_create, user_create
from arenas import services
from arenas.models import ArenaPlayer
from rooms.models import Room
from tests.arenas.conftest import play_my_turn
from tests.frontend.conftest import browser, live_stack, login, page, screenshot  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fast_passwords():
    """The server processes verify passwords with the real hashers: no MD5 here."""


def wait_until(pg, expression: str, timeout_s: float = 20, step=None) -> None:
    """Poll ``expression`` (wait_for_function would need eval, which the CSP forbids); ``step`` runs
    between polls (here: the player's moves)."""
    deadline = time.monotonic() + timeout_s
    while not pg.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s} s: {expression}")
        if step:
            step()
        pg.wait_for_timeout(50)


def test_join_be_taken_to_the_game_and_follow_to_the_next_in_place(page):  # noqa: F811
    room = Room.objects.create(name="Lembar arena", slug="a-browser-lembar", game="lembar", seats=2, min_seats=2,
                               turn_seconds=20)
    ayla = user_create(username="a-ayla", password="pass-word-123", display_name="Ayla")
    bot_create(username="a-bot-browser", display_name="Bot Sari", style="careful", description="A bot.")
    arena = services.arena_create(name="Evening Lembar Arena", room=room, duration_minutes=10, bot_fill_seconds=1,
                                  starts_at=timezone.now() - timedelta(seconds=1))
    services.start(arena_id=arena.pk)
    login(page, "a-ayla")
    page.goto(f"/arenas/{arena.pk}/")
    page.wait_for_selector("#a-clock:not(:empty)")
    screenshot(page, "arena-page")
    page.click('#a-actions form[data-role="join"] button')
    # alone: a bot takes the other seat after 1 s, and the push takes the page to the game
    page.wait_for_url(f"**/arenas/{arena.pk}/play/", timeout=20_000)
    page.wait_for_selector("#arena-bar")
    first = ArenaPlayer.objects.get(arena=arena, user=ayla).table_id
    assert page.get_attribute("#table-app", "data-table") == str(first)
    page.evaluate("window.__sameDocument = true")
    assert not page.locator("#play-again").is_visible()
    rng = random.Random(5)
    # the game plays out; the arena pairs the player again and the page follows without a reload
    wait_until(page, f"document.getElementById('table-app').dataset.table !== '{first}'", timeout_s=90,
               step=lambda: play_my_turn(first, ayla, rng))
    assert page.evaluate("window.__sameDocument === true")
    second = ArenaPlayer.objects.get(arena=arena, user=ayla).table_id
    assert second != first and page.get_attribute("#table-app", "data-table") == str(second)
    page.wait_for_selector("#conn[data-state=connected]")
    wait_until(page, "/games played: 1/.test(document.getElementById('arena-mine').textContent)")
    screenshot(page, "arena-game")


def test_the_lobby_arena_card_follows_by_push(page, settings):  # noqa: F811
    """The lobby's arena card: players joined, running now with the time left counting down, and the
    leader, each pushed over the lobby socket (no reload)."""
    from arenas.models import ArenaGame
    from tests.arenas.conftest import finish_table

    settings.ARENA_PUSH_INTERVAL_S = 0  # every change of the test process's services pushed at once
    room = Room.objects.create(name="Lembar lobby arena", slug="a-browser-lobby", game="lembar", seats=2,
                               min_seats=2, turn_seconds=20)
    user_create(username="a-lobby-viewer", password="pass-word-123", display_name="Viewer")
    bea, can = (user_create(username=f"a-lobby-{n}", password="pass-word-123", display_name=n) for n in ("Bea", "Can"))
    arena = services.arena_create(name="Lobby Lembar Arena", room=room, duration_minutes=10,
                                  starts_at=timezone.now() + timedelta(minutes=30))
    login(page, "a-lobby-viewer")
    card = f'li[data-arena="{arena.pk}"]'
    assert "0 players joined" in page.inner_text(card)
    wait_until(page, "window.cardroomLobby?.socket()?.readyState === 1")
    wait_until(page, f"/Starts in 29:[0-5][0-9]/.test(document.querySelector('{card}').textContent)")
    page.evaluate("window.__sameDocument = true")
    services.join(arena_id=arena.pk, user=bea)
    wait_until(page, f"document.querySelector('{card} [data-k=players]').textContent === '1 player joined'")
    services.join(arena_id=arena.pk, user=can)
    services.start(arena_id=arena.pk, force=True)  # the window begins now; Bea and Can are paired
    wait_until(page, f"document.querySelector('{card}').dataset.status === 'running'")
    text = page.inner_text(card)
    assert "running now" in text and "2 players joined" in text and "Leader" not in text
    wait_until(page, f"/ 9:[0-5][0-9] left/.test(document.querySelector('{card} [data-k=clock]').textContent)")
    game = ArenaGame.objects.get(arena=arena)
    winner = next(p for p in game.players if p)
    finish_table(game.table_id, [1 if p == winner else 2 for p in game.players])
    services.game_over(table_id=game.table_id)
    top = ArenaPlayer.objects.select_related("user").get(pk=winner)
    wait_until(page, f"document.querySelector('{card} [data-k=leader]').textContent.includes('Leader: {top.user.public_name}')")
    assert f"({top.score} points)" in page.inner_text(f"{card} [data-k=leader]")
    assert page.evaluate("window.__sameDocument === true")
    screenshot(page, "lobby-arena-card-live")
