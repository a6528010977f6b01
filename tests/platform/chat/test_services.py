"""Posting, channels, limits, mutes, blocks, reports and site-wide mutes, through chat.services."""

from __future__ import annotations

import pytest

from chat import selectors, services
from chat.errors import ChatError
from chat.models import ChatMessage, ChatReport, ReportStatus, SiteMute
from core.api import http_status
from tests.platform.chat.tables import end_table, make_table

pytestmark = pytest.mark.django_db


def _code(excinfo) -> str:
    return excinfo.value.code


def _chat(published) -> list[dict]:
    return [m for _, m in published if m["type"] == "table.chat"]


def test_a_player_posts_into_the_players_chat_sent_after_commit(published, django_capture_on_commit_callbacks):
    table, a, b, w = make_table()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        message = services.chat_post(table_id=table.pk, user=a, text="  hello\n\tthere  ")
    assert _chat(published) == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    assert (message.channel, message.text, message.phrase, message.in_play) == ("players", "hello there", "", True)
    [sent] = _chat(published)
    assert sent["table"] == table.pk and sent["channel"] == "players" and sent["players_read"] is True
    assert '"text":"hello there"' in sent["frame"] and '"name":"Ayu"' in sent["frame"]


def test_a_spectator_writes_only_into_the_spectators_chat(published, django_capture_on_commit_callbacks):
    table, a, b, w = make_table()
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=table.pk, user=w, text="psst, she holds the ace", channel="players")
    assert _code(refused) == "chat_forbidden" and http_status(refused.value) == 403
    assert not ChatMessage.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        message = services.chat_post(table_id=table.pk, user=w, text="nice table")
    assert message.channel == "spectators"
    [sent] = _chat(published)
    assert sent["players_read"] is False  # the players do not get it while the game runs
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=table.pk, user=a, text="hi", channel="spectators")
    assert _code(refused) == "chat_forbidden"


def test_after_the_end_the_spectators_chat_reaches_the_players(published, django_capture_on_commit_callbacks):
    table, a, b, w = make_table()
    services.chat_post(table_id=table.pk, user=w, text="during")
    assert [m["text"] for m in selectors.history(table=table, user_id=a.pk)] == []
    table = end_table(table)
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_post(table_id=table.pk, user=w, text="gg all")
    [sent] = _chat(published)
    assert sent["players_read"] is True
    assert [m["text"] for m in selectors.history(table=table, user_id=a.pk)] == ["during", "gg all"]


@pytest.mark.parametrize("kwargs,code", [
    ({"text": ""}, "chat_empty"),
    ({"text": " \n\t \u202e "}, "chat_empty"),
    ({"text": "x" * 201}, "chat_too_long"),
    ({"text": 5}, "chat_malformed"),
    ({}, "chat_malformed"),
    ({"text": "hi", "phrase": "gg"}, "chat_malformed"),
    ({"phrase": "give me your ace"}, "chat_unknown_phrase"),
    ({"phrase": ["gg"]}, "chat_unknown_phrase"),
])
def test_bad_messages_are_refused_with_a_stable_code(kwargs, code):
    table, a, *_ = make_table()
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=table.pk, user=a, **kwargs)
    assert _code(refused) == code
    assert not ChatMessage.objects.exists()


def test_the_length_cap_counts_characters_after_cleaning():
    table, a, *_ = make_table()
    assert services.chat_post(table_id=table.pk, user=a, text="é" * 200).text == "é" * 200
    # Bidirectional overrides could make a message read as something else: they go.
    assert services.chat_post(table_id=table.pk, user=a, text="ab\u202ecd\x00e").text == "abcd e"


