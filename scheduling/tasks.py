"""Celery tasks: thin, JSON arguments, idempotent (compare-and-swap writes)."""

from __future__ import annotations

import os
import threading

from celery import shared_task
from django.utils import timezone

from . import clock


@shared_task(ignore_result=True)
def tick() -> None:
    """Run by beat every second: advance the clock of every running cluster."""
    now = timezone.now()
    for cluster_id in clock.running_cluster_ids():
        advance_clock.delay(cluster_id, now.isoformat())


@shared_task(ignore_result=True)
def advance_clock(cluster_id: int, wall_time: str) -> None:
    clock.advance(cluster_id, timezone.datetime.fromisoformat(wall_time))


@shared_task
def worker_info() -> dict:
    """Where tasks run: used by the health check and by the tests that prove tasks go
    through a worker (never eager)."""
    return {"pid": os.getpid(), "thread": threading.current_thread().name}
