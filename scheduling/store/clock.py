"""The simulated clock of each cluster: `now` advances by `speed` × wall time while running.

The clock is not an object of the cluster: moving it does not take a revision. The tick
task runs the controllers when the clock reaches the time they asked for."""

from __future__ import annotations

from datetime import datetime

from django.db import models, transaction
from django.utils import timezone

from scheduling.store import services
from scheduling.store.changes import Change
from scheduling.models import Cluster
from scheduling.store.script import cluster_script

MIN_SPEED, MAX_SPEED = 1.0, 600.0


def running_cluster_ids() -> list[int]:
    return list(Cluster.objects.filter(paused=False).values_list("pk", flat=True))


def advance(cluster_id: int, wall_time: datetime) -> bool:
    """Move the clock to `wall_time`. A compare-and-swap on the anchor makes a repeated or
    late delivery of the same tick a no-op. Returns whether the clock moved."""
    cluster = Cluster.objects.filter(pk=cluster_id, paused=False).first()
    if cluster is None:
        return False
    anchor = cluster.clock_anchor
    if anchor is None:
        # First tick after a start without anchor: start measuring from here.
        Cluster.objects.filter(pk=cluster_id, clock_anchor__isnull=True).update(clock_anchor=wall_time)
        return False
    elapsed = (wall_time - anchor).total_seconds()
    if elapsed <= 0:
        return False
    with transaction.atomic():
        moved = Cluster.objects.filter(pk=cluster_id, clock_anchor=anchor, paused=False).update(
            now=cluster.now + cluster.speed * elapsed, clock_anchor=wall_time
        )
        if moved:
            services.announce(cluster_id, Change("Cluster"))
    return bool(moved)


def play(cluster: Cluster, speed: float | None = None) -> None:
    fields = {"paused": False, "clock_anchor": timezone.now()}
    if speed is not None:
        fields["speed"] = min(MAX_SPEED, max(MIN_SPEED, float(speed)))
    with transaction.atomic():
        Cluster.objects.filter(pk=cluster.pk).update(**fields)
        services.announce(cluster.pk, Change("Cluster"))


def pause(cluster: Cluster) -> None:
    with transaction.atomic():
        Cluster.objects.filter(pk=cluster.pk).update(paused=True, clock_anchor=None)
        services.announce(cluster.pk, Change("Cluster"))


def step(cluster: Cluster, seconds: float) -> None:
    """Move the clock forward by `seconds` of simulated time at once (paused or not)."""
    if seconds <= 0:
        raise ValueError("a step must be a positive number of seconds")
    with transaction.atomic():
        Cluster.objects.filter(pk=cluster.pk).update(now=models.F("now") + float(seconds))
        services.announce(cluster.pk, Change("Cluster"))
        services.request_reconcile(cluster.pk)


def set_speed(cluster: Cluster, speed: float) -> None:
    speed = min(MAX_SPEED, max(MIN_SPEED, float(speed)))
    with transaction.atomic():
        # Settle the time run so far at the old speed before the new one applies.
        if not cluster.paused:
            advance(cluster.pk, timezone.now())
        Cluster.objects.filter(pk=cluster.pk).update(speed=speed)
        services.announce(cluster.pk, Change("Cluster"))


def run_to_next_step(cluster: Cluster) -> float:
    """Move the clock to the script's next step (after the last one: to the script's end).
    Returns the time run to; ValueError when the script has ended or there is none."""
    script = cluster_script(cluster)
    target = script.next_stop(cluster.now) if script is not None else None
    if target is None:
        raise ValueError("the script has ended: nothing left to run to" if script else "this cluster has no script")
    step(cluster, target - cluster.now)
    return target


def hold_at_script_end(cluster_id: int) -> bool:
    """A running clock that has just passed the end of its cluster's script stops at the end
    (unless the script may go on). Called after `advance`, before the controllers run, so
    nothing past the end is played. Returns whether the clock was held."""
    cluster = Cluster.objects.filter(pk=cluster_id, paused=False).first()
    script = cluster_script(cluster) if cluster is not None else None
    if script is None or script.go_on or cluster.now <= script.end or cluster.reconciled_to > script.end:
        return False
    Cluster.objects.filter(pk=cluster_id, now=cluster.now).update(now=script.end)
    pause(cluster)
    return True
