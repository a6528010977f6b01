"""REST: queue, play again, private tables with invites, leaderboards; errors are {code, message}."""

from __future__ import annotations

import pytest
from django.test import Client

from matchmaking.models import EntryStatus, QueueEntry, Rating
from rooms import services as rooms_services
from rooms.models import Seat, SeatStatus, Table, TableStatus

from .helpers import run_matcher

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_queue_over_rest(make_room, make_user):
    room, user = make_room(), make_user()
    client = _client(user)
    assert client.get("/api/matchmaking/queue/").json() == {"type": "queue", "status": "none"}
    r = client.post("/api/matchmaking/queue/", {"room": room.slug}, content_type="application/json")
    assert r.status_code == 201 and r.json()["status"] == "waiting" and r.json()["position"] == 1
    r = client.post("/api/matchmaking/queue/", {"room": room.slug}, content_type="application/json")
    assert r.status_code == 409 and r.json()["code"] == "already_queued" and r.json()["message"]
    assert client.delete("/api/matchmaking/queue/").json()["status"] == "left"
    assert client.delete("/api/matchmaking/queue/").json()["code"] == "not_queued"


def test_too_little_money_is_refused_at_once_over_rest(make_room, make_user):
    room = make_room(game="lembar", stake_kind="pot", currency="KEL", stake=150)
    r = _client(make_user()).post("/api/matchmaking/queue/", {"room": room.slug}, content_type="application/json")
    body = r.json()
    assert r.status_code == 402 and body["code"] == "insufficient_funds"
    assert (body["currency"], body["needed"], body["balance"]) == ("KEL", 150, 100)
    assert body["message"] and "Kelereng" in body["how"] and body["welcome_pending"] is False
    assert not QueueEntry.objects.exists()


@pytest.mark.parametrize("body,code", [
    ({}, "invalid"), ({"room": "no-such-room"}, "no_such_room"), ({"room": ["x"]}, "invalid"),
    ({"room": "x" * 500}, "invalid"), ({"room": "bad slug!"}, "invalid"),
])
def test_bad_queue_input_is_refused_with_a_code(make_room, make_user, body, code):
    make_room()
    r = _client(make_user()).post("/api/matchmaking/queue/", body, content_type="application/json")
    assert 400 <= r.status_code < 500 and r.json()["code"] == code
    assert not QueueEntry.objects.exists()


def test_anonymous_cannot_queue(make_room):
    r = Client().post("/api/matchmaking/queue/", {"room": make_room().slug}, content_type="application/json")
    assert r.status_code == 403 and not QueueEntry.objects.exists()


def test_private_table_invite_flow(make_room, make_user, bots):
    room = make_room(game="baloot")
    host, guest, stranger = make_user(), make_user(), make_user()
    hc, gc = _client(host), _client(guest)
    r = hc.post("/api/matchmaking/private/", {"room": room.slug}, content_type="application/json")
    assert r.status_code == 201
    body = r.json()
    table = Table.objects.get(pk=body["table"])
    assert table.is_private and table.host == host and body["invite_code"] == table.invite_code
    assert body["invite_url"].endswith(f"/play/invite/{table.invite_code}/")
    # Public listings never show it.
    assert hc.get(f"/api/rooms/{room.slug}/tables/").json() == []
    # A wrong code changes nothing; the right one seats the guest (also through the invite page).
    r = gc.post("/api/matchmaking/private/join/", {"code": "wrong-code"}, content_type="application/json")
    assert r.status_code == 404 and r.json()["code"] == "no_such_invite"
    assert gc.get(f"/play/invite/{table.invite_code}/").status_code == 200
    r = gc.post(f"/play/invite/{table.invite_code}/")
    assert r.status_code == 302 and r["Location"] == f"/tables/{table.pk}/?invite={table.invite_code}"
    assert Seat.objects.filter(table=table, user=guest, status=SeatStatus.SEATED).exists()
    # Only the host picks bots and starts.
    r = gc.post(f"/api/matchmaking/private/{table.pk}/bots/", {}, content_type="application/json")
    assert r.status_code == 403 and r.json()["code"] == "not_host"
    r = _client(stranger).post(f"/api/matchmaking/private/{table.pk}/start/")
    assert r.status_code == 403 and r.json()["code"] == "not_host"
    r = hc.post(f"/api/matchmaking/private/{table.pk}/bots/", {"style": "tricky"}, content_type="application/json")
    assert r.status_code == 200 and r.json()["style"] == "tricky" and r.json()["player"]
    r = hc.post(f"/api/matchmaking/private/{table.pk}/bots/", {"style": "no-such-style"},
                content_type="application/json")
    assert r.status_code == 409 and r.json()["code"] == "no_bot_available"
    assert table.seats.filter(status=SeatStatus.SEATED).count() == 3
    r = hc.post(f"/api/matchmaking/private/{table.pk}/start/")
    assert r.status_code == 409 and r.json()["code"] == "not_enough_players"  # Baloot needs all four
    r = hc.post(f"/api/matchmaking/private/{table.pk}/bots/", {"style": "careful"}, content_type="application/json")
    assert r.status_code == 200
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING  # a full table starts by itself
    r = gc.post(f"/api/matchmaking/private/{table.pk}/stop/")
    assert r.status_code == 403
    r = hc.post(f"/api/matchmaking/private/{table.pk}/stop/")
    assert r.status_code == 200 and r.json()["status"] == "stopped" and r.json()["stop_reason"] == "host"


