"""Translated strings handed to the page scripts as JSON (one gettext catalogue for templates and JS)."""

from __future__ import annotations

import functools

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

ERRORS = {
    "too_large": _("That message was too large."),
    "rate_limited": _("Too many actions at once: slow down a little."),
    "malformed": _("The server did not understand that action."),
    "unknown_type": _("Unknown action."),
    "not_seated": _("Spectators cannot play."),
    "no_such_table": _("There is no such table."),
    "table_not_running": _("This table is not running."),
    "stale_version": _("The table moved on; your view was refreshed."),
    "table_not_open": _("This table has already started or ended."),
    "table_full": _("This table is full."),
    "seat_taken": _("That seat is taken."),
    "already_seated": _("You are already seated at this table."),
    "not_host": _("Only the host can do that."),
    "host_stop_after_start": _("A table with a stake cannot be stopped by its host once it has started. "
                               "You may leave it; your entry is forfeited."),
    "not_enough_players": _("Not enough players are seated to start."),
    "insufficient_funds": _("Your balance is too low for this table."),
    "no_bot_available": _("No bot is free for this table."),
    "bots_only": _("This room seats one player against bots."),
    "room_closed": _("This room is closed."),
    "table_ended": _("This table has ended."),
    "not_your_turn": _("It is not your turn."),
    "card_not_held": _("You do not hold that card."),
    "illegal_card": _("That card cannot be played now."),
    "motif_required": _("Choose a motif for the wild card."),
    "illegal_move": _("That move is not allowed now."),
    "game_over": _("The game is over."),
    "bad_target": _("Nobody can be caught there."),
    "bad_amount": _("That amount is not allowed."),
    # matchmaking (queue, play again)
    "not_authenticated": _("Log in to play."),
    "bots_cannot_queue": _("Bots cannot join a queue."),
    "already_queued": _("You are already in a queue."),
    "already_playing": _("You are already playing in this room."),
    "not_queued": _("You are not in a queue."),
    "no_such_room": _("There is no such room."),
    "table_not_finished": _("This table has not finished yet."),
    "not_a_player": _("Only the players of this table can play again."),
    "player_left": _("A player left while the table was being formed."),
    "network": _("The server could not be reached: try again."),
}

COMMON = {
    "your_turn": _("Your turn"),
    "turn_of": _("Turn: %(name)s"),
    "waiting": _("Waiting for other players"),
    "connecting": _("Connecting…"),
    "reconnecting": _("Connection lost: reconnecting…"),
    "connected": _("Connected"),
    "spectator": _("You are watching this table."),
    "seconds_left": _("%(s)s s left"),
    "cards": _("%(n)s cards"),
    "stock": _("Stock"),
    "pile": _("Discard pile"),
    "hand": _("Your hand"),
    "actions": _("Actions"),
    "you": _("you"),
    "bot": _("bot"),
    "finished": _("Game over"),
    "stopped": _("The table was stopped"),
    "winner": _("Winner"),
    "winners": _("Winners"),
    "payouts": _("Payouts"),
    "net": _("Net"),
    "scores": _("Scores"),
    "rank": _("Rank"),
    "player": _("Player"),
    "points": _("Points"),
    "open_status": _("Waiting for players to sit"),
    "running_status": _("In play"),
    "choose": _("Choose"),
    "cancel": _("Cancel"),
    "amount": _("Amount"),
    "proof": _("Proof"),
    "replay": _("Replay"),
    "seat": _("Seat %(n)s"),
    "empty_seat": _("Empty seat"),
    "timeouts": _("timeouts: %(n)s"),
    "left": _("left"),
    "dealer": _("dealer"),
    "error": _("Error"),
    "step": _("Step %(i)s of %(n)s"),
    "start_position": _("Deal"),
    "auto": _("automatic"),
    "none": _("none"),
    "logged_out": _("You were logged out: log in again to continue."),
    "play_again": _("Play again"),
    # result columns (never a raw key such as `deltas` or `stacks`)
    "delta": _("Points won or lost"),
    "stack": _("Stack"),
    "value": _("Cards left (value)"),
    # turn alerts
    "your_turn_title": _("Your turn!"),
    "notify_body": _("%(table)s: it is your turn."),
    "hurry": _("Hurry: %(s)s s left!"),
    "sound_on": _("Sound on"),
    "sound_off": _("Sound off"),
    "notify": _("Notify me when it is my turn"),
    "notify_on": _("Turn notifications on"),
    "notify_blocked": _("This browser blocks notifications from this site."),
}

