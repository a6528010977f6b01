"""Views of the front end with Django's test client (no browser, no Celery: bot turns are not queued)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accounts.services import bot_create, user_create
from rooms import services
from rooms.models import Room, Table, TableStatus


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    from matchmaking import broadcast as mm_broadcast
    from matchmaking import tasks as mm_tasks

    monkeypatch.setattr(mm_tasks.run_matcher, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks, "enqueue_seat_match", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks, "enqueue_room_push", lambda *a, **k: None)
    monkeypatch.setattr(mm_broadcast, "_send", lambda pairs: None)


@pytest.fixture
def player(db):
    return user_create(username="pia", password="pass-word-123", display_name="Pia")


@pytest.fixture
def bots(db):
    return [bot_create(username=f"b{i}", display_name=f"B{i}", style="careful", description="x") for i in range(4)]


@pytest.fixture
def room(db):
    return Room.objects.create(name="L", slug="l", game="lembar", seats=3, min_seats=2, turn_seconds=20)


@pytest.fixture
def client_in(client, player):
    client.force_login(player)
    return client


def test_lobby_lists_rooms_with_stake_timer_seats_and_players(client_in, room):
    html = client_in.get("/").content.decode()
    assert 'data-room="l"' in html and "20 s" in html and "Play against bots" in html and "Private table" in html
    from django.apps import apps

    assert ("tournaments-h" in html) == apps.is_installed("tournaments")  # the section only with the app


def test_lobby_needs_login(client, db):
    assert client.get("/").status_code == 302


def test_play_against_bots_opens_a_running_table(client_in, room, bots, player):
    response = client_in.post("/rooms/l/bots/")
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    assert table.status == TableStatus.RUNNING and table.host == player
    page = client_in.get(f"/tables/{table.pk}/").content.decode()
    assert 'data-game="lembar"' in page and "/ws/tables/" in page and 'id="labels"' in page


def test_private_table_invite_add_bot_and_start(client, client_in, room, bots, player, db):
    client_in.post("/rooms/l/private/")
    table = Table.objects.get()
    assert table.is_private and table.status == TableStatus.OPEN
    page = client_in.get(f"/tables/{table.pk}/").content.decode()
    assert f"?invite={table.invite_code}" in page
    client_in.post(f"/tables/{table.pk}/add-bot/")
    assert table.seats.count() == 2
    # A stranger needs the invite code to see or join the table.
    other = user_create(username="otto", password="pass-word-123")
    client.force_login(other)
    assert client.get(f"/tables/{table.pk}/").status_code == 404
    assert client.get(f"/tables/{table.pk}/?invite={table.invite_code}").status_code == 200
    client.post(f"/tables/{table.pk}/sit/", {"invite": table.invite_code})
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING  # the third seat filled it


def test_host_starts_with_the_minimum(client_in, room, bots):
    client_in.post("/rooms/l/private/")
    table = Table.objects.get()
    client_in.post(f"/tables/{table.pk}/add-bot/")
    client_in.post(f"/tables/{table.pk}/start/")
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING


def test_errors_come_back_as_translated_messages(client_in, room, bots):
    client_in.post("/rooms/l/private/")
    table = Table.objects.get()
    response = client_in.post(f"/tables/{table.pk}/start/", follow=True)
    assert "Not enough players are seated to start." in response.content.decode()


def test_proof_page_and_document_before_and_after_the_end(client_in, room, bots, player):
    table = services.play_with_bots(room=room, user=player)
    doc = json.loads(client_in.get(f"/tables/{table.pk}/proof.json").content)
    assert doc["commitment"] == table.commitment and "seed" not in doc
    page = client_in.get(f"/tables/{table.pk}/proof").content.decode()
    assert table.commitment in page and "js/proof.js" not in page
    services.table_stop(table_id=table.pk, reason="host", by=player)
    doc = json.loads(client_in.get(f"/tables/{table.pk}/proof.json").content)
    assert doc["seed"] and doc["shuffles"]
    assert "js/proof.js" in client_in.get(f"/tables/{table.pk}/proof").content.decode()


def test_every_surface_of_a_private_table_refuses_a_stranger(client, client_in, room, bots, player):
    """One visibility rule (rooms.selectors.watchable_table) for the page, proof, proof JSON, replay,
    events and API: a logged-out visitor or a stranger without the invite gets 404, never the seed."""
    client_in.post("/rooms/l/private/")
    table = Table.objects.get()
    client_in.post(f"/tables/{table.pk}/add-bot/")
    client_in.post(f"/tables/{table.pk}/start/")
    services.table_stop(table_id=table.pk, reason="host", by=player)  # over: the seed is in the proof
    surfaces = [f"/tables/{table.pk}/proof", f"/tables/{table.pk}/proof.json", f"/tables/{table.pk}/replay",
                f"/api/tables/{table.pk}/", f"/api/tables/{table.pk}/proof.json", f"/api/tables/{table.pk}/events/"]
    for url in surfaces:
        assert client_in.get(url).status_code == 200, url
    client.logout()
    for url in surfaces:
        response = client.get(url)
        assert response.status_code in (403, 404) and table.seed_hex not in response.content.decode(), url
    other = user_create(username="stranger", password="pass-word-123")
    client.force_login(other)
    for url in surfaces:
        assert client.get(url).status_code == 404, url
        assert client.get(f"{url}?invite={table.invite_code}").status_code == 200, url
    page = client.get(f"/tables/{table.pk}/proof?invite={table.invite_code}").content.decode()
    assert f"proof.json?invite={table.invite_code}" in page


def test_replay_only_after_the_end(client_in, room, bots, player):
    table = services.play_with_bots(room=room, user=player)
    assert client_in.get(f"/tables/{table.pk}/replay").status_code == 404
    services.table_stop(table_id=table.pk, reason="host", by=player)
    page = client_in.get(f"/tables/{table.pk}/replay").content.decode()
    assert 'id="replay-frames"' in page


@pytest.mark.parametrize("game,seats", [("baloot", 4), ("cherki", 3), ("otuzbir", 3)])
def test_every_game_has_a_table_page_and_rules(client_in, bots, player, game, seats):
    room = Room.objects.create(name=game, slug=game, game=game, seats=seats, min_seats=2 if game != "baloot" else 4)
    table = services.play_with_bots(room=room, user=player)
    page = client_in.get(f"/tables/{table.pk}/").content.decode()
    assert f'data-game="{game}"' in page and 'class="rules-body"' in page


@pytest.mark.parametrize("lang,word", [("id", "Aturan"), ("ms", "Peraturan"), ("tr", "Kurallar")])
def test_table_page_and_labels_are_translated(client_in, room, bots, player, lang, word):
    table = services.play_with_bots(room=room, user=player)
    client_in.cookies["django_language"] = lang
    page = client_in.get(f"/tables/{table.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert word in page
    labels = json.loads(page.split('<script id="labels" type="application/json">')[1].split("</script>")[0])
    assert labels["common"]["your_turn"] != "Your turn"
    assert labels["errors"]["not_your_turn"] != "It is not your turn."


def test_profile_lists_recent_tables(client_in, room, bots, player):
    table = services.play_with_bots(room=room, user=player)
    services.table_stop(table_id=table.pk, reason="host", by=player)
    page = client_in.get("/accounts/profile/").content.decode()
    assert f"/tables/{table.pk}/replay" in page


def test_lobby_shows_balances_from_the_profile_providers(client_in, room, monkeypatch):
    from accounts import selectors as account_selectors

    def provider(user):
        return {"balances": [{"currency": "CHP", "label": "Chip", "amount": 500}], "bailout_count": 2}

    monkeypatch.setattr(account_selectors, "PROFILE_SECTIONS", {"balances": provider})
    html = client_in.get("/").content.decode()
    assert 'data-currency="CHP">500<' in html and 'data-testid="bailouts">2<' in html


def test_lobby_has_quick_play_per_room_and_the_queue_widget(client_in, room):
    Room.objects.create(name="Arena", slug="arena", game="cherki", seats=3, min_seats=3, bots_only=True)
    html = client_in.get("/").content.decode()
    for slug in ("l", "arena"):
        assert f'data-action="quick-play" data-room="{slug}"' in html
    assert html.count('data-action="play-bots"') == 2 and 'data-action="open-private"' in html  # kept
    assert 'id="queue-widget"' in html and 'data-ws="/ws/queue/"' in html and 'data-action="leave-queue"' in html
    assert 'aria-live="polite"' in html and "js/lobby.js" in html
    labels = json.loads(html.split('<script id="queue-labels" type="application/json">')[1].split("</script>")[0])
    assert labels["queue"]["estimated_wait"] == "Estimated wait" and labels["errors"]["already_queued"]


def test_queue_widget_labels_are_translated(client_in, room):
    client_in.cookies["django_language"] = "tr"
    html = client_in.get("/", HTTP_ACCEPT_LANGUAGE="tr").content.decode()
    labels = json.loads(html.split('<script id="queue-labels" type="application/json">')[1].split("</script>")[0])
    assert labels["queue"]["estimated_wait"] != "Estimated wait" and "Quick play" not in html


def test_the_widgets_csrf_token_joins_and_leaves_the_queue(room, player):
    """What queue.js does: POST/DELETE the queue API with the page's CSRF token; errors are {code, message}."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(player)
    html = browser.get("/").content.decode()
    token = html.split('id="queue-widget"')[1].split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    joined = browser.post("/api/matchmaking/queue/", {"room": "l"}, content_type="application/json",
                          HTTP_X_CSRFTOKEN=token)
    assert joined.status_code == 201 and joined.json()["status"] == "waiting" and joined.json()["position"] == 1
    again = browser.post("/api/matchmaking/queue/", {"room": "l"}, content_type="application/json",
                         HTTP_X_CSRFTOKEN=token)
    assert again.status_code == 409 and again.json()["code"] == "already_queued" and again.json()["message"]
    left = browser.delete("/api/matchmaking/queue/", HTTP_X_CSRFTOKEN=token)
    assert left.status_code == 200 and left.json()["status"] == "left"
    no_token = browser.post("/api/matchmaking/queue/", {"room": "l"}, content_type="application/json")
    assert no_token.status_code == 403


