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


# Each provider returns what keeps the user from deleting their account ({"kind", "id", "name", "status"}):
# rooms (open or running tables, kind "table") and tournaments (kind "tournament") append theirs at ready().
DELETION_BLOCKERS: list[Callable[[User], list[dict]]] = []
BLOCKER_ORDER = {"table": 0, "tournament": 1}


def deletion_blockers(*, user: User) -> list[dict]:
    """What keeps the player from deleting their account: each open or running table they hold a seat
    at, and each tournament not over where they are registered or still playing (docs/accounts.md),
    tables first."""
    blockers = [blocker for provider in DELETION_BLOCKERS for blocker in provider(user)]
    return sorted(blockers, key=lambda b: (BLOCKER_ORDER.get(b["kind"], len(BLOCKER_ORDER)), b["id"]))