MOVES = {
    "play": _("Play"),
    "draw": _("Draw"),
    "keep": _("Keep the drawn card"),
    "call": _("Call"),
    "catch": _("Catch %(name)s!"),
    "pass": _("Pass"),
    "sun": _("Sun"),
    "hokum": _("Hokum"),
    "ashkal": _("Ashkal"),
    "confirm": _("Confirm Hokum"),
    "double": _("Double"),
    "double_lock": _("Double and lock"),
    "triple": _("Triple"),
    "four": _("Four"),
    "gahwa": _("Gahwa"),
    "declare": _("Declare"),
    "declare_none": _("No projects"),
    "sawa": _("Sawa (claim the rest)"),
    "baloot": _("Baloot!"),
    "take": _("Take the discard"),
    "discard": _("Discard"),
    "open": _("Open card"),
    "closed": _("Closed card (raise)"),
    "stand": _("Stand"),
    "raise_stand": _("Raise and stand"),
    "raise": _("Raise"),
    "see": _("See"),
    "fold": _("Fold"),
    "leave": _("Leave"),
}

# Log lines: whole sentences, each naming its player (%(name)s). Common to every game; the
# per-game lines are in GAME_LOG. games.js picks the sentence for each event type.
LOG = {
    "sat": _("%(name)s sat down."),
    "stood": _("%(name)s stood up."),
    "leave": _("%(name)s left the table."),
    "left_auto": _("%(name)s left the table: automatic moves play for that seat."),
    "timeout": _("%(name)s ran out of time: an automatic move was made."),
    "stopped": _("The table was stopped"),
    "stopped_host": _("The host stopped the table."),
    "stopped_staff": _("Staff stopped the table."),
    "stopped_room_closed": _("The table was stopped: the room closed."),
    "stopped_deserted": _("The table was stopped: no human player is left."),
    "played": _("%(name)s played %(card)s"),
    "deal_void": _("The deal is void: a new deal starts."),
}

