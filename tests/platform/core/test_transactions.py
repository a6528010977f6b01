"""core.transactions.after_commit: side effects run once the change commits, never on a rollback, and a
failing one does not undo or fail the committed change. It is the only caller of on_commit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import transaction

from core.transactions import after_commit

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.django_db(transaction=True)
def test_runs_after_the_commit_never_after_a_rollback_and_a_failure_is_only_logged(caplog):
    ran: list[tuple] = []
    with transaction.atomic():
        after_commit(ran.append, ("kept", 1))
        assert ran == []
    assert ran == [("kept", 1)]
    with pytest.raises(RuntimeError), transaction.atomic():
        after_commit(ran.append, "lost")
        raise RuntimeError("rolled back")
    assert ran == [("kept", 1)]

    def broken() -> None:
        raise ValueError("the broker is down")

    with transaction.atomic():
        after_commit(broken)
        after_commit(ran.append, "after the broken one")
    assert ran[-1] == "after the broken one" and "the broker is down" in caplog.text


def test_no_other_module_registers_on_commit_callbacks():
    callers = [str(p.relative_to(ROOT)) for top in ("platform", "matchmaking", "tournaments", "arenas", "frontend",
                                                   "gameworkers") for p in (ROOT / top).rglob("*.py")
               if re.search(r"\bon_commit\(", p.read_text()) and p != ROOT / "platform/core/transactions.py"]
    assert callers == []
