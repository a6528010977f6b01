"""The table lifecycle and the move pipeline through rooms.services (no Celery)."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from gameworkers.bots import get_bot
from gameworkers.engines import get_engine
from rooms import seeds, selectors, services
from rooms.errors import TableError
from rooms.models import Seat, SeatStatus, StopReason, Table, TableDeadline, TableEvent, TableStatus
from rooms.services import clock
from tests.conftest import make_due

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.django_db


def _start_two(room, make_user):
    a, b = make_user(), make_user()
    table = services.table_open(room=room, host=a)
    services.table_sit(table_id=table.pk, user=a)
    services.table_sit(table_id=table.pk, user=b)
    services.table_start(table_id=table.pk, by=a)
    table.refresh_from_db()
    return table, a, b


def _act(table: Table, engine, seat: int | None = None, bot=None) -> None:
    """One legal move by the seat on turn (the bot's choice, else the first legal move), through the service."""
    table.refresh_from_db()
    due = engine.deadline(table.state)
    seat = due["seat"] if seat is None else seat
    if seat is None or due.get("limit_ms") == 0:
        make_due(table, at=timezone.now() - timedelta(seconds=1))
        assert services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
        return
    legal = engine.legal_moves(table.state, seat)
    move = bot.choose(engine.view(table.state, seat), legal, random.Random(table.version)) if bot else legal[0]
    services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)


def test_open_publishes_a_commitment_of_a_secret_seed(lembar_room, make_user):
    table = services.table_open(room=lembar_room, host=make_user())
    assert table.commitment == hashlib.sha256(bytes.fromhex(table.seed_hex)).hexdigest()
    doc = selectors.proof_document(table=table)
    assert doc["commitment"] == table.commitment and "seed" not in doc
    assert table.seed_hex not in json.dumps(doc)
    assert TableEvent.objects.get(table=table).kind == "opened"


def test_sit_stand_and_seat_rules(lembar_room, make_user):
    a, b = make_user(), make_user()
    table = services.table_open(room=lembar_room, host=a)
    assert services.table_sit(table_id=table.pk, user=a, seat_number=2).number == 2
    with pytest.raises(TableError) as exc:
        services.table_sit(table_id=table.pk, user=b, seat_number=2)
    assert exc.value.code == "seat_taken"
    with pytest.raises(TableError) as exc:
        services.table_sit(table_id=table.pk, user=a)
    assert exc.value.code == "already_seated"
    for bad in (9, -1, True, "1"):
        with pytest.raises(TableError) as exc:
            services.table_sit(table_id=table.pk, user=b, seat_number=bad)
        assert exc.value.code == "bad_seat"
    services.table_stand(table_id=table.pk, user=a)
    assert Seat.objects.get(table=table, user=a).status == SeatStatus.STOOD
    assert services.table_sit(table_id=table.pk, user=b, seat_number=2).number == 2  # free again


def test_start_needs_the_host_below_full_and_compacts_seat_numbers(lembar_room, make_user):
    host, other, stranger = make_user(), make_user(), make_user()
    table = services.table_open(room=lembar_room, host=host)
    services.table_sit(table_id=table.pk, user=host, seat_number=1)
    with pytest.raises(TableError) as exc:
        services.table_start(table_id=table.pk, by=host)
    assert exc.value.code == "not_enough_players"
    services.table_sit(table_id=table.pk, user=other, seat_number=3)
    with pytest.raises(TableError) as exc:
        services.table_start(table_id=table.pk, by=stranger)
    assert exc.value.code == "not_host"
    services.table_start(table_id=table.pk, by=host)
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING and table.state["seats"] == 2
    assert sorted(Seat.objects.filter(table=table).values_list("number", flat=True)) == [0, 1]
    assert table.deadline_at is not None


def test_a_full_table_starts_by_itself(lembar_room, make_user):
    table = services.table_open(room=lembar_room, host=None, seat_count=2)
    services.table_sit(table_id=table.pk, user=make_user())
    services.table_sit(table_id=table.pk, user=make_user())
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING


