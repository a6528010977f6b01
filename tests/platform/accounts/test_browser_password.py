"""Password change and reset end to end (issue 26, "Done when"): in headless Chromium against a real
uvicorn server on the test database, with the console e-mail backend, the reset link read from what the
server printed. A change logs the player's other browser out; a reset link sets a new password.

Only uvicorn runs (these pages need no worker or timer). Run: .venv/bin/pytest tests/platform/accounts/test_browser_password.py
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from django.utils import timezone

from accounts import services
from tests.conftest import ROOT, UVICORN_WS_OPTIONS, stop_process, subprocess_env
from tests.frontend.conftest import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _skip_reason

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))]

OLD, CHANGED, RESET = "kartu-batik-77", "otuz-bir-yeni-31", "baloot-sawa-55"
SERVER_ENV = {"SECURE_SSL_REDIRECT": "0", "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0",
              "SECURE_HSTS_SECONDS": "0", "SERVE_STATIC": "1", "EMAIL_HOST": "",
              "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    """uvicorn on the test database; yields (base URL, the file its output goes to)."""
    out = tmp_path_factory.mktemp("accounts-browser") / "uvicorn.log"
    port = _free_port()
    with open(out, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
             *UVICORN_WS_OPTIONS, "--no-access-log"],
            cwd=ROOT, env=subprocess_env(**SERVER_ENV), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 40
        while True:
            try:
                urllib.request.urlopen(base + "/accounts/login/", timeout=2)
                break
            except urllib.error.HTTPError as exc:
                raise RuntimeError(f"the server answered {exc.code}: {out.read_text()[-2000:]}") from exc
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"uvicorn did not come up: {out.read_text()[-2000:]}") from None
                time.sleep(0.3)
        yield base, out
    finally:
        stop_process(proc)


@pytest.fixture(scope="module")
def chromium(server):
    from playwright.sync_api import sync_playwright

    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")  # Playwright's loop runs in this thread (see tests/frontend)
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield browser
            browser.close()
    finally:
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


def _page(browser, base: str):
    page = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=base).new_page()
    page.set_default_timeout(15_000)
    return page


def _login(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def _printed_reset_link(out, base: str) -> str:
    """The reset link in the console backend's output (the server flushes each message)."""
    pattern = re.compile(re.escape(base) + r"/accounts/reset/[^/\s]+/[^/\s]+/")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = pattern.findall(out.read_text(errors="replace"))
        if found:
            return found[-1]
        time.sleep(0.1)
    raise AssertionError(f"no reset link printed: {out.read_text()[-2000:]}")


def test_change_then_reset_the_password_in_a_browser(server, chromium):
    base, out = server
    user = services.user_create(username="rosa", password=OLD)
    user.email, user.email_verified_at = "rosa@example.com", timezone.now()
    user.save(update_fields=["email", "email_verified_at"])
    here, elsewhere, locked_out = _page(chromium, base), _page(chromium, base), _page(chromium, base)
    _login(here, "rosa", OLD)
    _login(elsewhere, "rosa", OLD)

    here.goto("/accounts/profile/")
    here.click("[data-testid=link-password]")
    here.fill("#id_old_password", OLD)
    here.fill("#id_new_password1", CHANGED)
    here.fill("#id_new_password2", CHANGED)
    here.click("main button[type=submit]")
    here.wait_for_url("**/accounts/profile/")
    assert "Your password was changed" in here.inner_text(".messages")
    elsewhere.goto("/accounts/profile/")
    assert "/accounts/login/" in elsewhere.url  # the other browser's session ended

    locked_out.goto("/accounts/login/")
    locked_out.click("[data-testid=forgot-password]")
    locked_out.fill("#id_email", "rosa@example.com")
    locked_out.click("main button[type=submit]")
    locked_out.wait_for_url("**/accounts/password-reset/sent/")
    assert locked_out.is_visible("[data-testid=reset-sent]")
    locked_out.goto(_printed_reset_link(out, base))
    locked_out.fill("#id_new_password1", RESET)
    locked_out.fill("#id_new_password2", RESET)
    locked_out.click("main button[type=submit]")
    locked_out.wait_for_url("**/accounts/reset/done/")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    locked_out.screenshot(path=str(ARTIFACTS / "accounts-reset-complete.png"))
    here.goto("/accounts/profile/")
    assert "/accounts/login/" in here.url  # a reset ends every session, this one too
    _login(locked_out, "rosa", RESET)
    assert "/accounts/login/" not in locked_out.url