def test_five_messages_per_ten_seconds_per_user(monkeypatch):
    table, a, b, _ = make_table()
    clock = [1_000_000.0]
    monkeypatch.setattr(services.time, "time", lambda: clock[0])
    for i in range(5):
        services.chat_post(table_id=table.pk, user=a, text=f"m{i}")
        clock[0] += 1
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=table.pk, user=a, phrase="gg")
    assert _code(refused) == "chat_rate_limited" and http_status(refused.value) == 429
    assert 0 < refused.value.retry_after <= 10
    services.chat_post(table_id=table.pk, user=b, text="another user is not held back")
    clock[0] += 5.5  # the first message is now more than 10 s old
    services.chat_post(table_id=table.pk, user=a, text="again")
    assert ChatMessage.objects.filter(user=a).count() == 6


def test_a_private_table_chat_needs_the_right_to_watch_it():
    table, a, b, w = make_table(private=True)
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=table.pk, user=w, text="hi")
    assert _code(refused) == "no_such_table"
    assert services.chat_post(table_id=table.pk, user=w, text="hi", invite_code=table.invite_code).channel == "spectators"
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=999_999, user=a, text="hi")
    assert _code(refused) == "no_such_table"


def test_mute_hides_a_users_messages_from_me_everywhere_until_unmuted():
    table, a, b, w = make_table()
    other, *_ = make_table()
    services.chat_set_mute(user=a, target_id=b.pk, level="mute")
    services.chat_post(table_id=table.pk, user=b, text="annoying")
    message = services.chat_post(table_id=other.pk, user=w, text="also annoying")
    assert a.pk in selectors.hidden_from(sender_id=b.pk, channel="players", in_play=True)
    assert selectors.history(table=table, user_id=a.pk) == []
    assert [m["text"] for m in selectors.history(table=table, user_id=w.pk)] == ["annoying"]  # only for me
    assert selectors.mutes_of(user_id=a.pk) == {"muted": [b.pk], "blocked": []}
    # A mute does not stop them reading me.
    assert selectors.hidden_from(sender_id=a.pk, channel="spectators", in_play=True) == []
    services.chat_set_mute(user=a, target_id=b.pk, level="none")
    assert [m["text"] for m in selectors.history(table=table, user_id=a.pk)] == ["annoying"]
    assert message.channel == "spectators"


def test_block_also_keeps_my_messages_from_them_but_never_inside_a_running_game():
    table, a, b, w = make_table()
    services.chat_set_mute(user=a, target_id=b.pk, level="block")
    assert selectors.mutes_of(user_id=a.pk) == {"muted": [], "blocked": [b.pk]}
    # In the players' chat during play every seated player reads every other: blocking the opponents
    # must not turn the players' chat into a private line.
    assert b.pk not in selectors.hidden_from(sender_id=a.pk, channel="players", in_play=True)
    services.chat_post(table_id=table.pk, user=a, text="during play")
    assert [m["text"] for m in selectors.history(table=table, user_id=b.pk)] == ["during play"]
    assert selectors.history(table=table, user_id=a.pk)[-1]["text"] == "during play"
    # Anywhere else they do not read me, and I never read them.
    services.chat_post(table_id=table.pk, user=b, text="from b")
    assert [m["text"] for m in selectors.history(table=table, user_id=a.pk)] == ["during play"]
    table = end_table(table)
    assert b.pk in selectors.hidden_from(sender_id=a.pk, channel="players", in_play=False)
    services.chat_post(table_id=table.pk, user=a, text="after the end")
    assert [m["text"] for m in selectors.history(table=table, user_id=b.pk)] == ["during play", "from b"]
    assert [m["text"] for m in selectors.history(table=table, user_id=w.pk)] == ["during play", "from b",
                                                                                 "after the end"]


@pytest.mark.parametrize("target,level,code", [
    ("self", "mute", "chat_self"),
    (999_999, "mute", "chat_no_such_user"),
    ("b", "silence", "chat_malformed"),
    ("7", "mute", "chat_malformed"),
])
def test_bad_mutes_are_refused(target, level, code):
    table, a, b, _ = make_table()
    target_id = {"self": a.pk, "b": b.pk}.get(target, target)
    with pytest.raises(ChatError) as refused:
        services.chat_set_mute(user=a, target_id=target_id, level=level)
    assert _code(refused) == code


