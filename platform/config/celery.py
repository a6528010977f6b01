"""The Celery app. Workers: ``celery -A config worker -Q moves,bots`` (see README)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="core.ping")
def ping() -> str:
    """Round trip used by /healthz to prove a worker consumes tasks."""
    return "pong"
