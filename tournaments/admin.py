"""Tournament admin (docs/tournaments.md, docs/operators.md).

Every change and action here is in the audit log (``audit.mixins.AuditedAdmin``). The change form
shows, beside each money field, what players see, and the fee, currency and rake turn read-only at
the first registration (``Tournament.save`` refuses them then, whoever writes).
"""

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from audit.mixins import AuditedAdmin
from rooms.admin import bps_percent
from tournaments import logic, services
from tournaments.errors import TournamentError
from tournaments.labels import ordinal
from tournaments.models import (
    MONEY_FIELDS,
    Entry,
    PayoutRow,
    PayoutStructure,
    Tournament,
    TournamentTable,
    default_payout_rows,
    payout_error,
)

SEEN = ("players_see", "seen_entry_fee", "seen_currency", "seen_rake_bps", "prizes_seen", "money_locks")
FORMAT_FIELDS = ["sit_and_go", "fill_with_bots", "fill_after_seconds", "late_registration_level", "max_entries",
                 "levels_by", "level_minutes"]


def _fee_label(tournament: Tournament) -> str:
    if not tournament.entry_fee:
        return gettext("Free entry")
    return gettext("Entry %(amount)s %(currency)s") % {"amount": tournament.entry_fee,
                                                       "currency": tournament.get_currency_display()}


def _rake_label(tournament: Tournament) -> str:
    if not tournament.rake_bps:
        return gettext("no rake: the prize pool is every fee paid")
    return gettext("rake %(percent)s %% of the fees, off the prize pool") % {"percent": bps_percent(tournament.rake_bps)}


def structure_text(rows: list[tuple[int, list[int]]]) -> str:
    """"From 1 entrant: 1st 100 %; from 4 entrants: 1st 70 %, 2nd 30 %. Remainders to the best place." """
    parts = []
    for n, percents in sorted(rows):
        places = ", ".join(f"{ordinal(place)} {logic.format_percent(p)} %" for place, p in enumerate(percents, 1))
        parts.append(ngettext("from %(n)s entrant: %(places)s", "from %(n)s entrants: %(places)s", n) % {
            "n": n, "places": places})
    return gettext("Prizes %(rows)s. Rounding remainders go to the best place; players sharing a place "
                   "share its prizes.") % {"rows": "; ".join(parts)}


def _prizes_label(tournament: Tournament) -> str:
    # the tournament's payout structure (frozen at the first registration), else the default one
    return structure_text(tournament.payout_rows_now())


def players_see(tournament: Tournament) -> str:
    parts = [_fee_label(tournament), _rake_label(tournament), _prizes_label(tournament)]
    if tournament.is_freezeout:
        parts.append(gettext("starting stack %(stack)s tournament chips (not Chip)") % {
            "stack": tournament.starting_stack})
    return " · ".join(parts)


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ["user", "status", "paid", "team", "stack", "place", "prize"]
    readonly_fields = fields
    can_delete = False


REPEAT_PRESETS = {"": None, "hourly": timedelta(hours=1), "daily": timedelta(days=1), "weekly": timedelta(weeks=1)}


class TournamentForm(forms.ModelForm):
    """``repeat``: the usual recurrences as a choice; "other" keeps the duration typed in "repeat every"."""

    repeat = forms.ChoiceField(
        label=_("recurring"), required=False,
        choices=[("", _("Once")), ("hourly", _("Every hour")), ("daily", _("Every day")),
                 ("weekly", _("Every week")), ("other", _("Other: as typed in “repeat every”"))],
        help_text=_("The next one is scheduled when this one starts (or is cancelled), at the same time plus "
                    "the interval. A sit & go opens its next one by itself."))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        every = self.instance.repeat_every if self.instance.pk else None
        preset = next((k for k, v in REPEAT_PRESETS.items() if v == every), "other")
        self.fields["repeat"].initial = preset
        if "repeat_every" in self.fields:
            self.fields["repeat_every"].help_text = _("Used when “recurring” is “Other”, e.g. 12:00:00 or 2 days.")

    def clean(self) -> dict:
        data = super().clean()
        preset = data.get("repeat") or ""
        if preset in REPEAT_PRESETS:
            data["repeat_every"] = REPEAT_PRESETS[preset]
        elif not data.get("repeat_every"):
            self.add_error("repeat_every", ValidationError(_("Type the interval, e.g. 12:00:00 for every 12 hours."),
                                                           code="repeat_every_missing"))
        return data


