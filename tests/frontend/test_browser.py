"""End-to-end scenarios in headless Chromium against the real stack (see conftest.py).

Run: .venv/bin/pytest tests/frontend -m browser
"""

from __future__ import annotations

import json
import time

import pytest

from accounts.services import bot_create, user_create
from rooms import selectors, services
from rooms.models import Room, Table, TableStatus
from tests.conftest import make_due
from tests.frontend.conftest import login, screenshot


def _wait_until(page, expression: str, timeout: float = 15.0) -> None:
    """Poll ``expression`` from the test: ``page.wait_for_function`` evaluates it with ``eval`` inside
    the page, which the Content-Security-Policy (no 'unsafe-eval') rightly refuses."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, expression
        page.wait_for_timeout(50)

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


def _click(locator) -> bool:
    """Click if still there: the page re-renders on every frame, so a control may vanish meanwhile."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        locator.click(timeout=2_000)
        return True
    except PlaywrightTimeout:
        return False


def _click_first_legal(page, prefer: tuple[str, ...] = ()) -> bool:
    """Click the first enabled action the page offers (the server's legal moves); True if it clicked."""
    choice = page.locator("#choice:not([hidden]) button:not(.secondary)")
    if choice.count():
        return _click(choice.first)
    for kind in prefer:
        b = page.locator(f"#actions button[data-type={kind}]:enabled")
        if b.count():
            return _click(b.first)
    card = page.locator("#hand .card-btn.playable")
    if card.count():
        return _click(card.first)
    for sel in ("#actions button[data-type=draw]:enabled", "#actions button[data-type=keep]:enabled",
                "#actions button[data-type]:enabled"):
        b = page.locator(sel)
        if b.count():
            return _click(b.first)
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
    with page.expect_navigation():
        page.select_option("#language-select", "tr")
    assert page.get_attribute("html", "lang") == "tr"
    assert page.locator("h1").first.inner_text() != "Lobby"
    with page.expect_navigation():
        page.select_option("#language-select", "id")
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
            # arms the call for the next card (or calls at once when a call is missing)
            called = _click(call) or called
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
        moves = [m["move"] for m in selectors.move_log(table=table) if m["seat"] == 0]
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


def test_baloot_bid_and_play_a_deal(page):
    user_create(username="badr", password=PASSWORD, display_name="Badr")
    _bots(3)
    _room("baloot", 4, "baloot-e2e", turn_seconds=20, options={"mode": "classic"})
    login(page, "badr")
    page.click("tr[data-room=baloot-e2e] button[data-action=play-bots]")
    page.wait_for_url("**/tables/*/")
    table_id = _table_id(page)
    page.wait_for_selector("#hand .card-btn")
    bid = played = False
    deadline = time.monotonic() + 240  # a deal is 32 cards: normally ~30 s, far more on a loaded machine
    while time.monotonic() < deadline:
        table = Table.objects.get(pk=table_id)
        if table.ended or (table.state and table.state.get("deal_no", 0) >= 1 and played):
            break
        if not bid:
            for kind in ("sun", "hokum", "confirm"):
                b = page.locator(f"#actions button[data-type={kind}]:enabled")
                if b.count():
                    bid = _click(b.first)
                    if not played:
                        page.wait_for_timeout(300)
                        screenshot(page, "baloot-bidding") if kind != "confirm" else None
                    break
            else:
                if page.locator("#actions button[data-type=pass]:enabled").count():
                    _click(page.locator("#actions button[data-type=pass]").first)
            page.wait_for_timeout(150)
            continue
        before = page.locator("#hand .card-btn").count()
        if page.locator("#hand .card-btn.playable").count():
            if not played:
                screenshot(page, "baloot-table")
            played = _click(page.locator("#hand .card-btn.playable").first) or played
            page.wait_for_timeout(150)
            if page.locator("#choice:not([hidden]) button").count():
                _click(page.locator("#choice:not([hidden]) button").first)
            del before
        elif not _click_first_legal(page, prefer=("declare", "pass")):
            page.wait_for_timeout(120)
    else:
        page.screenshot(path="tests/artifacts/baloot-timeout.png", full_page=True)
        frame = page.evaluate("window.cardroomTable.frame()")
        raise AssertionError(f"no Baloot deal was played to its end in time: phase {frame['view'].get('phase')}, "
                             f"legal {frame['legal']}, deal {frame['view'].get('deal_no')}, played {played}")
    assert played
    table = Table.objects.get(pk=table_id)
    me = table.seats.get(user__username="badr").number
    mine = [m for m in selectors.move_log(table=table) if m["seat"] == me and not m["move"].get("auto")]
    assert any(m["move"]["type"] == "play" for m in mine), mine
    assert any(m["move"]["type"] in ("sun", "hokum", "pass", "confirm", "ashkal") for m in mine), mine
    _stop_and_check_proof(page, table_id, "badr")


