"""live.redis_pubsub: the pub/sub reader no longer formats every message for a debug line."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("hiredis")


class Unprintable(list):
    def __repr__(self):  # the workaround must never format the message unless debug logging is on
        raise AssertionError("formatted")

    __str__ = __repr__


def test_the_push_handler_returns_the_message_without_formatting_it():
    from redis._parsers.hiredis import _AsyncHiredisParser

    from live import redis_pubsub

    assert redis_pubsub.install()  # (already installed by the app; installing again is harmless)
    parser = _AsyncHiredisParser(socket_read_size=65536)
    message = Unprintable([b"message", b"channel", b"data"])
    assert asyncio.run(parser.pubsub_push_handler_func(message)) is message
