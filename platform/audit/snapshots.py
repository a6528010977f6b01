"""What an object looked like, and what changed between two looks (no writes here).

A snapshot maps every concrete field to a JSON value (a foreign key as the related row's id) and
every many-to-many field to its sorted ids. Secret fields are kept only as a fingerprint, so a
change is still seen but the value never reaches the audit log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import datetime, time
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

HIDDEN = "(hidden)"
# A field whose name holds one of these is a secret: a password hash, a table's seed, a token.
SECRET_MARKERS = ("password", "secret", "token", "seed")
MAX_VALUE_CHARS = 2000  # a long JSON value (a table's result) is cut: the log is for reading


def is_secret(name: str) -> bool:
    return any(marker in name for marker in SECRET_MARKERS)


def _plain(value: Any) -> Any:
    """A JSON value standing for ``value`` (dates as ISO text, bytes as their length)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    if isinstance(value, datetime | time):
        # To the second: the admin's form drops microseconds on every save, which is no one's change.
        value = value.replace(microsecond=0)
    try:
        text = json.dumps(value, cls=DjangoJSONEncoder)
    except (TypeError, ValueError):
        text = json.dumps(str(value))
    if len(text) > MAX_VALUE_CHARS:
        return text[:MAX_VALUE_CHARS] + "…"
    return json.loads(text)


def _fingerprint(value: Any) -> str:
    return "sha256:" + hashlib.sha256(repr(value).encode()).hexdigest()


def snapshot(obj: models.Model, *, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """The object's field values now (many-to-many ones read from the database)."""
    skip = set(exclude)
    values: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        if field.name in skip:
            continue
        value = field.value_from_object(obj)
        values[field.name] = _fingerprint(value) if is_secret(field.name) else _plain(value)
    if obj.pk is not None:
        for field in obj._meta.many_to_many:
            if field.name not in skip:
                values[field.name] = sorted(getattr(obj, field.name).values_list("pk", flat=True))
    return values


def diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, list[Any]]:
    """``{field: [old, new]}`` for every field whose value differs (None stands for "no object")."""
    before, after = before or {}, after or {}
    changes: dict[str, list[Any]] = {}
    for name in [*after, *(n for n in before if n not in after)]:
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if is_secret(name):
            old, new = (HIDDEN if old is not None else None), (HIDDEN if new is not None else None)
        changes[name] = [old, new]
    return changes


def describe(changes: dict[str, list[Any]], *, limit: int = 300) -> str:
    """"field: old → new; …" in one line (the admin list and LogEntry-like summaries)."""
    text = "; ".join(f"{name}: {_short(old)} → {_short(new)}" for name, (old, new) in changes.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any) -> str:
    if value is None:
        return "—"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"
