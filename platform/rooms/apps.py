from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RoomsConfig(AppConfig):
    name = "rooms"
    verbose_name = _("Rooms and tables")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from rooms.broadcast import close_user_sockets

        user_logged_out.connect(close_user_sockets, dispatch_uid="rooms.close_user_sockets")
