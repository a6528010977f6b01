"""The message bus is treated like the database (issue 23 #4): a client of the same Redis server that
subscribes to everything sees this deployment's channel names and ciphertext, never a seat's hidden
cards, while the platform's own relay still delivers every frame."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time

import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings

from gameworkers.engines import get_engine
from live import bus_cipher, relay
from rooms import broadcast, selectors, services


def _started_table(room, make_user):
    a, b = make_user(), make_user()
    table = services.table_open(room=room, host=a)
    services.table_sit(table_id=table.pk, user=a)
    services.table_sit(table_id=table.pk, user=b)
    services.table_start(table_id=table.pk, by=a)
    table.refresh_from_db()
    return table


def _eavesdrop(ready: threading.Event, heard: list, stop: threading.Event) -> None:
    client = redis.Redis.from_url(settings.REDIS_URL)
    sub = client.pubsub()
    sub.psubscribe("*")
    while sub.get_message(timeout=1) is None:  # the server's confirmation: subscribed before anything is sent
        pass
    ready.set()
    while not stop.is_set():
        message = sub.get_message(timeout=0.05)
        if message and message["type"] == "pmessage":
            heard.append((message["channel"], message["data"]))
    sub.close()


@pytest.mark.django_db(transaction=True)
def test_a_bare_subscriber_sees_no_hidden_card_and_the_relay_still_delivers(lembar_room, make_user):
    table = _started_table(lembar_room, make_user)
    engine = get_engine("lembar")
    hidden = set(engine.hidden_cards(table.state, None))  # both hands and the stock
    assert hidden
    message = broadcast.state_message(table, events=[], seats=selectors.seats_public(table), host=None)
    assert any(card in "".join(message["frames"].values()) for card in hidden)  # the frames carry hands

    ready, stop, heard = threading.Event(), threading.Event(), []
    listener = threading.Thread(target=_eavesdrop, args=(ready, heard, stop), daemon=True)
    listener.start()
    ready.wait(5)

    async def main() -> list[dict]:
        hub = relay.for_running_loop(get_channel_layer())
        got: list[dict] = []

        class Socket:
            def relay(self, msg: dict) -> None:
                got.append(msg)

        socket = Socket()
        await hub.join(table.pk, socket)
        await asyncio.to_thread(broadcast.publish, [(broadcast.all_group(table.pk), message)])
        for _ in range(200):
            if got:
                break
            await asyncio.sleep(0.01)
        await hub.leave(table.pk, socket)
        return got

    delivered = asyncio.run(main())
    assert delivered and delivered[0]["frames"] == message["frames"]  # the platform reads its own bus

    # Other deployments on this Redis server (another xdist worker, another checkout's tests) publish the
    # same group names under their own prefix ("cr" and 12 hex digits): theirs are not this table's.
    group = f"__group__{broadcast.all_group(table.pk)}".encode()

    def heard_here() -> list[tuple[bytes, bytes]]:
        return [(channel, data) for channel, data in list(heard) if channel.endswith(group)
                and (channel.startswith(settings.CHANNEL_PREFIX.encode()) or not re.match(rb"cr[0-9a-f]{12}__", channel))]

    # The relay may hear the message before the eavesdropper's thread gets the GIL to read it.
    for _ in range(500):
        if heard_here():
            break
        time.sleep(0.01)
    stop.set()
    listener.join(5)
    mine = heard_here()
    assert mine, heard
    for channel, data in mine:
        assert channel.startswith(settings.CHANNEL_PREFIX.encode()) and b"asgi" not in channel
        # Sealed (live.bus_cipher): version byte, key id, nonce, ciphertext. Short card codes turn up in
        # any random bytes by chance, so look for the structure and the seats' frames themselves.
        assert data[:1] == bus_cipher.VERSION and len(data) > bus_cipher.HEADER_BYTES + 16, data[:80]
        assert b"frames" not in data and b"watch" not in data and b"hand" not in data
        assert not any(frame.encode()[:40] in data for frame in message["frames"].values())


def test_the_prefix_and_key_are_per_deployment():
    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] == settings.CHANNEL_PREFIX
    assert settings.CHANNEL_PREFIX != "asgi" and settings.SECRET_KEY not in settings.CHANNEL_PREFIX
    keys = settings.CHANNEL_LAYERS["default"]["CONFIG"]["symmetric_encryption_keys"]
    assert keys and all(settings.SECRET_KEY not in k for k in keys)
    layer = get_channel_layer()
    # (a marker no ciphertext holds by chance: a two-letter card code may, one run in a few dozen)
    frame = json.dumps({"hand": ["K7", "SECRET-HAND-MARKER"]})
    sealed = layer.serialize({"type": "x", "frames": {"1": frame}})
    assert b"SECRET-HAND-MARKER" not in sealed and b"hand" not in sealed
    assert layer.deserialize(sealed)["frames"]["1"] == frame
