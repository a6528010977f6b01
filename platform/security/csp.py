"""A Content-Security-Policy header on every response Django answers (Django 5.2 has none built in).

The policy (README.md, "Security headers"): everything from this site only; scripts only from its
own files (no inline scripts, no eval); styles from its own files, inline style attributes allowed;
images also as data: URLs; websockets only to the page's own host; no plugins; forms post only here;
no page may frame ours.

Two narrow exceptions allow inline scripts, nothing else:
- the views named in ``settings.CSP_INLINE_SCRIPT_VIEWS`` (templates whose inline <script> has not yet
  moved to a static file), and
- Django's own technical error pages while DEBUG is on (their traceback toggles are inline scripts).

A response that already carries the header (a view that set its own) keeps it.
"""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import DisallowedHost

HEADER = "Content-Security-Policy"


def policy(ws_hosts: tuple[str, ...] = (), inline_scripts: bool = False) -> str:
    """The policy text; ``ws_hosts`` are ws:// or wss:// origins the page may open websockets to."""
    script = "'self' 'unsafe-inline'" if inline_scripts else "'self'"
    directives = [
        ("default-src", "'self'"),
        ("script-src", script),
        ("style-src", "'self' 'unsafe-inline'"),
        ("img-src", "'self' data:"),
        ("font-src", "'self'"),
        ("connect-src", " ".join(("'self'", *ws_hosts))),
        ("object-src", "'none'"),
        ("base-uri", "'self'"),
        ("form-action", "'self'"),
        ("frame-ancestors", "'none'"),
    ]
    return "; ".join(f"{name} {value}" for name, value in directives)


def websocket_origins(request) -> tuple[str, ...]:
    """wss:// (and, on plain HTTP, ws://) for the host this page was served from.

    'self' covers them in current browsers (CSP level 3), not in older ones; the host comes from
    ``get_host()``, which only returns a host that ALLOWED_HOSTS accepts and of a safe spelling. IPv6
    literals cannot be written in a CSP source, so such pages rely on 'self'.
    """
    try:
        host = request.get_host()
    except DisallowedHost:
        return ()
    if not host or host.startswith("["):
        return ()
    return (f"wss://{host}",) if request.is_secure() else (f"ws://{host}", f"wss://{host}")


def _allows_inline_scripts(request, response) -> bool:
    if settings.DEBUG and response.status_code >= 400:
        return True  # Django's technical 404/500 pages
    match = getattr(request, "resolver_match", None)
    return bool(match and match.view_name in getattr(settings, "CSP_INLINE_SCRIPT_VIEWS", ()))


class ContentSecurityPolicyMiddleware:
    """Sync and async: under ASGI it adds the header without a hop to a worker thread."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        return self.add_header(request, self.get_response(request))

    async def __acall__(self, request):
        return self.add_header(request, await self.get_response(request))

    @staticmethod
    def add_header(request, response):
        if HEADER not in response:
            response[HEADER] = policy(websocket_origins(request), _allows_inline_scripts(request, response))
        return response