GAME_LOG = {
    "lembar": {
        "play_motif": _("%(name)s played %(card)s and chose %(motif)s."),
        "play_call": _("%(name)s played %(card)s and called Lembar!"),
        "window": _("%(name)s has one card left and has not called Lembar!"),
        "skip": _("%(name)s is skipped."),
        "reverse": _("The direction of play is reversed."),
        "penalty": _("%(name)s draws %(n)s cards and loses the turn."),
        "penalty_caught": _("%(name)s draws %(n)s penalty cards for the missing call."),
        "draw": _("%(name)s drew a card."),
        "pass": _("%(name)s passes: there is nothing left to draw."),
        "keep": _("%(name)s keeps the drawn card."),
        "reshuffle": _("The discard pile was reshuffled into a new stock."),
        "call": _("%(name)s called Lembar!"),
        "catch": _("%(name)s caught %(target)s without a Lembar! call."),
        "timeout": _("%(name)s ran out of time (%(n)s of %(max)s in a row): an automatic move was made."),
        "removed_timeouts": _("%(name)s was removed from the game after %(n)s timeouts in a row."),
        "removed_timeouts_entry": _("%(name)s was removed from the game after %(n)s timeouts in a row: "
                                    "the entry stays in the pot."),
        "won": _("%(name)s played their last card and wins!"),
        "stalemate": _("Nobody could play or draw for a whole round: the cards left in hand decide."),
        "last_standing": _("%(name)s is the last player in the game and wins."),
    },
    "baloot": {
        "deal": _("Deal %(n)s: %(name)s deals; the bid card is %(card)s."),
        "bid_pass": _("%(name)s passes."),
        "bid_sun": _("%(name)s bids Sun."),
        "bid_hokum": _("%(name)s bids Hokum."),
        "bid_ashkal": _("%(name)s says Ashkal."),
        "bid_confirm": _("%(name)s confirms Hokum."),
        "void_deal": _("Everyone passed in both rounds: the deal is void."),
        "contract": _("%(name)s takes the contract: %(contract)s."),
        "double_pass": _("%(name)s does not double."),
        "double": _("%(name)s doubles."),
        "double_lock": _("%(name)s doubles and locks the play."),
        "triple": _("%(name)s triples."),
        "four": _("%(name)s raises to four."),
        "gahwa": _("%(name)s calls Gahwa!"),
        "declared": _("%(name)s declares %(projects)s."),
        "declared_none": _("%(name)s declares no projects."),
        "baloot": _("%(name)s says Baloot!"),
        "trick": _("%(name)s takes the trick (%(points)s points)."),
        "sawa": _("%(name)s claims the rest of the tricks (Sawa)."),
        "deal_scored": _("The deal is scored: %(team1)s %(a)s, %(team2)s %(b)s. Totals: %(s1)s to %(s2)s."),
        "bid_failed": _("The bidders failed."),
        "sweep": _("%(team)s took every trick."),
    },
    "cherki": {
        "deal": _("Deal %(n)s: %(name)s deals."),
        "draw": _("%(name)s drew from the stock."),
        "take": _("%(name)s took %(card)s from the discard pile."),
        "discard": _("%(name)s discarded %(card)s."),
        "discard_forced": _("%(name)s discarded the drawn %(card)s (it does not complete the hand)."),
        "call": _("%(name)s called Cherki!"),
        "win": _("%(name)s wins with %(card)s: %(points)s points."),
        "void_stock_out": _("The stock ran out without a winner: the deal is void."),
        "void_turn_limit": _("%(n)s turns without a winner: the deal is void."),
    },
    "otuzbir": {
        "hand_start": _("Hand %(n)s: everyone pays the ante of %(ante)s; %(name)s is ebe."),
        "pass": _("%(name)s does not raise before the deal."),
        "raise_predeal": _("%(name)s raises %(amount)s before the deal."),
        "raise_closed": _("%(name)s raises %(amount)s for a closed card."),
        "raise_stand": _("%(name)s raises %(amount)s and stands."),
        "see": _("%(name)s sees %(amount)s."),
        "fold": _("%(name)s folds."),
        "deal": _("Everyone still in gets one closed card."),
        "open_card": _("%(name)s takes an open card: %(card)s."),
        "closed_card": _("%(name)s takes a closed card."),
        "stand": _("%(name)s stands."),
        "made_31": _("%(name)s made 31!"),
        "bust": _("%(name)s is bust."),
        "hand_won": _("%(name)s wins the pot of %(pot)s."),
        "hand_won_with": _("%(name)s wins the pot of %(pot)s with %(hand)s."),
        "eliminated": _("%(name)s is out of the tournament."),
    },
}

