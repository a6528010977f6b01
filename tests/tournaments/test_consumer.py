"""The tournament socket: a snapshot on connect, pushes to the group, codes for bad input."""

from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from tests.wsrefusal import refusal_code
from tournaments import broadcast
from tournaments.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


def _app():
    return URLRouter(websocket_urlpatterns)


async def test_snapshot_push_and_bad_input(make_tournament):
    from asgiref.sync import sync_to_async

    t = await sync_to_async(make_tournament)()
    socket = WebsocketCommunicator(_app(), f"/ws/tournaments/{t.pk}/")
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    assert first["type"] == "tournament.standings" and first["status"] == "registering"
    await socket.send_to(text_data="not json")
    assert (await socket.receive_json_from(timeout=5))["code"] == "malformed"
    await get_channel_layer().group_send(broadcast.group(t.pk), {"type": "tournament.standings",
                                                                 "frame": {"type": "tournament.standings", "round": 9}})
    assert (await socket.receive_json_from(timeout=5))["round"] == 9
    await socket.disconnect()
    missing = WebsocketCommunicator(_app(), "/ws/tournaments/999999/")
    connected, code = await missing.connect()
    assert await refusal_code(missing, connected, code) == 4404


def test_player_frames_go_to_the_user_group_every_socket_of_the_user_joins():
    from rooms.broadcast import user_group
    from rooms.consumers import TableConsumer

    assert broadcast.player_group(7) == user_group(7)
    assert hasattr(TableConsumer, "tournament_table")  # a consumer without the handler would die on it
