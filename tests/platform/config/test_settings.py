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


def test_the_generated_secret_key_is_private_from_the_start(tmp_path):
    """Created 0600 (not chmod-ed after writing), the same for every process, no leftovers."""
    import os
    import stat

    old_umask = os.umask(0)  # a permissive umask must not make the key readable
    try:
        keys = {_settings_in_subprocess({"CARDROOM_VAR_DIR": str(tmp_path)}, "s.SECRET_KEY") for _ in range(2)}
    finally:
        os.umask(old_umask)
    assert len(keys) == 1 and len(keys.pop()) > 50
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
    assert not list(tmp_path.glob(".secret_key.*"))


def test_the_secret_key_is_never_on_disk_readable_by_others(tmp_path, monkeypatch):
    """Whenever the key's bytes are on disk under a name (written, then chmod-ed or linked), the file
    is already 0600: chmod-ing after writing left a moment in which others could read it."""
    import os
    import stat
    from pathlib import Path

    from config import settings as config_settings

    seen: list[int] = []
    real_chmod, real_link = Path.chmod, os.link

    def chmod(self, mode, **kw):
        seen.append(stat.S_IMODE(self.stat().st_mode))
        return real_chmod(self, mode, **kw)

    def link(src, dst, **kw):
        seen.append(stat.S_IMODE(os.stat(src).st_mode))
        return real_link(src, dst, **kw)

    monkeypatch.setattr(Path, "chmod", chmod)
    monkeypatch.setattr(os, "link", link)
    monkeypatch.setattr(config_settings, "VAR_DIR", tmp_path)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    old_umask = os.umask(0o022)
    try:
        key = config_settings._secret_key()
    finally:
        os.umask(old_umask)
    assert key and seen and set(seen) == {0o600}


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
    """With DEBUG off and a production Redis (a password, TLS): the embedded Redis or a plain redis:// URL
    legitimately warn (cardroom.W001-W003, tests/platform/config/test_deploy_checks.py)."""
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("DEBUG", "REDIS_URL")}
    env.update({"CARDROOM_VAR_DIR": str(tmp_path), "DEBUG": "false",
                "REDIS_URL": "rediss://cardroom:s3cret@redis.example:6380/0?ssl_cert_reqs=required",
                # an empty database: W004 (superusers without two-factor) reads whatever DATABASE_URL holds
                "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}"})
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
