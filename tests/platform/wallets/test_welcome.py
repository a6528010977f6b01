"""The welcome grant: Chip at once; Mutiara and Kelereng (real value) after the account's first finished
game or WELCOME_REAL_VALUE_DELAY_H, so freshly made accounts cannot feed a pot (issue 23 #7)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from rooms import services as rooms
from rooms.errors import TableError
from rooms.models import Table, TableStatus
from wallets import services, table_money
from wallets.checks import ledger_problems

pytestmark = pytest.mark.django_db


@pytest.fixture
def delayed(settings):
    settings.WELCOME_REAL_VALUE_DELAY_H = 24


def _balances(user) -> tuple[int, int, int]:
    return tuple(services.balance_of(user=user, currency=c) for c in ("CHP", "MUT", "KEL"))


def test_a_new_player_gets_chip_at_once_and_real_value_later(delayed, make_user, make_bot):
    user = make_user()
    assert _balances(user) == (1000, 0, 0)
    assert services.grant_welcome(user=user) is not None and _balances(user) == (1000, 0, 0)  # once
    assert _balances(make_bot()) == (1000, 100, 100)  # bots need their stake at once
    assert ledger_problems() == []


def test_a_fresh_account_cannot_enter_a_kelereng_pot(delayed, make_user, make_room):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=10)
    host, puppet = make_user(), make_user()
    table = rooms.table_open(room=room, host=host)
    with pytest.raises(TableError) as exc:
        rooms.table_sit(table_id=table.pk, user=puppet)
    assert exc.value.code == "insufficient_funds"


def test_the_first_finished_game_earns_the_real_value_welcome(delayed, make_user, make_room):
    room = make_room("lembar")  # a free table
    players = [make_user(), make_user()]
    table = rooms.table_open(room=room, host=players[0], seat_count=2)
    for user in players:
        rooms.table_sit(table_id=table.pk, user=user)
    with transaction.atomic():  # finished as rooms.services.ending._finish_locked does
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        locked.status = TableStatus.FINISHED
        locked.save()
        table_money.on_finish(table=locked, result={"ranks": [1, 2], "winners": [0]})
    assert [_balances(u) for u in players] == [(1000, 100, 100)] * 2
    services.grant_welcome_real(user=players[0])  # once
    assert _balances(players[0]) == (1000, 100, 100)
    assert ledger_problems() == []


def test_after_the_delay_the_real_value_welcome_comes_where_it_is_needed(delayed, make_user, make_room):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=10)
    host, old_hand = make_user(), make_user()
    User.objects.filter(pk=old_hand.pk).update(date_joined=timezone.now() - timedelta(hours=25))
    old_hand.refresh_from_db()
    table = rooms.table_open(room=room, host=host)
    rooms.table_sit(table_id=table.pk, user=old_hand)
    assert _balances(old_hand) == (1000, 100, 90)  # granted at the sit, then the entry paid


def test_an_account_granted_everything_at_sign_up_gets_nothing_more(make_user):
    user = make_user()  # the suite's default: no delay, all at once
    assert _balances(user) == (1000, 100, 100)
    assert services.grant_welcome_real(user=user) is None
    services.release_welcome_if_due(user=user)
    assert _balances(user) == (1000, 100, 100)
