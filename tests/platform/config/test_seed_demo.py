"""manage.py seed_demo: no password in the source, no superuser on a production site by accident."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_seed_demo_refuses_with_debug_off_unless_asked(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="allow-production"):
        call_command("seed_demo")
    from accounts.models import User

    assert not User.objects.filter(username="staff").exists()


def test_seed_demo_generates_passwords_prints_them_once_and_they_work(settings, monkeypatch):
    settings.DEBUG = True
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    monkeypatch.delenv("STAFF_PASSWORD", raising=False)
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    printed = dict(re.findall(r"(demo|staff) / (\S+)", out.getvalue()))
    assert set(printed) == {"demo", "staff"} and printed["demo"] != printed["staff"]
    assert len(printed["staff"]) >= 16
    staff = authenticate(username="staff", password=printed["staff"])
    assert staff is not None and staff.is_superuser
    assert authenticate(username="demo", password=printed["demo"]) is not None
    again = io.StringIO()
    call_command("seed_demo", stdout=again)  # idempotent; the passwords are not shown again
    assert printed["staff"] not in again.getvalue() and "admin: /" in again.getvalue()
    source = Path(__file__).resolve().parents[3] / "platform/config/management/commands/seed_demo.py"
    assert "pass-2026" not in source.read_text()
