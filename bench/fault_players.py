"""The fault harness's load: staked tables kept playing, and humans playing over websockets (see
bench/faults.py)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter

# bench.fault_stack first: it points the environment at the harness's Redis and database.
from bench.fault_stack import load

GAMES = ["lembar", "baloot", "cherki", "otuzbir"]
STAKES = {"lembar": ("pot", 10), "baloot": ("pot", 10), "cherki": ("per_point", 1), "otuzbir": ("ante", 1)}
SOCKET_QUIET_S = 2.0  # socket moves sent this long after the last fault count as "after the faults"
ANSWER_GRACE_S = 8.0  # a socket player waits this long after the play phase for answers still pending


class Tables:
    """T staked tables, each with one human and bots; a table that ends during the play phase is replaced
    by a new one with the same players (the human plays another game), so T tables play throughout the
    faults, the socket players keep moving and the timer keeps firing. Replacement runs on a thread of its
    own, so that a fault (Redis down, connections dropped) cannot hold up the harness's supervisor."""

    def __init__(self, count: int, turn_seconds: int) -> None:
        self.count, self.turn_seconds = count, turn_seconds
        self.slots: list[dict] = []  # game, room, human, bots, table (current id), cookie (socket players)
        self.ids: list[int] = []  # every table opened, for the audit
        self.replaced = 0
        self.failures: Counter = Counter()

    def open(self) -> None:
        from accounts.services import bot_create, user_create
        from rooms import services
        from rooms.models import Room

        run = int(time.time())
        for i in range(self.count):
            game = GAMES[i % len(GAMES)]
            kind, stake = STAKES[game]
            room, _ = Room.objects.get_or_create(
                slug=f"faults-{game}-{self.turn_seconds}",
                defaults=dict(name=f"Faults {game}", game=game, seats=load.SEATS[game], min_seats=load.SEATS[game],
                              turn_seconds=self.turn_seconds, stake_kind=kind, stake=stake, currency="KEL"))
            human = user_create(username=f"fh{run}-{i}", password="pass-word-123")
            table = services.table_open(room=room, host=human)
            services.table_sit(table_id=table.pk, user=human)
            bots = []
            for k in range(load.SEATS[game] - 1):
                bots.append(bot_create(username=f"fb{run}-{i}-{k}", display_name=f"FB{i}-{k}", style="",
                                       description=""))
                services.table_sit(table_id=table.pk, user=bots[-1])
            self.ids.append(table.pk)
            # Every other human plays over a websocket; the others are idle and the timer plays their turns.
            self.slots.append({"game": game, "room": room, "human": human, "bots": bots, "table": table.pk,
                               "cookie": load.session_cookie(human) if i % 2 == 0 else None})

    def replace_ended(self) -> None:
        from django.db import connection

        from rooms import services
        from rooms.models import ENDED_STATUSES, Table

        try:
            ended = set(Table.objects.filter(pk__in=[s["table"] for s in self.slots], status__in=ENDED_STATUSES)
                        .values_list("pk", flat=True))
            for slot in self.slots:
                if slot["table"] in ended:
                    table = services.table_open_seated(room=slot["room"], players=[slot["human"], *slot["bots"]])
                    self.ids.append(table.pk)
                    slot["table"] = table.pk
                    self.replaced += 1
        except Exception as exc:  # a fault in progress: tried again a second later
            self.failures[type(exc).__name__] += 1
            connection.close()

    def keep_playing(self, stop_at: float) -> None:
        import threading

        from django.db import connection

        def loop() -> None:
            while time.monotonic() < stop_at:
                self.replace_ended()
                time.sleep(1)
            connection.close()

        threading.Thread(target=loop, daemon=True, name="tables").start()


