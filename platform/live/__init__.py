"""The live path, tuned and quarantined: the table socket, the move pool, the relay, the pub/sub
transport, the move's hand-written SQL and the PostgreSQL pipeline, and the patches they need.

Everything that leans on a library's private internals (psycopg's query machinery and pgconn
encoding, redis-py's hiredis parser, channels_redis's channel naming) lives here and nowhere else;
``tests/platform/live/test_pinned_internals.py`` pins those libraries' versions and fails when an
upgrade moves what this package relies on, and checks no module outside it reaches into them.
Rooms, matchmaking and tournaments are plain Django and call in through ``rooms.services``,
``rooms.broadcast`` and the socket base ``core.websocket``.
"""
