"""Bracket set-up: Baloot pairs register together and sit as teams; Cherki fills an even count."""

from __future__ import annotations

import pytest
from django.utils import timezone

from rooms.models import Room
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import Entry, EntryStatus, Status, TournamentTable
from wallets.checks import ledger_problems
from wallets.models import Currency
from wallets.services import balance_of

pytestmark = pytest.mark.usefixtures("quiet")


def _room(game: str, seats: int) -> Room:
    room = Room(name=f"{game} cup room", slug=f"t-{game}-cup", game=game, seats=seats, min_seats=seats)
    room.full_clean()
    room.save()
    return room


def test_baloot_pairs_register_together_and_sit_as_teams(make_user):
    t = services.tournament_create(name="Baloot pairs", room=_room("baloot", 4), starts_at=timezone.now(),
                                   min_entrants=2)
    a, b, c, d, e = (make_user() for _ in range(5))
    services.register(tournament_id=t.pk, user=a)
    services.register(tournament_id=t.pk, user=b, partner=a)
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=c, partner=a)
    assert err.value.code == "team_full"
    with pytest.raises(TournamentError) as err:
        services.register(tournament_id=t.pk, user=c, partner=e)  # e is not registered
    assert err.value.code == "no_such_partner"
    services.register(tournament_id=t.pk, user=c)
    services.register(tournament_id=t.pk, user=d, partner=c)
    services.register(tournament_id=t.pk, user=e)  # a team of one: refunded at the start
    e_before = balance_of(user=e, currency=Currency.CHIP)
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.RUNNING and t.entrants == 4
    assert Entry.objects.get(tournament=t, user=e).status == EntryStatus.REFUNDED
    assert balance_of(user=e, currency=Currency.CHIP) == e_before + 20
    (match,) = TournamentTable.objects.filter(tournament=t, round=1)
    seats = {s.user_id: s.number for s in match.table.seats.all()}
    assert seats[a.pk] % 2 == seats[b.pk] % 2 and seats[c.pk] % 2 == seats[d.pk] % 2
    assert seats[a.pk] % 2 != seats[c.pk] % 2
    assert ledger_problems() == []


def test_cherki_even_count_gets_a_bot_seat_and_byes(make_bots):
    t = services.tournament_create(name="Cherki cup", room=_room("cherki", 3), starts_at=timezone.now(),
                                   min_entrants=4, fill_with_bots=True)
    make_bots(6)
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.entrants == 5  # four, plus one so tables of three reach one winner
    sizes = sorted(len(tt.players) for tt in TournamentTable.objects.filter(tournament=t, round=1))
    assert sizes == [1, 1, 3]
    assert ledger_problems() == []
