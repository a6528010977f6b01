"""Admin of rooms and tables (docs/operators.md).

Every change, deletion and action here is in the audit log (``audit.mixins.AuditedAdmin``).

The room form shows, beside each money field, what players see, and what is locked:
- ``game`` once the room has had any table: finished tables' proof pages and replays read the game
  from their room;
- the stake kind, currency, stake and rake while the room has an open or running table or an
  unfinished tournament: the lobby, the table page and the host's stop rule read them from the room,
  so players who sat down under one stake would be shown (and held to) another. A table's refunds and
  payouts would still follow what it froze (``wallets.TableTerms``). To change them: close the room
  (its tables stop, entries back per the rules), change, reopen;
- the rest (name, seats, minimum, options, timer, bots, open, position) only shapes tables opened
  afterwards (each table keeps its seat count and engine options), except the turn timer, which
  running tables read at their next turn.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from audit.mixins import AuditedAdmin
from rooms import services
from rooms.errors import TableError
from rooms.models import ENDED_STATUSES, Currency, Room, Seat, StakeKind, StopReason, Table, TableEvent
from wallets.table_money import CHERKI_MIN_POINTS  # sitting at Cherki needs 100 × the value per point

MONEY_FIELDS = ("stake_kind", "currency", "stake", "rake_bps")
LOCKED_WITH_TABLES = ("game",)


def bps_percent(bps: int) -> str:
    """500 -> "5", 250 -> "2.5", 1 -> "0.01" (basis points as a percentage, for people)."""
    whole, rest = divmod(int(bps), 100)
    return str(whole) if not rest else f"{whole}.{rest:02d}".rstrip("0")


def room_has_tables(room: Room) -> bool:
    return room.pk is not None and room.tables.exists()


def room_in_play(room: Room) -> bool:
    """An open or running table, or a tournament not yet finished or cancelled, uses the room."""
    if room.pk is None:
        return False
    if room.tables.exclude(status__in=ENDED_STATUSES).exists():
        return True
    tournaments = getattr(room, "tournaments", None)  # the tournaments app's reverse relation
    return tournaments is not None and tournaments.exclude(status__in=("finished", "cancelled")).exists()


def _rake_seen(room: Room) -> str:
    if room.stake_kind == StakeKind.CASUAL:
        return gettext("no rake: nothing moves at a free table")
    if room.stake_kind == StakeKind.PER_POINT:
        return gettext("no rake: Cherki settles points without one")
    if not room.rake_bps:
        return gettext("no rake")
    if room.stake_kind == StakeKind.ANTE:
        return gettext("rake %(percent)s %% of each hand's pot") % {"percent": bps_percent(room.rake_bps)}
    return gettext("rake %(percent)s %% of the pot, at the finish") % {"percent": bps_percent(room.rake_bps)}


def _ante_override(room: Room) -> str:
    """31 tables play the ante and rake of their engine options, which a room's options can set."""
    if room.stake_kind != StakeKind.ANTE:
        return ""
    options = services.engine_options(room)
    if options.get("ante") != room.stake or options.get("rake_bps") != room.rake_bps:
        return gettext("Tables play ante %(ante)s, rake %(rake)s basis points (set in the options), "
                       "not what the lobby shows.") % {"ante": options.get("ante"), "rake": options.get("rake_bps")}
    return ""


def players_see(room: Room) -> str:
    """The stake as the lobby and the table show it, with the rules around it, in one line."""
    parts = [room.stake_label]
    if room.stake_kind == StakeKind.POT and room.currency == Currency.MUTIARA:
        parts.append(gettext("prize paid in Kelereng"))
    if room.stake_kind == StakeKind.PER_POINT:
        parts.append(gettext("sitting needs %(amount)s Chip") % {"amount": room.stake * CHERKI_MIN_POINTS})
    if room.stake_kind == StakeKind.ANTE:
        parts.append(gettext("pot-limit raises"))
    if room.stake_kind in (StakeKind.POT, StakeKind.ANTE):
        parts.append(gettext("rake %(percent)s %%") % {"percent": bps_percent(room.rake_bps or 0)})
    return " · ".join(parts)


