"""End-to-end scenarios in headless Chromium against the real stack (see conftest.py).

Run: .venv/bin/pytest tests/frontend -m browser
"""

from __future__ import annotations

import json
import time

import pytest

from accounts.services import bot_create, user_create
from rooms import services
from rooms.models import Room, Table, TableStatus
from tests.frontend.conftest import login, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-123"


def _bots(n: int, style: str = "careful") -> None:
    for i in range(n):
        bot_create(username=f"bot-{style}-{i}", display_name=f"Bot {i}", style=style, description="Test bot.")


def _room(game: str, seats: int, slug: str, **kw) -> Room:
    return Room.objects.create(name=f"{game} test", slug=slug, game=game, seats=seats, min_seats=min(seats, 2),
                               turn_seconds=kw.pop("turn_seconds", 20), **kw)


def _wait_finished(table_id: int, timeout: float = 60) -> Table:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = Table.objects.get(pk=table_id)
        if table.ended:
            return table
        time.sleep(0.3)
    raise AssertionError(f"table {table_id} did not finish")


def _table_id(page) -> int:
    return int(page.get_attribute("#table-app", "data-table"))


def _click_first_legal(page, prefer: tuple[str, ...] = ()) -> bool:
    """Click the first enabled action the page offers (the server's legal moves); True if it clicked."""
    choice = page.locator("#choice:not([hidden]) button:not(.secondary)")
    if choice.count():
        choice.first.click()
        return True
    for kind in prefer:
        b = page.locator(f"#actions button[data-type={kind}]:enabled")
        if b.count():
            b.first.click()
            return True
    card = page.locator("#hand .card-btn:enabled")
    if card.count():
        card.first.click()
        return True
    for sel in ("#actions button[data-type=draw]:enabled", "#actions button[data-type=keep]:enabled",
                "#actions button[data-type]:enabled"):
        b = page.locator(sel)
        if b.count():
            b.first.click()
            return True
    return False


def test_sign_up_and_switch_language(page):
    _room("lembar", 2, "lembar-lang")
    page.goto("/accounts/signup/")
    page.fill("#id_username", "newplayer")
    page.fill("#id_display_name", "New Player")
    page.fill("#id_password1", "a-Long-pass-2026")
    page.fill("#id_password2", "a-Long-pass-2026")
    page.click("main button[type=submit]")
    page.wait_for_url("**/")
    assert page.locator("h1").first.inner_text() == "Lobby"
    screenshot(page, "lobby")
    page.select_option("#language-select", "tr")
    page.wait_for_load_state("load")
    assert page.get_attribute("html", "lang") == "tr"
    assert page.locator("h1").first.inner_text() != "Lobby"
    page.select_option("#language-select", "id")
    page.wait_for_load_state("load")
    assert page.get_attribute("html", "lang") == "id"
    assert page.locator("button[data-action=play-bots]").first.inner_text() != "Play against bots"


def test_lembar_against_bots_to_the_end_then_proof_and_replay(page):
    user_create(username="ana", password=PASSWORD, display_name="Ana")
    _bots(1)
    _room("lembar", 2, "lembar-e2e", turn_seconds=20)
    login(page, "ana")
    page.click("tr[data-room=lembar-e2e] button[data-action=play-bots]")
    page.wait_for_url("**/tables/*/")
    table_id = _table_id(page)
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector("#hand .card-btn")
    screenshot(page, "lembar-table")
    called = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if page.locator("#result:not([hidden])").count():
            break
        call = page.locator("#actions button[data-action=lembar-call]:enabled")
        if call.count() and call.get_attribute("aria-pressed") != "true":
            call.click()  # arms the call for the next card (or calls at once when a call is missing)
            called = True
            page.wait_for_timeout(50)
        if not _click_first_legal(page):
            page.wait_for_timeout(80)
        else:
            page.wait_for_timeout(120)
    else:
        raise AssertionError("the Lembar game did not end in time")
    table = _wait_finished(table_id)
    assert table.status == TableStatus.FINISHED
    if called:  # the call reached the engine as a call flag or a call move
        moves = [m["move"] for m in table.state["moves"] if m["seat"] == 0]
        assert any(m.get("call") or m["type"] == "call" for m in moves), moves
    screenshot(page, "lembar-result")
    # Proof page: the in-browser check passes on the real document…
    page.goto(f"/tables/{table_id}/proof")
    page.wait_for_selector("#check-summary[data-result]", timeout=30_000)
    assert page.get_attribute("#check-summary", "data-result") == "pass", page.inner_text("#check-summary")
    assert page.locator("#checks li[data-ok=true]").count() >= 3
    screenshot(page, "proof")
    # …and fails, naming what differs, on a tampered one served by the test.
    doc = json.loads(page.evaluate(f"fetch('/tables/{table_id}/proof.json').then(r => r.text())"))
    result = doc["shuffles"][0]["result"]
    result[0], result[1] = result[1], result[0]
    if result[0] == result[1]:
        result[0], result[2] = result[2], result[0]
    page.route(f"**/tables/{table_id}/proof.json",
               lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(doc)))
    page.goto(f"/tables/{table_id}/proof")
    page.wait_for_selector("#check-summary[data-result]", timeout=30_000)
    assert page.get_attribute("#check-summary", "data-result") == "fail"
    assert "0:kocok" in page.inner_text("#checks")
    page.unroute(f"**/tables/{table_id}/proof.json")
    # Replay: step through with every card shown.
    page.goto(f"/tables/{table_id}/replay")
    assert page.locator("#replay-seats .card").count() == 2
    first = page.inner_text("#replay-move")
    page.click("button[data-step=next]")
    assert page.inner_text("#replay-move") != first
    page.keyboard.press("End")
    page.click("button[data-step=last]")
    screenshot(page, "replay")
