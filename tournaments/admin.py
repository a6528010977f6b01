from django.contrib import admin, messages

from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import MONEY_FIELDS, Entry, Tournament, TournamentTable


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ["user", "status", "paid", "team", "stack", "place", "prize"]
    readonly_fields = fields
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "status", "starts_at", "entry_fee", "entrants", "pool", "repeat_every"]
    list_filter = ["status", "game"]
    readonly_fields = ["status", "round", "round_dealt", "entrants", "pool", "next_created", "cancel_reason",
                       "payout_error", "payout_failed_at", "started_at", "finished_at"]
    inlines = [EntryInline]
    actions = ["open_registration", "start_now", "cancel"]

    def get_readonly_fields(self, request, obj=None):
        """Fee, currency and rake are shown read-only once anyone registered (``Tournament.save`` refuses them)."""
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.money_locked:
            fields += [f for f in MONEY_FIELDS if f not in fields]
        return fields

    def _each(self, request, queryset, call) -> None:
        for tournament in queryset:
            try:
                call(tournament)
            except TournamentError as exc:
                self.message_user(request, f"{tournament}: {exc.message}", level=messages.ERROR)

    @admin.action(description="Open registration")
    def open_registration(self, request, queryset):
        self._each(request, queryset, lambda t: services.open_registration(tournament_id=t.pk))

    @admin.action(description="Start now")
    def start_now(self, request, queryset):
        self._each(request, queryset, lambda t: services.start(tournament_id=t.pk))

    @admin.action(description="Cancel (refunds per economy.md)")
    def cancel(self, request, queryset):
        self._each(request, queryset, lambda t: services.cancel(tournament_id=t.pk, reason="staff", by=request.user))


@admin.register(TournamentTable)
class TournamentTableAdmin(admin.ModelAdmin):
    list_display = ["tournament", "round", "number", "hands", "broken", "table", "winner"]
    readonly_fields = ["tournament", "round", "number", "players", "hands", "ebe", "table", "broken", "winner", "result"]
