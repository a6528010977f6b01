from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ArenasConfig(AppConfig):
    name = "arenas"
    verbose_name = _("Arenas")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from arenas import checks, receivers
        from rooms.signals import table_finished
        from wallets.checks import register_check

        table_finished.connect(receivers.table_finished, dispatch_uid="arenas.table_finished")
        register_check(checks.escrow_problems)  # manage.py ledger_check covers the arena escrows
