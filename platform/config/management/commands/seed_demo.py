"""Demo data: rooms for all four games with the seeds' settings, bots, a demo player and staff, a
daily 31 freezeout and a 31 sit & go (with their own casual 31 room; bots fill them).

Idempotent: running it again updates the same rows (and never schedules a second demo tournament
while one is still to come).
"""

from __future__ import annotations

import os
import secrets
from datetime import datetime, time, timedelta

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import bot_create, user_create
from rooms.models import Room

ROOMS = [
    # Lembar (2-6 players); pot tables per the Lembar seed's stakes section.
    dict(slug="lembar-santai", name="Lembar Santai", game="lembar", seats=4, min_seats=2),
    dict(slug="lembar-pot-mutiara", name="Pot Mutiara 10", game="lembar", seats=4, min_seats=2,
         stake_kind="pot", currency="MUT", stake=10, rake_bps=500),
    dict(slug="lembar-pot-kelereng", name="Pot Kelereng 25", game="lembar", seats=6, min_seats=3,
         stake_kind="pot", currency="KEL", stake=25, rake_bps=500),
    # Baloot: Classic and Fast modes.
    dict(slug="baloot-classic", name="Baloot Classic", game="baloot", seats=4, min_seats=4,
         options={"mode": "classic"}),
    dict(slug="baloot-fast", name="Baloot Fast", game="baloot", seats=4, min_seats=4,
         options={"mode": "fast"}),
    dict(slug="baloot-pot", name="Baloot Pot 20", game="baloot", seats=4, min_seats=4,
         options={"mode": "fast"}, stake_kind="pot", currency="KEL", stake=20, rake_bps=500),
    # Cherki: three players, settled in Chip per point.
    dict(slug="cherki-santai", name="Cherki Santai", game="cherki", seats=3, min_seats=3),
    dict(slug="cherki-1", name="Cherki 1 Chip", game="cherki", seats=3, min_seats=3,
         stake_kind="per_point", currency="CHP", stake=1),
    # 31: the seed's five rooms and their antes.
    dict(slug="ai-arena", name="AI Arena", game="otuzbir", seats=4, min_seats=2, stake_kind="ante",
         currency="CHP", stake=1, bots_only=True, fill_delay_seconds=0),
    dict(slug="kahvehane", name="Kahvehane", game="otuzbir", seats=5, min_seats=2, stake_kind="ante",
         currency="CHP", stake=1),
    dict(slug="salon", name="Salon", game="otuzbir", seats=5, min_seats=2, stake_kind="ante",
         currency="CHP", stake=5),
    dict(slug="casino", name="Casino", game="otuzbir", seats=5, min_seats=2, stake_kind="ante",
         currency="CHP", stake=10),
    dict(slug="ozel-ada", name="Özel Ada", game="otuzbir", seats=5, min_seats=2, stake_kind="ante",
         currency="CHP", stake=25),
]

# Tournament tables play for tournament chips, never Chip: a casual 31 room of their own (Tournament.clean).
TOURNAMENT_ROOM = dict(slug="otuzbir-turnuva", name="31 Turnuva", game="otuzbir", seats=7, min_seats=2,
                       stake_kind="casual", stake=0, turn_seconds=20)
# A daily 31 freezeout (economy.md: 20 Chip entry, 100 chips, the ante doubling every 5 hands, 70/30):
# registration open at once, starting every evening at 20:00, bots filling up to the minimum of four.
DEMO_TOURNAMENT = dict(name="Daily 31 Freezeout", entry_fee=20, starting_stack=100,
                       ante_schedule={"base": 1, "double_every": 5}, seats_per_table=7, min_entrants=4,
                       fill_with_bots=True, repeat_every=timedelta(days=1))
DEMO_TOURNAMENT_AT = time(20, 0)
# A 31 sit & go beside it: six players, starting when full; bots take the empty seats 60 s after the first
# registration; each one that starts opens the next (tournaments.md, "Formats").
DEMO_SIT_AND_GO = dict(name="31 Sit & Go (6)", entry_fee=20, starting_stack=100,
                       ante_schedule={"base": 1, "double_every": 5}, seats_per_table=6, min_entrants=2,
                       max_entrants=6, sit_and_go=True, fill_with_bots=True, fill_after_seconds=60)
# A daily Lembar arena (docs/arenas.md): an hour every evening at 19:00 in the casual Lembar room, free,
# bots taking the seats nobody fills after 10 s.
DEMO_ARENA = dict(name="Daily Lembar Arena", duration_minutes=60, entry_fee=0, bot_fill_seconds=10,
                  repeat_every=timedelta(days=1))
DEMO_ARENA_ROOM, DEMO_ARENA_AT = "lembar-santai", time(19, 0)

# Bot accounts; a style names a policy in gameworkers.bots (each game maps it to its closest style).
BOTS = [
    ("bot-sari", "Bu Sari", "careful", "Plays safe: keeps its strong cards, rarely bluffs, folds weak hands."),
    ("bot-budi", "Pak Budi", "aggressive", "Presses every edge: bids high, raises often and attacks the leader."),
    ("bot-aylin", "Aylin", "tricky", "Mixes it up: sometimes bluffs, sometimes slow-plays a strong hand."),
    ("bot-rafi", "Rafi", "balanced", "Weighs every option by simulation and plays the odds."),
    ("bot-hamid", "Hamid", "careful", "Patient and solid: waits for good hands and plays them straight."),
    ("bot-mei", "Mei Ling", "aggressive", "Fast and bold: takes risks to win big."),
    ("bot-kemal", "Kemal", "tricky", "Hard to read: varies its bets and its pace."),
]