def test_table_page_offers_play_again_and_the_queue_widget(client_in, room, bots, player):
    table = services.play_with_bots(room=room, user=player)
    services.table_stop(table_id=table.pk, reason="host", by=player)
    page = client_in.get(f"/tables/{table.pk}/").content.decode()
    # table.js shows the button on a finished table of the player; queue.js follows the re-queued party.
    assert f'data-action="play-again" data-table="{table.pk}"' in page and 'id="queue-widget"' in page
    assert f'data-room-name="{room.name}"' in page
    labels = json.loads(page.split('<script id="labels" type="application/json">')[1].split("</script>")[0])
    assert labels["common"]["play_again"] == "Play again" and labels["queue"]["tournament"]
    scripts = Path(__file__).resolve().parents[2] / "frontend/static/frontend/js"
    table_js, queue_js = (scripts / "table.js").read_text(), (scripts / "queue.js").read_text()
    assert 'msg.type === "tournament"' in table_js and "queue.rematch(" in table_js
    assert "/api/matchmaking/rematch/" in queue_js


def test_rematch_api_answers_the_play_again_button(room, bots, player):
    """A stopped table is not finished: the widget shows the {code, message} error."""
    from django.test import Client

    table = services.play_with_bots(room=room, user=player)
    services.table_stop(table_id=table.pk, reason="host", by=player)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(player)
    page = browser.get(f"/tables/{table.pk}/").content.decode()
    token = page.split('id="queue-widget"')[1].split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    answer = browser.post(f"/api/matchmaking/rematch/{table.pk}/", HTTP_X_CSRFTOKEN=token)
    assert answer.status_code >= 400 and answer.json()["code"] == "table_not_finished" and answer.json()["message"]