def _field_seen(room: Room, name: str) -> str:
    kind = room.stake_kind
    if name == "stake_kind":
        return {
            StakeKind.CASUAL: gettext("a free table: nothing is paid or won"),
            StakeKind.POT: gettext("an entry into the pot on sitting down, back in full if they stand up before "
                                   "the start; first place takes the pot less the rake"),
            StakeKind.PER_POINT: gettext("Chip per card point, settled when the game ends"),
            StakeKind.ANTE: gettext("an ante every hand; raises up to the pot (pot limit)"),
        }.get(kind, kind)
    if name == "currency":
        if kind == StakeKind.CASUAL:
            return gettext("no currency: a free table")
        if kind == StakeKind.POT and room.currency == Currency.MUTIARA:
            return gettext("entries in Mutiara; the prize is paid in Kelereng, 1 per Mutiara")
        return room.get_currency_display()
    if name == "stake":
        seen = room.stake_label
        if kind == StakeKind.PER_POINT:
            seen += " · " + gettext("sitting needs %(amount)s Chip") % {"amount": room.stake * CHERKI_MIN_POINTS}
        return " ".join(filter(None, [seen, _ante_override(room)]))
    return _rake_seen(room)


@admin.register(Room)
class RoomAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ("name", "game", "seats", "stake_kind", "stake", "currency", "rake_bps", "turn_seconds", "is_open")
    list_filter = ("game", "stake_kind", "is_open")
    prepopulated_fields = {"slug": ("name",)}
    actions = ["close_rooms"]
    readonly_fields = ("players_see", "seen_stake_kind", "seen_currency", "seen_stake", "seen_rake_bps", "locks")

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and room_has_tables(obj):
            fields += [f for f in LOCKED_WITH_TABLES if f not in fields]
        if obj is not None and room_in_play(obj):
            fields += [f for f in MONEY_FIELDS if f not in fields]
        return fields

    def get_fieldsets(self, request, obj=None):
        # Every field the form has (whatever the model grows), the money ones apart, each with what
        # players see beside it.
        companions = set(self.readonly_fields)
        rest = [f for f in self.get_fields(request, obj) if f not in MONEY_FIELDS and f not in companions]
        money = ["players_see", *((f, f"seen_{f}") for f in MONEY_FIELDS), "locks"]
        return [(None, {"fields": rest}), (_("Stake and rake: what players see"), {"fields": money})]

    def _seen(self, room: Room | None, name: str) -> str:
        if room is None or room.pk is None:
            return gettext("Shown once the room is saved.")
        return _field_seen(room, name)

    @admin.display(description=_("players see"))
    def players_see(self, room: Room | None) -> str:
        if room is None or room.pk is None:
            return gettext("Shown once the room is saved.")
        return players_see(room)

    @admin.display(description=_("players see"))
    def seen_stake_kind(self, room: Room | None) -> str:
        return self._seen(room, "stake_kind")

    @admin.display(description=_("players see"))
    def seen_currency(self, room: Room | None) -> str:
        return self._seen(room, "currency")

    @admin.display(description=_("players see"))
    def seen_stake(self, room: Room | None) -> str:
        return self._seen(room, "stake")

    @admin.display(description=_("players see"))
    def seen_rake_bps(self, room: Room | None) -> str:
        return self._seen(room, "rake_bps")

    @admin.display(description=_("what is locked"))
    def locks(self, room: Room | None) -> str:
        lines = []
        if room is not None and room_in_play(room):
            lines.append(gettext("Stake, currency and rake are locked: the room has open or running tables or an "
                                 "unfinished tournament, whose players were shown these terms. To change them, close "
                                 "the room (its tables stop, entries back per the rules), change, then reopen it."))
        else:
            lines.append(gettext("Stake, currency and rake can change now; they lock while the room has an open or "
                                 "running table or an unfinished tournament. Changes apply to tables opened afterwards."))
        if room is not None and room_has_tables(room):
            lines.append(gettext("The game is locked: finished tables' proofs and replays read it from the room."))
        lines.append(gettext("Seats, options and bots apply to new tables; the turn timer also to the next turn at "
                             "running tables."))
        return " ".join(lines)

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
class TableAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ("id", "room", "status", "version", "seat_count", "created_at", "ended_at", "stop_reason")
    list_filter = ("status", "room__game")
    # The seed and the engine state stay out of the admin: staff see what players see.
    exclude = ("seed_sealed", "state")
    # ... and out of the audit log: the state is large, and the seed is secret until the table ends.
    audit_exclude = ("seed_sealed", "state")
    readonly_fields = ("room", "status", "commitment", "committed_at", "options", "version", "deadline_at",
                       "deadline_seat", "host", "is_private", "invite_code", "seat_count",
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
