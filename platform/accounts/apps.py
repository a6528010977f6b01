from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.db.models.signals import post_init, post_save

        from accounts import receivers
        from accounts.models import User

        post_init.connect(receivers.remember_access, sender=User, dispatch_uid="accounts.remember_access")
        post_save.connect(receivers.close_sockets_on_lost_access, sender=User,
                          dispatch_uid="accounts.close_sockets_on_lost_access")
