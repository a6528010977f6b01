from django.contrib import admin, messages

from rooms import services
from rooms.errors import TableError
from rooms.models import ENDED_STATUSES, Room, Seat, StopReason, Table, TableEvent


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "seats", "stake_kind", "stake", "currency", "rake_bps", "turn_seconds", "is_open")
    list_filter = ("game", "stake_kind", "is_open")
    prepopulated_fields = {"slug": ("name",)}
    actions = ["close_rooms"]

    @admin.action(description="Close the selected rooms (stops their unfinished tables, refunds per the rules)")
    def close_rooms(self, request, queryset):
        stopped = sum(services.room_close(room=room) for room in queryset)
        self.message_user(request, f"Closed {queryset.count()} room(s), stopped {stopped} table(s).")


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    readonly_fields = ("number", "user", "status", "joined_at", "left_at", "consecutive_timeouts")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "room", "status", "version", "seat_count", "created_at", "ended_at", "stop_reason")
    list_filter = ("status", "room__game")
    # The seed and the engine state stay out of the admin: staff see what players see.
    exclude = ("seed_hex", "state")
    readonly_fields = ("room", "status", "commitment", "committed_at", "options", "version", "deadline_at",
                       "deadline_seat", "deadline_enqueued_at", "host", "is_private", "invite_code", "seat_count",
                       "started_at", "ended_at", "stop_reason", "result", "last_event_seq")
    inlines = [SeatInline]
    actions = ["stop_tables"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Stop the selected tables (staff)")
    def stop_tables(self, request, queryset):
        stopped = 0
        for table in queryset.exclude(status__in=ENDED_STATUSES):
            try:
                services.table_stop(table_id=table.pk, reason=StopReason.STAFF, by=request.user)
                stopped += 1
            except TableError as exc:
                self.message_user(request, f"Table {table.pk}: {exc.message}", level=messages.WARNING)
        self.message_user(request, f"Stopped {stopped} table(s).")


@admin.register(TableEvent)
class TableEventAdmin(admin.ModelAdmin):
    list_display = ("table", "seq", "kind", "version", "created_at")
    list_filter = ("kind",)
    readonly_fields = ("table", "seq", "kind", "payload", "version", "created_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
