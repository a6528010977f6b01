"""JSON on the move's hot path (table states to and from the database, frames to sockets) with orjson:
encoding and decoding those few KB took an eighth of a web process's CPU with the standard library.

Same values as ``json``: keys that are not strings are written as strings, and anything orjson refuses
(an integer beyond 64 bits, a subclass it does not know) falls back to ``json``. The text differs only
in spacing and in writing non-ASCII characters as UTF-8 instead of ``\\u`` escapes.
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
    return orjson.loads(text)
