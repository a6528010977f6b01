from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WalletsConfig(AppConfig):
    name = "wallets"
    verbose_name = _("Wallets and ledger")

    def ready(self) -> None:
        from accounts.selectors import PROFILE_SECTIONS
        from accounts.signals import user_created
        from wallets import receivers, selectors

        PROFILE_SECTIONS["balances"] = selectors.profile_section
        user_created.connect(receivers.grant_welcome_on_create, dispatch_uid="wallets.welcome_grant")
