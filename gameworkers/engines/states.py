"""The shape of each engine's state, as ``TypedDict``s: documentation the type checker can read.

A state is plain JSON data stored in the database (``Table.state``) and replayed from proofs, so
these types only describe the dicts the engines already make; they add no key and change no value.
Keys marked ``NotRequired`` may be missing from a state saved by an older engine (the engines read
them with ``.get``). Nested records that are JSON objects have their own ``TypedDict`` when the
rules read their keys; lists of log entries stay ``list[dict[str, Any]]``.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class ShuffleEntry(TypedDict):
    round: int
    purpose: str
    initial: list[str]
    result: list[str]


class MoveEntry(TypedDict):
    seq: int
    seat: int | None
    move: dict[str, Any]
    now_ms: int


class BaseState(TypedDict):
    """The keys ``Engine._base_state`` makes for every game (see base.py)."""

    game: str
    seed: str  # hex; secret until the end (the platform keeps a running table's sealed, outside the row)
    commitment: str
    seats: int
    options: dict[str, Any]
    shuffles: list[ShuffleEntry]
    first: int | None
    moves: list[MoveEntry]  # an output: appended to, never read by the rules
    move_count: int
    last_move_ms: int | None
    phase: str  # every game's phase; "over" once the game is over (the envelope reads it)


# ----- Lembar ---------------------------------------------------------------------------------

class LembarWindow(TypedDict):
    seat: int
    since: int


class LembarState(BaseState):
    turn_ms: int
    hands: list[list[str]]
    stock: list[str]
    pile: list[str]
    motif: str
    direction: int  # 1 or -1
    turn: int
    turn_since: int | None  # None: the table's start
    drawn: str | None  # the card just drawn while phase == "drawn"
    active: list[bool]
    removed: list[int]  # seats in order of removal
    timeouts: list[int]
    auto_pending: bool  # an automatic turn needs its second step
    calls: list[str | None]  # None | "missing" | "called"
    windows: list[LembarWindow]  # open catch windows
    passes: int
    end: str | None  # win | stalemate | last_standing
    winner: int | None
    numbered_close: NotRequired[bool]  # replaying a log from when closing a window was a move


# ----- Baloot ---------------------------------------------------------------------------------

class BalootBidding(TypedDict):
    round: int
    stage: str  # bid | ashkal_answer | overcall | choice
    turn: int
    hokum: int | None
    ashkal: int | None
    overcalls: int


class BalootContract(TypedDict):
    kind: str  # sun | ashkal | hokum
    player: int
    team: int
    trump: str | None
    round: int
    taker: int


class BalootDoubling(TypedDict):
    style: str | None
    step: str | None
    team: int | None
    level: int
    passed: list[int]
    lock: bool
    gahwa: bool
    since: int | None
    by: int | None


class BalootState(BaseState):
    scores: list[int]
    deal_no: int
    dealer: int
    left: list[bool]
    deals: list[dict[str, Any]]
    last_deal: dict[str, Any] | None
    result: dict[str, Any] | None
    forfeit: int | None
    since: int | None
    hands: list[list[str]]
    exposed: str
    stock: list[str]
    bidding: BalootBidding
    bids: list[dict[str, Any]]
    contract: BalootContract | None
    doubling: BalootDoubling | None
    projects: list[list[dict[str, Any]] | None]
    declare_turn: int
    revealed: bool
    trick: list[dict[str, Any]]  # {"seat", "card"}
    leader: int | None
    tricks: list[dict[str, Any]]
    baloot: list[int]
    sawa: bool
    sawa_by: int | None
    sawa_pile: list[str]


# ----- Cherki ---------------------------------------------------------------------------------

class CherkiWin(TypedDict):
    seat: int
    card: str
    source: str  # stock | discard
    cards: list[str]
    points: int
    deltas: list[int]


class CherkiState(BaseState):
    void_deals: int
    past_deals: list[dict[str, Any]]
    left: list[bool]
    win: CherkiWin | None
    over: bool
    deal: int
    dealer: int
    turn: int
    hands: list[list[str]]
    stock: list[str]
    stock_pos: int
    pile: list[str]
    known: list[list[str]]
    called: list[bool]
    drawn: str | None
    took: str | None
    auto_turn: bool
    turn_since: int | None
    turns: int


# ----- 31 (Otuz bir) --------------------------------------------------------------------------

class OtuzbirRaise(TypedDict):
    seat: int
    amount: int
    kind: str  # predeal | closed | stand
    queue: list[int]
    seen: list[int]
    folded: list[int]


# ``raise`` is a Python keyword: that one key is declared in the functional form.
_OtuzbirRaiseKey = TypedDict("_OtuzbirRaiseKey", {"raise": OtuzbirRaise | None})


class OtuzbirState(BaseState, _OtuzbirRaiseKey):
    ebe_draw: list[list[dict[str, Any]]]
    ebe: int
    hand: int
    hands_played: int
    in_table: list[bool]
    left: list[bool]
    elim_hand: list[int | None]
    elim_stack: list[int | None]
    left_at: NotRequired[list[dict[str, int] | None]]  # missing from states saved before it existed
    net: list[int]
    stacks: list[int] | None
    history: list[dict[str, Any]]
    last_hand: dict[str, Any] | None
    last_ms: int | None
    auto: int | None
    result: dict[str, Any] | None
    order: list[int]
    ante: int
    contrib: list[int]
    pot: int
    status: list[str]  # out | in | stood | 31 | folded | bust
    closed: list[list[str]]
    open: list[list[str]]
    deck: list[str]
    pos: int
    turn: int | None
    raises: list[dict[str, Any]]
    revealed: list[bool]
    dealt: bool
    start_stacks: list[int] | None
