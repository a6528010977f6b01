"""tools/reference_client.py plays a whole game against the real stack (uvicorn, a Celery worker,
the timer) through the documented API and socket only, and the proof verifies."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from accounts.services import bot_create
from rooms.models import Room, Table
from tests.conftest import ROOT, subprocess_env

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_reference_client_plays_a_whole_lembar_game_and_verifies_its_proof(live_stack):
    bot_create(username="ref-bot", display_name="Ref bot", style="random", description="A bot.")  # seed_demo's job
    Room.objects.create(name="Lembar casual", slug="lembar-casual", game="lembar", seats=4, min_seats=2,
                        turn_seconds=60)
    run = subprocess.run([sys.executable, "tools/reference_client.py", "--base", live_stack.url,
                          "--username", "reference", "--password", "a-long-pass-phrase-1", "--signup",
                          "--room", "lembar-casual", "--seats", "2", "--timeout", "240", "--verbose"],
                         cwd=ROOT, env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["status"] == "finished" and report["proof"] == "OK" and report["moves"] > 0
    table = Table.objects.get(pk=report["table"])
    assert table.status == "finished" and table.is_private
