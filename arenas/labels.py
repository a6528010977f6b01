"""Translated strings for the arena page scripts (arena page and arena table), handed over as JSON
like ``rooms.labels``: one gettext catalogue for templates and scripts."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from arenas.models import PlayerStatus, Status

LABELS = {
    "starts_in": _("Starts in %(time)s"),
    "ends_in": _("%(time)s left"),
    "time_up": _("Time is up: games in progress finish and count."),
    "over": _("The arena is over."),
    "cancelled": _("Cancelled: every entry was refunded."),
    "no_games_cancelled": _("Nobody finished a game: every entry was refunded."),
    "your_rank": _("Your rank: %(rank)s of %(n)s"),
    "your_score": _("Points: %(score)s · games played: %(games)s"),
    "on_fire": _("On fire: your results count double"),
    "waiting": _("Waiting for your next game…"),
    "bots_after": _("Bots take the free seats after %(s)s s."),
    "playing_now": _("Your game is on."),
    "paused": _("Paused: join again to be paired."),
    "left_game": _("You left a game, so you are paused: join again to be paired."),
    "next_game": _("Your next game is ready."),
    "go_to_game": _("Go to your game"),
    "watch": _("Watch"),
    "bot": _("bot"),
    "no_games": _("No game is being played."),
    "no_players": _("Nobody has joined yet."),
    "rank": _("Rank"),
    "player": _("Player"),
    "score": _("Points"),
    "games": _("Games"),
    "results": _("Results"),
    "prize": _("Prize"),
    "place": _("Place"),
    "you_won": _("You won the arena!"),
    "you_placed": _("You finished in place %(place)s."),
    "back": _("Back to the arena"),
    "fire_title": _("Two wins in a row: results count double"),
    "game_over": _("Game over"),
}


# The lobby's arena cards (arenas/static/arenas/lobby.js); the status words come from ``Status``.
LOBBY_LABELS = {
    "running_now": _("running now"),
    # the lobby template's plural entry; one and many suffice for the site's languages (en, ms, tr, id)
    "players_one": ngettext_lazy("%(n)s player joined", "%(n)s players joined", 1),
    "players_many": ngettext_lazy("%(n)s player joined", "%(n)s players joined", 2),
    "leader": _("Leader: %(name)s (%(score)s points)"),
}


def lobby_labels() -> dict:
    labels = {key: str(value) for key, value in LOBBY_LABELS.items()}
    for key in ("starts_in", "ends_in", "time_up", "over", "cancelled", "no_games_cancelled"):
        labels[key] = str(LABELS[key])
    labels["status"] = {value: str(label) for value, label in Status.choices}
    return labels


def arena_labels() -> dict:
    labels = {key: str(value) for key, value in LABELS.items()}
    labels["status"] = {value: str(label) for value, label in Status.choices}
    labels["player_status"] = {value: str(label) for value, label in PlayerStatus.choices}
    return labels