def test_navigation_links_the_leaderboards(client_in, client, room):
    from django.urls import reverse

    url = reverse("matchmaking:leaderboards")
    assert f'href="{url}" data-nav="leaderboards"' in client_in.get("/").content.decode()
    assert client_in.get(url, follow=True).status_code == 200  # redirects to the first game's board
    client.logout()
    assert 'data-nav="leaderboards"' in client.get("/accounts/login/").content.decode()


def test_profile_shows_ratings_per_game_with_unrated_games(client_in, player):
    from matchmaking.models import Rating

    Rating.objects.create(user=player, game="lembar", mu=30.0, sigma=5.0, ordinal=15.0, games=4)
    page = client_in.get("/accounts/profile/").content.decode()
    section = page.split('id="ratings-h"')[1].split("</section>")[0]
    assert section.count("<tr data-game=") == 4  # every game, in game order
    lembar = section.split('data-game="lembar"')[1].split("</tr>")[0]
    assert ">15.0<" in lembar and "30.0 ± 5.0" in lembar and "<td>4</td>" in lembar
    assert "/play/leaderboards/lembar/" in lembar
    baloot = section.split('data-game="baloot"')[1].split("</tr>")[0]
    assert "unrated" in baloot and "<td>0</td>" in baloot


def test_lobby_lists_upcoming_tournaments_from_the_tournaments_app(client_in, room):
    from django.apps import apps

    if not apps.is_installed("tournaments"):
        pytest.skip("the tournaments app is not installed")
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.models import Tournament

    soon = timezone.now() + timedelta(hours=1)
    Tournament.objects.create(name="Sunday Cup", room=room, game="lembar", starts_at=soon, status="registering")
    Tournament.objects.create(name="Old Cup", room=room, game="lembar", starts_at=soon - timedelta(days=2),
                              status="finished")
    section = client_in.get("/").content.decode().split('id="tournaments-h"')[1].split("</section>")[0]
    cup = Tournament.objects.get(name="Sunday Cup")
    assert f'href="/tournaments/{cup.pk}/">Sunday Cup</a>' in section and "Old Cup" not in section
    assert 'href="/tournaments/"' in section


