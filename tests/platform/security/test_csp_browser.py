"""The Content-Security-Policy in headless Chromium: pages work under it and the browser reports no violation.

Uses the front end's live stack (uvicorn + Celery worker + timer; tests/frontend/conftest.py). Besides the
console (where Chromium logs a blocked script or connection as an error), every page records the
``securitypolicyviolation`` events it fires.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from accounts.services import user_create
from tests.frontend.conftest import CHROMIUM, browser, live_stack, login  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


def _skip_reason() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    return None


@pytest.fixture
def page(browser, live_stack):  # noqa: F811
    if _skip_reason():
        pytest.skip(_skip_reason())
    context = browser.new_context(base_url=live_stack)
    context.add_init_script(RECORD_VIOLATIONS)
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    pg.problems = []
    pg.requests = []
    pg.on("console", lambda m: pg.problems.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
    pg.on("request", lambda r: pg.requests.append(r.url))
    yield pg
    context.close()


def _assert_clean(page) -> None:
    violations = page.evaluate("window.__csp")
    assert not violations, violations
    assert not page.problems, page.problems


def test_the_policy_reaches_the_browser_and_pages_run_under_it(page, live_stack):  # noqa: F811
    user_create(username="csp-ana", password="pass-word-123", display_name="Ana")
    response = page.goto("/accounts/login/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    _assert_clean(page)
    login(page, "csp-ana")
    _assert_clean(page)  # the lobby (its module scripts, the queue widget's websocket)
    with page.expect_navigation():  # the language selector, wired by a static script now
        page.select_option("#language-select", "tr")
    assert page.get_attribute("html", "lang") == "tr"
    _assert_clean(page)


def test_swagger_ui_renders_from_this_site_alone(page, live_stack):  # noqa: F811
    page.goto("/api/docs/")
    page.wait_for_selector(".swagger-ui .info .title")
    page.wait_for_selector(".opblock")  # the operations, from /api/schema/
    assert "Cardroom API" in page.inner_text(".swagger-ui .info .title")
    foreign = [url for url in page.requests if not url.startswith((live_stack, "data:"))]
    assert not foreign, foreign
    _assert_clean(page)


def test_the_tournament_page_live_updates_under_the_policy(page, live_stack):  # noqa: F811
    """The tournament page's live-update script (a static file now) runs under the policy: no violation."""
    from rooms.models import Room
    from tournaments import services

    room = Room.objects.create(name="31", slug="csp-otuzbir", game="otuzbir", seats=7, min_seats=2, turn_seconds=20)
    tournament = services.tournament_create(name="Cup", room=room, starts_at=timezone.now() + timedelta(hours=1))
    with page.expect_websocket(lambda ws: f"/ws/tournaments/{tournament.pk}/" in ws.url):
        page.goto(f"/tournaments/{tournament.pk}/")
    _assert_clean(page)
