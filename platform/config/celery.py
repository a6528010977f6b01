"""The Celery app. Workers: ``celery -A config worker -Q default,bots`` (see README)."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
def keep_usable_database_connections(**_kwargs) -> None:
    """Between tasks, drop a database connection only if it broke or outlived CONN_MAX_AGE (as
    Django does between requests). Celery's own fixup closes it around every task unless
    CELERY_DB_REUSE_MAX is set: a new PostgreSQL connection per move was a fifth of a worker's time."""
    from django.db import close_old_connections

    close_old_connections()


@app.task(name="core.ping")
def ping() -> str:
    """Round trip used by /healthz to prove a worker consumes tasks."""
    return "pong"
