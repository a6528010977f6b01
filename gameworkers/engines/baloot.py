"""Saudi Baloot (../shared/spec/baloot.md): 4 seats, partners 0 & 2 and 1 & 3, race to 152.

The state is plain JSON data. A game is a sequence of deals; deal ``d`` is shuffle
``d:kocok`` of the canonical 32-card deck. Phases of a deal: ``bidding`` -> (``doubling``)
-> ``projects`` -> ``play``; scoring and the next deal happen inside the move that ends
a deal, so there is never a system step (``deadline`` always names a seat).
See docs/rules/baloot.md for the readings chosen where the spec is open.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from . import fairness
from .base import Engine, Event, IllegalMove, Move, State, require_dict, require_int

SUITS = "SHDC"
RANKS = "789TJQKA"  # canonical (hand) order and sequence order for projects
SUN_ORDER = "789JQKTA"  # trick strength, weakest first
TRUMP_ORDER = "78QKTA9J"
SUN_POINTS = {"7": 0, "8": 0, "9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}
TRUMP_POINTS = {"7": 0, "8": 0, "Q": 3, "K": 4, "T": 10, "A": 11, "9": 14, "J": 20}
HAND_INDEX = {c: i for i, c in enumerate(fairness.BALOOT_DECK)}

BIDDING_LIMIT_MS = 8000
TARGET = 152
FAST_START = 52
LAST_TRICK = 10

PROJECT_KINDS = ("sira", "fifty", "hundred", "four_hundred")
PROJECT_RANK = {k: i for i, k in enumerate(PROJECT_KINDS)}
PROJECT_CARD_POINTS = {"sira": 20, "fifty": 50, "hundred": 100, "four_hundred": 200}
# Game points of a project: x2/10 in Sun, /10 in Hokum.
PROJECT_GAME_SUN = {"sira": 4, "fifty": 10, "hundred": 20, "four_hundred": 40}
PROJECT_GAME_HOKUM = {"sira": 2, "fifty": 5, "hundred": 10}
RUN_KIND = {3: "sira", 4: "fifty"}  # 5 or more: hundred

LADDER = ("double", "triple", "four", "gahwa")
LADDER_LEVEL = {"double": 2, "triple": 3, "four": 4}
AUTO_TRUMP_ORDER = "SHDC"  # round-2 automatic confirm names the first suit that is allowed

# Rules revisions (option ``rules``; docs/rules/baloot.md, "Rules revisions"). New games use RULES.
# Revision 1 is how games were played before issue 20: a Sawa could carry a Baloot claim, and a
# Gahwa deal's winner was judged without Baloot. It is kept only so that the move logs of those games
# replay to their recorded results (proof verification, replays); a state saved before revisions
# existed has no ``rules`` option and is revision 1.
RULES = 2
LEGACY_RULES = 1


def team_of(seat: int) -> int:
    return seat % 2


def hand_sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=HAND_INDEX.__getitem__)


def strength(card: str, trump: str | None) -> int:
    """Rank within its suit for winning tricks (trump suit uses the trump order)."""
    if card[0] == trump:
        return TRUMP_ORDER.index(card[1])
    return SUN_ORDER.index(card[1])


def card_points(card: str, trump: str | None) -> int:
    return TRUMP_POINTS[card[1]] if card[0] == trump else SUN_POINTS[card[1]]


def trick_winner(cards: list[dict], trump: str | None) -> int:
    """Index (into ``cards``) of the card that wins; ``cards`` in play order."""
    best = 0
    for i in range(1, len(cards)):
        c, b = cards[i]["card"], cards[best]["card"]
        if c[0] == b[0]:
            if strength(c, trump) > strength(b, trump):
                best = i
        elif c[0] == trump:
            best = i  # the best so far is led suit (not trump): a trump beats it
    return best


def legal_cards(hand: list[str], trick: list[dict], trump: str | None, *, lock: bool = False,
                overtrump: bool = False) -> list[str]:
    """Cards of ``hand`` that may be played to ``trick`` (in hand order)."""
    if not trick:
        if lock and trump is not None and any(c[0] != trump for c in hand):
            return [c for c in hand if c[0] != trump]
        return list(hand)
    led = trick[0]["card"][0]
    follow = [c for c in hand if c[0] == led]
    if trump is None:
        return follow or list(hand)
    if follow:
        if led == trump and overtrump:
            return _overtrump_filter(follow, trick, trump)
        return follow
    trumps = [c for c in hand if c[0] == trump]
    if trumps:
        return _overtrump_filter(trumps, trick, trump) if overtrump else trumps
    return list(hand)


def _overtrump_filter(trumps: list[str], trick: list[dict], trump: str) -> list[str]:
    """When playing a trump you must beat the highest trump in the trick if you can."""
    played = [strength(p["card"], trump) for p in trick if p["card"][0] == trump]
    if not played:
        return trumps
    top = max(played)
    higher = [c for c in trumps if strength(c, trump) > top]
    return higher or trumps


# ----- projects ------------------------------------------------------------------------
def _seq(card: str) -> int:
    return RANKS.index(card[1])


def held_runs(hand: list[str]) -> list[list[str]]:
    """Maximal runs of 3+ consecutive cards (sequence order) in one suit, low to high."""
    runs = []
    for s in SUITS:
        ranks = sorted(_seq(c) for c in hand if c[0] == s)
        cur: list[int] = []
        for r in ranks:
            if cur and r == cur[-1] + 1:
                cur.append(r)
            else:
                if len(cur) >= 3:
                    runs.append([s + RANKS[x] for x in cur])
                cur = [r]
        if len(cur) >= 3:
            runs.append([s + RANKS[x] for x in cur])
    return runs


def classify_project(cards: list[str], sun: bool) -> str | None:
    """The project these cards form (or None): a run of 3+ in one suit, or a counting four."""
    if len(cards) != len(set(cards)) or len(cards) < 3:
        return None
    if len(cards) == 4 and len({c[1] for c in cards}) == 1:
        rank = cards[0][1]
        if rank in "TJQK":
            return "hundred"
        if rank == "A":
            return "four_hundred" if sun else "hundred"
        return None
    if len({c[0] for c in cards}) != 1:
        return None
    seqs = sorted(_seq(c) for c in cards)
    if seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        return None
    return RUN_KIND.get(len(cards), "hundred")


def project_top(project: dict) -> int:
    """Top card in sequence order (for a four: its rank)."""
    return max(_seq(c) for c in project["cards"])


def candidate_projects(hand: list[str], sun: bool) -> list[list[dict]]:
    """Every valid declaration (list of projects) for this hand, including none."""
    groups: list[list[dict | None]] = []
    for run in held_runs(hand):
        options: list[dict | None] = [None]
        for length in range(3, len(run) + 1):
            for start in range(0, len(run) - length + 1):
                cards = run[start:start + length]
                options.append({"kind": classify_project(cards, sun), "cards": cards})
        groups.append(options)
    for rank in "TJQKA":
        four = [s + rank for s in SUITS]
        if all(c in hand for c in four):
            groups.append([None, {"kind": classify_project(four, sun), "cards": four}])
    found = []
    for combo in product(*groups):
        chosen = [p for p in combo if p is not None]
        if _declaration_problem(chosen) is None:
            found.append(chosen)
    return found


def _declaration_problem(projects: list[dict]) -> str | None:
    used: set[str] = set()
    kinds: dict[str, int] = {}
    for p in projects:
        if used & set(p["cards"]):
            return "A card may be used in only one project."
        used |= set(p["cards"])
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
        if kinds[p["kind"]] > 2:
            return "The same project type counts at most twice."
    return None


def project_key(project: dict, position: int) -> tuple[int, int, int]:
    """Bigger is better: type, top card, then the earlier player from the dealer's right."""
    kind = project["kind"]
    rank = PROJECT_RANK["hundred"] if kind == "hundred" else PROJECT_RANK[kind]
    return (rank, project_top(project), -position)