class PayoutRowFormSet(forms.BaseInlineFormSet):
    """A structure covers every tournament: a row from 1 or 2 entrants, one row per entrant count."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        rows = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None) or {}
            if not data or data.get("DELETE"):
                continue
            rows.append((data["from_entrants"], logic.parse_percents(data["percents"])))
        try:
            logic.check_rows(rows)
        except logic.LogicError as exc:
            raise payout_error(exc) from None


class PayoutRowInline(admin.TabularInline):
    model = PayoutRow
    formset = PayoutRowFormSet
    extra = 1
    fields = ["from_entrants", "percents"]


@admin.register(PayoutStructure)
class PayoutStructureAdmin(AuditedAdmin, admin.ModelAdmin):
    """Prize percentages by number of entrants; a tournament's split freezes at its first registration."""

    list_display = ["name", "is_default", "rows_text"]
    inlines = [PayoutRowInline]

    @admin.display(description=_("rows"))
    def rows_text(self, structure: PayoutStructure) -> str:
        return structure_text(structure.as_rows())


@admin.register(Tournament)
class TournamentAdmin(AuditedAdmin, admin.ModelAdmin):
    form = TournamentForm
    list_display = ["name", "game", "status", "sit_and_go", "starts_at", "entry_fee", "entrants", "pool",
                    "repeat_every"]
    list_filter = ["status", "game", "sit_and_go"]
    readonly_fields = ["status", "round", "round_dealt", "entrants", "pool", "next_created", "cancel_reason",
                       "payout_error", "payout_failed_at", "started_at", "finished_at", *SEEN]
    inlines = [EntryInline]
    actions = ["open_registration", "start_now", "cancel"]

    def get_readonly_fields(self, request, obj=None):
        """Fee, currency and rake are shown read-only once anyone registered (``Tournament.save`` refuses them)."""
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.money_locked:
            fields += [f for f in MONEY_FIELDS if f not in fields]
        return fields

    def get_fieldsets(self, request, obj=None):
        # Every field the form has (whatever the model grows), the money ones apart with what players see.
        rest = [f for f in self.get_fields(request, obj) if f not in MONEY_FIELDS and f not in SEEN
                and f not in FORMAT_FIELDS]
        money = ["players_see", ("entry_fee", "seen_entry_fee"), ("currency", "seen_currency"),
                 ("rake_bps", "seen_rake_bps"), ("payout_structure", "prizes_seen"), "money_locks"]
        return [(None, {"fields": rest}),
                (_("Format: sit & go, late registration, re-entry, levels"), {"fields": FORMAT_FIELDS}),
                (_("Entry and prizes: what players see"), {"fields": money})]

    def _seen(self, tournament: Tournament | None, text) -> str:
        if tournament is None or tournament.pk is None:
            return gettext("Shown once the tournament is saved.")
        return text(tournament)

    @admin.display(description=_("players see"))
    def players_see(self, tournament: Tournament | None) -> str:
        if tournament is None or tournament.pk is None:
            return gettext("Shown once the tournament is saved.")
        return players_see(tournament)

    @admin.display(description=_("players see"))
    def seen_entry_fee(self, tournament: Tournament | None) -> str:
        return self._seen(tournament, lambda t: gettext("%(fee)s, back in full if they unregister before the start") % {
            "fee": _fee_label(t)})

    @admin.display(description=_("players see"))
    def seen_currency(self, tournament: Tournament | None) -> str:
        return self._seen(tournament, lambda t: gettext("fees and prizes in %(currency)s") % {
            "currency": t.get_currency_display()})

    @admin.display(description=_("players see"))
    def seen_rake_bps(self, tournament: Tournament | None) -> str:
        return self._seen(tournament, _rake_label)

    @admin.display(description=_("prizes"))
    def prizes_seen(self, tournament: Tournament | None) -> str:
        if tournament is None or tournament.pk is None:
            return structure_text(default_payout_rows())
        return _prizes_label(tournament)

    @admin.display(description=_("what is locked"))
    def money_locks(self, tournament: Tournament | None) -> str:
        if tournament is not None and tournament.money_locked:
            return gettext("Entry fee, currency, rake and payout structure are locked: players have registered "
                           "and paid under them.")
        return gettext("Entry fee, currency, rake and payout structure can change until the first registration; "
                       "then they lock.")

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
