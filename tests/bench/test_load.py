"""bench/load.py's machine readings (the load run itself is a benchmark, not a test)."""

from __future__ import annotations

import importlib
import os
from unittest import mock


def _load():
    with mock.patch.dict(os.environ):  # the module sets its own database defaults for its runs
        return importlib.import_module("bench.load")


def test_stolen_share_of_the_machine():
    load = _load()
    before = [100, 0, 50, 800, 0, 0, 0, 50]
    after = [200, 0, 100, 1550, 0, 0, 0, 150]  # 1,000 jiffies passed, 100 of them stolen
    assert load.stolen_pct(before, after) == 10.0
    assert load.stolen_pct(None, after) is None and load.stolen_pct(before, before) is None
    reading = load.cpu_jiffies()
    assert reading is None or (len(reading) == 8 and all(v >= 0 for v in reading))
