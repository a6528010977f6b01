"""Chat moderation in the admin: reports with the reported message in its context, the messages kept
with each table (read-only), and site-wide mutes. Every change and action is in the audit log."""

from __future__ import annotations

from django.contrib import admin, messages
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from audit.mixins import AuditedAdmin
from chat import selectors, services
from chat.models import ChatMessage, ChatReport, ReportStatus, SiteMute
from chat.phrases import PHRASES


def _said(message: ChatMessage) -> str:
    """What a message says, for staff (a quick phrase in the staff member's language, marked)."""
    if message.phrase:
        return f"[{PHRASES.get(message.phrase, message.phrase)}]"
    return message.text


@admin.register(ChatReport)
class ChatReportAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ("id", "created_at", "status", "reason", "reported", "said", "reporter", "table_link")
    list_filter = ("status", "reason")
    search_fields = ("reported__username", "reported__display_name", "reporter__username", "message__text")
    date_hierarchy = "created_at"
    list_select_related = ("message", "message__user", "reported", "reporter")
    fields = ("created_at", "status", "reason", "note", "reporter", "reported", "table_link", "context",
              "reported_mutes", "handled_by", "handled_at")
    readonly_fields = fields
    actions = ["mute_24h", "mute_7d", "mark_dismissed"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # staff act through the actions; the report itself is what the player said

    @admin.display(description=_("message"))
    def said(self, report: ChatReport) -> str:
        return _said(report.message)

    @admin.display(description=_("table"))
    def table_link(self, report: ChatReport):
        table_id = report.message.table_id
        return format_html('<a href="{}">#{}</a>', reverse("admin:rooms_table_change", args=[table_id]), table_id)

    @admin.display(description=_("messages around it"))
    def context(self, report: ChatReport):
        rows = []
        for m in selectors.context_of(message=report.message):
            mark = "★" if m.pk == report.message_id else ""
            rows.append((mark, m.created_at.strftime("%Y-%m-%d %H:%M:%S"), m.get_channel_display(), m.user, _said(m)))
        body = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows)
        return format_html('<table class="chat-context"><thead><tr><th></th><th>{}</th><th>{}</th><th>{}</th>'
                           '<th>{}</th></tr></thead><tbody>{}</tbody></table>',
                           _("sent at"), _("channel"), _("user"), _("message"), body)

    @admin.display(description=_("site-wide mutes of the reported user"))
    def reported_mutes(self, report: ChatReport) -> str:
        mutes = SiteMute.objects.filter(user_id=report.reported_id)[:5]
        return "; ".join(f"{m.until:%Y-%m-%d %H:%M} ({m.reason})" for m in mutes) or "—"

    def _mute(self, request, queryset, hours: int) -> None:
        users = set()
        for report in queryset.select_related("message"):
            if report.reported_id in users:
                services.report_close(report=report, by=request.user, status=ReportStatus.ACTED)
                continue
            services.site_mute(user_id=report.reported_id, by=request.user, hours=hours, report=report,
                               reason=f"{report.get_reason_display()} (report #{report.pk})")
            users.add(report.reported_id)
        self.message_user(request, ngettext("Muted %(n)d user in every chat.", "Muted %(n)d users in every chat.",
                                            len(users)) % {"n": len(users)}, messages.SUCCESS)

    @admin.action(description=_("Mute the reported users in every chat for 24 hours"))
    def mute_24h(self, request, queryset) -> None:
        self._mute(request, queryset, 24)

    @admin.action(description=_("Mute the reported users in every chat for 7 days"))
    def mute_7d(self, request, queryset) -> None:
        self._mute(request, queryset, 24 * 7)

    @admin.action(description=_("Dismiss the selected reports"))
    def mark_dismissed(self, request, queryset) -> None:
        for report in queryset.filter(status=ReportStatus.OPEN):
            services.report_close(report=report, by=request.user, status=ReportStatus.DISMISSED)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """Read-only: what was said stays as said (moderation reads it; nobody edits it)."""

    list_display = ("id", "created_at", "table", "channel", "user", "said", "in_play")
    list_filter = ("channel", "in_play")
    search_fields = ("text", "user__username", "user__display_name")
    raw_id_fields = ("table", "user")
    date_hierarchy = "created_at"
    list_select_related = ("user",)
    readonly_fields = ("table", "user", "channel", "text", "phrase", "in_play", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("message"))
    def said(self, message: ChatMessage) -> str:
        return _said(message)


@admin.register(SiteMute)
class SiteMuteAdmin(AuditedAdmin, admin.ModelAdmin):
    """Staff mute a user in every chat until a moment (add one here for any period), or lift it."""

    list_display = ("user", "until", "active", "reason", "created_by", "created_at")
    search_fields = ("user__username", "user__display_name", "reason")
    raw_id_fields = ("user", "report")
    fields = ("user", "until", "reason", "report", "created_by", "created_at")
    readonly_fields = ("created_by", "created_at")
    actions = ["lift"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # lifted, not deleted: the row is the record

    @admin.display(boolean=True, description=_("in force"))
    def active(self, mute: SiteMute) -> bool:
        return mute.until > timezone.now()

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Lift the selected mutes now"))
    def lift(self, request, queryset) -> None:
        lifted = sum(services.site_mute_lift(user_id=user_id)
                     for user_id in set(queryset.values_list("user_id", flat=True)))
        self.message_user(request, ngettext("Lifted %(n)d mute.", "Lifted %(n)d mutes.", lifted) % {"n": lifted})
