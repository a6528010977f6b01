"""The Celery app. Workers: ``celery -A config worker -Q default,bots`` (see README)."""

from __future__ import annotations

import functools
import os

from celery import Celery
from celery.signals import task_prerun
from celery.worker.consumer import Consumer

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


# After losing the broker (a Redis restart), a worker tries again after 0.5, 1, 1.5, then every 2 s, not
# kombu's 2, 4, 6 ... up to 30 s (Celery's consumer passes no intervals, and no setting reaches them): the
# due deadlines' tasks wait for the workers, and an automatic move was 5.5 s late when Redis came back
# just after a retry (docs/reliability.md). Celery's 100 retries then span ~3 minutes of outage.
BROKER_RETRY_S = (0.5, 0.5, 2.0)  # the first wait, the step, the longest wait


class BrokerRetryingConsumer(Consumer):
    """The worker's consumer (``worker_consumer``), reconnecting to the broker as ``BROKER_RETRY_S`` says."""

    def ensure_connected(self, conn):
        start, step, longest = BROKER_RETRY_S
        conn.ensure_connection = functools.partial(conn.ensure_connection, interval_start=start,
                                                   interval_step=step, interval_max=longest)
        return super().ensure_connected(conn)


app.conf.worker_consumer = "config.celery:BrokerRetryingConsumer"


@app.task(name="core.ping")
def ping() -> str:
    """Round trip used by /healthz to prove a worker consumes tasks."""
    return "pong"
