from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchmakingConfig(AppConfig):
    name = "matchmaking"
    verbose_name = _("Matchmaking")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts.selectors import PROFILE_SECTIONS
        from accounts.signals import user_deleting
        from matchmaking import receivers, selectors
        from rooms.signals import table_finished

        PROFILE_SECTIONS["ratings"] = selectors.profile_ratings
        table_finished.connect(receivers.rate_finished_table, dispatch_uid="matchmaking.rate_finished_table")
        user_deleting.connect(receivers.leave_queue_on_deletion, dispatch_uid="matchmaking.leave_queue_on_deletion")