def _stop_and_check_proof(page, table_id: int, host: str) -> None:
    """Stop the table (host) and see the in-browser check pass on its proof (each game's first-player rule)."""
    from accounts.models import User

    if not Table.objects.get(pk=table_id).ended:
        services.table_stop(table_id=table_id, reason="host", by=User.objects.get(username=host))
    page.goto(f"/tables/{table_id}/proof")
    page.wait_for_selector("#check-summary[data-result]", timeout=30_000)
    assert page.get_attribute("#check-summary", "data-result") == "pass", page.inner_text("#check-summary")


def _swap_into_hand(state: dict, seat: int, wanted: list[str]) -> None:
    """Give ``seat`` exactly ``wanted`` by swapping cards with the other hands and the undrawn stock."""
    hand = list(state["hands"][seat])
    pos = state["stock_pos"]
    places = [state["hands"][s] for s in range(len(state["hands"])) if s != seat]
    stock_tail = state["stock"][pos:]
    places.append(stock_tail)
    need = list(wanted)
    for card in list(need):
        if card in hand:
            hand.remove(card)
            need.remove(card)
    spare = hand  # cards of the old hand that must go elsewhere
    for card in need:
        for place in places:
            if card in place:
                place[place.index(card)] = spare.pop()
                break
        else:
            raise AssertionError(f"{card} not found")
    state["stock"] = state["stock"][:pos] + stock_tail
    state["hands"][seat] = list(wanted)


def test_cherki_call_in_a_prepared_position(page):
    """The prepared position: after the start (same transaction, so no bot acts on the dealt state) the
    player's hand is swapped for two triples and a pair (1s, 2s and a pair of 3s) and it becomes their turn
    before drawing; the card totals stay complete. The proof of such a table would not verify: it is a test."""
    from django.db import transaction
    from django.utils import timezone

    from gameworkers.engines.cherki import sort_cards

    user = user_create(username="cici", password=PASSWORD, display_name="Cici")
    _bots(2)
    room = _room("cherki", 3, "cherki-e2e", turn_seconds=30)
    with transaction.atomic():
        table = services.play_with_bots(room=room, user=user)
        table = Table.objects.select_for_update().get(pk=table.pk)
        seat = table.seats.get(user=user).number
        state = table.state
        _swap_into_hand(state, seat, sort_cards(["C1", "S1", "M1", "C2", "S2", "M2", "C3", "S3"]))
        state.update({"turn": seat, "phase": "draw", "took": None, "drawn": None,
                      "turn_since": int(time.time() * 1000)})
        table.state = state
        table.deadline_seat = seat
        table.save()
        make_due(table, at=timezone.now() + timezone.timedelta(seconds=30))  # where the timer looks too
    login(page, "cici")
    page.goto(f"/tables/{table.pk}/")
    call = page.locator("#actions button[data-type=call]:enabled")
    call.wait_for()
    screenshot(page, "cherki-table")
    call.click()
    page.wait_for_selector(f".seat[data-seat='{seat}'] .badge.call")
    assert Table.objects.get(pk=table.pk).state["called"][seat] is True
    page.locator("#actions button[data-type=draw]:enabled").wait_for()


