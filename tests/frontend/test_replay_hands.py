"""Per-hand results and replays (rooms.selectors.finished_hands / hand_replay, the replay page with
``?hand=N`` and ``hands.json``): a finished hand replays with every card of THAT hand while the table
runs on, and nothing of the current hand (hidden hands, stock, seed) is in it."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import bot_create, user_create
from gameworkers.bots import get_bot
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Room, TableStatus
from tests.conftest import make_due

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


@pytest.fixture
def player(db):
    return user_create(username="pia", password="pass-word-123", display_name="Pia")


@pytest.fixture
def bots(db):
    return [bot_create(username=f"b{i}", display_name=f"B{i}", style="careful", description="x") for i in range(4)]


def _table(game: str, seats: int, player):
    room = Room.objects.create(name=game, slug=game, game=game, seats=seats, min_seats=seats, turn_seconds=20)
    return services.play_with_bots(room=room, user=player)


def _step(table) -> None:
    """One step of the game through the services: the seat due plays its bot's choice, or a due system
    step fires."""
    table.refresh_from_db()
    engine = get_engine(table.game)
    due = engine.deadline(table.state)
    seat = due["seat"] if due else None
    if seat is None or due.get("limit_ms") == 0:
        make_due(table, at=timezone.now() - timedelta(seconds=1))
        services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
        return
    legal = engine.legal_moves(table.state, seat)
    move = get_bot(table.game).choose(engine.view(table.state, seat), legal, random.Random(table.version))
    services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)


def _play_until(table, done, limit: int = 4000) -> None:
    for _ in range(limit):
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING or done(table):
            return
        _step(table)


def _hands_in(view: dict) -> list[list[str]]:
    if isinstance(view.get("hands"), list):
        return [list(h) for h in view["hands"]]
    return [[*p.get("closed", []), *p.get("open", [])] for p in view.get("players", [])]


def _signature(view: dict) -> tuple:
    """Who holds what, every seat at once (order inside a hand aside)."""
    return tuple(tuple(sorted(h)) for h in _hands_in(view))


def _current_secrets(table) -> tuple[tuple, list[str]]:
    """The current hand's hands as the server knows them (some hidden from every viewer) and its stock."""
    engine = get_engine(table.game)
    full = engine.replay_view(table.state)
    return _signature(full), list(full.get("stock") or [])


def _into_second_hand(table) -> None:
    """Play until one hand is over and the next one's cards are dealt and partly hidden."""
    _play_until(table, lambda t: len(selectors.finished_hands(table=t)) >= 1)
    engine = get_engine(table.game)
    _play_until(table, lambda t: any(len(h) for h in _hands_in(engine.replay_view(t.state)))
                and engine.hidden_cards(t.state, None) != list(engine.replay_view(t.state).get("stock") or []))
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING, "the game ended inside its first hand: pick another seed"
    assert len(selectors.finished_hands(table=table)) == 1


@pytest.mark.parametrize("game,seats", [("baloot", 4), ("otuzbir", 3)])
def test_a_finished_hand_replays_while_the_table_runs_and_leaks_nothing_of_the_current_hand(
        game, seats, player, bots):
    table = _table(game, seats, player)
    _into_second_hand(table)
    hands = selectors.finished_hands(table=table)
    frames = selectors.hand_replay(table=table, hand=1)
    assert frames is not None and len(frames) >= 2
    # The hand's last step: marked, with the closing public event the result panel explains.
    assert frames[-1]["end"] is True
    closing = {e["type"] for e in frames[-1]["events"]}
    assert closing & set(selectors.HAND_END_KINDS[game])
    assert [e["type"] for e in hands[0]["events"]][0] in selectors.HAND_END_KINDS[game]
    # Every card of that hand is shown (31 deals after its pre-deal raises: not in the first frame).
    assert max(sum(len(h) for h in _hands_in(f["view"])) for f in frames) > 0
    # ... and nothing of the current hand or the seed.
    text = json.dumps(frames)
    assert table.seed_hex not in text and '"seed"' not in text
    secret, stock = _current_secrets(table)
    assert any(secret), "the current hand has hidden cards to protect"
    for f in frames:
        assert _signature(f["view"]) != secret
        if game == "baloot":  # five cards or more each: no seat's current hand shows up anywhere
            assert not set(_signature(f["view"])) & {h for h in secret if h}
        if stock:
            assert f["view"].get("stock") != stock
    # Only the frames of one deal: the deal/hand number never changes inside the replay.
    key = "deal" if game == "baloot" else "hand"
    assert len({f["view"].get(key) for f in frames}) == 1
    # The current hand is not over: no replay of it yet, nor of hands to come.
    assert selectors.hand_replay(table=table, hand=len(hands) + 1) is None
    assert selectors.hand_replay(table=table, hand=0) is None


def test_the_replay_page_serves_a_finished_hand_and_refuses_others(client, player, bots):
    table = _table("otuzbir", 3, player)
    _into_second_hand(table)
    client.force_login(player)
    page = client.get(f"/tables/{table.pk}/replay?hand=1")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="replay-frames"' in body and 'data-hand="1"' in body and table.seed_hex not in body
    for bad in ("2", "0", "abc", "-1", "1e9", "99999999999"):
        refused = client.get(f"/tables/{table.pk}/replay", {"hand": bad})
        assert refused.status_code == 404 and 'data-code="no_such_hand"' in refused.content.decode(), bad
    data = client.get(f"/tables/{table.pk}/hands.json").json()
    assert [h["hand"] for h in data["hands"]] == [1]
    assert data["hands"][0]["url"] == f"/tables/{table.pk}/replay?hand=1"
    assert data["hands"][0]["events"][0]["type"] == "hand_over"
    # The whole table stays for the end.
    assert client.get(f"/tables/{table.pk}/replay").status_code == 404


def test_a_private_tables_hands_are_hidden_from_strangers(client, player, bots):
    room = Room.objects.create(name="b", slug="b", game="otuzbir", seats=3, min_seats=2, turn_seconds=20)
    table = services.table_open(room=room, host=player, private=True)
    services.table_sit(table_id=table.pk, user=player)
    for _ in range(2):  # the table starts when its last seat is taken
        services.table_add_bot(table_id=table.pk, by=player)
    table.refresh_from_db()
    _into_second_hand(table)
    stranger = user_create(username="sam", password="pass-word-123", display_name="Sam")
    client.force_login(stranger)
    assert client.get(f"/tables/{table.pk}/hands.json").status_code == 404
    assert client.get(f"/tables/{table.pk}/replay?hand=1").status_code == 404
    assert client.get(f"/tables/{table.pk}/replay?hand=1&invite={table.invite_code}").status_code == 200


@pytest.mark.parametrize("game,seats", [("cherki", 3), ("lembar", 3)])
def test_an_ended_tables_last_hand_replays_to_its_end(game, seats, player, bots):
    table = _table(game, seats, player)
    _play_until(table, lambda t: False, limit=6000)
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED
    hands = selectors.finished_hands(table=table)
    last = selectors.hand_replay(table=table, hand=len(hands))
    assert last is not None and last[-1]["end"] is True
    assert any(e["type"] == "game_over" for e in last[-1]["events"])
    # The ended table's last frame is the final state itself (nothing is left to protect).
    assert last[-1]["view"] == selectors.replay_frames(table=table)[-1]["view"]
    assert selectors.hand_replay(table=table, hand=len(hands) + 1) is None
