"""The rooms REST API: errors always {code, message}; numbers are JSON numbers."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import user_create
from rooms import services
from rooms.models import Room

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    client = APIClient()
    client.force_authenticate(user_create(username="caller", password="pass-word-123"))
    return client


def _open_table():
    room = Room.objects.create(name="API", slug="api", game="lembar", seats=4, min_seats=2)
    return services.table_open(room=room)


@pytest.mark.parametrize("seat", ["1", True, 1.5, [1]])
def test_a_seat_that_is_not_a_json_number_is_refused(api, seat):
    table = _open_table()
    response = api.post(f"/api/tables/{table.pk}/sit/", {"seat": seat}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert not table.seats.exists()
    assert api.post(f"/api/tables/{table.pk}/sit/", {"seat": 1}, format="json").json() == {"seat": 1}


def test_a_seat_count_that_is_not_a_json_number_is_refused(api):
    _open_table()
    response = api.post("/api/rooms/api/tables/", {"seats": "3"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"


@pytest.mark.parametrize("method,path", [("get", "/api/rooms/no-such-room/tables/"),
                                         ("post", "/api/rooms/no-such-room/tables/")])
def test_an_unknown_room_is_a_404_with_code_and_message(api, method, path):
    response = getattr(api, method)(path, {}, format="json")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "There is nothing at this address."}


def test_the_schema_lists_every_field_a_frame_and_an_event_carry(api):
    """docs/protocol.md and /api/schema/ describe the same frame and event the API returns."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    user = user_create(username="framer", password="pass-word-123")
    table = _open_table()
    services.table_sit(table_id=table.pk, user=user)
    api.force_authenticate(user)
    frame = api.get(f"/api/tables/{table.pk}/").json()
    assert set(frame) <= set(schema["Frame"]["properties"])
    assert set(schema["Frame"]["required"]) <= set(frame)
    events = api.get(f"/api/tables/{table.pk}/events/?after=0").json()
    assert events and all(set(e) == set(schema["Event"]["properties"]) for e in events)
    assert set(schema["PaginatedHistoryEntryList"]["properties"]) == {"count", "next", "previous", "results"}
    page = api.get("/api/wallet/history/").json()
    assert set(page) == {"count", "next", "previous", "results"}
