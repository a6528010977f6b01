"""Verify every ledger invariant; exit 1 and list each breach if any."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from wallets.checks import ledger_problems


class Command(BaseCommand):
    help = ("Verify the ledger: zero-sum transactions and currencies, cached balances, no negatives, no open "
            "escrow, and the escrow invariants apps register (tournaments, arenas).")

    def handle(self, *args, **options) -> None:
        problems = ledger_problems()
        if problems:
            for line in problems:
                self.stderr.write(line)
            raise CommandError(f"ledger_check: {len(problems)} problem(s)", returncode=1)
        self.stdout.write(self.style.SUCCESS("ledger_check: all invariants hold"))
