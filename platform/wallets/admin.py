"""Admin: the ledger is read-only (per account and per transaction); wallet settings are editable;
the revenue report (``wallets.reports``) with its CSV files.

Rooms' money fields (stake, currency, rake) are edited on the Room admin and validated by Room.clean.
Every change and action here is in the audit log (``audit.mixins.AuditedAdmin``).
"""

from __future__ import annotations

import csv

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from audit.mixins import AuditedAdmin
from core.api import http_status
from wallets import reports
from wallets.models import Account, Entry, LedgerTransaction, RevenueReport, TableTerms, WalletSettings


class ReadOnlyAdmin(AuditedAdmin, admin.ModelAdmin):
    """View only: ledger rows change only through wallets.services.post_transaction."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class AccountEntryInline(ReadOnlyInline):
    """An account's ledger: each leg with its transaction, newest first."""

    model = Entry
    fk_name = "account"
    fields = ("transaction", "tx_kind", "amount", "tx_created_at")
    readonly_fields = fields
    ordering = ("-pk",)

    @admin.display(description="kind")
    def tx_kind(self, entry: Entry) -> str:
        return entry.transaction.kind

    @admin.display(description="posted")
    def tx_created_at(self, entry: Entry):
        return entry.transaction.created_at

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("transaction")


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "owner_key", "user", "currency", "balance", "created_at")
    list_filter = ("kind", "currency")
    search_fields = ("owner_key", "user__username")
    inlines = [AccountEntryInline]


class TransactionEntryInline(ReadOnlyInline):
    model = Entry
    fk_name = "transaction"
    fields = ("account", "amount")
    readonly_fields = fields


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "key", "kind", "memo", "created_at")
    list_filter = ("kind",)
    search_fields = ("key", "memo")
    inlines = [TransactionEntryInline]


@admin.register(TableTerms)
class TableTermsAdmin(ReadOnlyAdmin):
    list_display = ("table", "stake_kind", "stake", "currency", "rake_bps")


@admin.register(WalletSettings)
class WalletSettingsAdmin(AuditedAdmin, admin.ModelAdmin):
    list_display = ("__str__", "welcome_chip", "welcome_mutiara", "welcome_kelereng", "bailout_to", "bot_float")

    def has_add_permission(self, request) -> bool:
        return not WalletSettings.objects.exists()

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# ----- the revenue report -------------------------------------------------------------------------

HTML_ROWS = 1000  # per section on the page; the CSV has them all
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> object:
    """A CSV cell; text a spreadsheet would run as a formula (a name starting with "=") is quoted."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _labels() -> dict[str, dict[str, str]]:
    from gameworkers.engines import game_specs  # the pure rules: the ledger knows no rooms

    return {
        "source": {"room": gettext("room"), "tournament": gettext("tournament"), "arena": gettext("arena"),
                   "other": gettext("other")},
        "kind": {reports.BAILOUT: gettext("31 bailout"), reports.CHERKI_SHORTFALL: gettext("Cherki shortfall")},
        "game": {spec.name: str(spec.label) for spec in game_specs()},
    }


def _table(section: str, rows: list[dict], labels: dict[str, dict[str, str]]) -> dict:
    """Header and cell values of one section, in ``reports.COLUMNS`` order, codes shown as words."""
    columns = reports.COLUMNS[section]
    body = [[labels.get(name, {}).get(row[name], row[name]) for name, _label in columns] for row in rows]
    return {"section": section, "header": [str(label) for _name, label in columns], "rows": body}


@admin.register(RevenueReport)
class RevenueReportAdmin(admin.ModelAdmin):
    """The revenue report at the proxy's list address: staff with "Can view revenue report" only."""

    SECTIONS = {"revenue": _("Revenue by day, room, tournament or arena, and currency"),
                "tournaments": _("Tournaments: entries and prizes"),
                "arenas": _("Arenas: entries and prizes"),
                "bots": _("Bot wallets"),
                "writeoffs": _("Written off: bailouts and Cherki shortfalls")}

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_changelist"
        return [path("", self.admin_site.admin_view(self.report_view), name=name)]

    def report_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        section = request.GET.get("export", "")
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": gettext("Revenue report"),
                   "start": request.GET.get("start", ""), "end": request.GET.get("end", "")}
        try:
            period = reports.period(start=request.GET.get("start"), end=request.GET.get("end"))
            if section and section not in self.SECTIONS:
                raise reports.ReportError("bad_section", gettext("There is no report section %(name)s.") % {
                    "name": section})
        except reports.ReportError as exc:
            context["error"] = exc
            return TemplateResponse(request, "wallets/revenue_report.html", context, status=http_status(exc))
        data = reports.report(period=period)
        labels = _labels()
        if section:
            return self._csv(section, data, labels)
        tables = []
        for name, title in self.SECTIONS.items():
            table = _table(name, data[name][:HTML_ROWS], labels)
            tables.append({**table, "title": title, "count": len(data[name]), "cut": len(data[name]) > HTML_ROWS})
        summed = [(name, label) for name, label in reports.COLUMNS["revenue"] if name in (*reports.CATEGORIES, "total")]
        totals = [{**total, "cells": [total[name] for name, _label in summed]} for total in data["totals"]]
        context.update({"period": period, "totals": totals, "tables": tables,
                        "categories": [str(label) for _name, label in summed],
                        "start": period.start.isoformat(), "end": period.end.isoformat()})
        return TemplateResponse(request, "wallets/revenue_report.html", context)

    def _csv(self, section: str, data: dict, labels: dict) -> HttpResponse:
        period = data["period"]
        table = _table(section, data[section], labels)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (f'attachment; filename="{section}-{period.start.isoformat()}-'
                                           f'{period.end.isoformat()}.csv"')
        writer = csv.writer(response)
        writer.writerow(table["header"])
        for row in table["rows"]:
            writer.writerow([_cell(value) for value in row])
        return response
