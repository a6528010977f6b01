"""Reads for account pages. Other apps register profile sections (balances, ratings)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from accounts.models import User

# Named sections of the profile page, each a provider of extra context; apps add theirs at ready()
# (wallets "balances", matchmaking "ratings", rooms "welcome").
PROFILE_SECTIONS: dict[str, Callable[[User], dict]] = {}


def profile_context(*, user: User, sections: Iterable[str] | None = None) -> dict:
    """The profile's context; ``sections``: only these (a page that shows one part asks for no more)."""
    context: dict = {"profile_user": user}
    for name, provider in PROFILE_SECTIONS.items():
        if sections is None or name in sections:
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
