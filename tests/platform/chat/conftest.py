from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fast_passwords(request, settings):
    """Argon2 costs a noticeable moment per account; nothing here tests passwords. (Not for the browser
    test: its servers check the passwords with the real hashers.)"""
    if request.node.get_closest_marker("browser") is None:
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    """Nothing is queued to Celery: bot turns are not played, bot chat answers are recorded."""
    from chat import services
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    replies: list[tuple] = []
    monkeypatch.setattr(services, "schedule_bot_reply", lambda *args: replies.append(args))
    return replies


@pytest.fixture
def published(monkeypatch):
    """The chat's layer messages, as published after commit."""
    from rooms import broadcast

    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    return sent
