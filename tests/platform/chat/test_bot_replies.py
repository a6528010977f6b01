"""Bots' canned answers: the pure policy (gameworkers.bots.chat) and how the chat queues and posts them."""

from __future__ import annotations

import random

import pytest

from chat import services
from chat.models import ChatMessage
from chat.phrases import PHRASES
from gameworkers import tasks
from gameworkers.bots.chat import PHRASE_IDS, REPLIES, chat_reply, trigger_of
from tests.platform.chat.tables import end_table, make_table

SCHEDULE = services.schedule_bot_reply  # as imported, before the autouse fixture replaces it


@pytest.mark.parametrize("phrase,text,trigger", [
    ("gg", None, "gg"), ("thanks", None, "thanks"), ("nope", None, None),
    (None, "GG!!", "gg"), (None, "good  game", "gg"), (None, "glhf", "gl"), (None, "Well played.", "wp"),
    (None, "gg, you hold the ace of spades", None), (None, "", None),
])
def test_what_a_bot_takes_as_a_phrase(phrase, text, trigger):
    assert trigger_of(phrase=phrase, text=text) == trigger


def test_replies_are_rare_repeatable_and_only_quick_phrases():
    assert set(PHRASE_IDS) == set(PHRASES)
    for persona, table in REPLIES.items():
        for trigger, (reply, chance) in table.items():
            assert trigger in PHRASE_IDS and reply in PHRASE_IDS and 0 < chance <= 0.5, persona
    answers = [chat_reply(persona="careful", trigger="gg", ended=True, rng=random.Random(seed)) for seed in range(400)]
    assert set(answers) == {"thanks", None} and 120 < answers.count("thanks") < 280
    again = [chat_reply(persona="careful", trigger="gg", ended=True, rng=random.Random(seed)) for seed in range(400)]
    assert again == answers  # the same public seed, the same answer
    # "good game" only once the table has ended, "good luck" only before; thanks is never answered.
    for seed in range(50):
        assert chat_reply(persona="careful", trigger="gg", ended=False, rng=random.Random(seed)) is None
        assert chat_reply(persona="careful", trigger="gl", ended=True, rng=random.Random(seed)) is None
        assert chat_reply(persona="careful", trigger="thanks", ended=True, rng=random.Random(seed)) is None
    assert chat_reply(persona="no-such-persona", trigger="wp", ended=True, rng=random.Random(0)) in (None, "thanks")


@pytest.mark.django_db
def test_a_bot_answers_a_humans_good_game_once_per_table(monkeypatch, no_bot_turns, django_capture_on_commit_callbacks):
    monkeypatch.setattr(services, "chat_reply", lambda **kw: "thanks" if kw["trigger"] == "gg" else None)
    table, human, bot, watcher = make_table(bot_style="careful")
    table = end_table(table)
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_post(table_id=table.pk, user=human, text="hello")  # nothing to answer
        services.chat_post(table_id=table.pk, user=watcher, phrase="gg")  # spectators: bots do not read it
        services.chat_post(table_id=table.pk, user=human, phrase="gg")
    [(table_id, bot_id, phrase, delay)] = no_bot_turns
    assert (table_id, bot_id, phrase) == (table.pk, bot.pk, "thanks") and 0 < delay < 5
    said = tasks.bot_chat(table.pk, bot.pk, "thanks")  # the queued task, run here
    message = ChatMessage.objects.get(pk=said)
    assert (message.user_id, message.channel, message.phrase, message.text) == (bot.pk, "players", "thanks", "")
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_post(table_id=table.pk, user=human, text="gg")
    assert len(no_bot_turns) == 1  # this table heard "thanks" from that bot already


@pytest.mark.django_db
def test_a_bot_that_left_says_nothing():
    table, human, bot, _ = make_table(bot_style="careful")
    other, *_ = make_table()
    assert services.bot_say(table_id=other.pk, bot_id=bot.pk, phrase="thanks") is None
    assert services.bot_say(table_id=table.pk, bot_id=human.pk, phrase="thanks") is None  # not a bot
    assert services.bot_say(table_id=table.pk, bot_id=bot.pk, phrase="gg").phrase == "gg"


def test_the_answer_is_asked_of_the_workers_by_name_on_the_bots_queue(monkeypatch):
    from config.celery import app

    sent = []
    monkeypatch.setattr(services.current_app, "send_task", lambda name, **kw: sent.append((name, kw)))
    SCHEDULE(7, 8, "thanks", 1.25)
    assert sent == [("gameworkers.tasks.bot_chat", {"args": (7, 8, "thanks"), "countdown": 1.25})]
    assert app.amqp.router.route({}, "gameworkers.tasks.bot_chat")["queue"].name == "bots"
    assert "gameworkers.tasks.bot_chat" in app.tasks
