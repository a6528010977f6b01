"""A workaround for redis-py's asyncio pub/sub reader, which the channel layer receives through.

redis-py (8.x) hands every pub/sub message its hiredis parser reads to
``_AsyncHiredisParser.handle_pubsub_push_response``, which builds ``"Push response: " + str(response)``
for a debug log line before the logger decides whether to emit it: a repr of the whole message (every
seat's frame of a move, ~10 KB) per message. That was 8 % of an ASGI process's event loop under load.
The replacement returns the message as the original does and logs nothing: with debug logging on, the
original would also have written every seat's hidden frame to the log.
"""

from __future__ import annotations


async def _handle_pubsub_push_response(self, response):
    return response


def install() -> bool:
    """Replace the handler where it exists (a redis-py without it needs nothing); True if replaced."""
    try:
        from redis._parsers.hiredis import _AsyncHiredisParser
    except ImportError:
        return False
    if not hasattr(_AsyncHiredisParser, "handle_pubsub_push_response"):
        return False
    _AsyncHiredisParser.handle_pubsub_push_response = _handle_pubsub_push_response
    return True
