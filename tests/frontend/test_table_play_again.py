""""Play again": hidden by the page until the game ends, refused by the server before, and straight
to a new table after a game against bots only (the browser side is in test_browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accounts.services import bot_create, user_create
from matchmaking.models import QueueEntry
from rooms import services
from rooms.models import Room, Table, TableStatus

SITE_CSS = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "site.css"


@pytest.fixture(autouse=True)
def no_background_work(monkeypatch):
    from gameworkers import tasks
    from matchmaking import broadcast as mm_broadcast
    from matchmaking import tasks as mm_tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks.run_matcher, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks, "enqueue_seat_match", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks, "enqueue_room_push", lambda *a, **k: None)
    monkeypatch.setattr(mm_broadcast, "_send", lambda pairs: None)


@pytest.fixture
def player(db):
    bot_create(username="pa-bot", display_name="Bot", style="careful", description="x")
    return user_create(username="paula", password="pass-word-123", display_name="Paula")


@pytest.fixture
def room(db):
    return Room.objects.create(name="Again", slug="again", game="lembar", seats=2, min_seats=2, turn_seconds=20)


def test_play_again_is_refused_while_the_game_runs(client, room, player):
    table = services.play_with_bots(room=room, user=player)
    assert Table.objects.get(pk=table.pk).status == TableStatus.RUNNING
    client.force_login(player)
    answer = client.post(f"/api/matchmaking/rematch/{table.pk}/")
    assert answer.status_code == 409 and answer.json()["code"] == "table_not_finished"
    assert not QueueEntry.objects.exists()


def test_the_control_starts_hidden_and_hidden_always_wins_in_css(client, room, player):
    table = services.play_with_bots(room=room, user=player)
    client.force_login(player)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    box = re.search(r'<div id="play-again"[^>]*>', page).group(0)
    assert " hidden" in box
    # A component's own `display` (the box is a flex `.row`) must not override the attribute.
    css = SITE_CSS.read_text()
    assert re.search(r"\[hidden\]\s*\{\s*display:\s*none\s*!important;?\s*\}", css)
    # After a game against bots the control opens a new table with bots at once (no queue wait).
    form = re.search(r'<form id="play-again-bots" method="post" action="([^"]+)" hidden>', page)
    assert form and form.group(1) == f"/rooms/{room.slug}/bots/"
