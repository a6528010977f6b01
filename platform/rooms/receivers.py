"""Receivers of the accounts' signals (connected in ``RoomsConfig.ready``)."""

from __future__ import annotations

from rooms.selectors import has_finished_game
from wallets.services import release_welcome_if_due


def release_welcome_on_email_verified(sender, user, **kwargs) -> None:
    """A verified e-mail releases the real-value welcome grant when it is otherwise due (a finished game,
    or the account's age), in the verifying transaction."""
    release_welcome_if_due(user=user, played=has_finished_game(user=user))
