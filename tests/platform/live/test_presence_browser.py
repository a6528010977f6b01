"""Disconnect protection in headless Chromium against the live stack (tests/frontend/conftest.py): the turn
timer runs out and the countdown turns to the time bank; the player's page closes, the other player sees
"reconnecting…" at that seat; the bank runs out while they are away and the timer gives the grace instead
of the automatic move; they come back, the badge goes, and a move within the grace leaves the bank whole
(the grace counts as coming before it). Then a player removed after three automatic moves is told so."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.conf import settings

from accounts.services import user_create
from gameworkers.engines import get_engine
from rooms import services
from rooms.models import Room, Table
from tests.conftest import make_due
from tests.frontend.conftest import CHROMIUM, browser, live_stack, login  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _open(browser, live_stack, username: str, table_id: int, viewport: dict):  # noqa: F811
    context = browser.new_context(viewport=viewport, base_url=live_stack)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    login(page, username)
    page.goto(f"/tables/{table_id}/")
    page.wait_for_selector("#conn[data-state=connected]")
    return context, page


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing")
def test_the_bank_counts_down_a_drop_shows_reconnecting_and_the_grace_keeps_the_bank(browser, live_stack):  # noqa: F811
    bank_ms, grace_ms = 4_000, settings.RECONNECT_GRACE_S * 1000  # (the live stack's default, as here)
    room = Room.objects.create(name="Bank room", slug="bank-browser", game="lembar", seats=2, min_seats=2,
                               turn_seconds=5, time_bank_seconds=bank_ms // 1000)
    users = {name: user_create(username=name, password="pass-word-123", display_name=name.title())
             for name in ("ayu", "budi")}
    table = services.table_open(room=room, host=users["ayu"])
    for name in ("ayu", "budi"):
        services.table_sit(table_id=table.pk, user=users[name])
    table = Table.objects.select_related("room").get(pk=table.pk)
    seat = get_engine("lembar").deadline(table.state)["seat"]
    mover_id = next(e["user_id"] for e in table.seating if e["seat"] == seat)
    mover = next(u for u in users.values() if u.pk == mover_id)
    other = next(u for u in users.values() if u.pk != mover.pk)
    turn_end_ms = _ms(table.deadline_at) - bank_ms

    phone, desktop = {"width": 390, "height": 844}, {"width": 1366, "height": 900}
    mover_context, mover_page = _open(browser, live_stack, mover.username, table.pk, phone)
    other_context, other_page = _open(browser, live_stack, other.username, table.pk, desktop)
    contexts = [mover_context, other_context]
    try:
        # The 5 s turn timer runs out: both pages count the mover's bank down.
        for page in (mover_page, other_page):
            page.wait_for_selector("#countdown[data-bank='1']", timeout=15_000)
            assert re.fullmatch(r"Time bank: [0-4] s", page.inner_text("#countdown")), page.inner_text("#countdown")
        badge = f"#seats .seat[data-seat='{seat}'] .badge.away"
        assert other_page.locator(badge).count() == 0

        # The mover's page goes away: the other sees "reconnecting…". Still away when the bank runs out,
        # the mover gets the grace from the timer, instead of the automatic move.
        mover_context.close()
        contexts.remove(mover_context)
        other_page.wait_for_selector(badge)
        assert other_page.inner_text(badge) == "reconnecting…"
        deadline = time.monotonic() + 15
        while _ms(table.deadline_at) == turn_end_ms + bank_ms:
            assert time.monotonic() < deadline, "no grace"
            time.sleep(0.1)
            table.refresh_from_db()
        assert _ms(table.deadline_at) == turn_end_ms + grace_ms + bank_ms
        assert table.state["move_count"] == 0  # no automatic move
        # The grace counts as coming before the bank: the others count it down as turn time.
        other_page.wait_for_selector("#countdown[data-bank='']")
        assert re.fullmatch(r"\d+ s left", other_page.inner_text("#countdown"))

        # Back (a new tab, as after a reload): the badge goes; the mover's own page shows none.
        mover_context, mover_page = _open(browser, live_stack, mover.username, table.pk, phone)
        contexts.append(mover_context)
        other_page.wait_for_selector(badge, state="detached")
        assert mover_page.locator("#seats .badge.away").count() == 0

        # The mover plays within the grace: the bank the countdown had used up is whole again.
        engine = get_engine("lembar")
        table.refresh_from_db()
        turn = engine.deadline(table.state)
        at = services.now_ms()
        assert at < turn_end_ms + grace_ms
        while engine.deadline(table.state) == turn:  # (a Lembar draw keeps the turn: one more move ends it)
            services.table_play(table_id=table.pk, seat_number=seat, move=engine.legal_moves(table.state, seat)[0],
                                expected_version=table.version, user_id=mover.pk, at_ms=at)
            table.refresh_from_db()
        assert next(e for e in table.seating if e["seat"] == seat)["bank_ms"] == bank_ms
        for page in (mover_page, other_page):
            assert not page.problems, page.problems

        # A player removed after three automatic moves is told so, not that they are "watching".
        users["citra"] = user_create(username="citra", password="pass-word-123")
        gone_from, removed = _removed_for_timeouts(list(users.values()))
        context, page = _open(browser, live_stack, removed.username, gone_from.pk, desktop)
        contexts.append(context)
        page.wait_for_selector("#hand .removed-note")
        assert page.inner_text("#hand .removed-note") == "You were removed after three automatic moves in a row."
        assert not page.problems, page.problems
    finally:
        for context in contexts:
            context.close()


def _ms(moment) -> int:
    return round(moment.timestamp() * 1000)


def _removed_for_timeouts(users: list) -> tuple[Table, object]:
    """A three-seat table whose first player to act never moves: three automatic turns remove them
    (the deadlines are made due at once, as the timer tests do). Returns the table and that player."""
    from datetime import timedelta

    from django.utils import timezone

    room = Room.objects.create(name="Removal room", slug="removal-browser", game="lembar", seats=3, min_seats=3,
                               turn_seconds=600, time_bank_seconds=0)
    table = services.table_open(room=room)
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    engine = get_engine("lembar")
    table = Table.objects.get(pk=table.pk)
    idle = engine.deadline(table.state)["seat"]
    for _ in range(300):
        table.refresh_from_db()
        entry = next(e for e in table.seating if e["seat"] == idle)
        if entry["status"] != "seated" or table.status != "running":
            break
        due = engine.deadline(table.state)
        if due["seat"] in (idle, None) or due["limit_ms"] == 0:
            make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
            services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
        else:
            move = engine.legal_moves(table.state, due["seat"])[0]
            services.table_play(table_id=table.pk, seat_number=due["seat"], move=move,
                                expected_version=table.version)
    assert entry["status"] == "removed"
    return table, next(u for u in users if u.pk == entry["user_id"])
