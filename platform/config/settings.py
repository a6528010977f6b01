"""Settings from the environment, with embedded defaults (SQLite + an embedded Redis).

Every knob is an environment variable; README.md has the table. Nothing here starts a
process: the launcher (``manage.py runplatform``) and the test session start the
embedded Redis when REDIS_URL is not set.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path

import environ

from config import embedded, process

BASE_DIR = Path(__file__).resolve().parent.parent.parent  # the checkout root
VAR_DIR = embedded.VAR_DIR

env = environ.Env()


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once per checkout under var/."""
    configured = env.str("SECRET_KEY", default="")
    if configured:
        return configured
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    path = VAR_DIR / "secret_key"
    if not path.exists():
        # Written to a private (0600) temporary file, then linked into place: the key is never readable
        # by others, not even for a moment, and of two processes starting at once one key wins whole.
        fd, tmp = tempfile.mkstemp(dir=VAR_DIR, prefix=".secret_key.")
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(64))
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
    return path.read_text().strip()


def celery_url(redis_url: str) -> str:
    """Celery (kombu) spells a unix-socket Redis ``redis+socket://``."""
    if redis_url.startswith("unix://"):
        return "redis+socket://" + redis_url[len("unix://"):]
    return redis_url


DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Websocket Origin check: hosts allowed in the Origin header (defaults to ALLOWED_HOSTS).
WEBSOCKET_ALLOWED_ORIGINS = env.list("WEBSOCKET_ALLOWED_ORIGINS", default=ALLOWED_HOSTS)

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several local processes share the file: wait for locks instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 30, "transaction_mode": "IMMEDIATE"})
    # A file (not :memory:) so worker subprocesses in tests can share the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test_db.sqlite3")}
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

REDIS_URL = env.str("REDIS_URL", default="") or embedded.redis_url()
REDIS_EMBEDDED = not env.str("REDIS_URL", default="")

INSTALLED_APPS = [
    "security.admin_apps.StaffAdminConfig",  # django.contrib.admin with the staff second factor
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from /static/ (SPECTACULAR_SETTINGS)
    "accounts",
    "rooms",
    "wallets",
    "matchmaking",
    "tournaments",
    "arenas",  # timed arenas: paired again as soon as a game ends (docs/arenas.md)
    "audit",  # the audit log of admin actions and the revenue report's permission (docs/operators.md)
    "chat",  # table chat: players' and spectators' channels, mutes, reports (docs/protocol.md, "Chat")
    "core",
    "live",  # the tuned live path (platform/live/__init__.py)
    "security",  # check --deploy warnings cardroom.W001-W004, the Content-Security-Policy middleware, staff TOTP
    "django_otp",
    "django_otp.plugins.otp_totp",
    "gameworkers",
    "frontend",
    "config",  # the project root: urls, routing, and the commands that run and seed the platform
]

MIDDLEWARE = [
    "security.csp.ContentSecurityPolicyMiddleware",  # outermost: every response gets the policy
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): the staff second factor
    "accounts.middleware.PreferredLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

AUTH_USER_MODEL = "accounts.User"
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "frontend:lobby"
LOGOUT_REDIRECT_URL = "accounts:login"
# Failed logins allowed per (username) and per (client address) within the window.
LOGIN_THROTTLE_ATTEMPTS = env.int("LOGIN_THROTTLE_ATTEMPTS", default=5)
LOGIN_THROTTLE_WINDOW_S = env.int("LOGIN_THROTTLE_WINDOW_S", default=900)

ADMIN_PATH = env.str("ADMIN_PATH", default="backoffice/").strip("/") + "/"
# Staff TOTP two-factor (security.staff_otp): on, staff without a device must enrol before using
# the admin; off, they may use it with a banner recommending enrolment. Enrolled staff always give a code.
STAFF_REQUIRE_TOTP = env.bool("STAFF_REQUIRE_TOTP", default=False)
OTP_TOTP_ISSUER = env.str("OTP_TOTP_ISSUER", default="Cardroom")  # the name authenticator apps show
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # no staff member sees another's TOTP secret in the admin

# E-mail (password reset, address verification): printed to the console unless EMAIL_HOST names an
# SMTP server (README.md); EMAIL_BACKEND overrides the choice (e.g. the file backend).
EMAIL_HOST = env.str("EMAIL_HOST", default="")
EMAIL_PORT = env.int("EMAIL_PORT", default=587)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)  # a stuck SMTP server must not hold a request for ever
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST
                        else "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Cardroom <noreply@localhost>")

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("id", "Bahasa Indonesia"), ("ms", "Bahasa Melayu"), ("tr", "Türkçe")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve static files from the ASGI app itself (the embedded default has no web server in front).
SERVE_STATIC = env.bool("SERVE_STATIC", default=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "cardroom",
    }
}
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# Redis pub/sub: one PUBLISH per group, one subscription per group per ASGI process. Lossy by
# design, like any layer; every frame carries the version and clients resync on a gap.
# Pub/sub channels are server-wide in Redis (whatever database number a client uses), and a table's
# message carries every seat's hidden hand: channel names get a per-deployment prefix, and every
# message is encrypted and authenticated (AES-GCM-SIV, live.bus_cipher) with a key derived from SECRET_KEY,
# which only this deployment's processes hold. A bare subscriber sees channel names and ciphertext.
CHANNEL_PREFIX = env.str("CHANNEL_PREFIX", default="") or (
    "cr" + hashlib.sha256(b"channel-prefix:" + SECRET_KEY.encode()).hexdigest()[:12])
