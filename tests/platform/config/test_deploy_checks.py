"""``manage.py check --deploy``: the project's Redis warnings (security.checks, README.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from security import checks

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION_REDIS = "rediss://cardroom:s3cret@redis.example:6380/0?ssl_cert_reqs=required"


def _ids(**overrides) -> list[str]:
    from django.test import override_settings

    with override_settings(**overrides):
        return [w.id for w in checks.check_redis()]


def _redis_settings(url: str, embedded: bool = False) -> dict:
    return {
        "DEBUG": False, "REDIS_URL": url, "REDIS_EMBEDDED": embedded,
        "CACHES": {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}},
        "CHANNEL_LAYERS": {"default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                                       "CONFIG": {"hosts": [url]}}},
        "CELERY_BROKER_URL": url.replace("unix://", "redis+socket://"),
        "CELERY_RESULT_BACKEND": url.replace("unix://", "redis+socket://"),
    }


@pytest.mark.parametrize("url, expected", [
    (PRODUCTION_REDIS, []),
    ("rediss://:s3cret@redis.example:6380/0", []),  # requirepass, no ACL user
    ("rediss://redis.example:6380/0?password=s3cret", []),  # redis-py also reads it from the query
    ("redis://127.0.0.1:6379/0", ["cardroom.W002", "cardroom.W003"]),
    ("redis://:s3cret@redis.example:6379/0", ["cardroom.W003"]),
    ("rediss://redis.example:6380/0", ["cardroom.W002"]),
    ("rediss://alice@redis.example:6380/0", ["cardroom.W002"]),  # an ACL user without its password
    ("unix:///run/redis/redis.sock", ["cardroom.W002"]),  # no TLS on a local socket, but still no password
    ("unix://:s3cret@/run/redis/redis.sock", []),
])
def test_a_configured_redis_url(url, expected):
    assert _ids(**_redis_settings(url)) == expected


def test_the_embedded_redis_with_debug_off():
    assert _ids(**_redis_settings("unix:///tmp/var/redis.sock", embedded=True)) == ["cardroom.W001"]


def test_nothing_with_debug_on():
    assert _ids(**{**_redis_settings("redis://127.0.0.1:6379/0"), "DEBUG": True}) == []
    assert _ids(**{**_redis_settings("unix:///tmp/var/redis.sock", embedded=True), "DEBUG": True}) == []


def test_every_redis_url_in_use_is_checked_and_none_is_logged_with_its_password():
    settings = {**_redis_settings(PRODUCTION_REDIS), "CELERY_BROKER_URL": "redis://:hunter2@broker.example:6379/1"}
    from django.test import override_settings

    with override_settings(**settings):
        found = checks.check_redis()
    assert [w.id for w in found] == ["cardroom.W003"]
    assert "broker.example:6379/1" in found[0].msg and "hunter2" not in found[0].msg + found[0].hint


def test_the_checks_are_deploy_checks_only(db):
    from django.core.checks import registry

    assert checks.check_redis in registry.registry.get_checks(include_deployment_checks=True)
    assert checks.check_redis not in registry.registry.get_checks(include_deployment_checks=False)


def _check_deploy(tmp_path, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "REDIS_URL", "DATABASE_URL")}
    base.update({"CARDROOM_VAR_DIR": str(tmp_path), "DEBUG": "false", **env})
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                          cwd=ROOT, env=base, capture_output=True, text=True, timeout=120)


def test_check_deploy_flags_the_embedded_redis(tmp_path):
    out = _check_deploy(tmp_path)
    assert out.returncode == 1 and "(cardroom.W001)" in out.stderr
    assert "cardroom.W002" not in out.stderr and "cardroom.W003" not in out.stderr


def test_check_deploy_flags_a_redis_without_password_or_tls(tmp_path):
    out = _check_deploy(tmp_path, REDIS_URL="redis://redis.example:6379/0")
    assert out.returncode == 1 and "(cardroom.W002)" in out.stderr and "(cardroom.W003)" in out.stderr
    assert "cardroom.W001" not in out.stderr


def test_a_warning_can_be_silenced_on_purpose(tmp_path):
    out = _check_deploy(tmp_path, REDIS_URL="redis://:s3cret@10.0.0.5:6379/0", SILENCED_SYSTEM_CHECKS="cardroom.W003")
    assert out.returncode == 0, out.stdout + out.stderr