def test_moves_need_the_current_version_and_the_right_seat(lembar_room, make_user):
    table, a, b = _start_two(lembar_room, make_user)
    engine = get_engine("lembar")
    seat = engine.deadline(table.state)["seat"]
    other = 1 - seat
    move = engine.legal_moves(table.state, seat)[0]
    before = table.state
    # One counter for the table's whole life (docs/protocol.md): two sits and the start are 3 changes.
    start = table.version
    assert start == 3
    with pytest.raises(TableError) as exc:
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start + 5)
    assert exc.value.code == "stale_version"
    with pytest.raises(TableError) as exc:
        services.table_play(table_id=table.pk, seat_number=other, move=move, expected_version=start)
    assert exc.value.code  # the engine's own code (not your turn / not held)
    with pytest.raises(TableError) as exc:
        services.table_play(table_id=table.pk, seat_number=seat, move={**move, "auto": True}, expected_version=start)
    assert exc.value.code == "malformed"
    table.refresh_from_db()
    assert table.state == before and table.version == start
    assert services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start) == start + 1
    with pytest.raises(TableError) as exc:  # the same move again: a duplicate, never applied twice
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start)
    assert exc.value.code == "stale_version"
    table.refresh_from_db()
    assert table.version == start + 1 and len(selectors.move_log(table=table)) == 1


def test_deadline_fires_once_and_only_when_due(lembar_room, make_user):
    table, *_ = _start_two(lembar_room, make_user)
    start = table.version
    assert not services.table_fire_deadline(table_id=table.pk, expected_version=start)  # not due yet
    make_due(table, at=timezone.now() - timedelta(seconds=1))
    assert services.due_tables() == [(table.pk, start)]
    assert services.due_tables() == []  # claimed: a second timer does not enqueue it again
    assert services.table_fire_deadline(table_id=table.pk, expected_version=start)
    assert not services.table_fire_deadline(table_id=table.pk, expected_version=start)  # version moved on
    table.refresh_from_db()
    assert table.version >= start + 1
    log = selectors.move_log(table=table)
    assert log and all(m["move"].get("auto") for m in log)
    seat = log[0]["seat"]
    assert Seat.objects.get(table=table, number=seat).consecutive_timeouts == 1


def _timer_entry_matches(table_id: int) -> bool:
    """The timer's entry (TableDeadline) holds the table's deadline, for its version; none when it has none."""
    table = Table.objects.get(pk=table_id)
    entry = TableDeadline.objects.filter(table_id=table_id).first()
    if table.deadline_at is None:
        return entry is None or entry.due_at is None
    return entry is not None and (entry.due_at, entry.version) == (table.deadline_at, table.version)


def test_the_timer_entry_follows_the_deadline_through_start_moves_timeouts_and_the_end(lembar_room, make_user):
    table, *_ = _start_two(lembar_room, make_user)
    assert table.deadline_at is not None and _timer_entry_matches(table.pk)  # the start
    engine = get_engine("lembar")
    for _ in range(3):  # moves (the locked path here; the unlocked one: test_unlocked_play.py)
        table.refresh_from_db()
        seat = engine.to_act(table.state)[0]
        services.table_play(table_id=table.pk, seat_number=seat, move=engine.legal_moves(table.state, seat)[0],
                            expected_version=table.version)
        assert _timer_entry_matches(table.pk)
    table.refresh_from_db()
    make_due(table, at=timezone.now() - timedelta(seconds=1))
    assert services.due_tables() == [(table.pk, table.version)]
    assert services.table_fire_deadline(table_id=table.pk, expected_version=table.version)  # a timeout
    assert _timer_entry_matches(table.pk)
    assert TableDeadline.objects.get(table=table).enqueued_at is None  # the new deadline is not handed out
    services.table_stop(table_id=table.pk, reason=StopReason.STAFF)
    assert _timer_entry_matches(table.pk) and services.due_tables(now=timezone.now() + timedelta(days=1)) == []


def test_a_lost_deadline_task_is_claimed_again(lembar_room, make_user):
    table, *_ = _start_two(lembar_room, make_user)
    make_due(table, at=timezone.now() - timedelta(seconds=10))
    assert services.due_tables() == [(table.pk, table.version)]
    later = timezone.now() + timedelta(seconds=4)
    assert services.due_tables(now=later) == [(table.pk, table.version)]


