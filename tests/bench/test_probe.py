"""bench/probe.py: the machine's speed reading every benchmark reports beside its figures."""

from __future__ import annotations

import time

from bench import probe


def test_the_speed_probe_reports_its_cpu_time_per_piece_of_work() -> None:
    running = probe.start_speed_probe()
    time.sleep(1.0)
    result = probe.stop_speed_probe(running)
    assert running.poll() is not None  # stopped
    assert result is not None and result["samples"] >= 1 and 0 < result["min"] <= result["median"] <= result["max"]