def test_proof_page_offers_the_verification_tool_for_download(client_in, room, bots, player, tmp_path):
    """The page tells players to run tools/verify_proof.py: the site serves that exact file, and a zip with
    the rules engines it replays the move log through; the downloaded tool verifies a real proof."""
    import io
    import subprocess
    import sys
    import zipfile

    table = services.play_with_bots(room=room, user=player)
    services.table_stop(table_id=table.pk, reason="host", by=player)
    page = client_in.get(f"/tables/{table.pk}/proof").content.decode()
    assert 'href="/proof/verify_proof.py" download' in page and 'href="/proof/verify_proof.zip" download' in page
    tool = client_in.get("/proof/verify_proof.py")
    source = Path(__file__).resolve().parents[2] / "tools" / "verify_proof.py"
    assert tool.status_code == 200 and tool["Content-Type"] == "text/x-python"
    assert tool["Content-Disposition"] == 'attachment; filename="verify_proof.py"'
    assert b"".join(tool.streaming_content) == source.read_bytes()
    bundle = client_in.get("/proof/verify_proof.zip")
    assert bundle["Content-Type"] == "application/zip" and "attachment" in bundle["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as archive:
        names = archive.namelist()
        assert archive.read("verify_proof/tools/verify_proof.py") == source.read_bytes()
        assert "verify_proof/gameworkers/engines/lembar.py" in names
        archive.extractall(tmp_path)
    (tmp_path / "proof.json").write_bytes(client_in.get(f"/tables/{table.pk}/proof.json").content)
    # Nothing of the project on the path: only what the archive holds (and the standard library).
    run = subprocess.run([sys.executable, "-I", "verify_proof/tools/verify_proof.py", "proof.json"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and run.stdout.strip() == "OK", run.stdout + run.stderr


def test_the_host_has_a_stop_button_where_the_rules_allow_it(client_in, room, bots, player):
    from django.test import Client

    client_in.post("/rooms/l/private/")
    table = Table.objects.get()
    assert 'data-action="stop"' in client_in.get(f"/tables/{table.pk}/").content.decode()
    client = Client()
    client.force_login(user_create(username="gus", password="pass-word-123"))
    assert 'data-action="stop"' not in client.get(f"/tables/{table.pk}/?invite={table.invite_code}").content.decode()
    refused = client.post(f"/tables/{table.pk}/stop/", {"invite": table.invite_code}, follow=True)
    assert "Only the host can do that." in refused.content.decode()
    client_in.post(f"/tables/{table.pk}/stop/")
    table.refresh_from_db()
    assert table.status == TableStatus.STOPPED and table.stop_reason == "host"
    assert 'data-action="stop"' not in client_in.get(f"/tables/{table.pk}/").content.decode()


def test_the_hosts_stop_of_a_started_staked_table_is_refused_with_the_services_reason(client_in, bots, player):
    room = Room.objects.create(name="Pot", slug="pot", game="lembar", seats=2, min_seats=2, stake_kind="pot",
                               currency="KEL", stake=10, rake_bps=500)
    table = services.play_with_bots(room=room, user=player)
    assert table.status == TableStatus.RUNNING
    page = client_in.post(f"/tables/{table.pk}/stop/", follow=True).content.decode()
    assert "A table with a stake cannot be stopped by its host once it has started." in page
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING
