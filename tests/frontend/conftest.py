"""Browser-test fixtures: the real stack (uvicorn + Celery worker + timer) against the test database.

The servers are started on first use and shared by the browser modules that run one after another
(the ``browser`` xdist group keeps them together); they use the test database with the test process,
and every browser test uses ``transactional_db`` so what it creates is committed and visible to them
(and flushed after the test).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, UVICORN_WS_OPTIONS, start_celery_worker, stop_process, subprocess_env

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERVER_ENV = {"BOT_DELAY_MS": "50,150", "SECURE_SSL_REDIRECT": "0", "SESSION_COOKIE_SECURE": "0",
              "CSRF_COOKIE_SECURE": "0", "SECURE_HSTS_SECONDS": "0", "SERVE_STATIC": "1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _skip_reason() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _skip_reason()
    if reason is None:
        return
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


class BrowserStack:
    """uvicorn, one Celery worker and the timer process on the test database, started on first use and
    shared by the browser test modules that run one after another (tests/conftest.py's ``browser_stack``
    stops it before any other test: its timer and worker would act on that test's committed rows)."""

    def __init__(self) -> None:
        self.base: str | None = None
        self.procs: list[subprocess.Popen] = []
        self.logs: list = []

    def url(self) -> str:
        if self.base is None:
            try:
                self.base = self._start()
            except BaseException:
                self.stop()
                raise
        return self.base

    def _start(self) -> str:
        env = subprocess_env(**SERVER_ENV)
        port = _free_port()
        log_dir = ARTIFACTS / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # (two xdist workers: a log each)
        web_log = open(log_dir / f"uvicorn{worker}.log", "wb")
        timer_log = open(log_dir / f"timers{worker}.log", "wb")
        self.logs += [web_log, timer_log]
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
             *UVICORN_WS_OPTIONS, "--no-access-log"],
            cwd=ROOT, env=env, stdout=web_log, stderr=subprocess.STDOUT, start_new_session=True))
        self.procs.append(subprocess.Popen([sys.executable, "manage.py", "runtimers", "--interval", "0.2"],
                                           cwd=ROOT, env=env, stdout=timer_log, stderr=subprocess.STDOUT,
                                           start_new_session=True))
        saved_delay = os.environ.get("BOT_DELAY_MS")
        os.environ["BOT_DELAY_MS"] = "50,150"  # start_celery_worker builds its env from os.environ
        try:
            self.procs.append(start_celery_worker(name="browser"))
        finally:
            if saved_delay is None:
                os.environ.pop("BOT_DELAY_MS", None)
            else:
                os.environ["BOT_DELAY_MS"] = saved_delay
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 40
        while True:
            try:
                urllib.request.urlopen(base + "/accounts/login/", timeout=2)
                return base
            except urllib.error.HTTPError as exc:
                raise RuntimeError(f"the server answered {exc.code}") from exc
            except Exception:
                if time.monotonic() > deadline or self.procs[0].poll() is not None:
                    raise RuntimeError("uvicorn did not come up; see tests/artifacts/logs/uvicorn*.log") from None
                time.sleep(0.3)

    def stop(self) -> None:
        for proc in self.procs:
            stop_process(proc)
        for log in self.logs:
            log.close()
        self.base, self.procs, self.logs = None, [], []


@pytest.fixture(scope="module")
def live_stack(django_db_setup, browser_stack):
    """The shared stack's base URL (``BrowserStack``)."""
    return browser_stack.url()


@pytest.fixture(scope="module")
def browser(live_stack):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread; the test body's ORM calls are
    # still plain synchronous code, so Django's async-safety guard is relaxed for the browser tests.
    # Module scope: the loop (and the relaxed guard) must end before other test modules run, or their
    # async_to_sync calls would find a running loop in the main thread.
    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as pw:
            b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield b
            b.close()
    finally:
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


@pytest.fixture
def page(browser, live_stack, settings):
    settings.BOT_DELAY_MS = (50, 150)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=live_stack)
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    pg.console_errors = errors
    yield pg
    context.close()
    allowed = [e for e in errors if "favicon" not in e and "tampered" not in e]
    assert not allowed, allowed


def screenshot(page, name: str) -> None:
    """Desktop (1280×800) and phone (375×740) screenshots under tests/artifacts/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(ARTIFACTS / f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 740})
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / f"{name}-phone.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.set_viewport_size({"width": 1280, "height": 800})
    assert width <= 380, f"{name}: the page scrolls sideways on a phone ({width}px)"


def login(page, username: str, password: str = "pass-word-123") -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/")
