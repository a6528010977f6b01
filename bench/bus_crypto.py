#!/usr/bin/env python3
"""CPU cost of encrypting the channel layer (issue 23 #4): one table message (every seat's frame and the
spectators') serialised as published and deserialised as each ASGI process's relay reads it: plain
msgpack, channels_redis' Fernet, and the sealed serializer the settings use (``live.bus_cipher``,
AES-GCM-SIV), with the deployment's keys (``CHANNEL_LAYER_KEYS``). Results: docs/benchmarks.md.

  python bench/bus_crypto.py [--seats 4] [--rounds 20000]
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
os.environ.setdefault("CARDROOM_VAR_DIR", str(ROOT / "var" / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from channels_redis.serializers import registry  # noqa: E402
from django.conf import settings  # noqa: E402

from gameworkers.engines import get_engine  # noqa: E402
from live import bus_cipher  # noqa: E402


def table_message(seats: int) -> dict:
    """A table.state message as rooms.broadcast.state_message builds it, from real Lembar views."""
    engine = get_engine("lembar")
    state = engine.new(bytes(range(32)), seats)
    frames = {str(100 + s): json.dumps({"type": "state", "version": 7, "view": engine.view(state, s)})
              for s in range(seats)}
    frames["watch"] = json.dumps({"type": "state", "version": 7, "view": engine.view(state, None)})
    return {"type": "table.state", "table": 1, "version": 7, "frames": frames,
            "seats": {str(100 + s): s for s in range(seats)}, "events": json.dumps({"type": "event", "events": []})}


def measure(message: dict, form: str, keys: list[str] | None, rounds: int) -> tuple[int, float, float]:
    serializer = registry.get_serializer(form, symmetric_encryption_keys=keys)
    start = time.process_time()
    for _ in range(rounds):
        data = serializer.serialize(message)
    middle = time.process_time()
    for _ in range(rounds):
        serializer.deserialize(data)
    end = time.process_time()
    return len(data), (middle - start) / rounds * 1e6, (end - middle) / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=20000)
    args = parser.parse_args()
    message = table_message(args.seats)
    keys = settings.CHANNEL_LAYER_KEYS
    for label, form, with_keys in (("plain", "msgpack", None), ("fernet", "msgpack", keys),
                                   ("sealed", bus_cipher.FORMAT, keys)):
        size, out_us, in_us = measure(message, form, with_keys, args.rounds)
        print(f"{label:9} {size:6} bytes  publish {out_us:6.1f} us  receive {in_us:6.1f} us (CPU per message)")


if __name__ == "__main__":
    main()
