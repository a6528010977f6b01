"""Writing audit records (the only writer of ``AuditRecord``).

Records are written in the caller's transaction: an admin change and its record commit or roll back
together, so the log never shows a change that did not happen nor misses one that did.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models

from audit.errors import AuditError
from audit.models import AuditAction, AuditRecord


def _actor_fields(actor) -> dict[str, Any]:
    if actor is None or not getattr(actor, "is_authenticated", False):
        return {"actor": None, "actor_name": "(system)"}
    return {"actor": actor, "actor_name": actor.get_username()[:150]}


def _record(*, actor, action: str, obj: models.Model, changes: dict[str, list[Any]] | None,
            action_name: str, note: str, object_id: Any = None) -> AuditRecord:
    if action not in AuditAction.values:
        raise AuditError("bad_audit_action", f"Unknown audit action {action!r}.")
    pk = obj.pk if object_id is None else object_id
    return AuditRecord(**_actor_fields(actor), action=action, action_name=action_name[:100],
                       model=obj._meta.label_lower, object_id=str(pk)[:64], object_repr=str(obj)[:200],
                       changes=changes or {}, note=note[:300])


def record(*, actor, action: str, obj: models.Model, changes: dict[str, list[Any]] | None = None,
           action_name: str = "", note: str = "", object_id: Any = None) -> AuditRecord:
    """One record of ``actor`` doing ``action`` to ``obj`` (``object_id`` for an object already deleted)."""
    row = _record(actor=actor, action=action, obj=obj, changes=changes, action_name=action_name, note=note,
                  object_id=object_id)
    row.save()
    return row


def record_many(*, actor, action: str, items: Iterable[tuple[models.Model, Any, dict[str, list[Any]]]],
                action_name: str = "", note: str = "") -> list[AuditRecord]:
    """One record per ``(obj, object_id, changes)``, in one insert (an admin action on many rows)."""
    rows = [_record(actor=actor, action=action, obj=obj, changes=changes, action_name=action_name, note=note,
                    object_id=object_id) for obj, object_id, changes in items]
    return AuditRecord.objects.bulk_create(rows)
