"""Several PostgreSQL statements in one round trip: libpq's pipeline mode, driven directly.

psycopg's own pipeline mode does not save the round trips that matter to a short transaction: it
syncs right after the ``BEGIN`` it adds, so ``BEGIN`` still costs a round trip of its own, and it
waits for the socket once per command sent. Here every command of a batch is handed to libpq,
followed by one Sync, and the thread waits once for the replies. The GIL is released while libpq
writes the batch (``_sync``) and while the thread waits.

The statements are prepared on the connection the first time they are seen (one ``Parse`` in the
same batch), as psycopg's ``prepare=True`` would, and their parameters and rows go through the
connection's own adapters, so values come back exactly as from a psycopg cursor.

Used by ``live.rows`` on a move's hot path: ``BEGIN`` with the row lock, and the writes with
``COMMIT``. Needs libpq 14 (``available``).
"""

from __future__ import annotations

import ctypes
import itertools
import select
import weakref
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import errors, pq
from psycopg._queries import PostgresQuery
from psycopg.adapt import PyFormat, Transformer

MAX_PREPARED = 64  # statements kept prepared per connection; more are sent unprepared

_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK, pq.ExecStatus.EMPTY_QUERY)
_names = itertools.count(1)
# Per connection: (query, parameter types) -> name of the statement prepared on it.
_prepared: weakref.WeakKeyDictionary[psycopg.Connection, dict[tuple[bytes, tuple[int, ...]], bytes]] = (
    weakref.WeakKeyDictionary())


class Command:
    """A statement with parameters (``%s`` placeholders), or with ``params=None`` a bare command
    such as ``COMMIT``."""

    __slots__ = ("sql", "params")

    def __init__(self, sql: str | bytes, params: Sequence[Any] | None = None) -> None:
        self.sql = sql
        self.params = params


def available() -> bool:
    return psycopg.capabilities.has_pipeline()


def begin_command(conn: psycopg.Connection) -> Command | None:
    """The ``BEGIN`` psycopg would send before the next statement (honouring the connection's
    isolation level), or None when it would send none (autocommit, or a transaction is open)."""
    if conn.autocommit or conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return None
    return Command(conn._get_tx_start_command())


def round_trip(conn: psycopg.Connection, commands: Sequence[Command]) -> list[list[tuple]]:
    """Send the commands in one batch and wait once: each command's rows, in order.

    A statement that fails raises its psycopg error (the ones after it are skipped by the server,
    and an open transaction is left failed, for the caller to roll back). Anything else that goes
    wrong on the way (the connection broke) closes the connection and raises ``OperationalError``:
    its state is then unknown.
    """
    pgconn = conn.pgconn
    if pgconn.pipeline_status != pq.PipelineStatus.OFF:
        raise psycopg.ProgrammingError("the connection is already in pipeline mode")
    transformer = Transformer(conn)
    prepared = _prepared.setdefault(conn, {})
    # Parameters are adapted before anything is sent: a value that cannot be raises as from a cursor,
    # with the connection untouched.
    planned: list[tuple] = []
    naming: dict[tuple[bytes, tuple[int, ...]], bytes] = {}  # names given in this batch
    encoding = transformer.encoding  # (a property that asks libpq each time)
    for command in commands:
        planned.append(_plan(transformer, encoding, prepared, naming, command))
    pgconn.enter_pipeline_mode()
    try:
        try:
            expected: list[tuple[str, Any]] = []  # what each result set answers
            for plan in planned:
                _send(pgconn, plan, expected)
            _sync(pgconn)
            while pgconn.flush():
                _wait(pgconn, select.POLLOUT)
            results = _collect(pgconn)
        except psycopg.Error:
            pgconn.finish()
            raise
        except Exception as exc:
            pgconn.finish()
            raise psycopg.OperationalError(f"pipeline failed: {exc!r}") from exc
        except BaseException:  # interrupted while libpq waits for replies: the connection cannot be reused
            pgconn.finish()
            raise
    finally:
        if pgconn.status == pq.ConnStatus.OK:
            pgconn.exit_pipeline_mode()
    return _rows(pgconn, transformer, prepared, expected, results)


def _plan(transformer: Transformer, encoding: str, prepared: dict, naming: dict, command: Command) -> tuple:
    """(SQL, parameters, formats, types, name, whether to prepare it first) for one command."""
    if command.params is None:
        return (command.sql.encode() if isinstance(command.sql, str) else command.sql), None, None, None, None, False
    plain = type(command.sql) in (str, bytes) and type(command.params) in (list, tuple)
    numbered = _numbered(command.sql, encoding) if plain else None
    if numbered is not None and len(command.params) == numbered[1]:
        sql = numbered[0]
        params = transformer.dump_sequence(command.params, [PyFormat.AUTO] * numbered[1])
        types: tuple[int, ...] = tuple(transformer.types or ())
        formats = transformer.formats
    else:  # anything else psycopg converts (and refuses as a cursor would: a mapping for %s, a wrong count)
        query = PostgresQuery(transformer)
        query.convert(command.sql, command.params)
        sql, params, types, formats = query.query, query.params, query.types, query.formats
    key = (sql, types)
    name = prepared.get(key) or naming.get(key)
    first = False
    if name is None and len(prepared) + len(naming) < MAX_PREPARED:
        name = naming[key] = f"cardroom_{next(_names)}".encode()
        first = True
    return sql, params, formats, types, name, first


