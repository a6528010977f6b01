"""JSON on the move's hot path (table states to and from the database, frames to sockets) with orjson:
encoding and decoding those few KB took an eighth of a web process's CPU with the standard library.

Same values as ``json``, with one exception: keys that are not strings are written as strings; what
orjson will not write (an integer beyond 64 bits, a type it does not know) is written by ``json``; text
with ``NaN``/``Infinity`` (which ``json`` writes and orjson refuses) is read by ``json``. The exception:
orjson reads an integer beyond 64 bits as a float. Only the hot path's columns use this (engine states,
seat maps, move and event payloads: counts, chips, card codes, millisecond times), and none holds such a
number; checking every text for one cost six times the parse. The text written differs only in spacing
and in non-ASCII characters written as UTF-8 instead of ``\\u`` escapes.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