def test_three_timeouts_in_a_row_remove_a_lembar_player(lembar_room, make_user):
    a, b, c = make_user(), make_user(), make_user()
    table = services.table_open(room=lembar_room, host=a, seat_count=3)
    for u in (a, b, c):
        services.table_sit(table_id=table.pk, user=u)
    engine = get_engine("lembar")
    for _ in range(400):
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING or Seat.objects.filter(table=table, status=SeatStatus.REMOVED).exists():
            break
        due = engine.deadline(table.state)
        if due["seat"] == 0 or due["seat"] is None:
            make_due(table, at=timezone.now() - timedelta(seconds=1))
            services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
        else:
            _act(table, engine)
    removed = Seat.objects.get(table=table, number=0)
    table.refresh_from_db()
    if table.status == TableStatus.RUNNING:
        assert removed.status == SeatStatus.REMOVED
        assert TableEvent.objects.filter(table=table, kind="removed").exists()


def test_host_and_staff_stop_others_cannot(lembar_room, make_user):
    table, host, other = _start_two(lembar_room, make_user)
    with pytest.raises(TableError) as exc:
        services.table_stop(table_id=table.pk, reason="host", by=other)
    assert exc.value.code == "not_host"
    with pytest.raises(TableError) as exc:
        services.table_stop(table_id=table.pk, reason="staff", by=other)
    assert exc.value.code == "not_staff"
    services.table_stop(table_id=table.pk, reason="host", by=host)
    table.refresh_from_db()
    assert table.status == TableStatus.STOPPED and table.stop_reason == "host"
    assert selectors.proof_document(table=table)["seed"] == table.seed_hex
    with pytest.raises(TableError) as exc:
        services.table_stop(table_id=table.pk, reason="host", by=host)
    assert exc.value.code == "table_ended"


def test_the_last_human_leaving_stops_a_table_as_deserted(lembar_room, make_user, bots):
    human = make_user()
    table = services.table_open(room=lembar_room, host=human, seat_count=3)
    services.table_sit(table_id=table.pk, user=human)
    services.table_add_bot(table_id=table.pk, by=human)
    services.table_add_bot(table_id=table.pk, by=human)
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING
    services.table_stand(table_id=table.pk, user=human)
    table.refresh_from_db()
    assert table.status == TableStatus.STOPPED and table.stop_reason == "deserted"
    assert Seat.objects.get(table=table, user=human).status == SeatStatus.LEFT


def test_only_bots_left_before_the_start_closes_the_table(lembar_room, make_user, bots):
    human = make_user()
    table = services.table_open(room=lembar_room, host=human, seat_count=3)
    services.table_sit(table_id=table.pk, user=human)
    services.table_add_bot(table_id=table.pk, by=human)
    services.table_stand(table_id=table.pk, user=human)
    table.refresh_from_db()
    assert table.status == TableStatus.STOPPED and table.stop_reason == "never_started"


def test_room_close_stops_its_tables(lembar_room, make_user):
    table, *_ = _start_two(lembar_room, make_user)
    assert services.room_close(room=lembar_room) == 1
    table.refresh_from_db()
    assert table.status == TableStatus.STOPPED and table.stop_reason == "room_closed"
    with pytest.raises(TableError) as exc:
        services.table_open(room=lembar_room)
    assert exc.value.code == "room_closed"


@pytest.mark.parametrize("game,seats", [("lembar", 3), ("cherki", 3), ("otuzbir", 3), ("baloot", 4)])
def test_a_whole_game_through_the_services_gives_a_verifiable_proof(game, seats, make_user, tmp_path):
    from rooms.models import Room

    room = Room.objects.create(name=game, slug=f"{game}-x", game=game, seats=seats, min_seats=seats,
                               options={"mode": "fast"} if game == "baloot" else {})
    users = [make_user() for _ in range(seats)]
    table = services.table_open(room=room, host=users[0])
    for u in users:
        services.table_sit(table_id=table.pk, user=u)
    table.refresh_from_db()
    start = table.version  # started when the last seat was taken
    engine = get_engine(game)
    bot = get_bot(game)  # the default bots finish games in far fewer moves than "first legal move"
    for _ in range(5000):
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING:
            break
        _act(table, engine, bot=bot)
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED and table.result == engine.result(table.state)
    frame = selectors.table_frame(table=table, seat_number=0)
    assert frame["result"] == table.result
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(selectors.proof_document(table=table)))
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "OK", out.stdout
    events = list(TableEvent.objects.filter(table=table).values_list("seq", flat=True))
    assert events == list(range(1, len(events) + 1))
    # One frame per logged move (the version also counts steps that are not moves).
    assert len(selectors.replay_frames(table=table)) == table.state["move_count"] + 1 <= table.version - start + 1


