"""Schemathesis against /api/schema/: every operation, anonymous and logged in, never a 5xx.

The calls go to Django's WSGI application in process (no network). The slow variant runs many more
examples per operation.
"""

from __future__ import annotations

import json
import os
from urllib.parse import urlencode

import pytest
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.core import NOT_SET

from accounts.services import user_create
from rooms import services
from rooms.models import Room

pytestmark = pytest.mark.django_db

FAST_EXAMPLES = int(os.environ.get("HARNESS_API_EXAMPLES", "3"))
SLOW_EXAMPLES = 200
SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@pytest.fixture
def world(db):
    """A room, a table with a seated host, and a logged-in user's cookie + CSRF header."""
    room = Room.objects.create(name="Schema", slug="schema", game="lembar", seats=4, min_seats=2)
    host = user_create(username="schemahost", password="pass-word-123")
    table = services.table_open(room=room, host=host)
    services.table_sit(table_id=table.pk, user=host)
    client = Client(enforce_csrf_checks=True)
    client.force_login(host)
    client.get("/accounts/login/")  # sets the csrftoken cookie
    session, csrf = client.cookies["sessionid"].value, client.cookies.get("csrftoken")
    headers = {"Cookie": f"sessionid={session}"}
    if csrf is not None:
        headers = {"Cookie": f"sessionid={session}; csrftoken={csrf.value}", "X-CSRFToken": csrf.value}
    return {"table": table, "headers": headers}


def _load_schema():
    from django.conf import settings as django_settings
    from django.core.wsgi import get_wsgi_application

    django_settings.SECURE_SSL_REDIRECT = False  # plain HTTP in process (conftest does the same)
    return schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


schema = _load_schema()  # generating the schema needs no database


def _call(case, headers: dict[str, str]):
    """Send the generated request through Django's test client (in process, inside the test's transaction)."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    merged = {**(case.headers or {}), **headers}
    for name, value in (case.cookies or {}).items():
        client.cookies[name] = str(value)
    extra = {}
    for name, value in merged.items():
        if name.lower() == "cookie":
            for part in str(value).split(";"):
                key, _, val = part.strip().partition("=")
                client.cookies[key] = val
        else:
            extra["HTTP_" + name.upper().replace("-", "_")] = str(value)
    query = urlencode(case.query or {}, doseq=True)
    if case.body is NOT_SET:
        body: str | bytes = ""
    elif isinstance(case.body, bytes):
        body = case.body
    else:
        body = json.dumps(case.body, default=repr)
    return client.generic(case.method, case.formatted_path + (f"?{query}" if query else ""), data=body,
                          content_type=case.media_type or "application/json", **extra)


def _no_server_error(case, headers: dict | None = None) -> None:
    response = _call(case, headers or {})
    assert response.status_code < 500, (case.method, case.formatted_path, case.path_parameters, case.query,
                                        case.body, response.status_code, response.content[:500])


@schema.parametrize()
@settings(max_examples=FAST_EXAMPLES, **SETTINGS)
def test_api_never_5xx_anonymous_or_logged_in(case, world):
    _no_server_error(case)
    _no_server_error(case, world["headers"])


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=SLOW_EXAMPLES, **SETTINGS)
def test_api_never_5xx_many_examples(case, world):
    _no_server_error(case)
    _no_server_error(case, world["headers"])
