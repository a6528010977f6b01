from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

# The username and display name an account takes when its player deletes it (accounts.services.user_delete).
DELETED_USERNAME_PREFIX = "deleted-"
DELETED_DISPLAY_NAME = "Deleted player"


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
    # ``email`` is set by a verification (or by staff); when the player proved they read it, this is when.
    # The real-value welcome grant waits for it (WELCOME_REQUIRES_VERIFIED_EMAIL, docs/accounts.md).
    email_verified_at = models.DateTimeField(_("e-mail verified at"), null=True, blank=True)
    # An address the player asked for and has not confirmed yet: ``email`` keeps the old one until then.
    pending_email = models.EmailField(_("e-mail awaiting verification"), blank=True)
    # Set when the player deleted the account (anonymised; its ledger stays): docs/accounts.md.
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(is_bot=True) | models.Q(bot_style=""),
                name="accounts_user_style_only_for_bots",
            ),
            # An address belongs to at most one verified account (any case).
            models.UniqueConstraint(
                Lower("email"), condition=models.Q(email_verified_at__isnull=False) & ~models.Q(email=""),
                name="accounts_user_verified_email_unique",
                violation_error_message=_("Another account has already verified this e-mail address."),
            ),
        ]

    @property
    def email_verified(self) -> bool:
        return bool(self.email) and self.email_verified_at is not None

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.public_name
