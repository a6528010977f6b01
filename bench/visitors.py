#!/usr/bin/env python3
"""Concurrent HTTP visitors against the lobby (the real ASGI server on PostgreSQL).

C clients, each on its own keep-alive connection, request the login page, the rooms API and the
tournament list (what a visitor who is not logged in sees) in a loop
for S seconds, while a sampler counts the server's PostgreSQL connections. Reports requests/s, errors,
latency p50/p99 and the most database connections seen (docs/benchmarks.md, "HTTP visitors"):

  python bench/visitors.py --clients 300 --seconds 30
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cardroom_bench")

from bench import load  # noqa: E402  (after the environment: load.py only sets defaults)

PATHS = ["/accounts/login/", "/api/rooms/", "/tournaments/"]  # what a visitor not logged in sees


def server_connections(dsn: str) -> int:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND pid <> pg_backend_pid()").fetchone()[0]


def visitor(port: int, stop_at: float, latencies: list[float], errors: list[str]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    k = 0
    while time.monotonic() < stop_at:
        path = PATHS[k % len(PATHS)]
        k += 1
        started = time.monotonic()
        try:
            conn.request("GET", path, headers={"Accept-Language": "en"})
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"{path}: HTTP {response.status}")
        except Exception as exc:  # a refused or dropped connection is an error, then a new connection
            errors.append(f"{path}: {type(exc).__name__}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        latencies.append(time.monotonic() - started)
    conn.close()


def run(args) -> dict:
    load.setup_django()
    from rooms.models import Room

    for game, seats in (("lembar", 4), ("baloot", 4), ("cherki", 3), ("otuzbir", 7)):
        Room.objects.get_or_create(slug=f"http-{game}", defaults={"name": f"HTTP {game}", "game": game,
                                                                   "seats": seats, "min_seats": min(seats, 2 if game != "baloot" else 4)})
    stack = load.Stack(workers=0, web_processes=args.web_processes)
    stack.env["DB_POOL_SIZE"] = str(args.pool_size) if args.pool_size is not None else stack.env.get("DB_POOL_SIZE", "")
    if not stack.env["DB_POOL_SIZE"]:
        del stack.env["DB_POOL_SIZE"]
    stack.start()
    dsn = os.environ["DATABASE_URL"]
    try:
        baseline = server_connections(dsn)
        latencies: list[float] = []
        errors: list[str] = []
        peak = [0]
        stop_at = time.monotonic() + args.seconds

        def sample() -> None:
            while time.monotonic() < stop_at + 2:
                peak[0] = max(peak[0], server_connections(dsn))
                time.sleep(0.2)

        sampler = threading.Thread(target=sample)
        sampler.start()
        threads = [threading.Thread(target=visitor, args=(stack.port, stop_at, latencies, errors))
                   for _ in range(args.clients)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        sampler.join()
        after = server_connections(dsn)
    finally:
        stack.stop()
    by_kind: dict[str, int] = {}
    for error in errors:
        by_kind[error] = by_kind.get(error, 0) + 1
    return {"clients": args.clients, "seconds": args.seconds, "web_processes": args.web_processes,
            "requests": len(latencies), "requests_per_s": round(len(latencies) / elapsed, 1),
            "errors": len(errors), "error_kinds": by_kind,
            "p50_ms": round(load.pct(latencies, 50) * 1000, 1), "p99_ms": round(load.pct(latencies, 99) * 1000, 1),
            "db_connections_before": baseline, "db_connections_peak": peak[0], "db_connections_after": after}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--pool-size", type=int, default=None, help="DB_POOL_SIZE for the ASGI processes")
    print(json.dumps(run(parser.parse_args())))


if __name__ == "__main__":
    main()