def test_host_starts_a_private_lembar_table_below_full(make_room, make_user, bots):
    room = make_room(game="lembar", seats=4, min_seats=2)
    host = make_user()
    hc = _client(host)
    table_id = hc.post("/api/matchmaking/private/", {"room": room.slug, "seats": 3},
                       content_type="application/json").json()["table"]
    hc.post(f"/api/matchmaking/private/{table_id}/bots/", {}, content_type="application/json")
    assert hc.post(f"/api/matchmaking/private/{table_id}/start/").json()["status"] == "running"


def test_play_again_requeues_the_players_together(make_room, make_user, bots):
    room = make_room(game="baloot")
    a, b, c, d = (make_user() for _ in range(4))
    table = rooms_services.table_open(room=room)
    for u in (a, b, c, d):
        rooms_services.table_sit(table_id=table.pk, user=u)
    Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED, result={"ranks": [1, 2, 1, 2]})
    r = _client(d).post(f"/api/matchmaking/rematch/{table.pk}/")
    assert r.status_code == 201 and r.json()["party"] == f"rematch-{table.pk}" and len(r.json()["players"]) == 4
    assert _client(a).post(f"/api/matchmaking/rematch/{table.pk}/").status_code == 201  # same party back
    entries = QueueEntry.objects.filter(party=f"rematch-{table.pk}", status=EntryStatus.WAITING)
    assert entries.count() == 4
    # Other waiting players with the same rating do not split the party.
    others = [make_user() for _ in range(3)]
    for o in others:
        _client(o).post("/api/matchmaking/queue/", {"room": room.slug}, content_type="application/json")
    matches = run_matcher()
    party_tables = {e.table_id for e in QueueEntry.objects.filter(party=f"rematch-{table.pk}")}
    assert len(party_tables) == 1 and None not in party_tables
    assert set(Table.objects.get(pk=party_tables.pop()).seats.values_list("user_id", flat=True)) == {
        a.pk, b.pk, c.pk, d.pk}
    assert len(matches) == 1
    r = _client(make_user()).post(f"/api/matchmaking/rematch/{table.pk}/")
    assert r.status_code == 403 and r.json()["code"] == "not_a_player"


def test_play_again_only_after_a_finished_game(make_room, make_user):
    room = make_room(game="lembar", seats=2, min_seats=2)
    a, b = make_user(), make_user()
    table = rooms_services.table_open(room=room)
    rooms_services.table_sit(table_id=table.pk, user=a)
    rooms_services.table_sit(table_id=table.pk, user=b)
    r = _client(a).post(f"/api/matchmaking/rematch/{table.pk}/")
    assert r.status_code == 409 and r.json()["code"] == "table_not_finished"
    assert _client(a).post("/api/matchmaking/rematch/999999/").json()["code"] == "no_such_table"
    assert not QueueEntry.objects.exists()


def test_leaderboard_api_and_page(make_user):
    users = [make_user() for _ in range(3)]
    for i, u in enumerate(users):
        Rating.objects.create(user=u, game="cherki", mu=20 + i * 5, sigma=5, ordinal=5 + i * 5, games=3)
    Rating.objects.create(user=make_user(), game="cherki", games=0)  # unrated players are not listed
    body = Client().get("/api/matchmaking/leaderboards/cherki/").json()
    assert [p["username"] for p in body["players"]] == [u.username for u in reversed(users)]
    assert body["players"][0]["rank"] == 1
    assert Client().get("/api/matchmaking/leaderboards/chess/").json()["code"] == "no_such_game"
    assert Client().get("/api/matchmaking/leaderboards/cherki/?limit=abc").json()["code"] == "bad_parameter"
    page = Client().get("/play/leaderboards/cherki/")
    assert page.status_code == 200 and users[2].username in page.content.decode()
    assert Client().get("/play/leaderboards/chess/").status_code == 404