GAME_SPECIFIC = {
    "lembar": {
        "call": _("Lembar!"),
        "call_armed": _("Lembar! will be called with your next card"),
        "motif_P": _("Parang"), "motif_K": _("Kawung"), "motif_T": _("Truntum"), "motif_M": _("Mega Mendung"),
        "choose_motif": _("Choose the new motif"),
        "direction": _("Direction"),
        "motif": _("Motif"),
        "wild": _("Change Motif"), "wild4": _("Change Motif +4"),
        "skip": _("Skip"), "reverse": _("Reverse"), "draw2": _("Draw Two"),
        "caught_window": _("%(name)s has one card and did not call: catch!"),
        "called": _("Lembar! called"),
        "last_timeout": _("You have run out of time %(n)s times in a row. If this turn runs out too, "
                          "you will be removed from the game."),
        "last_timeout_entry": _("You have run out of time %(n)s times in a row. If this turn runs out too, "
                                "you will be removed from the game and your entry will be forfeited."),
    },
    "baloot": {
        "team": _("Team %(n)s"),
        "trump": _("Trump"),
        "contract": _("Contract"),
        "exposed": _("Bid card"),
        "trick": _("Trick"),
        "with_baloot": _("with Baloot"),
        "suit_S": _("Spades"), "suit_H": _("Hearts"), "suit_D": _("Diamonds"), "suit_C": _("Clubs"),
        "level": _("Level ×%(n)s"),
        "locked": _("locked"),
        "project_sira": _("Sira (three in a row)"),
        "project_fifty": _("Fifty (four in a row)"),
        "project_hundred": _("Hundred"),
        "project_four_hundred": _("Four hundred"),
    },
    "cherki": {
        "call": _("Cherki!"),
        "discard_call": _("Discard and call Cherki"),
        "called": _("called Cherki"),
        "suit_C": _("Coins"), "suit_S": _("Strings"), "suit_M": _("Myriads"),
        "WF": _("White Flower"), "RF": _("Red Flower"), "OT": _("Old Thousand"),
        "known": _("Taken from the discard"),
        "deal": _("Deal"),
    },
    "otuzbir": {
        "pot": _("Pot"),
        "ante": _("Ante"),
        "ebe": _("Ebe (dealer)"),
        "hand_no": _("Hand %(n)s of %(m)s"),
        "raise_to_answer": _("%(name)s raised %(amount)s: see or fold"),
        "total": _("Total"),
        "status_in": _("in"), "status_folded": _("folded"), "status_stood": _("stood"),
        "status_bust": _("bust"), "status_made31": _("31!"), "status_31": _("31!"), "status_out": _("out"),
        "closed_cards": _("Closed"),
        # hand categories (engine names: "31", "cin", "cengel", "yonca", "14", "none", "bust"; else a total)
        "cat_31": _("31"), "cat_cin": _("Cin"), "cat_cengel": _("Çengel"), "cat_yonca": _("Yonca"),
        "cat_14": _("14"), "cat_none": _("no hand yet"), "cat_bust": _("bust"),
    },
}


def error_label(code: str, fallback: str = ""):
    return ERRORS.get(code) or fallback or code


def _plain(d: dict) -> dict:
    return {k: str(v) for k, v in d.items()}


def table_facts(game: str) -> dict:
    """The numbers the table page states (rules panel, header, alerts), read from the engines so the
    page never says something other than what the server does."""
    facts = {"warn_seconds": WARN_SECONDS}
    if game == "baloot":
        facts["bid_seconds"] = _baloot_bid_seconds()
    elif game == "lembar":
        from gameworkers.engines.lembar import CATCH_MS, CATCH_PENALTY, TIMEOUTS_TO_REMOVE

        facts.update(timeouts_to_remove=TIMEOUTS_TO_REMOVE, catch_seconds=CATCH_MS // 1000,
                     catch_penalty=CATCH_PENALTY)
    elif game == "cherki":
        from gameworkers.engines.cherki import TURN_LIMIT, VOID_LIMIT
        from wallets.table_money import CHERKI_MIN_POINTS

        facts.update(turn_limit=TURN_LIMIT, void_limit=VOID_LIMIT, min_points=CHERKI_MIN_POINTS)
    elif game == "otuzbir":
        from gameworkers.engines.otuzbir import DEFAULT_CASH_HANDS, DEFAULT_DOUBLE_EVERY

        facts.update(cash_hands=DEFAULT_CASH_HANDS, double_every=DEFAULT_DOUBLE_EVERY, bailout_to=_bailout_to())
    return facts


@functools.cache
def _baloot_bid_seconds() -> int:
    # Asked of the engine itself: what deadline() gives a fresh deal's first bid (the room's timer
    # applies to every other step).
    from gameworkers.engines import get_engine

    engine = get_engine("baloot")
    due = engine.deadline(engine.new(bytes(32), 4, None))
    return due["limit_ms"] // 1000


def _bailout_to() -> int:
    # A read only: WalletSettings.load() would create the settings row on a page view.
    from wallets.models import WalletSettings

    saved = WalletSettings.objects.filter(pk=1).values_list("bailout_to", flat=True).first()
    return saved if saved is not None else WalletSettings._meta.get_field("bailout_to").default


WARN_SECONDS = 5  # the "hurry" sound and announcement when this much of your turn is left


def table_labels(game: str) -> dict:
    return {
        "errors": _plain(ERRORS),
        "common": _plain(COMMON),
        "moves": _plain(MOVES),
        "log": {**_plain(LOG), **_plain(GAME_LOG.get(game, {}))},
        "game": _plain(GAME_SPECIFIC.get(game, {})),
        "queue": _plain(QUEUE),
        "facts": table_facts(game),
    }


