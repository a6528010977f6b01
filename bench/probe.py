"""The machine's speed while a benchmark runs: a fixed piece of pure-Python work, timed in CPU seconds
every 2 s by a process of its own (~0.5 % of a core). This virtual machine's speed per core wanders by
±20 % from minute to minute even when idle (the host's other tenants; not counted as steal), and by up
to ~3× between spells, which is the spread between runs of the same code: every benchmark that reports an
absolute figure or a ratio the machine can move reports the probe with it (lower is a faster machine;
3.4–3.6 ms when the 330-table live target was met)."""

from __future__ import annotations

import subprocess
import sys

SPEED_PROBE = """
import time
while True:
    start = time.process_time()
    x = 0
    for i in range(50_000):
        x += i * i % 7
    print(round((time.process_time() - start) * 1000, 2), flush=True)
    time.sleep(2)
"""


def start_speed_probe() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SPEED_PROBE], stdout=subprocess.PIPE, text=True)


def stop_speed_probe(probe: subprocess.Popen) -> dict | None:
    """The probe's CPU ms per piece of work: median and range over the run (lower is a faster machine)."""
    probe.terminate()
    out, _ = probe.communicate(timeout=10)
    values = sorted(float(v) for v in out.split())
    if not values:
        return None
    return {"median": values[len(values) // 2], "min": values[0], "max": values[-1], "samples": len(values)}
