"""Arena admin (docs/arenas.md): schedule arenas (recurring with "repeat every"), start one now or
cancel it (every entry back). Every change and action is in the audit log (``AuditedAdmin``); the
entry fee, currency, rake and prize split turn read-only once a player joined (``Arena.save``
refuses them then, whoever writes)."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from arenas import services
from arenas.errors import ArenaError
from arenas.models import MONEY_FIELDS, Arena, ArenaGame, ArenaPlayer
from audit.mixins import AuditedAdmin


class ArenaPlayerInline(admin.TabularInline):
    model = ArenaPlayer
    extra = 0
    fields = ["user", "status", "paid", "score", "games", "wins", "streak", "note", "place", "prize"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # players join through the service (it takes the entry fee)


@admin.register(Arena)
class ArenaAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ["name", "game", "status", "starts_at", "duration_minutes", "entry_fee", "currency",
                    "repeat_every"]
    list_filter = ["status", "game"]
    readonly_fields = ["status", "ends_at", "next_created", "cancel_reason", "pool", "payout_error",
                       "payout_failed_at", "started_at", "finished_at"]
    inlines = [ArenaPlayerInline]
    actions = ["start_now", "cancel"]

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.money_locked:
            fields += [f for f in MONEY_FIELDS if f not in fields]
        return fields

    def has_delete_permission(self, request, obj=None) -> bool:
        # An arena someone joined keeps its row: its escrow, entries and games are the ledger's record.
        if obj is not None and obj.players.exists():
            return False
        return super().has_delete_permission(request, obj)

    def _each(self, request, queryset, call) -> None:
        for arena in queryset:
            try:
                call(arena)
            except ArenaError as exc:
                self.message_user(request, f"{arena}: {exc.message}", level=messages.ERROR)

    @admin.action(description=_("Start now (the window begins now)"))
    def start_now(self, request, queryset):
        self._each(request, queryset, lambda a: services.start(arena_id=a.pk, force=True))

    @admin.action(description=_("Cancel (every entry back)"))
    def cancel(self, request, queryset):
        self._each(request, queryset, lambda a: services.cancel(arena_id=a.pk, by=request.user))


@admin.register(ArenaGame)
class ArenaGameAdmin(admin.ModelAdmin):
    list_display = ["arena", "table", "scored", "created_at"]
    list_filter = ["scored"]
    readonly_fields = ["arena", "table", "players", "scored", "points", "created_at", "scored_at"]

    def has_add_permission(self, request) -> bool:
        return False
