"""The audit log: who did what to which object in the admin, with each field's old and new value.

Django's ``LogEntry`` keeps only a message ("Changed stake."); an ``AuditRecord`` keeps the values, so
an operator can answer "who set this room's rake to 0, and when?". Records are written by
``audit.services`` (the admin hooks in ``audit.mixins.AuditedAdmin``) and never change afterwards:
the admin shows them read-only, and the model refuses updates and deletes like the ledger does.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditAction(models.TextChoices):
    CREATE = "create", _("Created")
    CHANGE = "change", _("Changed")
    DELETE = "delete", _("Deleted")
    ACTION = "action", _("Admin action")


class ImmutableQuerySet(models.QuerySet):
    """Audit records are written once: bulk update/delete are refused."""

    def update(self, **kwargs):  # type: ignore[override]
        raise TypeError("audit records are immutable")

    def delete(self):  # type: ignore[override]
        raise TypeError("audit records are immutable")


class AuditRecord(models.Model):
    """One admin operation on one object. ``changes`` maps a field to ``[old, new]`` (``old`` is None on
    a creation, ``new`` on a deletion); secrets (passwords, seeds, tokens) appear only as "(hidden)"."""

    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)
    # SET_NULL and the name kept beside it: a deleted or anonymised account still shows who it was then.
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", verbose_name=_("who"))
    actor_name = models.CharField(_("who (username then)"), max_length=150)
    action = models.CharField(_("what"), max_length=8, choices=AuditAction.choices)
    action_name = models.CharField(_("admin action"), max_length=100, blank=True)
    model = models.CharField(_("object type"), max_length=100)  # "app_label.model_name"
    object_id = models.CharField(_("object id"), max_length=64)
    object_repr = models.CharField(_("object"), max_length=200)
    changes = models.JSONField(_("changes"), default=dict, blank=True)
    note = models.CharField(_("note"), max_length=300, blank=True)

    objects = ImmutableQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        verbose_name = _("audit record")
        verbose_name_plural = _("audit records")
        indexes = [models.Index(fields=["model", "object_id"], name="audit_object_idx")]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.model} {self.object_id}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not kwargs.get("force_insert"):
            raise TypeError("audit records are immutable")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("audit records are immutable")
