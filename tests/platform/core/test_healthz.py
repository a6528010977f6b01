import pytest
from django.urls import reverse

from core import health


@pytest.mark.django_db
def test_healthz_reports_degraded_without_a_worker(client, monkeypatch):
    monkeypatch.setattr(health, "celery_status", lambda timeout=2.0: (False, "no worker answered"))
    body = client.get(reverse("healthz"))
    assert body.status_code == 503
    data = body.json()
    assert data["status"] == "degraded"
    assert data["database"]["ok"] and data["redis"]["ok"] and not data["celery"]["ok"]


def test_healthz_all_ok_with_a_real_celery_worker(client, celery_worker_process):
    data = client.get(reverse("healthz")).json()
    assert data == {**data, "status": "ok"}
    assert data["database"]["ok"] and data["redis"]["ok"] and data["celery"]["ok"]


@pytest.mark.django_db
def test_redis_down_is_reported_not_raised(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    ok, detail = health.redis_status()
    assert not ok and detail
