"""Translated strings for the tournament page scripts (tournament page, tournament table, lobby cards),
handed over as JSON like ``rooms.labels``: one gettext catalogue for templates and scripts."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournaments.models import Status

LABELS = {
    "level": _("Level %(level)s · ante %(ante)s"),
    "next_ante_many": _("next ante %(ante)s in %(n)s hands"),
    "next_ante_one": _("next ante %(ante)s from the next hand"),
    "players_left": _("Players left"),
    "average_stack": _("Average stack"),
    "your_stack": _("Your stack"),
    "your_place": _("Your place"),
    "place_of": _("%(place)s of %(n)s"),
    "prize_pool": _("Prize pool"),
    "registered": _("Registered"),
    "place": _("Place"),
    "player": _("Player"),
    "stack": _("Stack"),
    "change": _("Change"),
    "prize": _("Prize"),
    "prizes": _("Prizes"),
    "table_n": _("Table %(n)s"),
    "players_one": _("%(n)s player"),
    "players_n": _("%(n)s players"),
    "hand_n": _("hand %(n)s"),
    "no_tables": _("No table is playing."),
    "no_eliminations": _("Nobody is out yet."),
    "out_in_place": _("%(player)s is out in place %(place)s."),
    "eliminated": _("eliminated"),
    "eliminated_place": _("eliminated · place %(place)s"),
    "hand_result": _("Hand result"),
    "wins_pot": _("%(player)s wins the pot of %(pot)s."),
    "void_hand": _("The hand was stopped: stacks stay as they were at its start."),
    "next_hand_in": _("Next hand in %(s)s s…"),
    "next_hand_soon": _("The next hand is being dealt…"),
    "waiting_tables": _("Waiting for the other tables to finish their hand…"),
    "tournament_over": _("Tournament over"),
    "you_won": _("You won the tournament!"),
    "you_are_out": _("You are out in place %(place)s."),
    "moved_to": _("You move to table %(n)s."),
    "seat_ready": _("Your tournament has started: table %(n)s."),
    "seat_ready_title": _("Your seat is ready"),
    "table_broken": _("This table was broken up: its players moved to other tables."),
    "pot_line": _("Pot %(pot)s · ante %(ante)s · hand %(hand)s"),
    "back": _("Back to the tournament"),
    "leave_confirm": _("Leaving a tournament table eliminates you from the tournament. Leave?"),
    "starts": _("Starts"),
    "left_of": _("%(left)s of %(n)s left"),
    "cancel_too_few": _("Cancelled: only %(n)s of the minimum %(min)s registered."),
    "cancel_too_few_plain": _("Cancelled: too few players registered."),
    "cancel_staff": _("Cancelled by the organisers."),
    "refunded": _("Entries refunded."),
    "refunded_started": _("The entries of the players still in were refunded."),
    "status": {value: label for value, label in Status.choices},
    # issue 24, formats: the prize split, levels by minutes, late registration and re-entry
    "payout": _("%(place)s %(percent)s %% (%(amount)s %(currency)s)"),
    "ordinal_st": _("%(n)sst"),
    "ordinal_nd": _("%(n)snd"),
    "ordinal_rd": _("%(n)srd"),
    "ordinal_th": _("%(n)sth"),
    "next_level_in": _("next level in %(time)s"),
    "register_late": _("Register late (%(fee)s %(currency)s)"),
    "reenter": _("Re-enter (%(fee)s %(currency)s)"),
    "waiting_seat": _("You are in: you get a seat with %(stack)s chips when the hand in play ends."),
    "late_until": _("Late registration until level %(level)s"),
    "late_closed": _("Late registration is over."),
    "entries_left": _("Entries: %(used)s of %(max)s"),
    "sit_and_go_of": _("%(n)s of %(max)s registered"),
}


def ordinal(n: int) -> str:
    """"1st", "2nd", "3rd", "4th", "11th", "21st" (each language words its own: "ke-1", "1.")."""
    if 11 <= n % 100 <= 13:
        key = "ordinal_th"
    else:
        key = {1: "ordinal_st", 2: "ordinal_nd", 3: "ordinal_rd"}.get(n % 10, "ordinal_th")
    return str(LABELS[key]) % {"n": n}


def payouts_text(payouts: list[dict], currency: str) -> str:
    """"1st 70 % (140 Chip) · 2nd 30 % (60 Chip)": the split of the pool as it stands."""
    return " · ".join(str(LABELS["payout"]) % {"place": ordinal(p["place"]), "percent": p["percent"],
                                                "amount": p["amount"], "currency": currency} for p in payouts)


def clock_text(seconds: int) -> str:
    """3:12, or 1:02:05 from an hour on."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def level_text(level: dict | None) -> str:
    """"Level 2 · ante 2 · next ante 4 in 3 hands", as the page scripts word it (tournament_common.js)."""
    if not level:
        return ""
    text = str(LABELS["level"]) % {"level": level["level"], "ante": level["ante"]}
    if level.get("hands_to_next"):
        label = LABELS["next_ante_one"] if level["hands_to_next"] == 1 else LABELS["next_ante_many"]
        text += " · " + str(label) % {"ante": level["next_ante"], "n": level["hands_to_next"]}
    return text


def next_level_text(level: dict | None) -> str:
    """Levels by minutes: "next level in 3:12" (the pages count it down)."""
    if not level or level.get("seconds_to_next") is None:
        return ""
    return str(LABELS["next_level_in"]) % {"time": clock_text(level["seconds_to_next"])}


def tournament_labels() -> dict:
    return {k: ({kk: str(vv) for kk, vv in v.items()} if isinstance(v, dict) else str(v)) for k, v in LABELS.items()}