def test_frames_never_carry_the_seed_or_other_hands_before_the_end(lembar_room, make_user):
    table, a, b = _start_two(lembar_room, make_user)
    engine = get_engine("lembar")
    for seat in (0, 1):
        text = json.dumps(selectors.table_frame(table=table, seat_number=seat))
        assert table.seed_hex not in text
        hidden = set(engine.hidden_cards(table.state, seat))
        view = selectors.table_frame(table=table, seat_number=seat)["view"]
        own = view.get("hand") or []
        assert not (set(own) - set(engine.all_cards(table.state)))
        assert len(hidden) > 0
    spectator = selectors.table_frame(table=table, seat_number=None)
    assert spectator["legal"] == [] and table.seed_hex not in json.dumps(spectator)
    assert all(e["payload"].get("seed") is None for e in selectors.public_events(table=table))


def test_a_private_table_needs_its_invite_code(lembar_room, make_user, bots):
    host, guest, stranger = make_user(), make_user(), make_user()
    table = services.table_open(room=lembar_room, host=host, private=True)
    services.table_sit(table_id=table.pk, user=host)
    with pytest.raises(TableError) as exc:
        services.table_sit(table_id=table.pk, user=stranger)
    assert exc.value.code == "invite_required"
    with pytest.raises(TableError) as exc:
        services.table_sit(table_id=table.pk, user=stranger, invite_code="wrong")
    assert exc.value.code == "invite_required"
    assert services.table_sit(table_id=table.pk, user=guest, invite_code=table.invite_code).number == 1
    services.table_add_bot(table_id=table.pk, by=host)  # bots come only through the host
    assert not selectors.may_watch(table=table, user=stranger)
    assert selectors.may_watch(table=table, user=stranger, invite_code=table.invite_code)
    assert selectors.may_watch(table=table, user=guest) and selectors.may_watch(table=table, user=host)


def test_claimed_deadlines_are_not_handed_out_again_while_workers_are_behind(lembar_room, make_user):
    table, *_ = _start_two(lembar_room, make_user)
    make_due(table, at=timezone.now() - timedelta(seconds=10))
    assert services.due_tables() == [(table.pk, table.version)]
    later = timezone.now() + timedelta(seconds=30)
    assert services.due_tables(now=later, reclaim=False) == []
    assert services.due_tables(now=later, reclaim=True) == [(table.pk, table.version)]


def test_a_stopped_tables_partial_proof_verifies(lembar_room, make_user, tmp_path):
    table, host, _ = _start_two(lembar_room, make_user)
    start = table.version
    engine = get_engine("lembar")
    for _ in range(3):
        _act(table, engine)
    services.table_stop(table_id=table.pk, reason="host", by=host)
    table.refresh_from_db()
    doc = selectors.proof_document(table=table)
    assert doc["status"] == "stopped" and len(doc["moves"]) == table.state["move_count"] and table.version >= start + 3
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(doc))
    verify = [sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)]
    assert subprocess.run(verify, capture_output=True, text=True, timeout=120).stdout.strip() == "OK"
    doc["shuffles"][0]["result"].reverse()  # a tampered deal still fails
    path.write_text(json.dumps(doc))
    assert subprocess.run(verify, capture_output=True, text=True, timeout=120).returncode == 1


def test_a_move_for_a_seat_checks_who_holds_it(lembar_room, make_user):
    table, a, b = _start_two(lembar_room, make_user)
    engine = get_engine("lembar")
    seat = engine.to_act(table.state)[0]
    move = engine.legal_moves(table.state, seat)[0]
    holder, other = (a, b) if seat == 0 else (b, a)
    start = table.version
    with pytest.raises(TableError) as exc:  # another user's socket cannot act for this seat
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start,
                            user_id=other.pk)
    assert exc.value.code == "not_seated"
    assert services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start,
                               user_id=holder.pk) == start + 1


