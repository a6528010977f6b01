"""Quick-play queues, the matcher, play-again parties, private tables and ratings.

Every seat is taken through ``rooms.services`` (which holds the table's row lock and runs the
money hooks); a money refusal there (``insufficient_funds`` ...) refuses that player's queue
entry with the same code. Pushes and task enqueues run after commit.

By job: ``queue`` (joining, leaving, the matcher, seating a match), ``tables`` (play again,
private tables) and ``ratings``. The public services are re-exported here.
"""

from matchmaking.services.queue import match_pass, pick_bots, queue_join, queue_leave, seat_match
from matchmaking.services.ratings import rate_table
from matchmaking.services.tables import (
    private_add_bot,
    private_join,
    private_open,
    private_start,
    private_stop,
    private_table,
    rematch,
)

__all__ = [
    "match_pass",
    "pick_bots",
    "private_add_bot",
    "private_join",
    "private_open",
    "private_start",
    "private_stop",
    "private_table",
    "queue_join",
    "queue_leave",
    "rate_table",
    "rematch",
    "seat_match",
]
