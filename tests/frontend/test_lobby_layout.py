"""The lobby fits common screens (issue 26): in headless Chromium, at laptop, desktop and phone widths, the
page never scrolls sideways and every room's actions and facts are on screen, unclipped and focusable.

Run: .venv/bin/pytest tests/frontend/test_lobby_layout.py
Screenshots: tests/artifacts/lobby-layout-<lang>-<width>x<height>.png (full page).
"""

from __future__ import annotations

import pytest

from accounts.services import user_create
from config.management.commands.seed_demo import ROOMS
from rooms import services
from rooms.models import Room
from tests.frontend.conftest import ARTIFACTS, login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-123"
# (width, height): laptops and desktops, then two phones.
SCREENS = [(1024, 768), (1280, 800), (1366, 768), (1366, 900), (1920, 1080), (390, 844), (375, 740)]
ACTIONS = ("quick-play", "play-bots", "open-private")

# For every room row: its action buttons and its cells (name, stake, rake, timer, seats, players) must have
# a box, lie inside the viewport horizontally, not be cut off by a scrolling/clipping ancestor, not cut their
# own label, and be what the browser hits at their centre once scrolled (vertically only) into view.
LAYOUT_PROBLEMS = """
() => {
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const where = (el) => {
    const row = el.closest("tr[data-room]");
    return `${row ? row.dataset.room : "?"} ${el.dataset.action || el.dataset.label || el.tagName}`;
  };
  const check = (el, label) => {
    let r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0) || !el.checkVisibility({visibilityProperty: true, opacityProperty: true})) {
      problems.push(`${label}: not visible`);
      return;
    }
    if (r.left < -0.5 || r.right > vw + 0.5) {
      problems.push(`${label}: outside the viewport (${Math.round(r.left)}..${Math.round(r.right)} of ${vw})`);
    }
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === "visible") continue;
      const c = a.getBoundingClientRect();
      if (r.left < c.left - 0.5 || r.right > c.right + 0.5) {
        problems.push(`${label}: cut off by <${a.tagName.toLowerCase()} class="${a.className}">`);
        break;
      }
    }
    if (el.tagName === "BUTTON" && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${label}: its label is cut (${el.scrollWidth} > ${el.clientWidth})`);
    }
    window.scrollTo({top: window.scrollY + r.top - innerHeight / 2, behavior: "instant"});
    r = el.getBoundingClientRect();
    const x = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1);
    const hit = document.elementFromPoint(x, r.top + r.height / 2);
    if (!hit || !el.contains(hit)) {
      problems.push(`${label}: covered or off screen (hit ${hit ? hit.tagName + "." + hit.className : "nothing"})`);
    }
  };
  const rows = [...document.querySelectorAll("tr[data-room]")];
  for (const row of rows) {
    for (const cell of row.querySelectorAll(":scope > th, :scope > td")) check(cell, where(cell));
    for (const b of row.querySelectorAll("button[data-action]")) {
      check(b, where(b));
      b.focus();
      if (document.activeElement !== b) problems.push(`${where(b)}: cannot take the keyboard focus`);
    }
  }
  window.scrollTo({top: 0, behavior: "instant"});
  return {problems, rows: rows.length, scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth, bodyScrollWidth: document.body.scrollWidth};
}
"""


def _lobby(page, language: str = "en") -> dict[str, Room]:
    """The demo rooms (all four games, free, pot, per-point, ante and a bots-only room), one player waiting
    at an open table, and the viewer logged in."""
    rooms = {}
    for position, spec in enumerate(ROOMS):
        spec = {"position": position, **spec}
        rooms[spec["slug"]] = Room.objects.create(**spec)
    other = user_create(username="wendy", password=PASSWORD, display_name="Wendy")
    table = services.table_open(room=rooms["lembar-santai"], host=other)
    services.table_sit(table_id=table.pk, user=other)
    user_create(username="lara", password=PASSWORD, display_name="Lara", preferred_language=language)
    login(page, "lara")  # sets the language cookie from the profile
    return rooms


def _assert_fits(page, rooms: dict[str, Room], width: int, height: int, language: str) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto("/")
    page.wait_for_selector("tr[data-room]")
    assert page.get_attribute("html", "lang") == language
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lobby-layout-{language}-{width}x{height}.png"), full_page=True)
    for slug, room in rooms.items():
        actions = page.locator(f"tr[data-room='{slug}'] button[data-action]")
        expected = ACTIONS[:2] if room.bots_only else ACTIONS
        assert [actions.nth(i).get_attribute("data-action") for i in range(actions.count())] == list(expected), slug
    report = page.evaluate(LAYOUT_PROBLEMS)
    assert report["rows"] == len(rooms)
    assert report["scrollWidth"] <= report["clientWidth"], f"{width}px: the page scrolls sideways {report}"
    assert report["bodyScrollWidth"] <= report["clientWidth"], f"{width}px: the body scrolls sideways {report}"
    assert not report["problems"], f"{width}px ({language}): " + "; ".join(report["problems"])


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_lobby_shows_every_rooms_actions_without_sideways_scrolling(page, width, height):
    rooms = _lobby(page)
    _assert_fits(page, rooms, width, height, "en")
    # The facts are there for every room, and Tab walks a room's actions in order.
    row = page.locator("tr[data-room='lembar-pot-mutiara']")
    text = row.inner_text()
    assert "Pot Mutiara 10" in text and "5%" in text and "20 s" in text and "4" in text
    assert "1 waiting" in page.locator("tr[data-room='lembar-santai']").inner_text()
    row.locator("button[data-action=quick-play]").focus()
    for action in ACTIONS[1:]:
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.action") == action


@pytest.mark.parametrize(("language", "width", "height"),
                         [(lang, w, h) for lang in ("id", "ms", "tr") for w, h in ((1024, 768), (1366, 768), (375, 740))],
                         ids=lambda v: str(v))
def test_translated_lobby_fits_too(page, language, width, height):
    """Longer translated labels must not push the actions off screen either; every label is translated."""
    rooms = _lobby(page, language)
    _assert_fits(page, rooms, width, height, language)
    for action, english in zip(ACTIONS, ("Quick play", "Play against bots", "Private table"), strict=True):
        assert english not in page.locator(f"button[data-action={action}]").first.inner_text()
    labels = page.eval_on_selector_all("tr[data-room] td[data-label]", "cells => cells.map(c => c.dataset.label)")
    assert labels and not {"Stake", "Rake", "Timer", "Seats", "Players"} & set(labels), labels
    assert "waiting" not in page.locator("tr[data-room='lembar-santai']").inner_text()


def test_lobby_fits_every_width_in_between(page):
    """Not only the named screens: from a small phone to a wide desktop, 32 px apart, nothing sticks out."""
    rooms = _lobby(page)
    page.goto("/")
    page.wait_for_selector("tr[data-room]")
    failures = []
    for width in range(320, 1921, 32):
        page.set_viewport_size({"width": width, "height": 900})
        report = page.evaluate(LAYOUT_PROBLEMS)
        assert report["rows"] == len(rooms)
        if report["problems"] or report["scrollWidth"] > report["clientWidth"]:
            failures.append(f"{width}px: scrollWidth {report['scrollWidth']}; " + "; ".join(report["problems"][:3]))
    assert not failures, "\n".join(failures)