def test_otuzbir_buy_a_closed_card_and_answer_a_raise(page):
    user_create(username="deniz", password=PASSWORD, display_name="Deniz")
    _bots(2, style="aggressive")
    _room("otuzbir", 3, "otuzbir-e2e", turn_seconds=20, stake_kind="casual")
    login(page, "deniz")
    page.click("tr[data-room=otuzbir-e2e] button[data-action=play-bots]")
    page.wait_for_url("**/tables/*/")
    table_id = _table_id(page)
    page.wait_for_selector("#conn[data-state=connected]")
    bought = answered = False
    deadline = time.monotonic() + 100
    while time.monotonic() < deadline and not (bought and answered):
        if page.locator("#result:not([hidden])").count():
            break
        see = page.locator("#actions button[data-type=see]:enabled")
        closed = page.locator("#actions .amount-control[data-type=closed] button:enabled")
        if see.count():
            if not answered:
                screenshot(page, "otuzbir-raise")
            answered = _click(see.first) or answered
        elif closed.count() and not bought:
            try:
                page.select_option("#amount-closed", index=0, timeout=2_000)
                bought = _click(closed.first) or bought
            except Exception:  # the control went away with a new frame
                pass
        elif not _click_first_legal(page, prefer=("stand", "open", "pass")):
            page.wait_for_timeout(100)
            continue
        page.wait_for_timeout(150)
    assert bought and answered, (bought, answered)
    screenshot(page, "otuzbir-table")
    moves = [m["move"] for m in selectors.move_log(table=Table.objects.get(pk=table_id))
             if m["seat"] == Table.objects.get(pk=table_id).seats.get(user__username="deniz").number]
    assert any(m["type"] == "closed" for m in moves) and any(m["type"] == "see" for m in moves), moves
    _stop_and_check_proof(page, table_id, "deniz")


def test_spectator_sees_no_hand_and_no_actions(page, browser, live_stack):
    owner = user_create(username="host1", password=PASSWORD, display_name="Host")
    user_create(username="watcher", password=PASSWORD, display_name="Watcher")
    _bots(1)
    room = _room("lembar", 2, "lembar-watch", turn_seconds=20)
    table = services.play_with_bots(room=room, user=owner)
    login(page, "watcher")
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector(".spectator-note")
    assert page.locator("#hand .card-btn").count() == 0
    assert page.locator("#actions button").count() == 0
    assert page.locator(".seat").count() == 2
    # A dropped socket shows the reconnecting indicator, reconnects by itself and resyncs.
    version = page.evaluate("window.cardroomTable.frame().version")
    page.evaluate("window.cardroomTable.dropSocket()")
    page.wait_for_selector("#conn[data-state=reconnecting]", timeout=2_000)
    page.wait_for_selector("#conn[data-state=connected]", timeout=10_000)
    _wait_until(page, f"window.cardroomTable.frame().version >= {version}")


def test_keyboard_play_keeps_focus_on_the_hand(page):
    user_create(username="kiki", password=PASSWORD, display_name="Kiki")
    _bots(1)
    _room("lembar", 2, "lembar-keys", turn_seconds=20)
    login(page, "kiki")
    page.click("tr[data-room=lembar-keys] button[data-action=play-bots]")
    page.wait_for_url("**/tables/*/")
    page.wait_for_selector("#hand .card-btn")
    page.wait_for_selector("#hand .card-btn.playable, #actions button[data-type=draw]:enabled")
    target = page.locator("#hand .card-btn.playable")
    target = target.first if target.count() else page.locator("#actions button[data-type=draw]")
    target.focus()
    version = page.evaluate("window.cardroomTable.frame().version")
    page.keyboard.press("Enter")
    if page.locator("#choice:not([hidden])").count():
        page.keyboard.press("Enter")  # the motif picker takes focus; Enter picks the first motif
    _wait_until(page, f"window.cardroomTable.frame().version > {version}")
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement.closest('#hand, #actions') !== null")