def test_the_move_log_lives_in_its_own_rows_and_the_proof_reassembles_it(lembar_room, make_user):
    table, a, b = _start_two(lembar_room, make_user)
    start = table.version
    engine = get_engine("lembar")
    for _ in range(6):
        _act(table, engine)
    table.refresh_from_db()
    assert table.state["moves"] == [] and table.version == start + 6
    log = selectors.move_log(table=table)
    assert [m["seq"] for m in log] == list(range(1, table.state["move_count"] + 1))
    # Replaying the rows from the seed reaches the stored state exactly.
    state = engine.new(table.seed, 2, table.options)
    for entry in log:
        state, _ = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    assert {**state, "moves": []} == {**table.state, "seed": table.seed_hex}  # the row keeps its seed sealed
    services.table_stop(table_id=table.pk, reason="host", by=a)
    table.refresh_from_db()
    doc = selectors.proof_document(table=table)
    assert doc["moves"] == log


def test_a_whole_table_is_seated_in_one_go(lembar_room, make_user, bots):
    humans = [make_user(), make_user()]
    table = services.table_open_seated(room=lembar_room, players=[*humans, bots[0], bots[1]], seat_count=4)
    assert table.status == TableStatus.RUNNING
    assert [(e["seat"], e["user_id"], e["status"]) for e in table.seating] == [
        (n, u.pk, "seated") for n, u in enumerate([*humans, bots[0], bots[1]])]
    assert list(TableEvent.objects.filter(table=table, kind="sat").values_list("payload__seat", flat=True)) == [
        0, 1, 2, 3]
    with pytest.raises(TableError) as exc:  # the same player twice: refused, and nothing is kept
        services.table_open_seated(room=lembar_room, players=[humans[0], humans[0]], seat_count=2)
    assert exc.value.code == "already_seated" and exc.value.player == humans[0]
    assert Table.objects.count() == 1


def test_tables_saved_with_the_log_in_their_state_are_migrated(lembar_room, make_user):
    import importlib

    from django.apps import apps

    from rooms.models import TableMove

    migration = importlib.import_module("rooms.migrations.0006_move_log_out_of_state")
    table, a, b = _start_two(lembar_room, make_user)
    engine = get_engine("lembar")
    for _ in range(4):
        _act(table, engine)
    table.refresh_from_db()
    log = selectors.move_log(table=table)
    legacy = {k: v for k, v in table.state.items() if k not in ("move_count", "last_move_ms")}
    Table.objects.filter(pk=table.pk).update(state={**legacy, "moves": log}, seating=[])
    TableMove.objects.filter(table=table).delete()
    migration.forwards(apps, None)
    table.refresh_from_db()
    assert selectors.move_log(table=table) == log
    assert table.state["moves"] == [] and table.state["move_count"] == len(log)
    assert table.state["last_move_ms"] == log[-1]["now_ms"]
    assert [(e["seat"], e["user_id"]) for e in table.seating] == [(0, a.pk), (1, b.pk)]
    while table.state["move_count"] == len(log):  # and the game goes on (a window closing is no move)
        _act(table, engine)
        table.refresh_from_db()
    numbers = list(range(1, len(log) + 2))
    assert [m["seq"] for m in selectors.move_log(table=table)] == numbers
    migration.backwards(apps, None)  # and back: the log returns to the state
    table.refresh_from_db()
    assert [m["seq"] for m in table.state["moves"]] == numbers
    assert table.state["moves"] == selectors.move_log(table=table)


NATURAL_SEED = "915689b1094a918bf70e850c8a8856a980853458b02477832a9acbb5e98a24f4"


def _lembar_table_with_seed(room, make_user, seed_hex: str) -> tuple[Table, object]:
    """A started two-seat Lembar table re-dealt from a known seed (commitment to match), as if drawn."""
    from gameworkers.engines import fairness

    table, a, _ = _start_two(room, make_user)
    seed = bytes.fromhex(seed_hex)
    state = get_engine("lembar").new(seed, 2, table.options)
    state.pop("seed")  # a running table's row keeps its seed sealed, never in the state
    Table.objects.filter(pk=table.pk).update(seed_sealed=seeds.seal(seed), commitment=fairness.commitment(seed),
                                             state=state)
    table.refresh_from_db()
    return table, a


