"""31's table options: validation with every default filled (what ``new`` stores, so a table
replays identically), the rules revisions and the ante schedule (docs/rules/otuzbir.md)."""

from __future__ import annotations

from typing import Any

OPTION_KEYS = {"ante", "rake_bps", "hands", "stacks", "ante_schedule", "hand_offset", "ebe", "rules"}
# Rules revisions (option ``rules``; docs/rules/otuzbir.md, "Rules revisions"). New tables use RULES.
# Revision 1 is how tables were played before issue 20: a tournament leaver ranked with that hand's
# busts by its starting stack (so two could share a place), the result had no ``left_at`` and a move
# back in time was accepted. It is kept only so that the logs of those tables replay to their recorded
# results (proof verification, replays); a state saved before revisions existed is revision 1.
RULES = 2
LEGACY_RULES = 1
DEFAULT_CASH_HANDS = 10
DEFAULT_DOUBLE_EVERY = 5


def _normal_options(options: dict | None, n: int) -> dict:
    """Validate options and fill every default, so the stored options replay identically."""
    raw = dict(options or {})
    unknown = set(raw) - OPTION_KEYS
    if unknown:
        raise ValueError(f"unknown 31 options: {sorted(unknown)}")

    def whole(value: Any, lo: int, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise ValueError(f"{what} must be a whole number >= {lo}")
        return value

    ante = whole(raw.get("ante", 1), 1, "ante")
    rake = whole(raw.get("rake_bps", 0), 0, "rake_bps")
    if rake > 10000:
        raise ValueError("rake_bps must be at most 10000")
    stacks = raw.get("stacks")
    if stacks is not None:
        if not isinstance(stacks, list) or len(stacks) != n:
            raise ValueError("stacks must list one starting stack per seat")
        stacks = [whole(v, 1, "a stack") for v in stacks]
    hands = raw.get("hands", DEFAULT_CASH_HANDS if stacks is None else None)
    if hands is not None:
        hands = whole(hands, 1, "hands")
    if "ante_schedule" in raw:
        schedule = raw["ante_schedule"]
    else:  # tournaments double the ante every 5 hands (spec); cash tables keep a flat ante
        schedule = None if stacks is None else {"base": ante, "double_every": DEFAULT_DOUBLE_EVERY}
    if schedule is not None:
        if isinstance(schedule, list):
            if not schedule:
                raise ValueError("ante_schedule levels must not be empty")
            schedule = {"levels": [whole(v, 1, "an ante level") for v in schedule],
                        "every": DEFAULT_DOUBLE_EVERY}
        elif isinstance(schedule, dict) and set(schedule) == {"base", "double_every"}:
            schedule = {"base": whole(schedule["base"], 1, "base"),
                        "double_every": whole(schedule["double_every"], 1, "double_every")}
        elif isinstance(schedule, dict) and set(schedule) == {"levels", "every"}:
            levels = schedule["levels"]
            if not isinstance(levels, list) or not levels:
                raise ValueError("ante_schedule levels must be a non-empty list")
            schedule = {"levels": [whole(v, 1, "an ante level") for v in levels],
                        "every": whole(schedule["every"], 1, "every")}
        else:
            raise ValueError("ante_schedule must be {base, double_every}, {levels, every} or a list")
    rules = raw.get("rules", RULES)
    if isinstance(rules, bool) or rules not in (LEGACY_RULES, RULES):
        raise ValueError(f"rules must be {LEGACY_RULES} or {RULES}")
    offset = whole(raw.get("hand_offset", 0), 0, "hand_offset")
    ebe = raw.get("ebe")
    if ebe is not None:
        ebe = whole(ebe, 0, "ebe")
        if ebe >= n:
            raise ValueError("ebe must be a seat number")
    return {"ante": ante, "rake_bps": rake, "hands": hands, "stacks": stacks,
            "ante_schedule": schedule, "hand_offset": offset, "ebe": ebe, "rules": rules}


def ante_for(options: dict, level_hand: int) -> int:
    """The ante of the table's hand number ``level_hand`` (hand_offset + d)."""
    schedule = options["ante_schedule"]
    if schedule is None:
        return options["ante"]
    if "levels" in schedule:
        levels = schedule["levels"]
        return levels[min(level_hand // schedule["every"], len(levels) - 1)]
    return schedule["base"] * 2 ** (level_hand // schedule["double_every"])
