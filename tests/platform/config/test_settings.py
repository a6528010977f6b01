import json
import subprocess
import sys
from pathlib import Path

import pytest

from config.settings import celery_url

ROOT = Path(__file__).resolve().parents[3]


def _settings_in_subprocess(env: dict, expr: str):
    code = (
        "import sys, json; sys.path[:0] = ['platform', '.'];"
        "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings';"
        f"from django.conf import settings as s; print(json.dumps({expr}))"
    )
    base = {k: v for k, v in __import__("os").environ.items()
            if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_celery_spells_unix_sockets_redis_socket():
    assert celery_url("unix:///tmp/r.sock") == "redis+socket:///tmp/r.sock"
    assert celery_url("redis://h:6379/1") == "redis://h:6379/1"


def test_embedded_defaults_without_configuration(tmp_path):
    got = _settings_in_subprocess({"CARDROOM_VAR_DIR": str(tmp_path)},
                                  "[s.DATABASES['default']['ENGINE'], s.REDIS_URL, s.CELERY_BROKER_URL, s.REDIS_EMBEDDED, s.DEBUG]")
    engine, redis_url, broker, embedded, debug = got
    assert engine == "django.db.backends.sqlite3"
    assert redis_url == f"unix://{tmp_path}/redis.sock"
    assert broker == f"redis+socket://{tmp_path}/redis.sock"
    assert embedded is True and debug is False
    assert (tmp_path / "secret_key").exists()


def test_configured_postgres_and_redis(tmp_path):
    got = _settings_in_subprocess(
        {"CARDROOM_VAR_DIR": str(tmp_path), "DATABASE_URL": "postgres://u:p@db.example:5433/cards",
         "REDIS_URL": "redis://cache.example:6380/2", "DEBUG": "true", "SECRET_KEY": "k" * 60,
         "ALLOWED_HOSTS": "cards.example,www.cards.example"},
        "[s.DATABASES['default'], s.CELERY_BROKER_URL, s.CHANNEL_LAYERS['default']['CONFIG']['hosts'], "
        "s.REDIS_EMBEDDED, s.DEBUG, s.SECRET_KEY, s.ALLOWED_HOSTS]")
    db, broker, hosts, embedded, debug, key, hosts_allowed = got
    assert db["ENGINE"] == "django.db.backends.postgresql" and db["HOST"] == "db.example"
    assert db["PORT"] == 5433 and db["NAME"] == "cards" and db["USER"] == "u"
    assert broker == "redis://cache.example:6380/2" and hosts == ["redis://cache.example:6380/2"]
    assert embedded is False and debug is True and key == "k" * 60
    assert hosts_allowed == ["cards.example", "www.cards.example"]


def test_check_deploy_is_clean_with_debug_off(tmp_path):
    env = {k: v for k, v in __import__("os").environ.items() if k != "DEBUG"}
    env.update({"CARDROOM_VAR_DIR": str(tmp_path), "DEBUG": "false"})
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("runner", ["manage", "pytest"])
def test_standard_library_platform_module_still_works(runner):
    import platform
    import uuid

    assert platform.system() and hasattr(platform, "python_version")
    assert uuid.uuid4().version == 4
    if runner == "manage":
        out = subprocess.run([sys.executable, "manage.py", "shell", "-c",
                              "import platform, uuid; print(platform.python_version(), uuid.uuid1().version)"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().splitlines()[-1].split()[1] == "1"
    assert not (ROOT / "platform" / "__init__.py").exists()
