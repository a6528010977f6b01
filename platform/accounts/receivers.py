"""Signal receivers: an account that loses its access (deactivated, or its password changed) has its
open sockets closed once that commits, as logging out closes them (the ``access_lost`` signal, received by
``rooms.broadcast.close_user_sockets``: one ``user.logout`` message to the user's group, which every
table, queue and tournament socket joins).

Receivers on the model's own signals see every way a user is saved (the admin's forms, a service,
``manage.py changepassword``), not ``QuerySet.update``: use ``services.user_deactivate`` in code.
"""

from __future__ import annotations

from accounts.signals import access_lost
from core.transactions import after_commit

# Which of a user's fields decide whether their sessions (and so their sockets) still hold.
_ACCESS_FIELDS = ("is_active", "password")


def remember_access(sender, instance, **kwargs) -> None:
    """post_init: the access fields as loaded (``None`` when deferred; never a query)."""
    instance._access_loaded = tuple(instance.__dict__.get(field) for field in _ACCESS_FIELDS)


def close_sockets_on_lost_access(sender, instance, created: bool, update_fields=None, **kwargs) -> None:
    """post_save: deactivated, or a new password, is closed out of every socket after the commit."""
    loaded_active, loaded_password = getattr(instance, "_access_loaded", (None, None))
    instance._access_loaded = tuple(instance.__dict__.get(field) for field in _ACCESS_FIELDS)
    if created:
        return

    def saved(field: str) -> bool:
        return field in instance.__dict__ and (update_fields is None or field in update_fields)

    deactivated = saved("is_active") and not instance.is_active and loaded_active is not False
    new_password = saved("password") and instance.password != loaded_password
    if deactivated or new_password:
        after_commit(_close_sockets, instance)


def _close_sockets(user) -> None:
    access_lost.send(sender=type(user), user=user)
