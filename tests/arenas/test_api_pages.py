"""REST, pages, the lobby card, the admin and the demo arena."""

from __future__ import annotations

from datetime import time, timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from arenas import services
from arenas.models import Arena, ArenaPlayer, PlayerStatus, Status

pytestmark = pytest.mark.usefixtures("quiet")


def test_rest_join_and_pause_with_codes(client, make_arena, make_user):
    arena = make_arena(entry_fee=10)
    url = f"/api/arenas/{arena.pk}/join/"
    assert client.post(url).status_code in (401, 403)
    client.force_login(make_user())
    joined = client.post(url)
    assert joined.status_code == 201 and joined.json()["status"] == PlayerStatus.ACTIVE
    assert joined.json()["paid"] == 10
    again = client.post(url)
    assert again.status_code == 409 and again.json() == {"code": "already_joined",
                                                         "message": "You have joined this arena already."}
    missing = client.post("/api/arenas/999999/join/")
    assert missing.status_code == 404 and missing.json()["code"] == "no_such_arena"
    assert [row["id"] for row in client.get("/api/arenas/").json()] == [arena.pk]
    snapshot = client.get(f"/api/arenas/{arena.pk}/").json()
    assert snapshot["players"] == 1 and snapshot["prize_pool"] == 10 and snapshot["payouts"][0]["amount"] == 5
    paused = client.post(f"/api/arenas/{arena.pk}/pause/")
    assert paused.status_code == 200 and paused.json()["status"] == PlayerStatus.WITHDRAWN
    assert client.post(f"/api/arenas/{arena.pk}/pause/").json()["code"] == "not_joined"


def test_rest_join_without_the_entry_is_402(client, make_arena, make_user):
    arena = make_arena(entry_fee=10**6)
    client.force_login(make_user())
    refused = client.post(f"/api/arenas/{arena.pk}/join/")
    assert refused.status_code == 402 and refused.json()["code"] == "insufficient_funds"
    assert not ArenaPlayer.objects.filter(arena=arena).exists()  # nothing half-done


def test_pages_join_by_form_and_follow_to_the_game(client, make_arena, make_user):
    arena = make_arena(name="Evening Lembar", starts_at=timezone.now() - timedelta(seconds=1))
    services.start(arena_id=arena.pk)
    assert "Evening Lembar" in client.get(reverse("arenas:list")).content.decode()
    page = client.get(reverse("arenas:detail", args=[arena.pk])).content.decode()
    assert "Nobody has joined yet." in page and 'id="arena-page-data"' in page
    first, second = make_user(), make_user()
    client.force_login(first)
    response = client.post(reverse("arenas:join", args=[arena.pk]))
    assert response.url == reverse("arenas:detail", args=[arena.pk])  # alone: waits on the arena page
    assert client.get(reverse("arenas:play", args=[arena.pk])).url == reverse("arenas:detail", args=[arena.pk])
    client.force_login(second)
    response = client.post(reverse("arenas:join", args=[arena.pk]))
    assert response.url == reverse("arenas:play", args=[arena.pk])  # paired at once: to the game
    game = client.get(response.url).content.decode()
    table_id = ArenaPlayer.objects.get(arena=arena, user=second).table_id
    assert f'data-table="{table_id}"' in game and "arena_table.js" in game and 'id="arena-table-data"' in game
    assert game.index("arena_table.js") < game.index("frontend/js/table.js")  # its hooks are set first


def test_the_lobby_shows_the_arenas(client, make_arena, make_user):
    make_arena(name="Morning Lembar")
    client.force_login(make_user())
    page = client.get("/").content.decode()
    assert 'id="arenas-h"' in page and "Morning Lembar" in page


def test_admin_actions_are_audited_and_money_locks(client, django_user_model, make_arena, make_user):
    from audit.models import AuditRecord

    staff = django_user_model.objects.create_superuser(username="a-admin", password="pass-word-123")
    client.force_login(staff)
    arena = make_arena(entry_fee=5)
    url = reverse("admin:arenas_arena_change", args=[arena.pk])
    assert 'name="entry_fee"' in client.get(url).content.decode()
    services.join(arena_id=arena.pk, user=make_user())
    assert 'name="entry_fee"' not in client.get(url).content.decode()  # read-only once someone joined
    assert client.get(reverse("admin:arenas_arena_add")).status_code == 200
    response = client.post(reverse("admin:arenas_arena_changelist"), {"action": "start_now", "_selected_action": [arena.pk]})
    assert response.status_code == 302 and Arena.objects.get(pk=arena.pk).status == Status.RUNNING
    record = AuditRecord.objects.get(model="arenas.arena")
    assert (record.action, record.action_name, record.changes["status"]) == ("action", "start_now",
                                                                             ["scheduled", "running"])


def test_seed_demo_schedules_one_daily_lembar_arena(db):
    call_command("seed_demo", allow_production=True)
    call_command("seed_demo", allow_production=True)  # idempotent: still one
    (arena,) = Arena.objects.all()
    assert (arena.name, arena.game, arena.duration_minutes, arena.entry_fee, arena.bot_fill_seconds) == (
        "Daily Lembar Arena", "lembar", 60, 0, 10)
    assert arena.repeat_every == timedelta(days=1) and arena.status == Status.SCHEDULED
    assert timezone.localtime(arena.starts_at).time() == time(19, 0) and arena.starts_at > timezone.now()
    assert arena.room.stake_kind == "casual"
