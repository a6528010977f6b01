"""``AuditedAdmin``: a ModelAdmin mixin that records every create, change, delete and admin action.

Put it first: ``class RoomAdmin(AuditedAdmin, admin.ModelAdmin)``. What it hooks, and why there:
- the object's values *before* a change are taken when the admin loads it (``get_object``: the form
  then changes the instance in place), or re-read from the database in ``save_model`` when a view
  skipped ``get_object`` (list-editable changes);
- ``log_addition`` / ``log_change`` run once the object and its many-to-many fields are saved, so the
  record shows the values as stored (a password change goes through ``log_change`` too);
- deletions (one, or "delete selected") snapshot the rows before they go;
- every other admin action is wrapped: the selected rows are read before and after it, and each gets
  a record with what the action changed (e.g. "clear login throttling" changes nothing stored, and is
  still recorded). An action that fails is recorded with what it changed before it failed.
``audit_exclude`` names fields kept out of the records (e.g. a table's engine state).
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.admin.utils import model_format_dict
from django.utils.translation import gettext as _

from audit import services
from audit.models import AuditAction
from audit.snapshots import diff, snapshot

_BEFORE = "_audit_before"


class AuditedAdmin:
    audit_exclude: tuple[str, ...] = ()

    # ----- snapshots -------------------------------------------------------------------------

    def audit_snapshot(self, obj) -> dict[str, Any]:
        return snapshot(obj, exclude=self.audit_exclude)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            setattr(obj, _BEFORE, self.audit_snapshot(obj))
        return obj

    def save_model(self, request, obj, form, change) -> None:
        if change and getattr(obj, _BEFORE, None) is None:
            stored = type(obj)._base_manager.filter(pk=obj.pk).first()
            if stored is not None:
                setattr(obj, _BEFORE, self.audit_snapshot(stored))
        super().save_model(request, obj, form, change)

    # ----- create and change -----------------------------------------------------------------

    def log_addition(self, request, obj, message):
        entry = super().log_addition(request, obj, message)
        services.record(actor=request.user, action=AuditAction.CREATE, obj=obj,
                        changes=diff(None, self.audit_snapshot(obj)))
        return entry

    def log_change(self, request, obj, message):
        entry = super().log_change(request, obj, message)
        after = self.audit_snapshot(obj)
        changes = diff(getattr(obj, _BEFORE, None), after)
        if changes:
            services.record(actor=request.user, action=AuditAction.CHANGE, obj=obj, changes=changes)
        setattr(obj, _BEFORE, after)  # a second save in the same request diffs from here
        return entry

    # ----- delete ----------------------------------------------------------------------------

    def delete_model(self, request, obj) -> None:
        pk, before = obj.pk, self.audit_snapshot(obj)
        super().delete_model(request, obj)
        services.record(actor=request.user, action=AuditAction.DELETE, obj=obj, object_id=pk,
                        changes=diff(before, None))

    def delete_queryset(self, request, queryset) -> None:
        gone = [(obj, obj.pk, diff(self.audit_snapshot(obj), None)) for obj in queryset]
        super().delete_queryset(request, queryset)
        services.record_many(actor=request.user, action=AuditAction.DELETE, items=gone)

    # ----- admin actions ---------------------------------------------------------------------

    def get_actions(self, request):
        actions = super().get_actions(request)
        # "Delete selected" is recorded by delete_queryset, per row deleted (its first step only asks).
        return {name: (func if name == "delete_selected" else self._audited(func, name, description),
                       name, description)
                for name, (func, _name, description) in actions.items()}

    def _audited(self, func, name: str, description):
        @functools.wraps(func)
        def run(modeladmin, request, queryset):
            rows = list(queryset)
            before = {obj.pk: modeladmin.audit_snapshot(obj) for obj in rows}
            note = str(description) % model_format_dict(modeladmin.opts)  # as the action menu shows it
            try:
                return func(modeladmin, request, queryset)
            except Exception as exc:
                note = _("%(note)s — failed: %(error)s") % {"note": note, "error": type(exc).__name__}
                raise
            finally:
                now = modeladmin.model._base_manager.in_bulk(list(before))
                items = [(now.get(obj.pk, obj), obj.pk,
                          diff(before[obj.pk], modeladmin.audit_snapshot(now[obj.pk]) if obj.pk in now else None))
                         for obj in rows]
                services.record_many(actor=request.user, action=AuditAction.ACTION, items=items,
                                     action_name=name, note=note)

        return run
