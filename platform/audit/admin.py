"""The audit log in the admin: read-only for everyone, superusers included (nobody edits history)."""

from __future__ import annotations

import json

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from audit.models import AuditRecord
from audit.snapshots import describe


@admin.register(AuditRecord)
class AuditRecordAdmin(admin.ModelAdmin):
    list_display = ("created_at", "actor_name", "action", "action_name", "model", "object_repr", "summary")
    list_filter = ("action", "model", "action_name")
    search_fields = ("actor_name", "object_repr", "object_id", "action_name", "note")
    date_hierarchy = "created_at"
    actions = None
    fields = ("created_at", "actor", "actor_name", "action", "action_name", "model", "object_id", "object_repr",
              "note", "changes_table")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("what changed"))
    def summary(self, record: AuditRecord) -> str:
        return describe(record.changes) or record.note

    @admin.display(description=_("changes"))
    def changes_table(self, record: AuditRecord):
        if not record.changes:
            return "—"
        rows = format_html_join("", "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
                                ((name, _json(old), _json(new)) for name, (old, new) in record.changes.items()))
        return format_html('<table><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>',
                           _("field"), _("before"), _("after"), rows)


def _json(value) -> str:
    if value is None:
        return "—"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
