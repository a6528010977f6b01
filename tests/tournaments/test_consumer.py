"""The tournament socket: a snapshot on connect, pushes to the group, codes for bad input."""

from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from frontend.routing import websocket_urlpatterns as lobby_patterns  # the lobby socket
from tests.wsrefusal import refusal_code
from tournaments import broadcast
from tournaments.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)


def _app():
    return URLRouter([*lobby_patterns, *websocket_urlpatterns])


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
    from live.consumers import TableConsumer
    from rooms.broadcast import user_group

    assert broadcast.player_group(7) == user_group(7)
    assert hasattr(TableConsumer, "tournament_table")  # a consumer without the handler would die on it


async def test_the_lobby_socket_sends_the_cards_then_each_change(make_tournament, make_user):
    from asgiref.sync import sync_to_async

    t = await sync_to_async(make_tournament)(name="Lobby cup")
    socket = WebsocketCommunicator(_app(), "/ws/tournaments/lobby/")
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    assert first["type"] == "tournament.cards" and [c["id"] for c in first["cards"]] == [t.pk]
    assert first["cards"][0]["registered"] == 0
    from tournaments import services

    user = await sync_to_async(make_user)()
    await sync_to_async(services.register)(tournament_id=t.pk, user=user)  # pushes after its commit
    pushed = await socket.receive_json_from(timeout=5)
    assert pushed["type"] == "tournament.card" and pushed["card"]["id"] == t.pk
    assert pushed["card"]["registered"] == 1 and pushed["card"]["prize_pool"] == 20
    await socket.send_json_to({"type": "resync", "id": 3})
    again = await socket.receive_json_from(timeout=5)
    assert again["type"] == "tournament.cards" and again["id"] == 3
    await socket.disconnect()
