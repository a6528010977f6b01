"""Matchmaking admin. Every change and action here is in the audit log (``audit.mixins.AuditedAdmin``)."""

from django.contrib import admin

from audit.mixins import AuditedAdmin
from matchmaking.models import Match, QueueEntry, Rating, RatingChange


@admin.register(QueueEntry)
class QueueEntryAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ["id", "user", "room", "status", "party", "rating", "joined_at", "table", "error_code"]
    list_filter = ["status", "room"]
    raw_id_fields = ["user", "match", "table"]


@admin.register(Match)
class MatchAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ["id", "room", "status", "seat_count", "bots", "table", "created_at", "error_code"]
    list_filter = ["status", "room"]
    raw_id_fields = ["table"]


@admin.register(Rating)
class RatingAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ["user", "game", "ordinal", "mu", "sigma", "games", "updated_at"]
    list_filter = ["game"]
    raw_id_fields = ["user"]


@admin.register(RatingChange)
class RatingChangeAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ["table", "user", "game", "rank", "mu_before", "mu_after"]
    raw_id_fields = ["table", "user"]
