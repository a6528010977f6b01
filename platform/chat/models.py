"""Chat messages kept with their table, per-user mutes and blocks, reports, and staff's site-wide mutes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from rooms.models import Table


class Channel(models.TextChoices):
    PLAYERS = "players", _("Players")
    SPECTATORS = "spectators", _("Spectators")


class ChatMessage(models.Model):
    """One message, as said: never edited. Exactly one of ``text`` and ``phrase`` is set."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages")
    channel = models.CharField(_("channel"), max_length=10, choices=Channel.choices)
    text = models.CharField(_("text"), max_length=500, blank=True)
    phrase = models.CharField(_("quick phrase"), max_length=16, blank=True)
    # Said while the table was open or running (a block does not hide a player's message then).
    in_play = models.BooleanField(_("during the game"), default=True)
    created_at = models.DateTimeField(_("sent at"), auto_now_add=True)

    class Meta:
        ordering = ["table", "id"]
        # History is read per table, newest first; this index serves it (and lookups by table).
        indexes = [models.Index(fields=["table", "-id"], name="chat_message_table_idx")]
        constraints = [
            models.CheckConstraint(condition=(models.Q(text="") & ~models.Q(phrase=""))
                                   | (~models.Q(text="") & models.Q(phrase="")),
                                   name="chat_message_text_or_phrase"),
        ]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")

    def __str__(self) -> str:
        return f"{self.table_id}/{self.pk} {self.user}: {self.text or '[' + self.phrase + ']'}"


class MuteLevel(models.TextChoices):
    MUTE = "mute", _("Muted")
    BLOCK = "block", _("Blocked")


class ChatMute(models.Model):
    """``owner`` no longer sees ``target``'s messages anywhere; a block also keeps the owner's from them
    (chat package docstring: except in the players' chat during a game)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes")
    target = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_muted_by")
    level = models.CharField(_("level"), max_length=5, choices=MuteLevel.choices, default=MuteLevel.MUTE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "target"], name="chat_mute_once"),
            models.CheckConstraint(condition=~models.Q(owner=models.F("target")), name="chat_mute_not_self"),
        ]
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")

    def __str__(self) -> str:
        return f"{self.owner} {self.level} {self.target}"


class ReportReason(models.TextChoices):
    ABUSE = "abuse", _("Abuse or harassment")
    SPAM = "spam", _("Spam or advertising")
    CHEATING = "cheating", _("Cheating (revealing cards, colluding)")
    OTHER = "other", _("Something else")


class ReportStatus(models.TextChoices):
    OPEN = "open", _("Open")
    ACTED = "acted", _("Acted on")
    DISMISSED = "dismissed", _("Dismissed")


class ChatReport(models.Model):
    """A player's report of one message; staff read it in the admin with the messages around it."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_reports")
    # The message's author, kept here so the admin can list and filter by it without a join.
    reported = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="chat_reported")
    reason = models.CharField(_("reason"), max_length=10, choices=ReportReason.choices)
    note = models.CharField(_("note"), max_length=300, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=ReportStatus.choices, default=ReportStatus.OPEN)
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True)
    handled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once")]
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")

    def __str__(self) -> str:
        return f"#{self.pk} {self.reported} ({self.reason})"


class SiteMute(models.Model):
    """Staff's site-wide mute: ``user`` may not write in any chat until ``until``. Lifting one sets
    ``until`` to the moment it was lifted (the row stays, as the record)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="site_mutes")
    until = models.DateTimeField(_("muted until"))
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    report = models.ForeignKey(ChatReport, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "until"], name="site_mute_user_until_idx")]
        verbose_name = _("site-wide chat mute")
        verbose_name_plural = _("site-wide chat mutes")

    def __str__(self) -> str:
        return f"{self.user} until {self.until:%Y-%m-%d %H:%M}"
