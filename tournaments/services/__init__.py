"""Tournament lifecycle: schedule, register, start, play rounds, finish or cancel.

Every state change locks the tournament row (``select_for_update``); money moves through
``tournaments.money`` (the ledger's public services) in the same transaction; pushes and task
enqueues run after commit. The 31 freezeout plays hand for hand: each tournament table plays one
hand on a fresh rooms Table (``hands: 1`` with the table's stacks, hand count and ebe), then
``advance`` ranks the busts, rebalances (``logic.balance``) and, after the tournament's pause between
hands (``next_deal_at``), ``deal`` deals the next hand everywhere. Players keep one page per
tournament table across hands (docs/tournaments.md, "One table across hands").
Brackets (Lembar, Cherki, Baloot pairs) play one rooms Table per match; the top advances.

By job: ``schedule`` (create, open registration, the next occurrence), ``registration``,
``starting``, ``rounds`` (deal and advance), ``freezeout`` and ``brackets`` (settling a round),
``payouts`` (the finish), ``cancelling``, ``sweep`` (housekeeping) and ``base`` (what they share).
The public services are re-exported here.
"""

from tournaments.services.cancelling import cancel
from tournaments.services.registration import register, unregister
from tournaments.services.rounds import advance, deal
from tournaments.services.schedule import open_registration, tournament_create
from tournaments.services.starting import start
from tournaments.services.sweep import housekeeping

__all__ = [
    "advance",
    "cancel",
    "deal",
    "housekeeping",
    "open_registration",
    "register",
    "start",
    "tournament_create",
    "unregister",
]