# Before any page script: a stand-in Notification (records what would be shown; permission granted
# when asked) and a document.hidden the test controls, both kept across a reload of the tab.
ALERT_STUBS = """
(() => {
  const store = window.sessionStorage;
  window.__notes = JSON.parse(store.getItem("test-notes") || "[]");
  window.__asked = Number(store.getItem("test-asked") || 0);
  const hidden = () => store.getItem("test-hidden") === "1";
  Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: hidden });
  Object.defineProperty(Document.prototype, "visibilityState", { configurable: true,
    get: () => (hidden() ? "hidden" : "visible") });
  class TestNotification {
    constructor(title, options) {
      window.__notes.push({ title, body: options && options.body });
      store.setItem("test-notes", JSON.stringify(window.__notes));
    }
    close() {}
    static get permission() { return store.getItem("test-permission") || "default"; }
    static async requestPermission() {
      window.__asked += 1;
      store.setItem("test-asked", String(window.__asked));
      store.setItem("test-permission", "granted");
      return "granted";
    }
  }
  window.Notification = TestNotification;
})();
"""


def test_turn_alerts_lembar_warning_and_play_again_after_bots(page):
    """Sound and notification hooks fire on the player's turn (the notification only in a hidden tab,
    after the player asked for them), the title flashes, the "hurry" alert fires near the deadline,
    Lembar warns before the last timeout, and "Play again" stays hidden until the end and then opens a
    new table with bots at once."""
    from django.db import transaction
    from django.utils import timezone

    user = user_create(username="tara", password=PASSWORD, display_name="Tara")
    _bots(1)
    room = _room("lembar", 2, "lembar-alerts", turn_seconds=20, stake_kind="pot", stake=10, currency="KEL")
    with transaction.atomic():  # this player's turn, after two timeouts in a row, with 14 s left
        table = services.play_with_bots(room=room, user=user)
        table = Table.objects.select_for_update().get(pk=table.pk)
        seat = table.seats.get(user=user).number
        now_ms = int(time.time() * 1000)
        table.state.update({"turn": seat, "phase": "play", "drawn": None, "auto_pending": False,
                            "turn_since": now_ms, "windows": []})
        table.state["timeouts"][seat] = 2
        table.version += 1  # the bot turn queued by the start is stale now
        table.deadline_seat = seat
        table.save()
        make_due(table, at=timezone.now() + timezone.timedelta(seconds=14))  # where the timer looks too
    login(page, "tara")
    page.add_init_script(ALERT_STUBS)
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_selector("#conn[data-state=connected]")
    _wait_until(page, "window.cardroomTable.alerts().length > 0")
    first = page.evaluate("window.cardroomTable.alerts()[0]")
    assert first["kind"] == "turn" and first["notified"] is False  # a visible tab: sound only
    assert page.evaluate("window.__asked") == 0  # never asked on page load
    warning = page.locator("#turn-warning")
    assert warning.is_visible() and "removed" in warning.inner_text() and "entry" in warning.inner_text()
    assert not page.locator("#play-again").is_visible()  # hidden during the game (the CSS fix)
    # Turn notifications: permission asked on the button; sounds off and on, remembered per user.
    page.click("#notify-toggle")
    page.wait_for_selector("#notify-toggle[data-state=on]")
    assert page.evaluate("window.__asked") == 1
    page.click("#sound-toggle")
    assert page.get_attribute("#sound-toggle", "data-state") == "off"
    assert page.evaluate(f"localStorage.getItem('cardroom:sound:{user.pk}')") == "off"
    page.click("#sound-toggle")
    # In a hidden tab: the notification, the flashing title and, after a click, the sounds.
    page.evaluate("sessionStorage.setItem('test-hidden', '1')")
    page.reload()
    page.wait_for_selector("#conn[data-state=connected]")
    _wait_until(page, "window.__notes.length > 0")
    assert page.evaluate("window.__notes[0].title") == "Your turn!"
    _wait_until(page, "document.title.startsWith('▶')")
    page.click("#turn-line")  # a user gesture lets the page start audio
    _wait_until(page, "window.cardroomTable.alerts().some((a) => a.kind === 'hurry')", timeout=14)
    hurry = page.evaluate("window.cardroomTable.alerts().find((a) => a.kind === 'hurry')")
    assert hurry["sound"] == "played" and hurry["hidden"] is True, hurry
    # The third timeout removes the player: the log says so, and the game against the bot is over.
    page.wait_for_selector("#result:not([hidden])", timeout=20_000)
    _wait_until(page, "document.getElementById('log').textContent.includes('was removed')")
    assert "the entry stays in the pot" in page.inner_text("#log")
    page.evaluate("sessionStorage.setItem('test-hidden', '0'); document.dispatchEvent(new Event('visibilitychange'))")
    _wait_until(page, "!document.title.startsWith('▶')")
    # Reduced motion: the arrival animation is off.
    page.emulate_media(reduced_motion="reduce")
    animation = "(() => { const el = document.createElement('div'); el.className = 'fresh'; document.body.append(el);" \
                " const a = getComputedStyle(el).animationName; el.remove(); return a; })()"
    assert page.evaluate(animation) == "none"
    page.emulate_media(reduced_motion="no-preference")
    assert page.evaluate(animation) == "card-arrive"
    # "Play again" after a game against bots only: a new table at once, not a 30 s queue.
    again = page.locator("#play-again-bots button")
    assert again.is_visible() and not page.locator("button[data-action=play-again]").is_visible()
    screenshot(page, "lembar-play-again")
    started = time.monotonic()
    again.click()
    page.wait_for_url(lambda url: "/tables/" in url and f"/tables/{table.pk}/" not in url, timeout=5_000)
    assert time.monotonic() - started < 5
    page.wait_for_selector("#hand .card-btn")


