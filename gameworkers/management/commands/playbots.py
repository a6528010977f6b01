"""Play one whole game between bots with the engine alone and write its proof document."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from gameworkers.bots import get_bot, styles
from gameworkers.engines import ENGINE_NAMES, fairness, get_engine
from gameworkers.simulate import play_game


class Command(BaseCommand):
    help = "Play a game between bots (no Redis, no database) and write the proof JSON."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, choices=ENGINE_NAMES)
        parser.add_argument("--seats", type=int, required=True)
        parser.add_argument("--seed", help="64 hex characters (default: a fresh random seed)")
        parser.add_argument("--out", required=True, help="where to write the proof JSON")
        parser.add_argument("--style", action="append", default=[],
                            help="bot style per seat, in seat order (repeat); default: the game's default")
        parser.add_argument("--options", default="{}", help="engine options as JSON")

    def handle(self, *args, game, seats, seed, out, style, options, **kw):
        try:
            seed_bytes = fairness.seed_from_hex(seed) if seed else fairness.new_seed()
        except ValueError as exc:
            raise CommandError(f"--seed: {exc}") from exc
        try:
            opts = json.loads(options)
            assert isinstance(opts, dict)
        except (ValueError, AssertionError) as exc:
            raise CommandError("--options must be a JSON object") from exc
        known = styles(game)
        for s in style:
            if s not in known:
                raise CommandError(f"unknown style {s!r} for {game}; known: {', '.join(known)}")
        chosen = (style + [None] * seats)[:seats]
        bots = [get_bot(game, s) for s in chosen]
        try:
            state = play_game(game, seed_bytes, seats, options=opts, bots=bots,
                              rng_seed=int.from_bytes(seed_bytes[:8], "big"))
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        proof = get_engine(game).proof(state)
        proof["seats"] = [{"seat": i, "player": f"{b.style} bot", "bot": True} for i, b in enumerate(bots)]
        Path(out).write_text(json.dumps(proof, indent=1))
        self.stdout.write(json.dumps({"result": proof["result"], "moves": len(proof["moves"]), "out": out}))
