"""Demo data: rooms for all four games with the seeds' settings, bots, a demo player and staff.

Idempotent: running it again updates the same rows.
"""

from __future__ import annotations

import os
import secrets

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

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
            if not User.objects.filter(username="demo").exists():
                created["demo"] = os.environ.get("DEMO_PASSWORD") or secrets.token_urlsafe(12)
                user_create(username="demo", password=created["demo"], display_name="Demo Player")
            if not User.objects.filter(username="staff").exists():
                created["staff"] = os.environ.get("STAFF_PASSWORD") or secrets.token_urlsafe(12)
                staff = user_create(username="staff", password=created["staff"], display_name="Staff")
                staff.is_staff = staff.is_superuser = True
                staff.save(update_fields=["is_staff", "is_superuser"])
        self.stdout.write(f"{Room.objects.count()} rooms, {User.objects.filter(is_bot=True).count()} bots")
        for username, role in (("demo", "demo player"), ("staff", "staff user ")):
            # A password is shown once, when the account is made; it is stored only as a hash.
            shown = created.get(username, "(set when it was created; change it in the admin)")
            self.stdout.write(f"{role}: {username} / {shown}")
        self.stdout.write(f"admin: /{settings.ADMIN_PATH}")
