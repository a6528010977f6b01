from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player, a staff member or a bot. Bots are users flagged ``is_bot`` with a public style."""

    display_name = models.CharField(_("display name"), max_length=40, blank=True)
    preferred_language = models.CharField(
        _("preferred language"), max_length=8, choices=settings.LANGUAGES, default="en"
    )
    is_bot = models.BooleanField(_("bot"), default=False, db_index=True)
    bot_style = models.CharField(_("bot style"), max_length=40, blank=True)
    bot_description = models.CharField(_("bot style description"), max_length=300, blank=True)
    # What a learning bot has learned (e.g. 31 opponents' bluffing); plain JSON, bots only.
    bot_memory = models.JSONField(default=dict, blank=True)
    # The client address a player signed up from (the admin lists the accounts made from one address).
    signup_address = models.GenericIPAddressField(_("sign-up address"), null=True, blank=True, db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(is_bot=True) | models.Q(bot_style=""),
                name="accounts_user_style_only_for_bots",
            )
        ]

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.public_name