async def socket_player(port: int, slot: dict, me: dict, stop_at: float, think: tuple[float, float]) -> None:
    """A human at a table over a websocket, as docs/protocol.md says a client must behave: keep the highest
    version, ignore lower ones, resync on a gap, after ``unavailable`` and after every reconnect; when the
    socket closes, connect again (0.2 s back-off, doubling to 2 s while the server refuses). A legal move
    after a think time whenever it is this seat's turn, each with an ``id`` so that an error answers
    exactly that move. When the game ends, the player goes on to the table that replaces it (Tables)."""
    from bench import wsclient

    headers = {"Cookie": slot["cookie"], "Origin": "http://127.0.0.1"}
    backoff, count = 0.2, 0
    last_resync = 0.0

    def resync(ws, reason: str) -> None:
        nonlocal last_resync
        me["resyncs"][reason] += 1
        last_resync = time.monotonic()
        ws.send(json.dumps({"type": "resync", "id": f"r-{reason}"}))

    while time.monotonic() < stop_at:
        table = slot["table"]
        if table in me["ended"]:  # wait for the next game
            await asyncio.sleep(0.5)
            continue
        try:
            ws = await wsclient.connect(f"ws://127.0.0.1:{port}/ws/tables/{table}/", headers, timeout=10)
        except Exception as exc:  # refused while the server restarts: counted, tried again
            refused = isinstance(exc, wsclient.HandshakeRefused)  # with the status line (a 500 is a defect)
            me["connect_errors"][f"{type(exc).__name__}: {exc}" if refused else type(exc).__name__] += 1
            await asyncio.sleep(min(backoff, max(0.0, stop_at - time.monotonic())))
            backoff = min(2.0, backoff * 2)
            continue
        me["connects"].append(time.monotonic())
        if table not in me["tables"]:
            me["tables"].append(table)
        pending: dict[str, dict] = {}
        highest = -1
        try:
            resync(ws, "connect")  # after a (re)connect always resync (docs/protocol.md)
            while True:
                now = time.monotonic()
                if now >= stop_at + ANSWER_GRACE_S or (now >= stop_at and not pending):
                    return
                try:
                    raw = await asyncio.wait_for(ws.recv(), 0.5)
                except TimeoutError:
                    # A move unanswered for 5 s: ask for the table as it is now (counted apart).
                    if pending and now - min(m["sent_at"] for m in pending.values()) > 5 and now - last_resync > 5:
                        resync(ws, "silence")
                    continue
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "error":
                    code = frame.get("code")
                    me["errors"][code] += 1
                    answered = pending.pop(str(frame.get("id")), None)
                    if answered is not None:
                        answered.update(outcome=f"error:{code}", took=time.monotonic() - answered["sent_at"])
                    if code == "unavailable":
                        resync(ws, "unavailable")
                    continue
                if kind != "state" or frame["version"] < highest:
                    continue
                version = frame["version"]
                if 0 <= highest < version - 1 and not str(frame.get("id", "")).startswith("r-"):
                    resync(ws, "gap")  # a change was missed (or several steps went out as one frame)
                highest = version
                for key, move in list(pending.items()):
                    if move["version"] < version:
                        del pending[key]
                        move.update(outcome="state", took=time.monotonic() - move["sent_at"])
                if frame["status"] in ("finished", "stopped") and not pending:
                    me["ended"].append(table)
                    me["games"][frame["status"]] += 1
                    break  # on to the next game
                if frame["status"] != "running" or not frame.get("legal") or time.monotonic() >= stop_at:
                    continue
                if frame.get("deadline_seat") != frame.get("seat") or any(m["version"] == version
                                                                          for m in pending.values()):
                    continue
                await asyncio.sleep(random.uniform(*think))
                count += 1
                move = {"id": f"m{count}", "version": version, "sent_at": time.monotonic(), "outcome": None}
                me["moves"].append(move)
                pending[move["id"]] = move
                ws.send(json.dumps({"type": "move", "move": random.choice(frame["legal"]), "version": version,
                                    "id": move["id"]}))
        except wsclient.ConnectionClosed as exc:
            me["closes"].append((time.monotonic(), str(exc)))
        except Exception as exc:  # anything else is counted, and the player connects again
            me["closes"].append((time.monotonic(), f"{type(exc).__name__}: {exc}"))
        finally:
            for move in pending.values():
                move["outcome"] = "socket_closed"  # in flight when the socket went: re-decided after the resync
            ws.close()
        if table not in me["ended"] and time.monotonic() - me["connects"][-1] < 2:
            await asyncio.sleep(backoff)  # closed at once (4401, 4429...): back off
            backoff = min(2.0, backoff * 2)
        else:
            backoff = 0.2


class SocketPlayers:
    """The websocket humans, on their own event loop in a thread."""

    def __init__(self, port: int, slots: list[dict], t0: float, stop_at: float) -> None:
        import threading

        self.slots, self.port, self.t0, self.stop_at = slots, port, t0, stop_at
        self.me = [{"tables": [], "ended": [], "games": Counter(), "connects": [], "closes": [],
                    "connect_errors": Counter(), "errors": Counter(), "resyncs": Counter(), "moves": []}
                   for _ in slots]
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        await asyncio.gather(*[socket_player(self.port, slot, me, self.stop_at, (0.2, 1.0))
                               for slot, me in zip(self.slots, self.me, strict=True)])

    def result(self, faults_over: float) -> dict:
        self.thread.join(timeout=ANSWER_GRACE_S + 30)
        after_from = faults_over + SOCKET_QUIET_S
        sockets, latencies = [], []
        for me in self.me:
            after = [m for m in me["moves"] if m["sent_at"] > after_from]
            answered = [m for m in after if m["outcome"] not in (None, "socket_closed")]
            latencies += [m["took"] for m in answered]
            sockets.append({
                "tables": me["tables"], "games_ended": dict(me["games"]), "connects": len(me["connects"]),
                "closed_at_s": [round(at - self.t0, 1) for at, _ in me["closes"]],
                "close_reasons": sorted({reason for _, reason in me["closes"]})[:3],
                "connect_errors": dict(me["connect_errors"]), "sent": len(me["moves"]),
                "lost_with_socket": sum(1 for m in me["moves"] if m["outcome"] == "socket_closed"),
                "sent_after_faults": len(after), "answered_after_faults": len(answered),
                "refused_after_faults": dict(Counter(m["outcome"] for m in answered if m["outcome"] != "state")),
                "resyncs": dict(me["resyncs"]), "errors": dict(me["errors"])})
        return {"socket_players": len(self.slots),
                "socket_connected": sum(1 for me in self.me if me["connects"]),
                "socket_closed_by_server": sum(len(me["closes"]) for me in self.me),
                "socket_moves_sent": sum(len(me["moves"]) for me in self.me),
                "socket_moves_lost_with_socket": sum(s["lost_with_socket"] for s in sockets),
                "socket_moves_after_faults_sent": sum(s["sent_after_faults"] for s in sockets),
                "socket_moves_after_faults": sum(s["answered_after_faults"] for s in sockets),
                "socket_answer_ms_after_faults_p50_p99": [round(1000 * load.pct(latencies, 50)),
                                                          round(1000 * load.pct(latencies, 99))] if latencies else None,
                "socket_errors": dict(sum((me["errors"] for me in self.me), Counter()).most_common(6)),
                # Every socket sent moves after the faults, and every one of them was answered.
                "sockets_all_answered": all(0 < s["sent_after_faults"] == s["answered_after_faults"] for s in sockets),
                "sockets": sockets}