def test_closing_a_catch_window_is_a_step_but_not_a_move(lembar_room, make_user, tmp_path):
    """The version counts every applied step; the engine's numbers, the move rows and the proof only
    moves. Seed searched: seat 0 comes down to one card (M1) without a call on the 8th move."""
    from rooms.models import TableMove

    table, host = _lembar_table_with_seed(lembar_room, make_user, NATURAL_SEED)
    v0 = table.version  # the version at the start (the sits and the start counted too)
    start = services.now_ms()
    for k, (seat, card) in enumerate([(0, "K2"), (1, "K3"), (0, "K9"), (1, "M9"),
                                      (0, "MR"), (0, "MD"), (0, "KD"), (0, "K4")]):
        assert services.table_play(table_id=table.pk, seat_number=seat, move={"type": "play", "card": card},
                                   expected_version=v0 + k, at_ms=start + k) == v0 + k + 1
    table.refresh_from_db()
    assert table.state["windows"] == [{"seat": 0, "since": start + 7}]
    assert table.deadline_seat is None and table.deadline_at == clock._ms_to_datetime(start + 7 + 3001)
    make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
    assert services.table_fire_deadline(table_id=table.pk, expected_version=v0 + 8)  # the window closes
    table.refresh_from_db()
    assert table.version == v0 + 9 and table.state["move_count"] == 8 and table.state["windows"] == []
    assert TableMove.objects.filter(table=table).count() == 8
    closed = TableEvent.objects.get(table=table, kind="window_closed")
    assert closed.version == v0 + 9 and closed.payload == {"type": "window_closed", "seat": 0}
    # The next move is move 9 (the 10th step since the start); its clock is never behind the close step's.
    assert services.table_play(table_id=table.pk, seat_number=1, move={"type": "draw"},
                               expected_version=v0 + 9) == v0 + 10
    table.refresh_from_db()
    log = selectors.move_log(table=table)
    assert [m["seq"] for m in log] == list(range(1, 10)) and all(m["seat"] is not None for m in log)
    assert log[-1]["now_ms"] >= start + 7 + 3001
    services.table_stop(table_id=table.pk, reason="host", by=host)
    table.refresh_from_db()
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(selectors.proof_document(table=table)))
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "OK", out.stdout
    assert [f["seq"] for f in selectors.replay_frames(table=table)] == list(range(0, 10))


def test_a_table_that_ended_with_numbered_window_closes_still_replays_and_verifies(lembar_room, make_user,
                                                                                    tmp_path):
    """A table that ended before closing a window stopped being a move keeps its rows, close step
    included (the fixture: a proof made by the engine before the change); its proof page verifies and
    its replay page replays every recorded move to the recorded result."""
    from gameworkers.engines import fairness
    from rooms.models import TableMove

    doc = json.loads((ROOT / "tests" / "gameworkers" / "engines" / "lembar-proof-numbered-close.json").read_text())
    table, host, _ = _start_two(lembar_room, make_user)
    engine = get_engine("lembar")
    state = engine.replay_start(bytes.fromhex(doc["seed"]), 2, doc["options"], doc["moves"])
    for entry in doc["moves"]:
        state, _ = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    TableMove.objects.bulk_create([TableMove(table=table, **m) for m in doc["moves"]])
    Table.objects.filter(pk=table.pk).update(
        seed_sealed=seeds.seal(bytes.fromhex(doc["seed"])), commitment=fairness.commitment(bytes.fromhex(doc["seed"])),
        options=doc["options"],
        state={**state, "moves": []}, version=len(doc["moves"]), status=TableStatus.FINISHED,
        result=engine.result(state), ended_at=timezone.now())
    table.refresh_from_db()
    proof = selectors.proof_document(table=table)
    assert proof["moves"] == doc["moves"] and proof["shuffles"] == doc["shuffles"] and proof["result"] == doc["result"]
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(proof))
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "OK", out.stdout
    frames = selectors.replay_frames(table=table)
    assert [f["seq"] for f in frames] == list(range(0, len(doc["moves"]) + 1))
    assert frames[-1]["view"]["result"] == doc["result"]
