"""Money rules hooked into the table lifecycle (economy.md).

The table services in ``rooms.services`` call these inside the transaction that holds the
table's row lock, so a money failure rolls the whole transition back. Each raises
``wallets.errors.WalletError`` (stable ``code``) to refuse a transition.

Interface (kept stable for rooms.services):
    on_sit(*, table, seat)            entry into the pot escrow / minimum balance check
    on_stand(*, table, seat)          standing up before the start: entry back in full
    on_forfeit(*, table, seat)        leaving after the start or removal: the entry stays in the pot
    on_start(*, table)                nothing moves today; a hook for checks
    on_hand_over(*, table, event)     31: one hand's contributions, payout, rake, bailouts
    on_finish(*, table, result)       settle a table finished by the rules
    on_stop(*, table)                 stopped/never started: entries back to players still in,
                                      forfeits to the platform
"""

from __future__ import annotations


def on_sit(*, table, seat) -> None:
    pass


def on_stand(*, table, seat) -> None:
    pass


def on_forfeit(*, table, seat) -> None:
    pass


def on_start(*, table) -> None:
    pass


def on_hand_over(*, table, event: dict) -> None:
    pass


def on_finish(*, table, result: dict) -> None:
    pass


def on_stop(*, table) -> None:
    pass
