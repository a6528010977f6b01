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
])
@pytest.mark.django_db
def test_room_validation_refuses_bad_settings(kw, field):
    with pytest.raises(ValidationError) as exc:
        _room(**kw).full_clean()
    assert field in exc.value.message_dict


@pytest.mark.django_db
def test_demo_data_loads_the_seeds_rooms_idempotently():
    call_command("seed_demo")
    call_command("seed_demo")
    antes = {r.name: r.stake for r in Room.objects.filter(game="otuzbir")}
    assert antes == {"AI Arena": 1, "Kahvehane": 1, "Salon": 5, "Casino": 10, "Özel Ada": 25}
    assert {r.game for r in Room.objects.all()} == {"lembar", "baloot", "cherki", "otuzbir"}
    for room in Room.objects.all():
        room.full_clean()
