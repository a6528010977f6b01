import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from rooms.models import Room


def _room(**kw):
    base = dict(name="R", slug="r", game="lembar", seats=4, min_seats=2)
    base.update(kw)
    return Room(**base)


@pytest.mark.parametrize("kw,field", [
    (dict(seats=7), "seats"),
    (dict(game="baloot", seats=3), "seats"),
    (dict(rake_bps=10_001), "rake_bps"),
    (dict(stake_kind="pot", stake=10, currency="CHP"), "currency"),
    (dict(stake_kind="ante", stake=1, currency="CHP"), "stake_kind"),
    (dict(stake_kind="pot", stake=0, currency="MUT"), "stake"),
    (dict(game="otuzbir", stake_kind="ante", stake=5, currency="MUT"), "currency"),
    # The rules revision is the engine's (issue 20): a room cannot open tables on old rules.
    (dict(game="baloot", seats=4, min_seats=4, options={"rules": 1}), "options"),
    (dict(game="otuzbir", seats=7, options={"rules": 1}), "options"),
])
@pytest.mark.django_db
def test_room_validation_refuses_bad_settings(kw, field):
    with pytest.raises(ValidationError) as exc:
        _room(**kw).full_clean()
    assert field in exc.value.message_dict


@pytest.mark.django_db
def test_demo_data_loads_the_seeds_rooms_idempotently():
    call_command("seed_demo", allow_production=True)
    call_command("seed_demo", allow_production=True)
    antes = {r.name: r.stake for r in Room.objects.filter(game="otuzbir", stake_kind="ante")}
    assert antes == {"AI Arena": 1, "Kahvehane": 1, "Salon": 5, "Casino": 10, "Özel Ada": 25}
    assert {r.game for r in Room.objects.all()} == {"lembar", "baloot", "cherki", "otuzbir"}
    for room in Room.objects.all():
        room.full_clean()


@pytest.mark.django_db
def test_a_table_cannot_be_opened_on_an_earlier_rules_revision():
    from rooms import services
    from rooms.errors import TableError

    room = _room(game="baloot", seats=4, min_seats=4)
    room.save()
    with pytest.raises(TableError) as exc:
        services.table_open(room=room, options={"rules": 1})
    assert exc.value.code == "bad_options"
    Room.objects.filter(pk=room.pk).update(options={"rules": 1})  # set behind the admin's back
    room.refresh_from_db()
    with pytest.raises(TableError) as exc:
        services.table_open(room=room)
    assert exc.value.code == "bad_options"
    table = services.table_open(room=Room.objects.create(name="B", slug="b2", game="baloot", seats=4, min_seats=4))
    assert "rules" not in table.options  # the engine stores the current revision when the game starts
