"""Schemathesis against /api/schema/: every operation, anonymous and logged in, never a 5xx.

The calls go to Django's WSGI application in process (no network). The slow variant runs many more
examples per operation.
"""

from __future__ import annotations

import json
import os
import secrets
from urllib.parse import urlencode

import pytest
import schemathesis
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
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
    client = Client()
    client.force_login(host)
    csrf = secrets.token_hex(16)  # a 32-character CSRF secret: the cookie and the header must agree
    headers = {"Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}", "X-CSRFToken": csrf}
    return {"table": table, "headers": headers}


def _load_schema():
    from django.conf import settings as django_settings
    from django.core.wsgi import get_wsgi_application

    django_settings.SECURE_SSL_REDIRECT = False  # plain HTTP in process (conftest does the same)
    return schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


schema = _load_schema()  # generating the schema needs no database


def _call(case, headers: dict[str, str]):
    """Send the generated request through Django's test client (in process, inside the test's transaction)."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=bool(os.environ.get("HARNESS_API_RAISE")))
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
    media = case.media_type or "application/json"
    if case.body is NOT_SET:
        body: str | bytes = ""
    elif isinstance(case.body, bytes):
        body = case.body
    elif media.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        # Always a well-formed form body (the malformed-multipart 500 is its own test below).
        fields = ({k: str(v) for k, v in case.body.items()} if isinstance(case.body, dict)
                  else {"body": json.dumps(case.body, default=repr)})
        if media.startswith("multipart/"):
            body, media = encode_multipart(BOUNDARY, fields), MULTIPART_CONTENT
        else:
            body = urlencode(fields)
    else:
        body = json.dumps(case.body, default=repr)
    return client.generic(case.method, case.formatted_path + (f"?{query}" if query else ""), data=body,
                          content_type=media, **extra)


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


@pytest.mark.parametrize("path", ["/api/rooms/%3A/tables/", "/no/such/page/"])
def test_malformed_multipart_post_to_an_unknown_url_is_4xx(db, path):
    csrf = secrets.token_hex(16)
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.cookies["csrftoken"] = csrf  # anyone can set their own CSRF cookie: no account needed
    response = client.post(path, data="{}", content_type="multipart/form-data", HTTP_X_CSRFTOKEN=csrf)
    assert 400 <= response.status_code < 500, response.status_code