QUEUE = {
    "title": _("Quick play queue"),
    "none": _("You are not in a queue."),
    "waiting": _("Waiting for players in %(room)s"),
    "matching": _("Players found: taking your seats…"),
    "seated": _("Seated: opening your table…"),
    "left": _("You left the queue."),
    "refused": _("You could not be seated."),
    "position": _("Position"),
    "position_of": _("%(position)s of %(waiting)s"),
    "players_waiting": _("Players waiting"),
    "estimated_wait": _("Estimated wait"),
    "seconds": _("%(s)s s"),
    "any_moment": _("any moment"),
    "bots_after": _("Bots fill the table after %(s)s s."),
    "party": _("Playing again with the same table"),
    "joining": _("Joining the queue…"),
    "leaving": _("Leaving the queue…"),
    "tournament": _("Your tournament table is ready: opening it…"),
    "connecting": _("Connecting…"),
    "reconnecting": _("Connection lost: reconnecting…"),
    "logged_out": _("You were logged out: log in again to continue."),
    "error": _("Error"),
}


def queue_labels() -> dict:
    return {"queue": _plain(QUEUE), "errors": _plain(ERRORS)}


PROOF = {
    "checking": _("Checking in your browser…"),
    "ok": _("✓ Everything matches: the commitment, every shuffle and the first player were re-derived from the seed."),
    "failed": _("✗ The check failed:"),
    "commitment_ok": _("✓ SHA-256(seed) equals the commitment"),
    "commitment_bad": _("✗ SHA-256(seed) is %(got)s, the commitment says %(want)s"),
    "shuffle_ok": _("✓ shuffle %(round)s:%(purpose)s"),
    "shuffle_bad": _("✗ shuffle %(round)s:%(purpose)s differs at position %(i)s: re-derived %(got)s, published %(want)s"),
    "first_ok": _("✓ first player/dealer %(first)s"),
    "first_bad": _("✗ first player/dealer: re-derived %(got)s, published %(want)s"),
    "no_crypto": _("This browser has no Web Crypto: use tools/verify_proof.py instead."),
    "not_ended": _("The seed is revealed when the table ends; until then only the commitment is shown."),
}


def proof_labels() -> dict:
    return _plain(PROOF)


def hand_labels() -> dict:
    """What hand_result.js, display.js and the bot badge say (per-hand results, display settings)."""
    return {
        "deal_title": gettext("Deal %(n)s is over"), "hand_title": gettext("Hand %(n)s is over"), "game_title": gettext("The game is over"),
        "close": gettext("Close"), "replay": gettext("Replay this hand"),
        "made": gettext("%(team)s made the contract (%(contract)s)."),
        "failed": gettext("%(team)s failed the contract (%(contract)s): the defenders score the deal."),
        "sweep": gettext("%(team)s took every trick."), "gahwa": gettext("Gahwa: the deal decides the game."),
        "doubled": gettext("Doubled ×%(n)s."),
        "team": gettext("Team"), "card_points": gettext("Card points"), "game_points": gettext("Game points"),
        "projects": gettext("Projects"), "baloot": gettext("Baloot"), "this_deal": gettext("This deal"), "total": gettext("Total"),
        "void": gettext("Everyone passed: the deal is void and dealt again."),
        "won_with": gettext("%(name)s wins with this hand:"), "points": gettext("%(n)s points"),
        "player": gettext("Player"), "payment": gettext("Paid / received"), "put_in": gettext("Put in the pot"),
        "paid_out": gettext("Won"), "shown": gettext("Cards shown"), "not_shown": gettext("not shown"),
        "rake": gettext("Rake: %(n)s"), "pot": gettext("Pot: %(n)s"), "rank": gettext("Rank"),
        "bot_style": gettext("Bot style: %(style)s. Open its profile."),
        "display": gettext("Display"), "contrast": gettext("Contrast"), "grain": gettext("Grain"),
        "temperature": gettext("Colour temperature"), "large_cards": gettext("Larger cards"), "reset": gettext("Reset"),
    }
