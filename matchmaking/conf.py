"""Matcher knobs (override with ``MATCHMAKING_*`` in Django settings). Ratings are OpenSkill mu units."""

from __future__ import annotations

from django.conf import settings

# The allowed rating gap between two waiting players: BASE + PER_SECOND * seconds waited, at most MAX.
# A pair is compatible when the gap fits both players' windows (Lichess pools style).
BASE_GAP = float(getattr(settings, "MATCHMAKING_BASE_GAP", 3.0))
GAP_PER_SECOND = float(getattr(settings, "MATCHMAKING_GAP_PER_SECOND", 0.5))
MAX_GAP = float(getattr(settings, "MATCHMAKING_MAX_GAP", 15.0))
# The timer process enqueues a matcher pass at most this often (seconds).
MATCHER_INTERVAL_S = float(getattr(settings, "MATCHMAKING_INTERVAL_S", 1.0))
# Recent seated entries used for the per-room estimated wait.
WAIT_SAMPLE = int(getattr(settings, "MATCHMAKING_WAIT_SAMPLE", 20))
# Size of a bot-filled quick-play table: "min" = max(room minimum, humans) so bots take as few
# seats as possible; "full" = the room's seat count. Bots-only rooms (AI Arena) always use every seat.
BOT_TABLES = str(getattr(settings, "MATCHMAKING_BOT_TABLES", "min"))
