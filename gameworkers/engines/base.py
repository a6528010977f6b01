"""The engine contract shared by all four games.

An engine is a stateless object; every method takes the game state, which is plain
JSON data (dicts, lists, str, int, bool, None - no tuples, no int dict keys).
Nothing here may import Django, Celery, the network, read the clock or use the
global ``random``: time only arrives as ``now_ms`` and randomness only from the seed.

Contract (names relied on by the runtime, bots, tools and tests):

``new(seed, seats, options=None) -> state``
``to_act(state) -> list[int]``            seats that may act now; [] once over
``legal_moves(state, seat) -> list[dict]`` concrete moves ``apply`` accepts as they are
``apply(state, seat, move, *, now_ms) -> (state, events)``
    returns a NEW state (the argument is never mutated) or raises ``IllegalMove``.
    ``Engine.apply`` is one template for every game: it checks the envelope (see ``MoveRule`` and
    docs/rules/moves.md) in one fixed order, so every engine refuses the same bad input with the same
    code, then hands the move to the game's handler for its type, which only applies the rules.
    ``{"type": "leave"}`` is accepted from any seat still in the game at any time
    (never listed in ``legal_moves``); its effect is game-specific.
    ``seat`` is ``None`` only for a system step returned by ``timeout_move(state, None)``; a system
    step is not a move: it is neither logged nor numbered (``move_count`` stays), so replaying the
    log without it must give the same game. ``now_ms`` earlier than ``last_move_ms`` is refused
    (``time_backwards``): time never runs backwards (except under a game's legacy rules revision).
``timeout_move(state, seat) -> dict``      the spec's automatic move, carrying ``"auto": True``
``deadline(state) -> dict | None``         the next automatic step that is due, as
    ``{"seat": int | None, "since_ms": int | None, "limit_ms": int | None}``:
    due at ``since_ms`` (None: when the table started) plus ``limit_ms`` (None: the room's
    turn timer; 0: at once, e.g. the rest of an automatic turn).
``view(state, seat | None) -> dict``       what that seat (None: a spectator) may see
``is_over(state) -> bool``, ``result(state) -> dict``, ``proof(state) -> dict``
``replay_view(state) -> dict``            everything, every card shown (replays of ended games)
``replay_start(seed, seats, options, moves) -> state``  where a replay of a logged game starts
``all_cards(state) -> list[str]``          every card of the current deal wherever it is
                                           (the property tests check it is the whole deck)
``hidden_cards(state, seat | None) -> list[str]``  cards that seat may not see now: other
                                           seats' closed cards and the stock (the tests check
                                           no view shows a card whose every copy is hidden)

The move log ``state["moves"]`` is an OUTPUT: ``apply`` only appends to it and no rule ever
reads it (the platform keeps the log in its own table and may hand the engine a state whose
``moves`` is empty or holds only the entries since the last save). What the rules need of the
log is kept in the state: ``move_count`` (moves logged so far; a move's ``seq`` is
``move_count`` after it) and ``last_move_ms`` (``now_ms`` of the last logged move, None
before any; an engine's system step may advance it too, as the floor for the next step's time).
Only ``proof`` reads the log (the platform re-assembles it for the proof).

Events returned by ``apply`` are PUBLIC: everyone at the table may receive them.
Anything private (a drawn card) belongs only in that seat's ``view``.

``result(state)`` always has ``ranks`` (one entry per seat, 1 = first, shared ranks
allowed) and ``winners`` (the seats ranked first), plus game-specific detail.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from . import fairness

State = dict[str, Any]  # any engine's state; each game's exact shape is its TypedDict in ``states``
Move = dict[str, Any]
Event = dict[str, Any]
Handler = Callable[..., tuple[Any, list[Event]]]

PROOF_VERSION = 1


class IllegalMove(Exception):
    """A move the rules refuse. ``code`` is stable (clients switch on it); the message is for humans."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