@lru_cache(maxsize=256)  # the live path's statements: a few dozen shapes
def _numbered(sql: str | bytes, encoding: str) -> tuple[bytes, int] | None:
    """``sql`` with its ``%s`` placeholders numbered ``$1, $2, ...`` and their count, as psycopg's
    ``PostgresQuery.convert`` makes them; None when it holds any other ``%`` sequence (``%%``, ``%b``,
    named placeholders). psycopg caches that conversion only for statements under 4 KB and 50
    parameters, so a step's guarded statement was split with a regular expression on every move."""
    raw = sql.encode(encoding) if isinstance(sql, str) else sql
    pieces = raw.split(b"%s")
    if any(b"%" in piece for piece in pieces):
        return None
    chunks = [pieces[0]]
    for number, piece in enumerate(pieces[1:], 1):
        chunks += [b"$%d" % number, piece]
    return b"".join(chunks), len(pieces) - 1


def _loaded_libpq() -> ctypes.CDLL | None:
    """The libpq psycopg's compiled implementation runs on, as this process has it loaded, or None
    (then psycopg's own call is used). psycopg's pure-Python implementation calls libpq through ctypes,
    which releases the GIL by itself."""
    if pq.__impl__ not in ("binary", "c"):
        return None
    try:
        with open("/proc/self/maps") as maps:
            paths = {fields[-1] for fields in map(str.split, maps)
                     if len(fields) == 6 and fields[-1].rsplit("/", 1)[-1].startswith(("libpq.", "libpq-"))}
    except OSError:  # not Linux
        return None
    if len(paths) != 1:
        return None
    try:
        library = ctypes.CDLL(paths.pop())  # the same handle (dlopen counts it): the very library psycopg calls
        sync = library.PQpipelineSync  # (absent before libpq 14: then ``available`` is False anyway)
    except (OSError, AttributeError):
        return None
    sync.argtypes = [ctypes.c_void_p]
    sync.restype = ctypes.c_int
    return library


_libpq = _loaded_libpq()


def _sync(pgconn) -> None:
    """``pgconn.pipeline_sync()`` with the GIL released. libpq writes the whole batch to the socket in
    this call, and on a loopback connection that write wakes the server's backend, which may take this
    very core at once; psycopg's compiled call holds the GIL throughout, so every other thread of the
    process and its event loop waited meanwhile (15-23 % of the GIL's time in an ASGI process at 330
    tables, docs/benchmarks.md). A ctypes call releases it. Each thread has its own connection, so
    nothing else touches ``pgconn`` meanwhile."""
    if _libpq is None:
        pgconn.pipeline_sync()
        return
    pointer = pgconn.pgconn_ptr
    if pointer is None:  # closed (libpq would dereference a null connection)
        raise psycopg.OperationalError("the connection is closed")
    rv = _libpq.PQpipelineSync(pointer)
    if rv != 1:
        raise psycopg.OperationalError("failed to sync pipeline" if rv else "connection not in pipeline mode")


def _send(pgconn, plan: tuple, expected: list) -> None:
    sql, params, formats, types, name, first = plan
    if params is None:
        pgconn.send_query_params(sql, None)
    elif name is None:
        pgconn.send_query_params(sql, params, param_formats=formats, param_types=types)
    else:
        if first:
            pgconn.send_prepare(name, sql, param_types=types)
            expected.append(("prepare", ((sql, types), name)))
        pgconn.send_query_prepared(name, params, param_formats=formats)
    expected.append(("rows", None))


def _wait(pgconn, events: int) -> None:
    # poll, not select: an ASGI process holds thousands of sockets, so descriptors pass 1024.
    poller = select.poll()
    poller.register(pgconn.socket, events)
    while not poller.poll():
        pass


def _collect(pgconn) -> list[list]:
    """Every command's results, up to the Sync (as psycopg's ``pipeline_communicate`` reads them)."""
    results: list[list] = []
    current: list = []
    while True:
        _wait(pgconn, select.POLLIN)
        pgconn.consume_input()
        if pgconn.status != pq.ConnStatus.OK:  # the server went away (its error may have come first)
            raise psycopg.OperationalError("the connection was lost before the batch's replies")
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                if not current:
                    break
                results.append(current)
                current = []
            elif result.status == pq.ExecStatus.PIPELINE_SYNC:
                return results
            else:
                current.append(result)


def _rows(pgconn, transformer: Transformer, prepared: dict, expected: list, results: list[list]) -> list[list[tuple]]:
    if len(results) != len(expected):
        pgconn.finish()
        raise psycopg.OperationalError(f"pipeline: {len(results)} results for {len(expected)} commands")
    rows: list[list[tuple]] = []
    error: Exception | None = None
    for (kind, detail), group in zip(expected, results, strict=True):
        result = group[-1]
        if result.status not in _OK:
            if error is None and result.status != pq.ExecStatus.PIPELINE_ABORTED:
                error = errors.error_from_result(result, encoding=pgconn._encoding)
            if kind == "rows":
                rows.append([])
            continue
        if kind == "prepare":
            key, name = detail
            prepared[key] = name
            continue
        if result.status == pq.ExecStatus.TUPLES_OK and result.ntuples:
            transformer.set_pgresult(result)
            rows.append(transformer.load_rows(0, result.ntuples, tuple))
        else:
            rows.append([])
    if error is not None:
        if isinstance(error, errors.InvalidSqlStatementName):
            # Someone deallocated this connection's statements (psycopg sends DEALLOCATE ALL after a
            # rollback when its own cache holds one): forget ours, so the next batch prepares afresh
            # (names are never reused, so nothing can clash).
            prepared.clear()
        raise error
    return rows
