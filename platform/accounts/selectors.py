"""Reads for account pages. Other apps register profile sections (balances, ratings)."""

from __future__ import annotations

from collections.abc import Callable

from accounts.models import User

# Each provider returns extra context for the profile page; apps append theirs at ready().
PROFILE_SECTIONS: list[Callable[[User], dict]] = []


def profile_context(*, user: User) -> dict:
    context: dict = {"profile_user": user}
    for provider in PROFILE_SECTIONS:
        context.update(provider(user))
    return context