def test_every_games_rules_panel_in_every_language_at_both_sizes(browser, live_stack):
    """Issue 25: each game's rules panel, opened in the browser in each language (two on a phone, two on a
    desktop), reads as words (no spec markers, Markdown or raw keys), states the table's timer and fits."""
    from accounts.models import User
    from tests.frontend.test_table_rules import INTERNAL, SEATS

    user = user_create(username="rhea", password=PASSWORD, display_name="Rhea")
    _bots(3)
    tables = {}
    for game, seats in SEATS.items():
        room = Room.objects.create(name=f"{game} rules", slug=f"{game}-rules-browser", game=game, seats=seats,
                                   min_seats=seats if game == "baloot" else 2, turn_seconds=23)
        tables[game] = services.play_with_bots(room=room, user=user).pk
    phone, desktop = {"width": 390, "height": 844}, {"width": 1366, "height": 900}
    for language, viewport in (("en", phone), ("id", desktop), ("ms", phone), ("tr", desktop)):
        User.objects.filter(pk=user.pk).update(preferred_language=language)
        context = browser.new_context(viewport=viewport, base_url=live_stack)
        page = context.new_page()
        page.set_default_timeout(15_000)
        login(page, "rhea")  # the language comes from the profile
        for game, table_id in tables.items():
            page.goto(f"/tables/{table_id}/")
            assert page.get_attribute("html", "lang") == language
            page.click("#rules summary")
            body = page.locator("#rules .rules-body")
            body.wait_for(state="visible")
            text = body.inner_text()
            where = f"{game} in {language} at {viewport['width']}px"
            assert not INTERNAL.findall(text), (where, INTERNAL.findall(text))
            assert "23" in text and len(text) > 1500, where  # the room's timer; the whole rule set
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], where
        context.close()
