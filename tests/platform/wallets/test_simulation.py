"""A money soak: 1,000+ bot tables across every game and stake with random joins, stands, leaves,
timeouts, stops and finishes, driven in-process through rooms.services; the ledger must stay sound
and every escrow empty.

Speed: 1,000 tables take minutes on SQLite (about 75 queries a table through the real
services), so the everyday suite plays 120 and the 1,000-table soak is marked slow. The test
runs inside one test transaction, so rooms' on_commit broadcasts and bot enqueues never fire
(no Celery, no Redis). Each table follows a plan: never started, interrupted after a few random
moves/timeouts/leaves and stopped, or played out by the game's default bot style (31 with one or
two hands, two-player Lembar, Cherki; a Baloot team deserts so the other wins by the rules).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.services import bot_create, user_create
from gameworkers.bots import get_bot
from gameworkers.engines import get_engine
from rooms import services as rooms
from rooms.errors import TableError
from rooms.models import Room, Seat, SeatStatus, StopReason, Table, TableStatus
from tests.conftest import make_due
from wallets.checks import ledger_problems
from wallets.models import Account, AccountKind, LedgerTransaction, WalletSettings

pytestmark = pytest.mark.django_db

GAMES = ("lembar", "baloot", "cherki", "otuzbir")


def _rooms() -> dict[str, list[Room]]:
    specs = [
        ("lembar", "casual", "", 0, 0, {}), ("lembar", "pot", "KEL", 7, 500, {}),
        ("lembar", "pot", "MUT", 5, 1000, {}), ("baloot", "pot", "KEL", 9, 500, {}),
        ("baloot", "pot", "MUT", 4, 0, {}), ("baloot", "casual", "", 0, 0, {}),
        ("cherki", "per_point", "CHP", 1, 0, {}), ("cherki", "per_point", "CHP", 3, 0, {}),
        ("otuzbir", "ante", "CHP", 5, 0, {"hands": 1}), ("otuzbir", "ante", "CHP", 25, 500, {"hands": 2}),
        ("otuzbir", "casual", "", 0, 0, {"hands": 1}),
    ]
    seats = {"lembar": 3, "baloot": 4, "cherki": 3, "otuzbir": 4}
    out: dict[str, list[Room]] = {g: [] for g in GAMES}
    for i, (game, kind, currency, stake, rake, options) in enumerate(specs):
        room = Room(name=f"sim {i}", slug=f"sim-{i}", game=game, seats=seats[game],
                    min_seats=2 if game in ("lembar", "otuzbir") else seats[game], stake_kind=kind,
                    currency=currency, stake=stake, rake_bps=rake, options=options, turn_seconds=20)
        room.full_clean()
        room.save()
        out[game].append(room)
    return out


class Sim:
    """Plays tables by one of three plans: never started, interrupted after a few steps, or played out."""

    def __init__(self, rng: random.Random, humans: list[User], bots: list[User], staff: User) -> None:
        self.rng = rng
        self.humans, self.bots, self.staff = humans, bots, staff
        # Random play for the noise; the game's default (stronger) style plays tables out, since
        # random Cherki or Lembar games can run for a thousand moves.
        self.random = {g: get_bot(g, "random") for g in GAMES}
        self.default = {g: get_bot(g) for g in GAMES}
        self.outcomes: Counter[str] = Counter()

    def sit(self, table: Table, user: User) -> None:
        try:
            rooms.table_sit(table_id=table.pk, user=user)
        except TableError as exc:
            self.outcomes[f"sit_refused:{exc.code}"] += 1

    def stand(self, table: Table, user: User) -> None:
        try:
            rooms.table_stand(table_id=table.pk, user=user)
        except TableError as exc:
            self.outcomes[f"stand_refused:{exc.code}"] += 1

    def seated(self, table: Table) -> list[Seat]:
        return list(Seat.objects.filter(table=table, status=SeatStatus.SEATED).select_related("user"))

    def run_table(self, room: Room) -> str:
        rng = self.rng
        size = {"lembar": 2, "baloot": 4, "cherki": 3}.get(room.game) or rng.choice([2, 3])
        plan = rng.choices(["never_started", "interrupted", "played_out"], weights=[3, 3, 4])[0]
        host = rng.choice(self.humans)
        table = rooms.table_open(room=room, host=host, seat_count=size)
        # Joins: humans first (a Baloot team of humans keeps the table from being deserted),
        # then bots; some stand up again before the start, some sits are refused (no funds).
        crowd = [host, *rng.sample(self.humans, 2)][: rng.randint(1, 3)] + rng.sample(self.bots, size + 1)
        if plan == "never_started":
            rng.shuffle(crowd)
        if plan == "never_started":
            for user in crowd[:size]:
                self.sit(table, user)
                if rng.random() < 0.3:
                    self.stand(table, user)
        else:
            # Refused sits leave the seat to the next in the crowd; a full table starts itself.
            for user in crowd:
                self.sit(table, user)
                if Table.objects.filter(pk=table.pk, status=TableStatus.OPEN).count() == 0:
                    break
        table.refresh_from_db()
        if table.status == TableStatus.OPEN and plan != "never_started":
            # Not full (refused sits): the staff starts it when the minimum is seated.
            try:
                rooms.table_start(table_id=table.pk, by=self.staff)
            except TableError as exc:
                self.outcomes[f"start_refused:{exc.code}"] += 1
            table.refresh_from_db()
        if table.status == TableStatus.OPEN:
            if rng.random() < 0.7:
                rooms.table_stop(table_id=table.pk, reason=StopReason.NEVER_STARTED)
            else:
                for seat in self.seated(table):
                    if not seat.user.is_bot:
                        self.stand(table, seat.user)  # bots alone close the table (never started)
        elif table.status == TableStatus.RUNNING:
            if plan == "played_out":
                self.play_out(table)
            else:
                self.interrupt(table)
        table.refresh_from_db()
        if table.status in (TableStatus.OPEN, TableStatus.RUNNING):
            rooms.table_stop(table_id=table.pk, reason=rng.choice([StopReason.STAFF, StopReason.ROOM_CLOSED]),
                             by=self.staff)
            table.refresh_from_db()
        return f"{room.game}:{table.status}"

    def timeout(self, table: Table) -> None:
        """The deadline passes and the server plays the automatic move."""
        make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
        rooms.table_fire_deadline(table_id=table.pk, expected_version=table.version)

    def move(self, table: Table, engine, bots: dict) -> None:
        acting = engine.to_act(table.state)
        if not acting:
            self.timeout(table)
            return
        seat = self.rng.choice(acting)
        legal = engine.legal_moves(table.state, seat)
        if not legal:
            self.timeout(table)
            return
        move = bots[table.room.game].choose(engine.view(table.state, seat), legal, self.rng) or legal[0]
        try:
            rooms.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)
        except TableError as exc:
            self.outcomes[f"move_refused:{exc.code}"] += 1

    def interrupt(self, table: Table) -> None:
        """A few random moves, timeouts and leaves; the caller then stops the table."""
        engine = get_engine(table.room.game)
        for _ in range(self.rng.randint(0, 12)):
            table.refresh_from_db()
            if table.status != TableStatus.RUNNING:
                return
            roll = self.rng.random()
            if roll < 0.15:
                self.stand(table, self.rng.choice(self.seated(table)).user)  # a forfeit (or desertion)
            elif roll < 0.35:
                self.timeout(table)
            else:
                self.move(table, engine, self.random)

    def play_out(self, table: Table) -> None:
        engine = get_engine(table.room.game)
        if table.room.game == "baloot":
            # A team whose two players both leave forfeits: the other team wins by the rules.
            seats = self.seated(table)
            humans = [s for s in seats if not s.user.is_bot]
            keep = humans[0].number % 2 if humans else 0
            for seat in seats:
                if seat.number % 2 != keep:
                    self.stand(table, seat.user)
        for _ in range(400):
            table.refresh_from_db()
            if table.status != TableStatus.RUNNING:
                return
            if self.rng.random() < 0.05:
                self.timeout(table)
            else:
                self.move(table, engine, self.default)


def simulate(tables: int) -> None:
    started = time.monotonic()
    conf = WalletSettings.load()
    # Small grants so that money runs short: refused sits, bot top-ups and 31 bailouts all happen.
    conf.welcome_mutiara = conf.welcome_kelereng = 60
    conf.save()
    rng = random.Random(20261130)
    humans = [user_create(username=f"simh{i}", password="pass-word-123") for i in range(6)]
    conf.welcome_chip = 40
    conf.save()
    humans += [user_create(username=f"simh{i}", password="pass-word-123") for i in range(6, 12)]
    conf.welcome_mutiara = conf.welcome_kelereng = 5
    conf.save()
    bots = [bot_create(username=f"simb{i}", display_name=f"Sim bot {i}", style="random", description="Random.")
            for i in range(10)]
    staff = User.objects.create_user(username="simstaff", password="pass-word-123", is_staff=True)
    by_game = _rooms()
    sim = Sim(rng, humans, bots, staff)
    ends: Counter[str] = Counter()
    for i in range(tables):
        game = GAMES[i % len(GAMES)]
        ends[sim.run_table(rng.choice(by_game[game]))] += 1
        if (i + 1) % 100 == 0:
            print(f"{i + 1} tables, {time.monotonic() - started:.0f}s", flush=True)

    assert ledger_problems() == []
    assert not Account.objects.filter(kind=AccountKind.TABLE_ESCROW).exclude(balance=0).exists()
    assert Table.objects.filter(status__in=[TableStatus.OPEN, TableStatus.RUNNING]).count() == 0
    assert sum(ends.values()) == tables
    for game in GAMES:
        # every game both finishes by the rules and gets stopped
        assert ends[f"{game}:finished"] >= tables // 40 and ends[f"{game}:stopped"] >= 1, ends
    finished = sum(n for end, n in ends.items() if end.endswith(":finished"))
    assert tables // 4 <= finished <= tables - tables // 5, ends  # a good share of each outcome
    kinds = Counter(LedgerTransaction.objects.values_list("kind", flat=True))
    # Bailouts come about twice per 120 tables: about one such run in seven has none (they have
    # their own tests in test_table_money.py); the 1,000-table soak always sees some.
    required = ("entry", "refund", "settle", "stop", "hand", "bot_funding") + (("bailout",) if tables >= 500 else ())
    for kind in required:
        assert kinds[kind] > 0, kinds
    assert sim.outcomes["sit_refused:insufficient_funds"] > 0, sim.outcomes
    print(f"\n{dict(ends)}\n{dict(kinds)}\n{dict(sim.outcomes)}\n{time.monotonic() - started:.1f}s")


def test_bot_tables_leave_the_ledger_sound():
    """The everyday run: 120 tables of the same mix (the 1,000-table soak below is the slow one)."""
    simulate(120)


@pytest.mark.slow
def test_a_thousand_bot_tables_leave_the_ledger_sound():
    """The issue's soak: 1,000 tables (several minutes on SQLite, hence ``-m slow``)."""
    simulate(1000)
