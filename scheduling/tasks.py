"""Celery tasks: thin, JSON arguments, idempotent (compare-and-swap writes)."""

from __future__ import annotations

import os
import threading

from celery import shared_task
from django.utils import timezone

from scheduling.store import clock, reconcile, services


@shared_task(name="scheduling.tasks.tick", ignore_result=True)
def tick() -> None:
    """Run by beat every second: advance the clock of every running cluster."""
    now = timezone.now()
    for cluster_id in clock.running_cluster_ids():
        advance_clock.delay(cluster_id, now.isoformat())


@shared_task(name="scheduling.tasks.advance_clock", ignore_result=True)
def advance_clock(cluster_id: int, wall_time: str) -> None:
    """Move one cluster's clock to `wall_time`; run its controllers if something is due."""
    clock.advance(cluster_id, timezone.datetime.fromisoformat(wall_time))
    clock.hold_at_script_end(cluster_id)
    reconcile.reconcile(cluster_id)


@shared_task(name=services.RECONCILE_TASK, ignore_result=True, expires=120)
def reconcile_cluster(cluster_id: int) -> None:
    """Run the controllers of one cluster up to its clock (a no-op when nothing is due)."""
    outcome = reconcile.reconcile(cluster_id)
    if outcome.conflict:
        # Someone wrote while we computed: their write asked for its own run; make sure.
        reconcile_cluster.apply_async((cluster_id,), countdown=0.2)


@shared_task
def worker_info() -> dict:
    """Where tasks run: used by the tests that prove tasks go through a worker (never eager)."""
    return {"pid": os.getpid(), "thread": threading.current_thread().name}
