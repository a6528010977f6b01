#!/usr/bin/env python3
"""Arena benchmark: N players through the real pipeline to a paid-out finish (docs/arenas.md).

PostgreSQL, Redis, a Celery worker pool, the timer process and uvicorn (``bench.load.Stack``). N player
accounts join an arena of a casual room (paying its entry fee), then are marked as bots (``join``
refuses bots, so they join first): the workers' bot turns play every move, no websocket clients. The
timer's housekeeping starts the arena, pairs players as their games end (``table_finished`` →
``arenas.tasks.game_over``), ends the window and pays the prizes. ``bot_fill_seconds`` is set to its
maximum so no fill bot ever sits: every seat is an arena player.

Reports wall time (start to paid-out finish), games, moves, moves/s, CPU seconds of the stack and
``ledger_check`` (``wallets.checks.ledger_problems``) after the finish.

  python bench/arenas.py --players 200 --minutes 4 --workers 2 --style cerdik
  DATABASE_URL=postgres://postgres@127.0.0.1:5432/other REDIS_URL=redis://127.0.0.1:6379/5 python bench/arenas.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

BOT_FILL_NEVER = 32_767  # the field's maximum: players wait for each other, never for fill bots


def machine() -> dict:
    import platform as _platform

    return {"cpus": os.cpu_count(), "python": _platform.python_version(), "system": _platform.platform(),
            "load": [round(x, 2) for x in os.getloadavg()]}


def make_players(count: int, *, prefix: str) -> list:
    """``count`` player accounts (welcome grant included), reused by later runs on the same database."""
    from django.conf import settings

    from accounts.models import User
    from accounts.services import user_create

    # They never log in: the cheapest hasher keeps 200 sign-ups from costing a minute of PBKDF2.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    have = {u.username: u for u in User.objects.filter(username__startswith=prefix)}
    users = []
    for i in range(count):
        name = f"{prefix}{i}"
        users.append(have.get(name) or user_create(username=name, password="bench-pass-123",
                                                   display_name=f"AB {i}"))
    return users


def run(players: int, *, game: str, seats: int, minutes: int, workers: int, timeout: float, bot_delay: str,
        turn_seconds: int, entry_fee: int, rake_bps: int, style: str) -> dict:
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cardroom_bench_arenas")
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/3")
    os.environ.setdefault("CARDROOM_VAR_DIR", str(ROOT / "var" / "bench"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from bench.load import Stack, setup_django

    setup_django()
    from datetime import timedelta

    from django.db.models import Sum
    from django.utils import timezone

    from accounts.models import User
    from arenas import services
    from arenas.models import Arena, ArenaGame, ArenaPlayer, Status
    from rooms.models import Room, StakeKind, Table
    from wallets.checks import ledger_problems

    room, _ = Room.objects.get_or_create(slug=f"bench-arena-{game}-{seats}", defaults={
        "name": f"Bench {game} arena", "game": game, "seats": seats, "min_seats": seats,
        "turn_seconds": turn_seconds, "stake_kind": StakeKind.CASUAL})
    users = make_players(players, prefix="abench-")
    t0 = time.monotonic()
    arena = services.arena_create(name=f"Bench arena {players}", room=room,
                                  starts_at=timezone.now() + timedelta(hours=1), duration_minutes=minutes,
                                  bot_fill_seconds=BOT_FILL_NEVER, entry_fee=entry_fee, rake_bps=rake_bps)
    for user in users:
        services.join(arena_id=arena.pk, user=user)
    # Bots from now on: the workers play their turns (the seat's bot flag is read when a game seats them).
    User.objects.filter(pk__in=[u.pk for u in users]).update(is_bot=True, bot_style=style)
    setup_s = time.monotonic() - t0
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    stack = Stack(workers=workers, bot_delay=bot_delay)
    stack.start()
    try:
        cpu0 = stack.cpu_seconds()
        services.start(arena_id=arena.pk, force=True)  # the window begins now; everyone is paired
        begin = time.monotonic()
        window_end = None
        while time.monotonic() - begin < timeout:
            arena = Arena.objects.get(pk=arena.pk)
            if window_end is None and timezone.now() >= arena.ends_at:
                window_end = time.monotonic()
            if arena.status in (Status.FINISHED, Status.CANCELLED):
                break
            time.sleep(0.5)
        end = time.monotonic()
        cpu = stack.cpu_seconds() - cpu0
    finally:
        stack.stop()
    games = ArenaGame.objects.filter(arena=arena)
    tables = Table.objects.filter(pk__in=games.values("table_id"))
    moves = tables.aggregate(total=Sum("version"))["total"] or 0
    wall = end - begin
    top = ArenaPlayer.objects.filter(arena=arena, place=1).select_related("user").first()
    problems = ledger_problems()
    return {
        "mode": "pipeline", "game": game, "players": players, "seats": seats, "minutes": minutes,
        "workers": workers, "bot_delay_ms": bot_delay, "style": style, "status": arena.status,
        "cancel_reason": arena.cancel_reason or None, "setup_s": round(setup_s, 1),
        "games": games.count(), "games_scored": games.filter(scored=True).count(),
        "games_finished": tables.filter(status="finished").count(), "moves": moves,
        "wall_s": round(wall, 1), "after_window_s": round(end - window_end, 1) if window_end else None,
        "moves_per_s": round(moves / wall, 1) if wall else None, "cpu_s": round(cpu, 1),
        "prize_pool": arena.pool, "paid_places": ArenaPlayer.objects.filter(arena=arena, prize__gt=0).count(),
        "winner": {"name": top.user.username, "score": top.score} if top else None,
        "ledger_check": "clean" if not problems else problems[:20],
        "database": os.environ["DATABASE_URL"].split("@")[-1], "load_at_start": load_at_start, "machine": machine(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--game", default="lembar")
    parser.add_argument("--seats", type=int, default=4, help="players per game (the room's seats)")
    parser.add_argument("--minutes", type=int, default=4, help="the arena's window")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--bot-delay", default="5,20")
    parser.add_argument("--turn-seconds", type=int, default=20)
    parser.add_argument("--entry-fee", type=int, default=10)
    parser.add_argument("--rake-bps", type=int, default=500)
    parser.add_argument("--style", default="cerdik", help="the bot style playing every seat")
    args = parser.parse_args(argv)
    result = run(args.players, game=args.game, seats=args.seats, minutes=args.minutes, workers=args.workers,
                 timeout=args.timeout, bot_delay=args.bot_delay, turn_seconds=args.turn_seconds,
                 entry_fee=args.entry_fee, rake_bps=args.rake_bps, style=args.style)
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(json.dumps(result, indent=2))
    return 0 if result["status"] == "finished" and result["ledger_check"] == "clean" else 1


if __name__ == "__main__":
    sys.exit(main())