# ----- Sawa: exact search --------------------------------------------------------------
_CARD_INT = {c: i for i, c in enumerate(fairness.BALOOT_DECK)}


def sawa_possible(hands: list[list[str]], leader: int, trump: str | None, lock: bool) -> bool:
    """Can ``leader`` win every remaining trick whatever the other three play?

    Exact minimax: the leader picks a lead, the others any legal reply. Only comparisons
    with the leader's cards matter (any responder beating the leader already refutes Sawa),
    so a responder's card is known by its suit and how many of the leader's cards of that
    suit it outranks: positions are memoised on those classes, and of the replies only the
    undominated ones are searched (see below).
    """
    suit_of = [i // 8 for i in range(32)]
    st = [strength(c, trump) for c in fairness.BALOOT_DECK]
    t = SUITS.index(trump) if trump is not None else -1
    lead_hand = frozenset(_CARD_INT[c] for c in hands[leader])
    others = tuple(tuple(sorted(_CARD_INT[c] for c in hands[(leader + k) % 4])) for k in (1, 2, 3))
    memo: dict[Any, bool] = {}
    if _sawa_static(lead_hand, others, suit_of, st, t, lock):
        return True

    def gaps(mine: frozenset) -> list[int]:
        """For every card: how many of the leader's cards of its suit it outranks."""
        out = [0] * 32
        for y in mine:
            sy, ty = suit_of[y], st[y]
            base = sy * 8
            for x in range(base, base + 8):
                if st[x] > ty:
                    out[x] += 1
        return out

    def solve(mine: frozenset, opp: tuple) -> bool:
        if not mine:
            return True
        leads = sorted(mine, key=lambda c: -st[c])
        if lock and t >= 0 and any(suit_of[c] != t for c in mine):
            leads = [c for c in leads if suit_of[c] != t]
        # cheap filter first: leads that win this trick against every reply
        winning = []
        for c in leads:
            s, sc = suit_of[c], st[c]
            for o in opp:
                has_suit = False
                beaten = False
                has_trump = False
                for x in o:
                    sx = suit_of[x]
                    if sx == s:
                        has_suit = True
                        if st[x] > sc:
                            beaten = True
                            break
                    elif sx == t:
                        has_trump = True
                if beaten or (not has_suit and has_trump and s != t):
                    break  # beaten in suit, or a void responder must trump
            else:
                winning.append(c)
        if not winning:
            return False
        # Of the winning leads of one suit only the lowest is tried: the leader keeping the
        # higher card is never worse off (it is legal and wins wherever the lower one would).
        lowest_lead: dict[int, int] = {}
        for c in winning:
            k = suit_of[c]
            if k not in lowest_lead or st[c] < st[lowest_lead[k]]:
                lowest_lead[k] = c
        winning = list(lowest_lead.values())
        if len(mine) == 1:
            return True
        g = gaps(mine)
        key = (mine, tuple(tuple(sorted(suit_of[x] * 16 + g[x] for x in o)) for o in opp))
        hit = memo.get(key)
        if hit is not None:
            return hit
        answer = False
        for c in winning:
            s = suit_of[c]
            rest = mine - {c}
            replies: list[list[int]] = []
            for o in opp:
                # Keeping a higher card of a suit never hurts the defence (it is legal wherever
                # the lower one is and beats at least as much), so a responder following suit
                # plays its lowest card, and a void responder discards the lowest of some suit.
                follow = [x for x in o if suit_of[x] == s]
                lowest: dict[int, int] = {}
                for x in follow or o:
                    k = suit_of[x]
                    if k not in lowest or st[x] < st[lowest[k]]:
                        lowest[k] = x
                replies.append(list(lowest.values()))
            if all(solve(rest, tuple(tuple(x for x in o if x != r) for o, r in zip(opp, combo, strict=True)))
                   for combo in product(*replies)):
                answer = True
                break
        memo[key] = answer
        return answer

    return solve(lead_hand, others)


def _sawa_static(mine: frozenset, opp: tuple, suit_of: list[int], st: list[int], t: int, lock: bool) -> bool:
    """Quick sure win: every card of the leader tops its suit among the others' cards and, in
    Hokum, nobody else holds a trump, or (without Lock) the leader holds at least as many trumps
    as anyone and draws them first. The full search is then not needed."""
    theirs = [x for o in opp for x in o]
    for c in mine:
        if any(suit_of[x] == suit_of[c] and st[x] > st[c] for x in theirs):
            return False
    if t < 0:
        return True
    most = max(sum(1 for x in o if suit_of[x] == t) for o in opp)
    if most == 0:
        return True
    return not lock and sum(1 for c in mine if suit_of[c] == t) >= most


# ----- conversion ------------------------------------------------------------------------
def sun_game_points(raw: int) -> int:
    """Round to the nearest 10 (a total ending in 5 is not rounded), then divide by 5."""
    if raw % 10 == 5:
        return raw // 5
    return ((raw + 5) // 10 * 10) // 5


def hokum_game_points(raw: int) -> int:
    """Divide by 10; a remainder of 6-9 rounds up, 5 or less rounds down."""
    return raw // 10 + (1 if raw % 10 >= 6 else 0)


def bid_failed(final: list[int], card_points: list[int], bidders: int) -> bool:
    """The spec's one test of a failed bid, for every contract, sweeps and Gahwa included.

    ``final`` is each team's game points after the multiplier, Baloot included; the bidders fail
    unless theirs is more than the defenders' (equal: unless their card points, last trick
    included, are more; still equal: they fail).
    """
    defenders = 1 - bidders
    if final[bidders] != final[defenders]:
        return final[bidders] < final[defenders]
    return card_points[bidders] <= card_points[defenders]


_MUTABLE_LISTS = ("hands", "stock", "trick", "tricks", "baloot", "scores", "left", "moves", "shuffles",
                  "deals", "projects", "bids", "sawa_pile")


class BalootEngine(Engine):
    name = "baloot"
    min_seats = 4
    max_seats = 4

    # ----- setup ----------------------------------------------------------------------
    def new(self, seed: bytes, seats: int, options: dict | None = None) -> State:
        opts = self._options(options)
        state = self._base_state(seed, seats, opts)
        state["first"] = fairness.first_player(self._seed(state), 4)
        start = FAST_START if opts["mode"] == "fast" else 0
        state.update({
            "scores": [start, start],
            "deal_no": -1,
            "dealer": (state["first"] - 1) % 4,  # _next_deal moves it to ``first``
            "left": [False] * 4,
            "deals": [],
            "last_deal": None,
            "result": None,
            "forfeit": None,
            "since": None,
        })
        self._next_deal(state, first=True)
        return state

    @staticmethod
    def _options(options: dict | None) -> dict:
        options = dict(options or {})
        mode = options.get("mode", "classic")
        overtrump = options.get("overtrump", False)
        rules = options.get("rules", RULES)
        if mode not in ("classic", "fast"):
            raise ValueError("mode must be 'classic' or 'fast'")
        if not isinstance(overtrump, bool):
            raise ValueError("overtrump must be true or false")
        if isinstance(rules, bool) or rules not in (LEGACY_RULES, RULES):
            raise ValueError(f"rules must be {LEGACY_RULES} or {RULES}")
        unknown = set(options) - {"mode", "overtrump", "rules"}
        if unknown:
            raise ValueError(f"unknown options {sorted(unknown)}")
        # The revision is stored with the options, so a replay started from them (proof, replays)
        # plays by the rules the game was played by.
        return {"mode": mode, "overtrump": overtrump, "rules": rules}

    def _next_deal(self, state: State, *, first: bool = False) -> None:
        """Shuffle and deal 5 each plus the exposed card (mutates ``state``)."""
        state["deal_no"] += 1
        state["dealer"] = (state["dealer"] + 1) % 4
        d = state["deal_no"]
        stock = self._shuffle(state, d, "kocok", list(fairness.BALOOT_DECK))
        dealer = state["dealer"]
        hands: list[list[str]] = [[], [], [], []]
        for k in range(4):  # P1..P4 get 3 each, then 2 each
            seat = (dealer + 1 + k) % 4
            hands[seat].extend(stock[3 * k:3 * k + 3])
            hands[seat].extend(stock[12 + 2 * k:14 + 2 * k])
        state.update({
            "phase": "bidding",
            "hands": [hand_sorted(h) for h in hands],
            "exposed": stock[20],
            "stock": stock[21:],
            "bidding": {"round": 1, "stage": "bid", "turn": (dealer + 1) % 4, "hokum": None,
                        "ashkal": None, "overcalls": 0},
            "bids": [],
            "contract": None,
            "doubling": None,
            "projects": [None, None, None, None],
            "declare_turn": 0,
            "revealed": False,
            "trick": [],
            "leader": None,
            "tricks": [],
            "baloot": [],
            "sawa": False,
            "sawa_by": None,
            "sawa_pile": [],
        })

    # ----- helpers --------------------------------------------------------------------
    @staticmethod
    def _clone(state: State) -> State:
        """Copy what a move may change; log entries and nested records are never mutated."""
        new = dict(state)
        for key in _MUTABLE_LISTS:
            if key in new and isinstance(new[key], list):
                new[key] = list(new[key])
        new["hands"] = [list(h) for h in state["hands"]]
        new["options"] = dict(state["options"])
        for key in ("bidding", "contract", "doubling"):
            if isinstance(new.get(key), dict):
                new[key] = dict(new[key])
        if isinstance(new.get("doubling"), dict):
            new["doubling"]["passed"] = list(new["doubling"]["passed"])
        return new

    @staticmethod
    def _pos(state: State, seat: int) -> int:
        """Position from the dealer's right: P1..P4 (the dealer is P4)."""
        return (seat - state["dealer"] - 1) % 4 + 1

    def _player_to_play(self, state: State) -> int:
        return (state["leader"] + len(state["trick"])) % 4

    def _trump(self, state: State) -> str | None:
        c = state.get("contract")
        return c["trump"] if c else None

    def _is_sun(self, state: State) -> bool:
        return state["contract"]["kind"] in ("sun", "ashkal")

    @staticmethod
    def _rules(state: State) -> int:
        """The rules revision the game is played by (a state saved before revisions: 1)."""
        return state["options"].get("rules", LEGACY_RULES)

    # ----- contract: who acts --------------------------------------------------------
    def is_over(self, state: State) -> bool:
        return state["phase"] == "over"

    def to_act(self, state: State) -> list[int]:
        phase = state["phase"]
        if phase == "bidding":
            return [state["bidding"]["turn"]]
        if phase == "doubling":
            dbl = state["doubling"]
            return [s for s in self._team_order(state, dbl["team"]) if s not in dbl["passed"]]
        if phase == "projects":
            return [(state["dealer"] + 1 + state["declare_turn"]) % 4]
        if phase == "play":
            return [self._player_to_play(state)]
        return []

    def _team_order(self, state: State, team: int) -> list[int]:
        """The team's two seats, the one nearer the dealer's right first."""
        return sorted((team, team + 2), key=lambda s: self._pos(state, s))

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.to_act(state):
            return []
        phase = state["phase"]
        if phase == "bidding":
            return self._bidding_moves(state, seat)
        if phase == "doubling":
            return self._doubling_moves(state)
        if phase == "projects":
            sun = self._is_sun(state)
            return [{"type": "declare", "projects": ps} for ps in candidate_projects(state["hands"][seat], sun)]
        return self._play_moves(state, seat)

    def _bidding_moves(self, state: State, seat: int) -> list[Move]:
        b = state["bidding"]
        stage = b["stage"]
        if stage == "bid":
            moves = [{"type": "pass"}, {"type": "sun"}, {"type": "hokum"}]
            if self._pos(state, seat) >= 3:
                moves.append({"type": "ashkal"})
            return moves
        if stage in ("ashkal_answer", "overcall"):
            return [{"type": "pass"}, {"type": "sun"}]
        # the Hokum caller's choice
        if b["round"] == 1:
            return [{"type": "confirm"}, {"type": "sun"}]
        return [{"type": "confirm", "trump": s} for s in SUITS if s != state["exposed"][0]] + [{"type": "sun"}]

    def _doubling_moves(self, state: State) -> list[Move]:
        dbl = state["doubling"]
        step = dbl["step"]
        if step == "double" and state["contract"]["kind"] == "hokum":
            return [{"type": "pass"}, {"type": "double", "lock": False}, {"type": "double", "lock": True}]
        return [{"type": "pass"}, {"type": step}]

    def _baloot_eligible(self, state: State, seat: int, card: str) -> bool:
        """Second of trump K/Q, the first played earlier in this deal by the same seat."""
        trump = self._trump(state)
        if trump is None or card[0] != trump or card[1] not in "KQ" or seat in state["baloot"]:
            return False
        other = trump + ("Q" if card[1] == "K" else "K")
        return any(p["seat"] == seat and p["card"] == other
                   for t in state["tricks"] for p in t["cards"]) or \
            any(p["seat"] == seat and p["card"] == other for p in state["trick"])

    def _play_moves(self, state: State, seat: int) -> list[Move]:
        c = state["contract"]
        cards = legal_cards(state["hands"][seat], state["trick"], c["trump"],
                            lock=bool(state["doubling"] and state["doubling"].get("lock")),
                            overtrump=state["options"]["overtrump"])
        moves: list[Move] = []
        for card in cards:
            moves.append({"type": "play", "card": card})
            if self._baloot_eligible(state, seat, card):
                moves.append({"type": "play", "card": card, "baloot": True})
        if state["sawa"] and not state["trick"] and seat == state["leader"]:
            moves.append({"type": "sawa"})
            if self._legacy_sawa_baloot(state, seat):
                moves.append({"type": "sawa", "baloot": True})
        return moves

    def _legacy_sawa_baloot(self, state: State, seat: int) -> bool:
        """Rules revision 1 only: a Sawa could claim Baloot when trump K and Q were both this seat's
        this deal, one still in hand, and it was not claimed yet. Under the current rules a Sawa
        plays no card, so it never carries the claim made "when playing the second of the two"."""
        if self._rules(state) != LEGACY_RULES:
            return False
        trump = self._trump(state)
        if trump is None or seat in state["baloot"]:
            return False
        hand = state["hands"][seat]
        played = {p["card"] for t in state["tricks"] for p in t["cards"] if p["seat"] == seat}
        kq = [trump + "K", trump + "Q"]
        return all(x in hand or x in played for x in kq) and any(x in hand for x in kq)

    # ----- apply ----------------------------------------------------------------------
    def apply(self, state: State, seat: int | None, move: Move, *, now_ms: int) -> tuple[State, list[Event]]:
        if self.is_over(state):
            raise IllegalMove("game_over", "The game is over.")
        move = require_dict(move)
        if seat is None:
            raise IllegalMove("bad_seat", "Baloot has no system steps: a move needs a seat.")
        seat = require_int(seat, "bad_seat", "seat")
        if not 0 <= seat < 4:
            raise IllegalMove("bad_seat", "No such seat.")
        mtype = move["type"]
        if mtype == "leave":
            self._check_keys(move, set())
            return self._apply_leave(state, seat, move, now_ms)
        if seat not in self.to_act(state):
            raise IllegalMove("not_your_turn", "It is not your turn.")
        phase = state["phase"]
        if phase == "bidding":
            return self._apply_bid(state, seat, move, now_ms)
        if phase == "doubling":
            return self._apply_double(state, seat, move, now_ms)
        if phase == "projects":
            return self._apply_declare(state, seat, move, now_ms)
        return self._apply_play(state, seat, move, now_ms)

    @staticmethod
    def _check_keys(move: Move, allowed: set[str]) -> None:
        extra = set(move) - allowed - {"type", "auto"}
        if extra:
            raise IllegalMove("malformed", f"Unexpected keys {sorted(extra)}.")

    def _start(self, state: State, seat: int, move: Move, now_ms: int) -> State:
        """Every accepted move passes here after its own checks. From rules revision 2 a move stamped
        before the last logged one is refused (``time_backwards``), as in every engine; revision 1
        tables logged whatever clock they were given and still replay as they were played."""
        if self._rules(state) != LEGACY_RULES:
            last = self._last_move_ms(state)
            if last is not None and now_ms < last:
                raise IllegalMove("time_backwards", "now_ms is earlier than the last move's: time never runs backwards.")
        new = self._clone(state)
        self._log_move(new, seat, move, now_ms)
        new["since"] = now_ms
        return new

    def _apply_leave(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        if state["left"][seat]:
            raise IllegalMove("already_left", "This seat has already left.")
        new = self._start(state, seat, move, now_ms)
        new["left"][seat] = True
        events: list[Event] = [{"type": "left", "seat": seat}]
        team = team_of(seat)
        if new["left"][team] and new["left"][team + 2]:
            # A team with nobody left forfeits: the other team wins at once.
            new["forfeit"] = team
            new["phase"] = "over"
            new["result"] = self._make_result(new, winner=1 - team)
            events.append({"type": "game_over", "result": new["result"]})
        return new, events

    # ----- bidding -------------------------------------------------------------------
    def _apply_bid(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        b = state["bidding"]
        stage, mtype = b["stage"], move["type"]
        if stage == "choice" and mtype == "confirm":
            self._check_keys(move, {"trump"})
            trump = move.get("trump")
            if b["round"] == 1:
                if trump is not None and trump != state["exposed"][0]:
                    raise IllegalMove("bad_trump", "In round 1 trump is the exposed card's suit.")
                trump = state["exposed"][0]
            elif trump not in tuple(SUITS) or trump == state["exposed"][0]:
                raise IllegalMove("bad_trump", "Name a trump suit other than the exposed card's suit.")
        else:
            self._check_keys(move, set())
            allowed = {m["type"] for m in self._bidding_moves(state, seat)}
            if mtype not in allowed:
                raise IllegalMove("illegal_bid", f"'{mtype}' is not allowed now.")
        new = self._start(state, seat, move, now_ms)
        nb = new["bidding"]
        new["bids"].append({"seat": seat, "round": b["round"], "stage": stage, "bid": mtype,
                            **({"trump": trump} if mtype == "confirm" else {})})
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": mtype, "round": b["round"],
                                **({"trump": trump} if mtype == "confirm" else {})}]
        dealer = new["dealer"]
        if stage == "bid":
            if mtype == "pass":
                if seat == dealer:
                    if b["round"] == 1:
                        nb.update({"round": 2, "turn": (dealer + 1) % 4})
                    else:
                        events.append({"type": "void_deal", "deal": new["deal_no"]})
                        new["deals"].append({"deal": new["deal_no"], "dealer": dealer, "void": True})
                        new["last_deal"] = new["deals"][-1]
                        self._next_deal(new)
                        events.append(self._deal_event(new))
                        return new, events
                else:
                    nb["turn"] = (seat + 1) % 4
            elif mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            elif mtype == "ashkal":
                nb.update({"stage": "ashkal_answer", "ashkal": seat, "turn": (seat - 1) % 4})
            else:  # hokum
                nb.update({"stage": "overcall", "hokum": seat, "turn": (seat + 1) % 4, "overcalls": 0})
        elif stage == "ashkal_answer":
            if mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            else:
                caller = b["ashkal"]
                self._settle(new, "ashkal", caller, None, (caller + 2) % 4, events)
        elif stage == "overcall":
            if mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            else:
                nb["overcalls"] += 1
                nb["turn"] = b["hokum"] if nb["overcalls"] == 3 else (seat + 1) % 4
                if nb["overcalls"] == 3:
                    nb["stage"] = "choice"
        else:  # choice
            if mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            else:
                self._settle(new, "hokum", seat, trump, seat, events)
        return new, events

    def _deal_event(self, state: State) -> Event:
        return {"type": "deal", "deal": state["deal_no"], "dealer": state["dealer"], "exposed": state["exposed"]}

    def _settle(self, state: State, kind: str, player: int, trump: str | None, taker: int,
                events: list[Event]) -> None:
        """The contract is fixed: deal the rest, then doubling or projects (mutates ``state``)."""
        rnd = state["bidding"]["round"]
        team = team_of(player)
        state["contract"] = {"kind": kind, "player": player, "team": team, "trump": trump,
                             "round": rnd, "taker": taker}
        dealer = state["dealer"]
        stock = state["stock"]
        pos = 0
        for k in range(4):  # from card 21 on, P1..P4 each a packet of 3 (taker: exposed + 2)
            seat = (dealer + 1 + k) % 4
            if seat == taker:
                state["hands"][seat] = hand_sorted(state["hands"][seat] + [state["exposed"]] + stock[pos:pos + 2])
                pos += 2
            else:
                state["hands"][seat] = hand_sorted(state["hands"][seat] + stock[pos:pos + 3])
                pos += 3
        state["stock"] = []
        events.append({"type": "contract", **state["contract"]})
        doubling = None
        if kind == "hokum":
            doubling = "hokum"
        elif rnd == 1 and state["scores"][team] > 100:
            doubling = "sun"
        if doubling:
            state["phase"] = "doubling"
            state["doubling"] = {"style": doubling, "step": "double", "team": 1 - team, "level": 1,
                                 "passed": [], "lock": False, "gahwa": False, "since": state["since"],
                                 "by": None}
        else:
            state["doubling"] = {"style": None, "step": None, "team": None, "level": 1, "passed": [],
                                 "lock": False, "gahwa": False, "since": state["since"], "by": None}
            self._start_projects(state)

    # ----- doubling ------------------------------------------------------------------
    def _apply_double(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        dbl = state["doubling"]
        mtype = move["type"]
        hokum_double = dbl["step"] == "double" and dbl["style"] == "hokum"
        if mtype == "double" and hokum_double:
            self._check_keys(move, {"lock"})
            if not isinstance(move.get("lock"), bool):
                raise IllegalMove("lock_required", "Doubling a Hokum: say 'lock': true or false.")
        else:
            self._check_keys(move, set())
        if mtype != "pass" and mtype != dbl["step"]:
            raise IllegalMove("illegal_double", f"'{mtype}' is not the step offered now.")
        new = self._start(state, seat, move, now_ms)
        nd = new["doubling"]
        events: list[Event] = [{"type": "doubling", "seat": seat, "call": mtype,
                                **({"lock": move["lock"]} if mtype == "double" and hokum_double else {})}]
        if mtype == "pass":
            nd["passed"].append(seat)
            if len(nd["passed"]) == 2:
                nd["step"] = None
                self._start_projects(new)
            return new, events
        nd["by"] = seat
        if mtype == "gahwa":
            nd["gahwa"] = True
        else:
            nd["level"] = LADDER_LEVEL[mtype]
        if hokum_double:
            nd["lock"] = move["lock"]
        step_index = LADDER.index(mtype)
        if nd["style"] == "hokum" and step_index + 1 < len(LADDER):
            nd.update({"step": LADDER[step_index + 1], "team": 1 - nd["team"], "passed": [], "since": now_ms})
        else:
            nd["step"] = None
            self._start_projects(new)
        return new, events

    # ----- projects ------------------------------------------------------------------
    def _start_projects(self, state: State) -> None:
        state["phase"] = "projects"
        state["declare_turn"] = 0

    def _apply_declare(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        if move["type"] != "declare":
            raise IllegalMove("declare_required", "Declare your projects (an empty list for none).")
        self._check_keys(move, {"projects"})
        projects = move.get("projects")
        if not isinstance(projects, list) or len(projects) > 8:
            raise IllegalMove("malformed", "'projects' must be a list.")
        hand = state["hands"][seat]
        sun = self._is_sun(state)
        clean: list[dict] = []
        for p in projects:
            if not isinstance(p, dict) or set(p) != {"kind", "cards"} or p["kind"] not in PROJECT_KINDS \
                    or not isinstance(p["cards"], list) or not all(isinstance(c, str) for c in p["cards"]):
                raise IllegalMove("malformed", "A project is {'kind': ..., 'cards': [...]}.")
            if not all(c in hand for c in p["cards"]):
                raise IllegalMove("card_not_held", "A project's cards must be in your hand.")
            kind = classify_project(p["cards"], sun)
            if kind != p["kind"]:
                raise IllegalMove("bad_project", f"Those cards do not form a {p['kind']}.")
            clean.append({"kind": kind, "cards": hand_sorted(p["cards"])})
        problem = _declaration_problem(clean)
        if problem:
            raise IllegalMove("bad_project", problem)
        runs = held_runs(hand)
        for run in runs:
            if sum(1 for p in clean if set(p["cards"]) <= set(run) and p["cards"][0][1] != p["cards"][1][1]) > 1:
                raise IllegalMove("bad_project", "A held run yields at most one project.")
        new = self._start(state, seat, move, now_ms)
        new["projects"][seat] = clean
        events: list[Event] = [{"type": "declared", "seat": seat, "kinds": [p["kind"] for p in clean]}]
        new["declare_turn"] += 1
        if new["declare_turn"] == 4:
            new["phase"] = "play"
            new["leader"] = (new["dealer"] + 1) % 4
            new["trick"] = []
            self._update_sawa(new)
        return new, events

    # ----- play ----------------------------------------------------------------------
    def _update_sawa(self, state: State) -> None:
        """Cached once per trick start: may the leader take Sawa?"""
        c = state["contract"]
        lock = bool(state["doubling"] and state["doubling"].get("lock"))
        state["sawa"] = sawa_possible(state["hands"], state["leader"], c["trump"], lock)

    def _apply_play(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        mtype = move["type"]
        if mtype not in ("play", "sawa"):
            raise IllegalMove("play_required", "Play a card.")
        self._check_keys(move, {"card", "baloot"} if mtype == "play" else {"baloot"})
        claim = move.get("baloot", False)
        if not isinstance(claim, bool):
            raise IllegalMove("malformed", "'baloot' must be true or false.")
        if mtype == "sawa":
            if not (state["sawa"] and not state["trick"] and seat == state["leader"]):
                raise IllegalMove("sawa_not_offered", "Sawa is not offered now.")
            if claim and not self._legacy_sawa_baloot(state, seat):
                raise IllegalMove("baloot_not_allowed", "Sawa plays no card, so it carries no Baloot claim.")
            return self._apply_sawa(state, seat, move, now_ms, claim)
        card = move.get("card")
        if not isinstance(card, str):
            raise IllegalMove("malformed", "'card' must be a card code.")
        if card not in state["hands"][seat]:
            raise IllegalMove("card_not_held", "You do not hold that card.")
        c = state["contract"]
        legal = legal_cards(state["hands"][seat], state["trick"], c["trump"],
                            lock=bool(state["doubling"] and state["doubling"].get("lock")),
                            overtrump=state["options"]["overtrump"])
        if card not in legal:
            raise IllegalMove("illegal_card", "That card may not be played now.")
        if claim and not self._baloot_eligible(state, seat, card):
            raise IllegalMove("baloot_not_allowed", "Baloot is claimed with the second of the trump K and Q.")
        new = self._start(state, seat, move, now_ms)
        new["hands"][seat].remove(card)
        new["trick"].append({"seat": seat, "card": card})
        new["sawa"] = False
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if claim:
            new["baloot"].append(seat)
            events.append({"type": "baloot", "seat": seat})
        if len(new["trick"]) < 4:
            return new, events
        trump = c["trump"]
        w = new["trick"][trick_winner(new["trick"], trump)]["seat"]
        pts = sum(card_points(p["card"], trump) for p in new["trick"])
        new["tricks"].append({"leader": new["leader"], "cards": new["trick"], "winner": w, "points": pts})
        events.append({"type": "trick", "winner": w, "points": pts, "cards": new["trick"]})
        new["trick"] = []
        new["leader"] = w
        new["revealed"] = True  # declared projects are shown once the first trick is over
        if len(new["tricks"]) == 8:
            self._end_deal(new, events)
        else:
            self._update_sawa(new)
        return new, events

    def _apply_sawa(self, state: State, seat: int, move: Move, now_ms: int,
                    claim: bool) -> tuple[State, list[Event]]:
        new = self._start(state, seat, move, now_ms)
        pile = [c for h in new["hands"] for c in h]
        new["sawa_pile"] = hand_sorted(pile)
        new["hands"] = [[], [], [], []]
        new["sawa_by"] = seat
        new["revealed"] = True
        events: list[Event] = [{"type": "sawa", "seat": seat, "cards": new["sawa_pile"]}]
        if claim:  # rules revision 1 only (refused before this point otherwise)
            new["baloot"].append(seat)
            events.append({"type": "baloot", "seat": seat})
        self._end_deal(new, events)
        return new, events

    # ----- scoring -------------------------------------------------------------------
    def best_project_team(self, state: State) -> int | None:
        best: tuple | None = None
        team = None
        for seat in range(4):
            for p in state["projects"][seat] or []:
                key = project_key(p, self._pos(state, seat))
                if best is None or key > best:
                    best, team = key, team_of(seat)
        return team

    def score_deal(self, state: State) -> dict:
        """The finished deal's scoring, as a card-free summary."""
        c = state["contract"]
        trump = c["trump"]
        sun = c["kind"] in ("sun", "ashkal")
        raw = [0, 0]
        trick_teams = []
        for t in state["tricks"]:
            raw[team_of(t["winner"])] += t["points"]
            trick_teams.append(team_of(t["winner"]))
        if state["sawa_by"] is not None:
            st = team_of(state["sawa_by"])
            raw[st] += sum(card_points(x, trump) for x in state["sawa_pile"]) + LAST_TRICK
            last_team = st
        else:
            last_team = team_of(state["tricks"][-1]["winner"])
            raw[last_team] += LAST_TRICK
        sweep = None
        if all(t == last_team for t in trick_teams):
            sweep = last_team
        dbl = state["doubling"] or {}
        mult = dbl.get("level", 1)
        gahwa = bool(dbl.get("gahwa"))
        baloot = [0, 0]
        if trump is not None:
            for s in state["baloot"]:
                baloot[team_of(s)] += 2
        best = self.best_project_team(state)
        table = PROJECT_GAME_SUN if sun else PROJECT_GAME_HOKUM
        proj = [0, 0]
        if best is not None:
            for s in (best, best + 2):
                proj[best] += sum(table[p["kind"]] for p in state["projects"][s] or [])
        bidders = c["team"]
        defenders = 1 - bidders
        total = 26 if sun else 16
        game = [0, 0]
        if sweep is not None:
            base = 44 if sun else 25
            deal = [0, 0]
            deal[sweep] = (base + proj[sweep]) * mult
            proj[1 - sweep] = 0
            game[sweep] = base
            deal = [deal[t] + baloot[t] for t in (0, 1)]
            # The sweep's own scores are the final game points: the sweepers always come out ahead,
            # so the bidders fail exactly when the defenders sweep (no transfer: a sweep is a sweep).
            failed = bid_failed(deal, raw, bidders)
        else:
            conv = sun_game_points if sun else hokum_game_points
            game[bidders] = conv(raw[bidders])
            game[defenders] = total - game[bidders]
            fin = [mult * (game[t] + proj[t]) + baloot[t] for t in (0, 1)]
            failed = bid_failed(fin, raw, bidders)
            if failed:
                deal = [0, 0]
                deal[bidders] = baloot[bidders]
                deal[defenders] = mult * (game[0] + game[1] + proj[0] + proj[1]) + baloot[defenders]
            else:
                deal = fin
        # "The bidders unless they fail"; Baloot is ignored only in a Gahwa deal's score.
        winner = defenders if failed else bidders
        if gahwa and sweep is None and self._rules(state) == LEGACY_RULES:
            # Revision 1 judged the Gahwa winner without Baloot (replays of old games only).
            plain = [mult * (game[t] + proj[t]) for t in (0, 1)]
            winner = defenders if bid_failed(plain, raw, bidders) else bidders
        if gahwa:
            deal = [0, 0]
            deal[winner] = TARGET
        return {
            "deal": state["deal_no"], "dealer": state["dealer"], "void": False,
            "contract": dict(c), "multiplier": mult, "gahwa": gahwa,
            "lock": bool(dbl.get("lock")), "card_points": raw, "game_points": game,
            "project_points": proj, "best_project_team": best, "baloot": baloot,
            "sweep": sweep, "failed": failed, "sawa": state["sawa_by"],
            "deal_score": deal, "winner": winner if gahwa else None,
        }

    def _end_deal(self, state: State, events: list[Event]) -> None:
        summary = self.score_deal(state)
        scores = [state["scores"][t] + summary["deal_score"][t] for t in (0, 1)]
        state["scores"] = scores
        summary["scores"] = list(scores)
        state["deals"].append(summary)
        state["last_deal"] = summary
        events.append({"type": "deal_scored", **summary})
        if summary["gahwa"]:
            self._finish(state, summary["winner"], events)
        elif max(scores) >= TARGET and scores[0] != scores[1]:
            self._finish(state, 0 if scores[0] > scores[1] else 1, events)
        else:
            self._next_deal(state)
            events.append(self._deal_event(state))

    def _finish(self, state: State, winner: int, events: list[Event]) -> None:
        state["phase"] = "over"
        state["result"] = self._make_result(state, winner=winner)
        events.append({"type": "game_over", "result": state["result"]})

    def _make_result(self, state: State, *, winner: int) -> dict:
        ranks = [1 if team_of(s) == winner else 2 for s in range(4)]
        return {"ranks": ranks, "winners": [s for s in range(4) if ranks[s] == 1],
                "winning_team": winner, "scores": list(state["scores"]),
                "deals": len(state["deals"]), "forfeit": state["forfeit"]}

    def result(self, state: State) -> dict:
        if state["result"] is None:
            raise ValueError("the game is not over")
        return state["result"]

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> State:
        """A logged game's options without ``rules`` were saved before revisions existed: it was
        played by revision 1 (a proof or a stored state from then), so it is replayed by it."""
        return self.new(seed, seats, {"rules": LEGACY_RULES, **(options or {})})

    def proof(self, state: State) -> dict:
        doc = super().proof(state)
        # The verifier replays from these options: name the revision even for a state saved before
        # revisions existed (it was played by revision 1), so its log replays to its recorded result.
        doc["options"] = {**doc["options"], "rules": self._rules(state)}
        return doc

    # ----- timers --------------------------------------------------------------------
    def timeout_move(self, state: State, seat: int | None) -> Move:
        if seat not in self.to_act(state):
            raise IllegalMove("not_your_turn", "That seat has no pending step.")
        phase = state["phase"]
        if phase == "bidding":
            b = state["bidding"]
            if b["stage"] == "choice":
                if b["round"] == 1:
                    return {"type": "confirm", "auto": True}
                trump = next(s for s in AUTO_TRUMP_ORDER if s != state["exposed"][0])
                return {"type": "confirm", "trump": trump, "auto": True}
            return {"type": "pass", "auto": True}
        if phase == "doubling":
            return {"type": "pass", "auto": True}
        if phase == "projects":
            return {"type": "declare", "projects": [], "auto": True}
        c = state["contract"]
        cards = legal_cards(state["hands"][seat], state["trick"], c["trump"],
                            lock=bool(state["doubling"] and state["doubling"].get("lock")),
                            overtrump=state["options"]["overtrump"])
        return {"type": "play", "card": cards[0], "auto": True}

    def deadline(self, state: State) -> dict | None:
        acting = self.to_act(state)
        if not acting:
            return None
        for s in acting:
            if state["left"][s]:
                return {"seat": s, "since_ms": state["since"], "limit_ms": 0}
        seat = acting[0]
        phase = state["phase"]
        if phase == "bidding":
            return {"seat": seat, "since_ms": state["since"], "limit_ms": BIDDING_LIMIT_MS}
        if phase == "doubling":
            # one timer per step, from when the step was offered to the team
            return {"seat": seat, "since_ms": state["doubling"]["since"], "limit_ms": None}
        return {"seat": seat, "since_ms": state["since"], "limit_ms": None}

    # ----- views ---------------------------------------------------------------------
    def _public_projects(self, state: State) -> list[list[dict] | None]:
        out: list[list[dict] | None] = []
        for ps in state["projects"]:
            if ps is None:
                out.append(None)
            elif state["revealed"]:
                out.append([{"kind": p["kind"], "cards": list(p["cards"])} for p in ps])
            else:
                out.append([{"kind": p["kind"]} for p in ps])
        return out

    def view(self, state: State, seat: int | None) -> dict:
        over = self.is_over(state)
        c = state["contract"]
        v: dict[str, Any] = {
            "game": self.name,
            "seat": seat,
            "to_act": self.to_act(state),
            "over": over,
            "phase": state["phase"],
            "options": dict(state["options"]),
            "deal_no": state["deal_no"],
            "dealer": state["dealer"],
            "scores": list(state["scores"]),
            "counts": [len(h) for h in state["hands"]],
            "hand": hand_sorted(state["hands"][seat]) if seat is not None and 0 <= seat < 4 else None,
            "exposed": state["exposed"],
            "exposed_taker": c["taker"] if c else None,
            "bidding": {k: state["bidding"][k] for k in ("round", "stage", "turn", "hokum", "ashkal")},
            "bids": [dict(b) for b in state["bids"]],
            "contract": dict(c) if c else None,
            "doubling": ({k: v2 for k, v2 in state["doubling"].items() if k != "since"}
                         if state["doubling"] else None),
            "projects": self._public_projects(state),
            "leader": state["leader"],
            "trick": [dict(p) for p in state["trick"]],
            "tricks": [{"leader": t["leader"], "winner": t["winner"], "points": t["points"],
                        "cards": [dict(p) for p in t["cards"]]} for t in state["tricks"]],
            "baloot": list(state["baloot"]),
            "sawa_by": state["sawa_by"],
            "sawa_pile": list(state["sawa_pile"]),
            "left": list(state["left"]),
            "last_deal": state["last_deal"],
            "commitment": state["commitment"],
        }
        if seat is not None and seat == state["leader"] and state["phase"] == "play" and not state["trick"]:
            v["sawa_offered"] = state["sawa"]
        if seat is not None and 0 <= seat < 4 and state["projects"][seat] is not None:
            v["my_projects"] = [{"kind": p["kind"], "cards": list(p["cards"])} for p in state["projects"][seat]]
        if over:
            v["result"] = state["result"]
        return v

    def replay_view(self, state: State) -> dict:
        v = self.view(state, None)
        v["hands"] = [list(h) for h in state["hands"]]
        v["stock"] = list(state["stock"])
        v["projects"] = [None if ps is None else [dict(p) for p in ps] for ps in state["projects"]]
        v["deals"] = list(state["deals"])
        v["seed"] = state["seed"] if self.is_over(state) else None
        return v

    # ----- card accounting -----------------------------------------------------------
    def all_cards(self, state: State) -> list[str]:
        cards = [c for h in state["hands"] for c in h] + list(state["stock"])
        if state["contract"] is None:
            cards.append(state["exposed"])
        cards += [p["card"] for p in state["trick"]]
        cards += [p["card"] for t in state["tricks"] for p in t["cards"]]
        cards += state["sawa_pile"]
        return cards

    def hidden_cards(self, state: State, seat: int | None) -> list[str]:
        """Others' hands and the stock, less what is public: the exposed card (known to be with
        its taker) and declared projects once shown."""
        public: set[str] = set()
        if state["contract"] is not None:
            public.add(state["exposed"])
        if state["revealed"]:
            public |= {c for ps in state["projects"] if ps for p in ps for c in p["cards"]}
        hidden = [c for s in range(4) if s != seat for c in state["hands"][s] if c not in public]
        return hidden + list(state["stock"])


ENGINE = BalootEngine()