class Command(BaseCommand):
    help = ("Load demo rooms, bots, a demo player and a staff user (idempotent). Passwords come from "
            "DEMO_PASSWORD / STAFF_PASSWORD or are generated and printed once. Refuses to run with DEBUG "
            "off unless --allow-production: it creates a superuser.")

    def add_arguments(self, parser):
        parser.add_argument("--allow-production", action="store_true",
                            help="run although DEBUG is off (a superuser is created)")

    def handle(self, *args, allow_production: bool = False, **kw):
        if not settings.DEBUG and not allow_production:
            raise CommandError("seed_demo creates a superuser: with DEBUG off, pass --allow-production if you mean it.")
        created: dict[str, str] = {}
        with transaction.atomic():
            for position, spec in enumerate(ROOMS):
                spec = dict(spec)
                slug = spec.pop("slug")
                spec.setdefault("position", position)
                room, _ = Room.objects.update_or_create(slug=slug, defaults=spec)
                room.full_clean()
            for username, name, style, description in BOTS:
                bot_create(username=username, display_name=name, style=style, description=description)
            tournament = self._demo_tournament() if apps.is_installed("tournaments") else None
            arena = self._demo_arena() if apps.is_installed("arenas") else None
            if not User.objects.filter(username="demo").exists():
                created["demo"] = os.environ.get("DEMO_PASSWORD") or secrets.token_urlsafe(12)
                user_create(username="demo", password=created["demo"], display_name="Demo Player")
            if not User.objects.filter(username="staff").exists():
                created["staff"] = os.environ.get("STAFF_PASSWORD") or secrets.token_urlsafe(12)
                staff = user_create(username="staff", password=created["staff"], display_name="Staff")
                staff.is_staff = staff.is_superuser = True
                staff.save(update_fields=["is_staff", "is_superuser"])
        self.stdout.write(f"{Room.objects.count()} rooms, {User.objects.filter(is_bot=True).count()} bots")
        if tournament is not None:
            self.stdout.write(f"tournament: {tournament.name}, {timezone.localtime(tournament.starts_at):%Y-%m-%d %H:%M}")
        if arena is not None:
            self.stdout.write(f"arena: {arena.name}, {timezone.localtime(arena.starts_at):%Y-%m-%d %H:%M}")
        for username, role in (("demo", "demo player"), ("staff", "staff user ")):
            # A password is shown once, when the account is made; it is stored only as a hash.
            shown = created.get(username, "(set when it was created; change it in the admin)")
            self.stdout.write(f"{role}: {username} / {shown}")
        self.stdout.write(f"admin: /{settings.ADMIN_PATH}")

    def _demo_tournament(self):
        """The daily 31 freezeout, unless one is still to come (the recurring one schedules its next), and
        the 31 sit & go, unless one is open for registration (a running one opened its next itself)."""
        from tournaments import services as tournament_services
        from tournaments.models import Status, Tournament

        spec = dict(TOURNAMENT_ROOM)
        room, _ = Room.objects.update_or_create(slug=spec.pop("slug"), defaults=spec)
        room.full_clean()
        if not Tournament.objects.filter(name=DEMO_SIT_AND_GO["name"],
                                         status__in=[Status.ANNOUNCED, Status.REGISTERING]).exists():
            tournament_services.tournament_create(room=room, **DEMO_SIT_AND_GO)  # one open at a time
        upcoming = Tournament.objects.filter(name=DEMO_TOURNAMENT["name"], status__in=[
            Status.ANNOUNCED, Status.REGISTERING, Status.RUNNING]).order_by("starts_at").first()
        if upcoming is not None:
            return upcoming
        return tournament_services.tournament_create(room=room, starts_at=next_at(DEMO_TOURNAMENT_AT),
                                                     **DEMO_TOURNAMENT)

    def _demo_arena(self):
        """The daily Lembar arena, unless one is still to come (the recurring one schedules its next)."""
        from arenas import services as arena_services
        from arenas.models import Arena, Status

        upcoming = Arena.objects.filter(name=DEMO_ARENA["name"], status__in=[Status.SCHEDULED, Status.RUNNING]
                                        ).order_by("starts_at").first()
        if upcoming is not None:
            return upcoming
        return arena_services.arena_create(room=Room.objects.get(slug=DEMO_ARENA_ROOM),
                                           starts_at=next_at(DEMO_ARENA_AT), **DEMO_ARENA)


def next_at(when: time, *, now: datetime | None = None) -> datetime:
    """The next moment the local clock shows ``when`` (today, or tomorrow once it has passed)."""
    now = timezone.localtime(now or timezone.now())
    start = now.replace(hour=when.hour, minute=when.minute, second=0, microsecond=0)
    return start if start > now + timedelta(minutes=5) else start + timedelta(days=1)