CHANNEL_LAYER_KEYS = env.list("CHANNEL_LAYER_KEYS", default=[]) or [
    hmac.new(SECRET_KEY.encode(), b"channel-layer-key", hashlib.sha256).hexdigest()]
# Running tables' seeds are sealed in the row with these keys (rooms.seeds): a copy of the database alone
# does not tell the deals to come. The first seals, all open (prepend a new key to rotate).
SEED_KEYS = env.list("SEED_KEYS", default=[]) or [
    hmac.new(SECRET_KEY.encode(), b"table-seed-key", hashlib.sha256).hexdigest()]
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "live.channel_layer.RedisPubSubChannelLayer",  # one retry after a Redis restart
        "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_PREFIX, "symmetric_encryption_keys": CHANNEL_LAYER_KEYS,
                   "serializer_format": "msgpack-sealed"},
    }
}

CELERY_BROKER_URL = celery_url(REDIS_URL)
CELERY_RESULT_BACKEND = celery_url(REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the task for another worker
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One task at a time per worker process: a worker killed mid-task loses only that one to the visibility
# timeout (with 4 it held three more, and bot turns among them waited 60 s, then timed out).
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60}
CELERY_RESULT_EXPIRES = 3600
CELERY_DB_REUSE_MAX = 10_000  # see config.celery.keep_usable_database_connections
CELERY_TASK_IGNORE_RESULT = True  # nothing waits on a move's result; storing it was a Redis write per move
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"gameworkers.tasks.bot_*": {"queue": "bots"}}
# Threads per ASGI process that apply its sockets' moves (live.move_pool), each with its own
# database connection. Two keep a process's database round trips overlapping; more only fight over
# the GIL and the cores once the machine is busy (docs/benchmarks/history.md: 4 collapsed under load that 2 held).
MOVE_THREADS = env.int("MOVE_THREADS", default=2)

# PostgreSQL connections of an ASGI server process: a bounded pool (Django's, psycopg_pool). Django
# runs each HTTP request on a thread of its own there, so persistent connections (CONN_MAX_AGE) left
# one open per request thread until PostgreSQL refused clients (30 -> 37 -> 52 -> 67 after bursts of 30
# requests; tests/platform/config/test_asgi.py). The move pool's threads each keep one connection of
# the pool; requests and socket handlers borrow the rest and give them back when done, waiting up to
# DB_POOL_TIMEOUT s when all are busy. Celery workers and the timer keep persistent connections (one
# per process; Celery's prefork children must not share a pool). DB_POOL_SIZE=0 turns the pool off
# (e.g. behind PgBouncer, which then bounds the server's connections; docs/deployment.md).
DB_POOL_SIZE = env.int("DB_POOL_SIZE", default=MOVE_THREADS + 10)
if process.asgi_server and DB_POOL_SIZE > 0 and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django's pool: connections go back to it, not closed
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(MOVE_THREADS, DB_POOL_SIZE), "max_size": max(DB_POOL_SIZE, MOVE_THREADS + 1),
        "timeout": env.float("DB_POOL_TIMEOUT", default=10.0), "max_idle": 300,
    }

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "EXCEPTION_HANDLER": "core.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Cardroom API",
    "DESCRIPTION": "Rooms, tables, views, proofs and balances. Errors are {code, message}.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the pinned drf-spectacular-sidecar package (static files of our own), not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Production hardening; all on by default once DEBUG is off. ``check --deploy`` is then clean but for
# this project's own Redis warnings (security.checks: cardroom.W001 embedded Redis, W002 no
# password, W003 no TLS), which a production REDIS_URL (rediss://user:password@host/...) clears.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_PROXY", default=False) else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy on every response (security.csp; README.md "Security headers"): no inline
# scripts. A view whose template had to carry an inline <script> would be named here (none does).
CSP_INLINE_SCRIPT_VIEWS: list[str] = []
SILENCED_SYSTEM_CHECKS = env.list("SILENCED_SYSTEM_CHECKS", default=[])

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# Bots wait a short, human-like moment before acting (milliseconds, low and high).
# The Mutiara and Kelereng of a new account's welcome grant come after its first finished game or
# this many hours, whichever is first (Chip comes at once): docs/economy.md. 0: all at once.
WELCOME_REAL_VALUE_DELAY_H = env.float("WELCOME_REAL_VALUE_DELAY_H", default=24.0)
# ... and only once the player has verified an e-mail address (docs/accounts.md); off: no e-mail needed.
WELCOME_REQUIRES_VERIFIED_EMAIL = env.bool("WELCOME_REQUIRES_VERIFIED_EMAIL", default=True)
BOT_DELAY_MS = tuple(env.list("BOT_DELAY_MS", cast=int, default=[600, 1500]))
# A bot turn not played this long after it came up (its task lost with a killed worker) is played by
# the timer, as the bot's own move, not as an automatic one (rooms.services.clock._set_deadline).
BOT_RESCUE_S = env.float("BOT_RESCUE_S", default=BOT_DELAY_MS[1] / 1000 + 5)
# A seated player whose connection is down when their time (turn timer and time bank) runs out gets this
# many seconds more, once per turn, never taken from their time bank (docs/protocol.md). 0: none.
RECONNECT_GRACE_S = env.int("RECONNECT_GRACE_S", default=15)
