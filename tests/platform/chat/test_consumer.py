"""Chat over the table websocket (channels' communicator, the real Redis channel layer and relay):
two players and a spectator, who receives what."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.models import ChatMessage, ChatMute, ChatReport
from config.asgi import application
from tests.platform.chat.tables import end_table, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _open(table_id: int, user) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", await sync_to_async(_cookie)(user))])
    connected, _ = await comm.connect(timeout=10)
    assert connected
    assert (await comm.receive_json_from(timeout=10))["type"] == "state"
    return comm


async def _next(comm, kind: str) -> dict:
    """The next frame of ``kind`` (state frames of the moving game may come in between)."""
    while True:
        frame = await comm.receive_json_from(timeout=10)
        if frame["type"] == kind:
            return frame


async def _nothing_but_state(comm) -> None:
    while not await comm.receive_nothing(timeout=0.4):
        assert (await comm.receive_json_from(timeout=1))["type"] in ("state", "event")


async def test_players_chat_reaches_everyone_and_the_spectators_chat_stays_with_the_spectators():
    table, a, b, w = await sync_to_async(make_table)()
    socks = {"a": await _open(table.pk, a), "b": await _open(table.pk, b), "w": await _open(table.pk, w)}
    for name, comm in socks.items():
        await comm.send_json_to({"type": "chat", "action": "history", "id": f"h-{name}"})
        history = await _next(comm, "chat_history")
        assert history["id"] == f"h-{name}" and history["messages"] == []
        assert (history["channel"], history["reads"]) == (
            ("spectators", ["players", "spectators"]) if name == "w" else ("players", ["players"]))

    await socks["a"].send_json_to({"type": "chat", "text": "<b>good luck</b>"})
    for comm in socks.values():
        frame = await _next(comm, "chat")
        assert (frame["channel"], frame["text"], frame["name"], frame["user"]) == (
            "players", "<b>good luck</b>", "Ayu", a.pk)  # stored and sent as typed; the page shows it as text

    await socks["w"].send_json_to({"type": "chat", "phrase": "gg"})
    frame = await _next(socks["w"], "chat")
    assert (frame["channel"], frame["phrase"], frame["text"]) == ("spectators", "gg", None)
    await _nothing_but_state(socks["a"])
    await _nothing_but_state(socks["b"])

    # A spectator cannot write into the players' chat, whatever the frame says.
    await socks["w"].send_json_to({"type": "chat", "text": "she has the ace", "channel": "players", "id": 9})
    error = await _next(socks["w"], "error")
    assert (error["code"], error["id"]) == ("chat_forbidden", 9)
    await _nothing_but_state(socks["a"])
    assert await sync_to_async(ChatMessage.objects.count)() == 2

    # A reload gets the history of the channels it may read.
    await socks["b"].disconnect()
    socks["b"] = await _open(table.pk, b)
    await socks["b"].send_json_to({"type": "chat", "action": "history"})
    assert [m["text"] for m in (await _next(socks["b"], "chat_history"))["messages"]] == ["<b>good luck</b>"]
    await socks["w"].send_json_to({"type": "chat", "action": "history"})
    assert [m["phrase"] for m in (await _next(socks["w"], "chat_history"))["messages"]] == [None, "gg"]

    # Once the table has ended the players read the spectators' chat too.
    await sync_to_async(end_table)(table)
    await socks["w"].send_json_to({"type": "chat", "text": "well played both"})
    for comm in socks.values():
        assert (await _next(comm, "chat"))["text"] == "well played both"
    await socks["a"].send_json_to({"type": "chat", "action": "history"})
    history = await _next(socks["a"], "chat_history")
    assert history["reads"] == ["players", "spectators"] and len(history["messages"]) == 3
    for comm in socks.values():
        await comm.disconnect()


async def test_mute_report_and_refusals_over_the_socket(settings):
    settings.CHAT_RATE_MESSAGES = 2
    table, a, b, w = await sync_to_async(make_table)()
    sa, sb, sw = await _open(table.pk, a), await _open(table.pk, b), await _open(table.pk, w)

    await sb.send_json_to({"type": "chat", "action": "mute", "user": a.pk, "id": "m"})
    history = await _next(sb, "chat_history")
    assert (history["id"], history["muted"], history["blocked"]) == ("m", [a.pk], [])
    await sa.send_json_to({"type": "chat", "text": "can you hear me"})
    said = await _next(sa, "chat")
    assert (await _next(sw, "chat"))["message_id"] == said["message_id"]
    await _nothing_but_state(sb)  # b muted a

    await sw.send_json_to({"type": "chat", "action": "report", "message": said["message_id"], "reason": "spam",
                           "id": "r"})
    ack = await _next(sw, "chat_ack")
    assert ack == {"type": "chat_ack", "action": "report", "message_id": said["message_id"], "id": "r"}
    assert await sync_to_async(ChatReport.objects.filter(reporter=w, reported=a).count)() == 1

    await sb.send_json_to({"type": "chat", "action": "unblock", "user": a.pk})
    assert (await _next(sb, "chat_history"))["muted"] == []
    assert not await sync_to_async(ChatMute.objects.exists)()

    for payload, code in [({"text": "   "}, "chat_empty"), ({"text": "x" * 201}, "chat_too_long"),
                          ({"phrase": "nope"}, "chat_unknown_phrase"), ({"action": "whisper", "seat": 1}, "chat_malformed"),
                          ({"action": {"say": 1}}, "chat_malformed"), ({"text": {"a": 1}}, "chat_malformed"),
                          ({"action": "report", "message": said["message_id"], "reason": "x"}, "chat_bad_reason")]:
        await sb.send_json_to({"type": "chat", **payload, "id": code})
        error = await _next(sb, "error")
        assert (error["code"], error["id"]) == (code, code)
    await sa.send_json_to({"type": "chat", "text": "two"})
    await _next(sa, "chat")
    await sa.send_json_to({"type": "chat", "text": "three", "id": "rl"})  # CHAT_RATE_MESSAGES = 2
    error = await _next(sa, "error")
    assert (error["code"], error["id"]) == ("chat_rate_limited", "rl")
    for comm in (sa, sb, sw):
        await comm.disconnect()
