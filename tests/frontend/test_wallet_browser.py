"""The player's money in headless Chromium against the real stack (see conftest.py): quick play refused at
once with what is missing, the host stopping their own pot table, the table's money movement appearing in
the result panel, and the wallet page.

Run: .venv/bin/pytest tests/frontend/test_wallet_browser.py
"""

from __future__ import annotations

import time

import pytest

from accounts.services import user_create
from rooms.models import Room, Table, TableStatus
from tests.frontend.conftest import login, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_refused_quick_play_host_stop_money_movement_and_wallet(page):
    Room.objects.create(name="High Roller", slug="high", game="lembar", seats=2, min_seats=2, stake_kind="pot",
                        currency="KEL", stake=500, rake_bps=500)
    Room.objects.create(name="Pot Kelereng 10", slug="pot-kel", game="lembar", seats=3, min_seats=2,
                        stake_kind="pot", currency="KEL", stake=10, rake_bps=500)
    user_create(username="walt", password="pass-word-123", display_name="Walt")
    login(page, "walt")

    # Quick play in a room the wallet cannot pay: refused at once (not after the bot fill delay), saying
    # what is needed, what there is and how to get more, with a link to the wallet.
    started = time.monotonic()
    page.click("tr[data-room='high'] button[data-action=quick-play]")
    error = page.locator("#queue-error")
    error.wait_for(state="visible", timeout=5000)
    assert time.monotonic() - started < 5
    text = error.inner_text()
    assert "needs at least 500 Kelereng; you have 100" in text and "every pot prize is paid in Kelereng" in text
    assert error.get_attribute("data-code") == "insufficient_funds"
    assert error.locator("a[href='/wallet/']").count() == 1

    # The host of a pot table that has not started stops it: the entry comes back, and the result panel
    # shows the player's own money movement at that table.
    page.click("tr[data-room='pot-kel'] button[data-action=open-private]")
    page.wait_for_selector("#stop-form")
    table_id = int(page.get_attribute("#table-app", "data-table"))
    page.click("#stop-form summary")
    page.click("#stop-form button[data-action=stop]")
    money = page.locator("#money-movement")
    money.wait_for(state="visible")
    assert Table.objects.get(pk=table_id).status == TableStatus.STOPPED
    assert "Entry into the pot" in money.inner_text() and "Entry back: the table was stopped" in money.inner_text()
    assert page.locator("#money-movement [data-total=net] td").inner_text() == "0 Kelereng"
    assert page.locator("#stop-form").count() == 0  # an ended table has no Stop control
    screenshot(page, "table-money-movement")

    # The wallet, from the header: the Kelereng tab lists the entry and the refund, linked to the table.
    page.click("header a[data-nav=wallet]")
    page.click(".wallet-tabs a[data-currency=KEL]")
    rows = page.locator("table.wallet-history tbody tr")
    rows.first.wait_for()  # the tab is a page load: counting at once could catch the page before it
    assert rows.count() == 3
    assert rows.nth(0).get_attribute("data-purpose") == "stop" and rows.nth(1).get_attribute("data-purpose") == "entry"
    assert rows.nth(0).locator(f"a[href='/tables/{table_id}/']").count() == 1
    screenshot(page, "wallet")
    # Chromium reports the refused join (HTTP 402) as a failed resource load: that refusal was the point.
    page.console_errors[:] = [e for e in page.console_errors if "status of 402" not in e]
