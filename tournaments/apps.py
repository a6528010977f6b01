from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts.selectors import DELETION_BLOCKERS
        from rooms.signals import table_finished
        from tournaments import checks, receivers, selectors
        from wallets.checks import register_check

        table_finished.connect(receivers.table_finished, dispatch_uid="tournaments.table_finished")
        register_check(checks.escrow_problems)  # manage.py ledger_check covers the tournament escrows
        if selectors.entries_blocking_deletion not in DELETION_BLOCKERS:
            DELETION_BLOCKERS.append(selectors.entries_blocking_deletion)
