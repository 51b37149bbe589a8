"""Training mode: sessions a room follows, their questions and answers, and the snapshots
that let a cluster go back to an earlier simulated moment (issue 15).

Imported by models.py (Django finds the app's models there); refers to the cluster by the
model's label so this module imports nothing of models.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TrainingSession(models.Model):
    """An instructor drives a cluster; attendees who joined with `code` follow read-only.

    `view` is what the instructor shows: {"url": the page's path, "panel": the side panel's
    URL or ""}. A closed session (closed_at set) ends every attendee's view."""

    cluster = models.ForeignKey("scheduling.Cluster", on_delete=models.CASCADE, related_name="training_sessions")
    code = models.CharField(max_length=8, unique=True)
    instructor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    view = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"training {self.code} on cluster {self.cluster_id}"

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class Attendee(models.Model):
    """Someone in the room, known by the name they chose (no account). `connections` counts
    their open session sockets (a phone and a laptop, or two tabs)."""

    session = models.ForeignKey(TrainingSession, on_delete=models.CASCADE, related_name="attendees")
    name = models.CharField(max_length=40)
    connections = models.PositiveIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class Question(models.Model):
    """Predict, then reveal: a question the engine's preview answers. `action` is what the
    instructor applies after the reveal ({"kind": "edit", "document": ..., "resource_version": n}
    or {"kind": "step"})."""

    session = models.ForeignKey(TrainingSession, on_delete=models.CASCADE, related_name="questions")
    text = models.CharField(max_length=200)
    choices = models.JSONField(default=list)
    correct = models.JSONField(default=list)
    multiple = models.BooleanField(default=False)
    action = models.JSONField(default=dict, blank=True)
    asked_at_time = models.FloatField(default=0.0)  # simulated time when asked
    revealed = models.BooleanField(default=False)
    applied = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.text


class Answer(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    attendee = models.ForeignKey(Attendee, on_delete=models.CASCADE, related_name="answers")
    choices = models.JSONField(default=list)
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["question", "attendee"], name="one_answer_per_attendee")]


class ClusterSnapshot(models.Model):
    """The cluster at simulated time `at` (its reconciled_to), full or as a delta on the
    snapshot before it (scheduling.store.snapshots). A full one holds every object's stored row
    and the events as they stood ([id, count, last_time]; events never change otherwise);
    a delta holds the rows created or replaced since the one before (`changes`), the keys
    deleted ([kind, namespace, name]) and the events new or bumped (`event_changes`); a full
    one may carry such a patch too (later writes at its own time). Both hold the cluster's
    own fields (controller_state, clock, policies) whole. Taken at most every
    snapshots.INTERVAL simulated seconds by reconcile and after every edit; rewinding
    restores the latest one at or before the target and lets the controllers run forward."""

    cluster = models.ForeignKey("scheduling.Cluster", on_delete=models.CASCADE, related_name="snapshots")
    at = models.FloatField()
    revision = models.BigIntegerField()
    fields = models.JSONField(default=dict)
    objects_rows = models.JSONField(default=list)
    events = models.JSONField(default=list)
    full = models.BooleanField(default=True)
    changes = models.JSONField(default=list)
    deleted = models.JSONField(default=list)
    event_changes = models.JSONField(default=list)
    marks = models.JSONField(default=dict)  # {"token": ..., "chain": rows changed since the last full, "deltas": ...}
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["cluster", "at"]
        indexes = [models.Index(fields=["cluster", "at"])]

    def __str__(self) -> str:
        return f"snapshot of cluster {self.cluster_id} at t={self.at:g}"


class ClusterScript(models.Model):
    """Per cluster: whether the clock may run past the end of the scenario's script."""

    cluster = models.OneToOneField("scheduling.Cluster", on_delete=models.CASCADE, primary_key=True, related_name="script")
    go_on = models.BooleanField(default=False)
