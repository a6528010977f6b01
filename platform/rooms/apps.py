from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RoomsConfig(AppConfig):
    name = "rooms"
    verbose_name = _("Rooms and tables")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from accounts.selectors import DELETION_BLOCKERS, PROFILE_SECTIONS
        from accounts.signals import access_lost, email_verified
        from rooms import receivers, selectors
        from rooms.broadcast import close_user_sockets
        from rooms.checks import ended_tables_with_escrow
        from wallets.checks import register_check

        user_logged_out.connect(close_user_sockets, dispatch_uid="rooms.close_user_sockets")
        access_lost.connect(close_user_sockets, dispatch_uid="rooms.close_user_sockets_on_lost_access")
        email_verified.connect(receivers.release_welcome_on_email_verified, dispatch_uid="rooms.welcome_on_email")
        register_check(ended_tables_with_escrow)
        if selectors.seats_blocking_deletion not in DELETION_BLOCKERS:
            DELETION_BLOCKERS.append(selectors.seats_blocking_deletion)
        PROFILE_SECTIONS["welcome"] = selectors.welcome_section
