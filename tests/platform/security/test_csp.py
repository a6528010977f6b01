"""The Content-Security-Policy (security.csp) and the locally served Swagger UI."""

from __future__ import annotations

import re
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from asgiref.sync import iscoroutinefunction
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern
from django.utils import timezone

from security import csp

ROOT = Path(__file__).resolve().parents[3]
POLICY_HTTP = csp.policy(("ws://testserver", "wss://testserver"))


def directives(header: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (part.strip() for part in header.split(";")) if d}


def test_the_policy_itself():
    got = directives(POLICY_HTTP)
    assert got["default-src"] == ["'self'"]
    assert got["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval'
    assert got["img-src"] == ["'self'", "data:"]
    assert got["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]
    assert got["frame-ancestors"] == ["'none'"] and got["object-src"] == ["'none'"]
    assert got["form-action"] == ["'self'"] and got["base-uri"] == ["'self'"]
    assert not any("*" in v or v in ("http:", "https:", "ws:", "wss:") for vs in got.values() for v in vs)


def test_websockets_only_to_the_pages_own_host():
    rf = RequestFactory()
    assert csp.websocket_origins(rf.get("/", HTTP_HOST="localhost:8000")) == ("ws://localhost:8000",
                                                                               "wss://localhost:8000")
    assert csp.websocket_origins(rf.get("/", HTTP_HOST="localhost:8000", secure=True)) == ("wss://localhost:8000",)
    assert csp.websocket_origins(rf.get("/", HTTP_HOST="evil.example")) == ()  # not in ALLOWED_HOSTS
    assert csp.websocket_origins(rf.get("/", HTTP_HOST="[::1]:8000")) == ()  # 'self' covers it


def test_the_middleware_works_sync_and_async_and_keeps_a_views_own_policy():
    import asyncio

    rf = RequestFactory()
    sync_mw = csp.ContentSecurityPolicyMiddleware(lambda r: HttpResponse("<p>hi</p>"))
    assert sync_mw(rf.get("/"))[csp.HEADER] == POLICY_HTTP

    async def async_view(request):
        return HttpResponse("<p>hi</p>")

    async_mw = csp.ContentSecurityPolicyMiddleware(async_view)
    assert iscoroutinefunction(async_mw)  # no hop to a thread under ASGI
    assert asyncio.run(async_mw(rf.get("/")))[csp.HEADER] == POLICY_HTTP

    def own(request):
        response = HttpResponse("x")
        response[csp.HEADER] = "default-src 'none'"
        return response

    assert csp.ContentSecurityPolicyMiddleware(own)(rf.get("/"))[csp.HEADER] == "default-src 'none'"


def test_the_middleware_is_outermost(settings):
    assert settings.MIDDLEWARE[0] == "security.csp.ContentSecurityPolicyMiddleware"


# -- every page ------------------------------------------------------------------------------------

SAMPLES = {"int": "{pk}", "slug": "x", "str": "x", "uuid": "00000000-0000-0000-0000-000000000000", "path": "x"}


def _concrete_paths(patterns=None, prefix: str = "") -> list[str]:
    """One concrete path per URL pattern (path() routes only; converters get sample values)."""
    out: list[str] = []
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if not isinstance(p.pattern, RoutePattern):
            continue  # a regex route (a few admin ones): its neighbours cover the same views
        route = re.sub(r"<(?:(\w+):)?\w+>", lambda m: SAMPLES.get(m[1] or "str", "x"), str(p.pattern))
        if isinstance(p, URLResolver):
            out += _concrete_paths(p.url_patterns, prefix + route)
        elif isinstance(p, URLPattern):
            out.append("/" + prefix + route)
    return sorted(set(out))


@pytest.fixture
def site(db, settings, monkeypatch):
    """A staff user, a room (slug "x"), an open table and a tournament, so the detail pages exist."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    from accounts.services import user_create
    from rooms.models import Room
    from tournaments import services as tournament_services

    staff = user_create(username="csp-staff", password="pass-word-123")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    room = Room.objects.create(name="R", slug="x", game="otuzbir", seats=7, min_seats=2, turn_seconds=20)
    tournament = tournament_services.tournament_create(name="Cup", room=room,
                                                       starts_at=timezone.now() + timedelta(hours=1))
    from rooms import services as room_services

    table = room_services.table_open(room=room, host=staff)
    return {"staff": staff, "room": room, "tournament": tournament, "table": table}


def _skip(path: str) -> bool:
    return path == "/healthz"  # pings the Celery workers (JSON, and covered by the API case below)


@pytest.mark.parametrize("who", ["anonymous", "staff"])
def test_every_page_carries_the_policy(client, site, who):
    """Every URL of the site, anonymous and as a superuser (admin pages included): each HTML response
    has the header, and none but the listed views allows inline scripts."""
    if who == "staff":
        client.force_login(site["staff"])
    seen_html, status = 0, {}
    for path in _concrete_paths():
        if _skip(path):
            continue
        pk = site["table"].pk if "/tables/" in path else site["tournament"].pk
        response = client.get(path.format(pk=pk))
        status[path] = response.status_code
        assert csp.HEADER in response, (path, response.status_code)
        if response.get("Content-Type", "").startswith("text/html"):
            seen_html += 1
            got = directives(response[csp.HEADER])
            assert got["frame-ancestors"] == ["'none'"] and got["default-src"] == ["'self'"]
            view = getattr(response.wsgi_request.resolver_match, "view_name", None)
            assert got["script-src"] == ["'self'"], (path, view)  # no view allows inline scripts
    assert seen_html >= (10 if who == "anonymous" else 40)
    pages = ["/tournaments/", "/tournaments/{pk}/", "/api/docs/"]
    pages += (["/accounts/login/", "/accounts/signup/"] if who == "anonymous" else
              ["/", "/tables/{pk}/", "/tables/{pk}/proof", "/accounts/profile/", "/backoffice/",
               "/backoffice/rooms/table/", "/backoffice/accounts/user/add/"])
    assert {p: status[p] for p in pages} == dict.fromkeys(pages, 200)


def test_error_pages_and_api_answers_carry_it_too(client, db):
    assert csp.HEADER in client.get("/no/such/page/")  # the project's 404 page
    assert csp.HEADER in client.get("/api/no-such-thing/")
    assert csp.HEADER in client.post("/accounts/login/", {})  # a CSRF failure (403) from the middleware stack
    assert client.get("/accounts/login/")[csp.HEADER] == POLICY_HTTP


def test_only_django_technical_error_pages_relax_it_with_debug_on(client, db, settings):
    settings.DEBUG = True
    assert "'unsafe-inline'" in directives(client.get("/no/such/page/")[csp.HEADER])["script-src"]
    assert directives(client.get("/accounts/login/")[csp.HEADER])["script-src"] == ["'self'"]


# -- templates -------------------------------------------------------------------------------------

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)
INLINE_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.I)
# Templates carrying an inline script, each for a view in settings.CSP_INLINE_SCRIPT_VIEWS (none).
KNOWN_INLINE: set[str] = set()


def test_no_template_has_inline_scripts_or_event_handlers(settings):
    offenders = []
    for template in sorted(ROOT.glob("**/templates/**/*.html")):
        rel = template.relative_to(ROOT).as_posix()
        if rel.startswith((".venv/", "var/", "node_modules/")) or rel in KNOWN_INLINE:
            continue
        text = template.read_text()
        if INLINE_SCRIPT.search(text) or INLINE_HANDLER.search(text):
            offenders.append(rel)
    assert not offenders, f"inline scripts or on*= handlers (blocked by the CSP): {offenders}"
    assert settings.CSP_INLINE_SCRIPT_VIEWS == []


def test_the_language_selector_is_wired_by_a_static_script(client, db):
    html = client.get("/accounts/login/").content.decode()
    assert 'id="language-select"' in html and "onchange" not in html
    assert "/static/core/language-select.js" in html and finders.find("core/language-select.js")


# -- Swagger UI ------------------------------------------------------------------------------------

class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.inline_scripts = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.refs += [attrs[a] for a in ("src", "href") if attrs.get(a)]
        if tag == "script" and not attrs.get("src"):
            self.inline_scripts += 1


def test_swagger_ui_is_served_from_this_site_only(client, db):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    parser = _Refs()
    parser.feed(response.content.decode())
    assert parser.refs and parser.inline_scripts == 0
    external = [r for r in parser.refs if re.match(r"^([a-z][a-z0-9+.-]*:|//)", r, re.I)]
    assert not external, external  # no CDN (it was cdn.jsdelivr.net/npm/swagger-ui-dist@latest)
    for ref in parser.refs:
        if ref.startswith("/static/"):
            assert finders.find(ref[len("/static/"):]), ref  # the pinned drf-spectacular-sidecar's files
    scripts = [r for r in parser.refs if r.startswith("/api/docs/")]
    assert scripts, parser.refs  # the start-up script, served by the split view
    init = client.get(scripts[0])
    assert init.status_code == 200 and init["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in init.content.decode() and "cdn." not in init.content.decode()
    assert directives(response[csp.HEADER])["script-src"] == ["'self'"]


def test_the_sidecar_is_pinned_in_the_runtime_lock():
    assert re.search(r"^drf-spectacular-sidecar==\S+ \\$", (ROOT / "requirements.lock").read_text(), re.M)