# JSON scalars: the only values a move may carry besides a game's declared structured keys.
_SCALARS = frozenset({str, int, bool, float, type(None)})


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, tuples, scalars): ``copy.deepcopy`` keeps a memo
    and dispatches per type, several times slower on the views every move builds for every seat.
    A scalar inside a container is taken as it is, without a call of its own (most values are)."""
    if isinstance(value, dict):
        return {k: v if type(v) in _SCALARS else copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in _SCALARS else copy_json(v) for v in value]
    if isinstance(value, tuple):
        return tuple(v if type(v) in _SCALARS else copy_json(v) for v in value)
    return value


@dataclass(frozen=True)
class MoveRule:
    """What the envelope check knows of one move type (each engine declares ``move_rules``).

    ``handler``: the engine method that applies the move once the envelope is good, called as
    ``handler(state, seat, move, now_ms, auto)``. ``keys``: the keys it may carry besides ``type``.
    ``auto``: ``timeout_move`` produces it, so it may carry ``"auto": true`` (no other move may).
    ``turn``: only a seat to act may send it (else ``not_your_turn``); the others (leave, Lembar's
    call and catch) have their own game rules. ``system``: a seat-less system step (Lembar's
    ``close_window``), never sent with a seat. ``structured``: keys whose value may be a list or an
    object (Baloot's ``projects``); every other value is a JSON scalar.
    """

    handler: str
    keys: tuple[str, ...] = ()
    auto: bool = False
    turn: bool = True
    system: bool = False
    structured: tuple[str, ...] = ()


STAKE_KINDS = ("casual", "pot", "per_point", "ante")  # every stake a room can have (economy.md)


@dataclass(frozen=True)
class GameSpec:
    """What the platform needs to know of a game besides its moves: rooms, matchmaking, tournaments
    and the UI read it here, so a new game's rules touch no other package.

    ``stake_kinds``: "casual" (free) and the money rule the game's spec defines ("pot": an entry into
    a pot, "per_point": Chip per point, "ante": Chip ante per hand).
    ``partnerships``: seats that play as one side (Baloot: 0 & 2 against 1 & 3); empty: every seat
    plays for itself.
    ``tournament``: "freezeout" (stacks carry over from hand to hand) or "bracket" (a table's winner
    goes on); ``bracket_size``: entrants (sides) per bracket table, None for the room's seat count.
    """

    name: str
    label: str
    min_seats: int
    max_seats: int
    stake_kinds: tuple[str, ...]
    partnerships: tuple[tuple[int, ...], ...] = ()
    tournament: Literal["freezeout", "bracket"] = "bracket"
    bracket_size: int | None = None

    def __post_init__(self) -> None:
        assert 2 <= self.min_seats <= self.max_seats, self
        assert self.stake_kinds and self.stake_kinds[0] == "casual" and set(self.stake_kinds) <= set(STAKE_KINDS)
        assert sorted(s for side in self.partnerships for s in side) in ([], list(range(self.max_seats)))

    @property
    def team_size(self) -> int:
        """Players per side (1: everyone alone)."""
        return len(self.partnerships[0]) if self.partnerships else 1

    def allows_seats(self, seats: int) -> bool:
        return self.min_seats <= seats <= self.max_seats

    def team_of(self, seat: int) -> int:
        """The side a seat plays for (the seat itself when nobody has a partner)."""
        for side, members in enumerate(self.partnerships):
            if seat in members:
                return side
        if self.partnerships or not 0 <= seat < self.max_seats:
            raise ValueError(f"{self.name} has no seat {seat}")
        return seat

    def sides(self, seats: int) -> list[list[int]]:
        """The seats of a table of ``seats`` grouped by side, in side order."""
        if self.partnerships:
            return [[s for s in members if s < seats] for members in self.partnerships]
        return [[s] for s in range(seats)]


class Engine:
    """Shared plumbing: seed handling, the shuffle and move logs, the proof document.

    Each game stores in its state (besides its own keys):
    ``game``, ``seed`` (hex, secret until the end), ``commitment``, ``seats`` (int),
    ``options``, ``shuffles`` (list of {round, purpose, initial, result}), ``first``,
    ``moves`` (list of {seq, seat, move, now_ms}; appended to, never read by the rules),
    ``move_count`` (moves logged so far), ``last_move_ms`` (now_ms of the last one, or None).
    """

    spec: GameSpec  # each game declares its own

    # ----- the move envelope --------------------------------------------------------
    move_rules: ClassVar[Mapping[str, MoveRule]] = {}  # each game declares its move types
    # The state key holding the one seat to act, for a game that always has exactly one (a cheap
    # turn check); None: ``to_act`` decides.
    turn_key: ClassVar[str | None] = None
    # The state key of a per-seat list that is false for a seat out of the game (removed, left the
    # table): such a seat may send nothing (``not_in_game``). None: no seat is ever out.
    in_game_key: ClassVar[str | None] = None
    # Compiled from ``move_rules`` once per class: type -> (allowed keys, handler, turn, system,
    # structured keys, turn_key, in_game_key), one lookup per move.
    _envelope: ClassVar[dict[str, tuple[frozenset[str], Handler, bool, bool, frozenset[str], str | None,
                                        str | None]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._envelope = {
            mtype: (frozenset({"type", *rule.keys, *(("auto",) if rule.auto else ())}),
                    getattr(cls, rule.handler), rule.turn, rule.system, frozenset(rule.structured),
                    cls.turn_key, cls.in_game_key)
            for mtype, rule in cls.move_rules.items()
        }

    def apply(self, state: State, seat: int | None, move: Move, *, now_ms: int) -> tuple[State, list[Event]]:
        """The one ``apply`` of every game: the envelope in a fixed order (each check a stable code,
        the state untouched), then the handler of the move's type, which applies the game's rules.

        Hot (live tables, random playouts): no copies, no JSON; the rare failures pay for messages."""
        if type(move) is not dict or type(mtype := move.get("type")) is not str:
            raise IllegalMove("malformed", "A move must be an object with a string 'type'.")
        rule = self._envelope.get(mtype)
        if rule is None:
            raise IllegalMove("unknown_move", f"Unknown move type {mtype[:40]!r}.")
        allowed, handler, on_turn, system, structured, turn_key, in_game = rule
        if not allowed.issuperset(move):
            extra = sorted(str(k)[:40] for k in move if k not in allowed)
            if extra == ["auto"]:
                raise IllegalMove("malformed", f"'auto' is only on the server's automatic moves, never on {mtype!r}.")
            raise IllegalMove("malformed", f"Unexpected key(s) {extra} in a {mtype!r} move.")
        auto = "auto" in move
        if auto and move["auto"] is not True:
            raise IllegalMove("malformed", "'auto' is only ever true, on the server's automatic moves.")
        for value in move.values() if len(move) > 1 else ():  # ("type" alone is a str already)
            if type(value) not in _SCALARS:
                for key, value in move.items():  # which key (the one list Baloot allows is fine)
                    if type(value) not in _SCALARS and key not in structured:
                        raise IllegalMove("malformed", f"{str(key)[:40]!r} must be a string, a number, a boolean or null.")
                break
        if type(now_ms) is not int:
            raise IllegalMove("malformed", "now_ms must be a whole number.")
        if state["phase"] == "over":
            raise IllegalMove("game_over", "The game is over.")
        if seat is None:
            if not system:
                raise IllegalMove("bad_seat", "A move needs a seat: only a system step has none.")
        else:
            if type(seat) is not int or not 0 <= seat < state["seats"]:
                raise IllegalMove("bad_seat", "No such seat.")
            if system:
                raise IllegalMove("bad_seat", f"{mtype!r} is a system step: it has no seat.")
            if in_game is not None and not state[in_game][seat]:
                raise IllegalMove("not_in_game", "This seat is no longer in the game.")
            if on_turn:
                if (seat != state[turn_key]) if turn_key is not None else (seat not in self.to_act(state)):
                    raise IllegalMove("not_your_turn", "It is not your turn.")
        last = state["last_move_ms"]
        if last is not None and now_ms < last and self._clock_runs_forward(state):
            raise IllegalMove("time_backwards", "now_ms is earlier than the last step's: time never runs backwards.")
        return handler(self, state, seat, move, now_ms, auto)

    def _clock_runs_forward(self, state: State) -> bool:
        """Whether a step earlier than the last is refused: a game's legacy rules revision may say no
        (its old logs replay with whatever clock they were recorded with)."""
        return True

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def min_seats(self) -> int:
        return self.spec.min_seats

    @property
    def max_seats(self) -> int:
        return self.spec.max_seats

    def normal_options(self, options: dict | None, seats: int) -> dict:
        """The room's variant options validated, with every default filled (``ValueError`` if bad):
        what ``new`` stores, so a table's options replay identically. Rooms and tournaments validate
        an admin's options with it before any table exists."""
        if options is not None and not isinstance(options, dict):
            raise ValueError("options must be a JSON object")
        return dict(options or {})

    def stake_options(self, *, stake_kind: str, stake: int, rake_bps: int) -> dict:
        """Options a table of a room with this stake needs from it (the room's own options win): most
        games settle their stake outside the rules; 31's ante and pot rake are rules of the hand."""
        return {}

    # ----- helpers for subclasses -------------------------------------------------
    def _base_state(self, seed: bytes, seats: int, options: dict | None) -> State:
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != fairness.SEED_BYTES:
            raise ValueError("seed must be 32 bytes")
        if not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise ValueError(f"{self.name} needs {self.min_seats}-{self.max_seats} seats")
        return {
            "game": self.name,
            "seed": bytes(seed).hex(),
            "commitment": fairness.commitment(bytes(seed)),
            "seats": seats,
            "options": dict(options or {}),
            "shuffles": [],
            "first": None,
            "moves": [],
            "move_count": 0,
            "last_move_ms": None,
        }

    @staticmethod
    def _seed(state: State) -> bytes:
        return bytes.fromhex(state["seed"])

    def _shuffle(self, state: State, round_: int, purpose: str, initial: list[str]) -> list[str]:
        """Shuffle and record it in the proof log (mutates ``state``: use on a copy)."""
        result = fairness.shuffle(self._seed(state), round_, purpose, initial)
        state["shuffles"].append(
            {"round": round_, "purpose": purpose, "initial": list(initial), "result": list(result)}
        )
        return result

    # How a move is copied into the log: an engine whose validated moves are flat dicts of
    # scalars sets ``staticmethod(dict)`` (a shallow copy is then a full one).
    _copy_logged_move = staticmethod(copy_json)

    def _log_move(self, state: State, seat: int | None, move: Move, now_ms: int) -> int:
        """Append to the move log and count it (mutates ``state``); returns the move's sequence
        number, which is ``move_count`` after it."""
        seq = state["move_count"] + 1
        state["move_count"] = seq
        state["last_move_ms"] = now_ms
        state["moves"].append({"seq": seq, "seat": seat, "move": self._copy_logged_move(move), "now_ms": now_ms})
        return seq

    # ----- contract defaults ------------------------------------------------------
    def proof(self, state: State) -> dict:
        """The proof document (same shape for every game); the seed only once over."""
        over = self.is_over(state)
        doc: dict[str, Any] = {
            "game": state["game"],
            "version": PROOF_VERSION,
            "commitment": state["commitment"],
            "seats": [{"seat": i} for i in range(state["seats"])],
            "options": copy.deepcopy(state["options"]),
            "shuffles": copy.deepcopy(state["shuffles"]) if over else [],
            "first": state["first"] if over else None,
            "moves": copy.deepcopy(state["moves"]) if over else [],
            "result": self.result(state) if over else None,
        }
        if over:
            doc["seed"] = state["seed"]
        return doc

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> State:
        """The state a replay of the logged ``moves`` (a proof's log) starts from: ``new``, plus any
        rule of an older engine that the log itself shows it was recorded under (e.g. Lembar's
        numbered window closes). Replays (``tools/verify_proof.py``, replay pages) start here."""
        return self.new(seed, seats, options)

    # Subclasses implement these.
    def new(self, seed: bytes, seats: int, options: dict | None = None) -> State:  # pragma: no cover
        raise NotImplementedError

    def to_act(self, state: State) -> list[int]:  # pragma: no cover
        raise NotImplementedError

    def legal_moves(self, state: State, seat: int) -> list[Move]:  # pragma: no cover
        raise NotImplementedError

    def timeout_move(self, state: State, seat: int | None) -> Move:  # pragma: no cover
        raise NotImplementedError

    def deadline(self, state: State) -> dict | None:  # pragma: no cover
        raise NotImplementedError

    def view(self, state: State, seat: int | None) -> dict:  # pragma: no cover
        raise NotImplementedError

    def is_over(self, state: State) -> bool:  # pragma: no cover
        raise NotImplementedError

    def result(self, state: State) -> dict:  # pragma: no cover
        raise NotImplementedError

    def replay_view(self, state: State) -> dict:  # pragma: no cover
        raise NotImplementedError

    def all_cards(self, state: State) -> list[str]:  # pragma: no cover
        raise NotImplementedError

    def hidden_cards(self, state: State, seat: int | None) -> list[str]:  # pragma: no cover
        raise NotImplementedError


def competition_ranks(values: list[int | float], *, lower_is_better: bool = True) -> list[int]:
    """Competition ranking (1, 2, 2, 4) of values, one rank per index."""
    ranks = []
    for v in values:
        better = sum(1 for w in values if (w < v if lower_is_better else w > v))
        ranks.append(better + 1)
    return ranks


def require_dict(move: Any) -> Move:
    """Reject anything but a dict with a string ``type``, and an ``auto`` other than ``True`` (only the
    server's automatic moves carry it). The engines check the whole envelope in ``Engine.apply``; this
    and ``require_int`` stay for copies of older engine modules (``bench.engines --baseline``)."""
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise IllegalMove("malformed", "A move must be an object with a string 'type'.")
    if "auto" in move and move["auto"] is not True:
        raise IllegalMove("malformed", "'auto' is only ever true, on the server's automatic moves.")
    return move


def require_int(value: Any, code: str = "malformed", what: str = "value") -> int:
    """Accept only real ints (not bools, floats or strings)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalMove(code, f"{what} must be a whole number.")
    return value
