"""Shared fixtures. Without REDIS_URL the suite runs its own embedded Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from config.management.commands.runplatform import UVICORN_WS_OPTIONS  # the platform's own websocket settings

ROOT = Path(__file__).resolve().parent.parent


def xdist_worker_index() -> int | None:
    """0, 1, ... in a pytest-xdist worker (PYTEST_XDIST_WORKER=gw0, gw1, ...); None without xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


def worker_redis_url(url: str, index: int) -> str:
    """REDIS_URL's database number plus the worker's index: each xdist worker flushes its own cache
    and runs its own Celery queues (pub/sub is server-wide, but the channel prefix is per worker)."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        raise pytest.UsageError(f"pytest -n needs REDIS_URL as redis://host:port/db, not {url!r}")
    db = int(parts.path.strip("/") or 0) + index
    return urlunsplit(parts._replace(path=f"/{db}"))


def _use_worker_redis(settings, index: int) -> None:
    """Point every Redis user of this worker at its own database (before any of them connects).
    The settings module read REDIS_URL before any conftest could run (pytest-django loads it first)."""
    from config.settings import celery_url

    url = worker_redis_url(settings.REDIS_URL, index)
    os.environ["REDIS_URL"] = url  # subprocesses that copy os.environ rather than subprocess_env()
    settings.REDIS_URL = url
    settings.CACHES["default"]["LOCATION"] = url
    settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] = [url]
    settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = celery_url(url)
    from config.celery import app

    app.conf.update(broker_url=settings.CELERY_BROKER_URL, result_backend=settings.CELERY_RESULT_BACKEND)


def pytest_configure(config):
    xdist_worker = hasattr(config, "workerinput")
    if not xdist_worker:  # (an xdist worker starts after its controller compiled them)
        subprocess.run([sys.executable, str(ROOT / "tools" / "compile_messages.py")], check=True,
                       stdout=subprocess.DEVNULL)
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    from config import embedded

    try:
        embedded_redis = settings.REDIS_EMBEDDED
    except ImproperlyConfigured:  # run with -p no:django (engine-only tests)
        return
    if config.getoption("numprocesses", None) and not xdist_worker:
        return  # the xdist controller runs no test: no Redis of its own
    index = xdist_worker_index()
    if index is not None and not embedded_redis:  # embedded: each worker process runs its own server
        _use_worker_redis(settings, index)
    # Tests talk plain HTTP to the test client; the deploy settings are checked separately.
    settings.SECURE_SSL_REDIRECT = False
    # Test players play at once with their whole welcome grant (platform subprocesses inherit it); the
    # delayed real-value grant has its own tests (tests/platform/wallets/test_welcome.py).
    settings.WELCOME_REAL_VALUE_DELAY_H = 0
    os.environ["WELCOME_REAL_VALUE_DELAY_H"] = "0"
    settings.WELCOME_REQUIRES_VERIFIED_EMAIL = False  # nor an e-mail (tests/platform/accounts/test_email.py)
    os.environ["WELCOME_REQUIRES_VERIFIED_EMAIL"] = "0"
    if embedded_redis:
        config._cardroom_started_redis = embedded.running_pid() is None
        embedded.start()


def pytest_unconfigure(config):
    if getattr(config, "_cardroom_started_redis", False):
        import shutil

        from config import embedded

        embedded.stop()
        if embedded.VAR_DIR.parent.name == "test":  # this session's own var/test/<pid>
            shutil.rmtree(embedded.VAR_DIR, ignore_errors=True)


# Tests that start real processes (a server, a Celery worker, a browser) are marked ``live``; tests that
# touch no database and start nothing are marked ``unit``: ``pytest -m unit`` is the quick loop,
# ``pytest -m "not live and not slow"`` everything in-process. ``make test`` runs all but ``slow``.
LIVE_FIXTURES = frozenset({"live_stack", "celery_worker_process", "browser", "page"})
DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_setup", "client",
                               "admin_client", "django_user_model"})


# Under pytest-xdist (`make test` runs `-n auto --dist loadgroup`) these run on one worker, one after
# the other: each race test holds a PostgreSQL connection per thread (up to 101; CI's max_connections
# is 200), and the slow tests measure throughput or fail processes on purpose.
SERIAL_MODULES = frozenset({"tests/platform/wallets/test_races.py", "tests/matchmaking/test_concurrency.py"})


def _xdist_group(item) -> str | None:
    """The xdist group of a test, if it must not be split from others or run beside them."""
    if item.get_closest_marker("slow") or item.path.relative_to(ROOT).as_posix() in SERIAL_MODULES:
        return "serial"
    if "browser_stack" in getattr(item, "fixturenames", ()):
        return "browser"  # one after another on one worker, which starts their shared stack once
    # A module-scoped fixture (the browser tests' stack and Chromium) starts once per worker that runs
    # any of the module's tests: keep such a module on one worker.
    info = getattr(item, "_fixtureinfo", None)
    if info and any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs):
        return item.path.relative_to(ROOT).as_posix()
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & LIVE_FIXTURES or item.get_closest_marker("browser") or item.path.name.startswith("test_live"):
            item.add_marker(pytest.mark.live)
        elif not (fixtures & DATABASE_FIXTURES or item.get_closest_marker("django_db")
                  or item.get_closest_marker("slow")):
            item.add_marker(pytest.mark.unit)
        if (group := _xdist_group(item)) is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def make_due(table, *, at) -> None:
    """Move a running table's deadline to ``at`` (a test's shortcut for "the time ran out"), where the
    timer looks for it too: the table's ``deadline_at`` and its timer entry (``TableDeadline``), as every
    write of a deadline does. ``table``: a Table (its ``deadline_at`` is updated too) or its id."""
    from rooms.models import Table, TableDeadline

    table_id = table if isinstance(table, int) else table.pk
    if not isinstance(table, int):
        table.deadline_at = at
    Table.objects.filter(pk=table_id).update(deadline_at=at)
    version = Table.objects.values_list("version", flat=True).get(pk=table_id)
    TableDeadline.objects.update_or_create(table_id=table_id,
                                           defaults={"due_at": at, "version": version, "enqueued_at": None})


def subprocess_env(**extra: str) -> dict[str, str]:
    """Environment for a platform subprocess (worker, timer, server) sharing the test settings."""
    from django.conf import settings
    from django.db import connection

    from config import embedded

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "platform")])
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["CARDROOM_VAR_DIR"] = str(embedded.VAR_DIR)
    env["REDIS_URL"] = settings.REDIS_URL
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        env["DATABASE_URL"] = f"sqlite:///{db['NAME']}"
    else:
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        )
    env.update(extra)
    return env


def start_celery_worker(queues: str = "default,bots", concurrency: int = 1, name: str = "test",
                        env: dict[str, str] | None = None) -> subprocess.Popen:
    """A real Celery worker subprocess; wait until it answers a ping."""
    from config.celery import app

    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queues, "--concurrency",
         str(concurrency), "--pool", "prefork", "--loglevel", "WARNING", "-n", f"{name}-{os.getpid()}@%h",
         "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=subprocess_env(**(env or {})), start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"celery worker exited with {proc.returncode}")
        if any(f"{name}-{os.getpid()}" in next(iter(r)) for r in app.control.ping(timeout=0.5) or []):
            return proc
        time.sleep(0.3)
    stop_process(proc)
    raise RuntimeError("celery worker did not answer a ping within 60 s")


def stop_process(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def celery_worker_process(transactional_db):
    """A real worker for tests whose behaviour depends on Celery (data must be committed)."""
    proc = start_celery_worker()
    yield proc
    stop_process(proc)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, then, before the test database is dropped, end the connections that threads
    outliving their tests kept (the move pool's, asgiref's): PostgreSQL refuses the drop otherwise."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")


BROWSER_STACK = pytest.StashKey()


@pytest.fixture(scope="session")
def browser_stack(request, django_db_setup):
    """The browser tests' uvicorn + Celery worker + timer (tests/frontend/conftest.py), started by their
    first test and kept while browser tests follow one another; stopped before the test database goes."""
    from tests.frontend.conftest import BrowserStack

    stack = request.config.stash[BROWSER_STACK] = BrowserStack()
    yield stack
    stack.stop()


def pytest_runtest_setup(item):
    # A test that does not use the browser stack runs without it: its timer and worker would sweep the
    # rows that test commits (and a test of the timer lease would meet a third timer).
    stack = item.config.stash.get(BROWSER_STACK, None)
    if stack is not None and "browser_stack" not in item.fixturenames:
        stack.stop()


@pytest.fixture(autouse=True)
def fast_passwords(request):
    """Argon2 costs a quarter of a second of CPU per account made; most tests make accounts only to have
    them. Live tests keep the real hashers (their servers verify the passwords), and so do the tests
    marked ``real_hashers`` (of the hashing itself). A conftest may override this fixture."""
    if (request.node.get_closest_marker("live") or request.node.get_closest_marker("real_hashers")
            or not request.config.pluginmanager.has_plugin("django")):  # (-p no:django: engine-only tests)
        return
    request.getfixturevalue("settings").PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _clear_cache():
    """Each test starts with an empty cache (login throttles and rate limits live there)."""
    from django.core.cache import cache

    try:
        cache.clear()
    except Exception:  # pragma: no cover - a test may stop Redis on purpose
        pass
    yield


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveStack:
    """The real platform as subprocesses: uvicorn (ASGI), a Celery worker and the timer process."""

    def __init__(self, *, bot_delay: str = "20,80") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.extra = {"BOT_DELAY_MS": bot_delay, "DEBUG": "false", "SECURE_SSL_REDIRECT": "false",
                      "SESSION_COOKIE_SECURE": "false", "CSRF_COOKIE_SECURE": "false"}
        self.web: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None
        self.timers: subprocess.Popen | None = None

    def start(self) -> LiveStack:
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> LiveStack:
        env = subprocess_env(**self.extra)
        self.web = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port",
             str(self.port), *UVICORN_WS_OPTIONS, "--no-access-log", "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True)
        self.start_worker()
        self.timers = subprocess.Popen([sys.executable, "manage.py", "runtimers", "--interval", "0.1"],
                                       cwd=ROOT, env=env, start_new_session=True)
        self._wait_http()
        return self

    def start_worker(self) -> None:
        self.worker = start_celery_worker(concurrency=2, name=f"live{free_port()}", env=self.extra)

    def _wait_http(self) -> None:
        import urllib.request

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/accounts/login/", timeout=2)
                return
            except Exception:
                time.sleep(0.3)
        raise RuntimeError("uvicorn did not answer within 60 s")

    def stop(self) -> None:
        for proc in (self.timers, self.worker, self.web):
            if proc is not None:
                stop_process(proc)


@pytest.fixture
def live_stack(transactional_db, monkeypatch):
    for key in ("BOT_DELAY_MS",):
        monkeypatch.delenv(key, raising=False)
    stack = LiveStack().start()
    yield stack
    stack.stop()