def test_report_a_message_once_with_a_reason():
    table, a, b, w = make_table()
    message = services.chat_post(table_id=table.pk, user=b, text="you are all idiots")
    report = services.chat_report(table_id=table.pk, user=a, message_id=message.pk, reason="abuse", note="rude")
    assert (report.reported_id, report.reporter_id, report.status, report.note) == (b.pk, a.pk, "open", "rude")
    again = services.chat_report(table_id=table.pk, user=a, message_id=message.pk, reason="spam")
    assert again.pk == report.pk and ChatReport.objects.count() == 1
    assert services.chat_report(table_id=table.pk, user=w, message_id=message.pk, reason="abuse").pk != report.pk


def test_reports_refuse_bad_reasons_own_messages_and_messages_one_cannot_read():
    table, a, b, w = make_table()
    mine = services.chat_post(table_id=table.pk, user=a, text="hi")
    theirs = services.chat_post(table_id=table.pk, user=w, text="spectator talk")
    cases = [({"user": b, "message_id": mine.pk, "reason": "because"}, "chat_bad_reason"),
             ({"user": a, "message_id": mine.pk, "reason": "abuse"}, "chat_self"),
             # A player does not read the spectators' chat during the game, so cannot report from it.
             ({"user": a, "message_id": theirs.pk, "reason": "abuse"}, "chat_no_such_message"),
             ({"user": b, "message_id": 999_999, "reason": "abuse"}, "chat_no_such_message"),
             ({"user": b, "message_id": "1", "reason": "abuse"}, "chat_malformed")]
    for kwargs, code in cases:
        with pytest.raises(ChatError) as refused:
            services.chat_report(table_id=table.pk, **kwargs)
        assert _code(refused) == code, kwargs
    assert not ChatReport.objects.exists()


def test_staff_mute_a_user_site_wide_for_a_period_and_can_lift_it(django_user_model):
    table, a, b, _ = make_table()
    staff = django_user_model.objects.create_user(username="mod", password="pass-word-123", is_staff=True)
    message = services.chat_post(table_id=table.pk, user=b, text="spam spam")
    report = services.chat_report(table_id=table.pk, user=a, message_id=message.pk, reason="spam")
    mute = services.site_mute(user_id=b.pk, by=staff, hours=24, report=report, reason="spam")
    report.refresh_from_db()
    assert report.status == ReportStatus.ACTED and report.handled_by == staff
    other, *_ = make_table()
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=other.pk, user=b, text="hello?")  # every table
    assert _code(refused) == "chat_muted" and http_status(refused.value) == 403
    assert selectors.site_muted_until(user_id=b.pk) == mute.until
    assert services.site_mute_lift(user_id=b.pk) == 1
    assert services.chat_post(table_id=table.pk, user=b, text="sorry").text == "sorry"
    assert SiteMute.objects.count() == 1  # lifted, kept as the record
    with pytest.raises(ChatError):
        services.site_mute(user_id=b.pk, by=staff, hours=-1)


def test_history_is_the_last_messages_the_reader_may_read(settings):
    settings.CHAT_HISTORY = 3
    table, a, b, w = make_table()
    for i in range(4):
        services.chat_post(table_id=table.pk, user=a if i % 2 else b, text=f"p{i}")
    services.chat_post(table_id=table.pk, user=w, text="s0")
    assert [m["text"] for m in selectors.history(table=table, user_id=a.pk)] == ["p1", "p2", "p3"]
    assert [m["text"] for m in selectors.history(table=table, user_id=w.pk)] == ["p2", "p3", "s0"]
    frame = selectors.history(table=table, user_id=w.pk)[-1]
    assert frame == {**frame, "type": "chat", "channel": "spectators", "user": w.pk, "bot": False, "phrase": None}
