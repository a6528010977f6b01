"""Translated strings handed to the page scripts as JSON (one gettext catalogue for templates and JS)."""

from __future__ import annotations

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
    "played": _("%(name)s played %(card)s"),
    "drew": _("%(name)s drew"),
    "event": _("%(name)s: %(what)s"),
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

EVENTS = {
    "penalty": _("draws penalty cards"),
    "skip": _("is skipped"),
    "reverse": _("the direction is reversed"),
    "reshuffle": _("The discard pile was reshuffled into a new stock."),
    "call": _("called"),
    "catch": _("caught a missing call"),
    "window": _("has one card left"),
    "removed": _("was removed from the game"),
    "timeout": _("ran out of time"),
    "trick": _("takes the trick"),
    "deal_scored": _("The deal was scored."),
    "void_deal": _("The deal is void: a new deal starts."),
    "deal_void": _("The deal is void: a new deal starts."),
    "contract": _("takes the contract"),
    "baloot": _("Baloot!"),
    "sawa": _("claims the rest (Sawa)"),
    "doubling": _("doubles"),
    "declared": _("declared projects"),
    "deal": _("New deal"),
    "win": _("wins the deal!"),
    "hand_over": _("The hand is over."),
    "hand_start": _("A new hand starts."),
    "made_31": _("made 31!"),
    "bust": _("is bust"),
    "closed_card": _("bought a closed card"),
    "stopped": _("The table was stopped"),
    "leave": _("left the table"),
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
        "status_bust": _("bust"), "status_made31": _("31!"),
        "closed_cards": _("Closed"),
    },
}


def error_label(code: str, fallback: str = ""):
    return ERRORS.get(code) or fallback or code


def _plain(d: dict) -> dict:
    return {k: str(v) for k, v in d.items()}


def table_labels(game: str) -> dict:
    return {
        "errors": _plain(ERRORS),
        "common": _plain(COMMON),
        "moves": _plain(MOVES),
        "events": _plain(EVENTS),
        "game": _plain(GAME_SPECIFIC.get(game, {})),
        "queue": _plain(QUEUE),
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
