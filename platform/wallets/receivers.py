"""Signal receivers: the welcome grant rides the user's creating transaction."""

from __future__ import annotations

from wallets import services


def grant_welcome_on_create(sender, user, **kwargs) -> None:
    services.grant_welcome(user=user)
