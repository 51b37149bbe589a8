"""The cluster store: one row per simulated cluster, one table per Kubernetes kind.

Objects are stored as Kubernetes stores them: a document (`metadata`, `spec`, `status`,
plus `extra` for the top-level fields of kinds such as PriorityClass and StorageClass),
with indexed columns for what is queried. `resource_version` is the cluster's revision at
the object's last write (like etcd's global revision): it increases on every write, and
services.py refuses a write that names an older one. Write through services.py only.
"""

from django.conf import settings
from django.db import models


class Cluster(models.Model):
    name = models.SlugField(max_length=63, unique=True)
    description = models.TextField(blank=True)
    seed = models.BigIntegerField(default=0, help_text="seed of the scheduler's random tie-breaks")
    # The simulated clock, in seconds since the cluster was created.
    now = models.FloatField(default=0.0)
    speed = models.FloatField(default=1.0)
    paused = models.BooleanField(default=True)
    # Wall-clock time at which `now` was last advanced (None while paused).
    clock_anchor = models.DateTimeField(null=True, blank=True)
    policy = models.JSONField(null=True, blank=True, help_text="scheduler Policy; null = the default policy")
    # More schedulers (OpenShift 3.11's multiple schedulers): schedulerName -> its Policy document.
    scheduler_policies = models.JSONField(default=dict, blank=True)
    preemption_enabled = models.BooleanField(default=True)
    # Admission plugins switched off (engine.api.admission.PLUGIN_NAMES -> False); absent = on.
    admission = models.JSONField(default=dict, blank=True)
    # The simulated time the controllers have run up to, and their own state that is not a
    # Kubernetes object (the node lifecycle controller's Zone documents).
    reconciled_to = models.FloatField(default=0.0)
    controller_state = models.JSONField(default=dict, blank=True)
    # What users wrote since the controllers last ran that the rows alone do not tell:
    # ["delete", kind, namespace, name] for an object deleted, ["resync"] for a change of
    # the cluster's settings (policy, admission, descheduler, facts). Created and replaced
    # objects are the rows whose resource_version is past the last run's revision.
    # Emptied by the reconcile that takes them up (scheduling.store.reconcile).
    journal = models.JSONField(default=list, blank=True)
    # The descheduler's DeschedulerPolicy document and how it runs ({"policy": {...},
    # "interval": seconds or null, "flags": {...}}); empty: no descheduler.
    descheduler = models.JSONField(default=dict, blank=True)
    # Admission plugins' configuration documents (PodNodeConstraintsConfig,
    # PodNodeSelectorConfig, MasterConfig.projectConfig), by kind.
    admission_config = models.JSONField(default=dict, blank=True)
    # Simulated characteristics of the cluster that update risks query (platform,
    # network type, ...), shown and editable on the Cluster Settings page.
    facts = models.JSONField(default=dict, blank=True)
    revision = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        permissions = [("edit_cluster", "Can change simulated clusters and their objects")]

    def __str__(self) -> str:
        return self.name


class KubeObject(models.Model):
    KIND = ""
    API_VERSION = "v1"
    NAMESPACED = True

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="+")
    namespace = models.CharField(max_length=63, blank=True, db_index=True)
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=36)
    resource_version = models.BigIntegerField()
    metadata = models.JSONField(default=dict)
    spec = models.JSONField(default=dict, blank=True)
    status = models.JSONField(default=dict, blank=True)
    extra = models.JSONField(default=dict, blank=True)  # other top-level fields (PriorityClass.value, ...)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="%(class)s_unique_name"),
        ]

    def __str__(self) -> str:
        return f"{self.KIND}/{self.namespace}/{self.name}" if self.NAMESPACED else f"{self.KIND}/{self.name}"

    @property
    def document(self) -> dict:
        """The object as the API server returns it."""
        metadata = dict(self.metadata)
        metadata["resourceVersion"] = str(self.resource_version)
        doc = {"apiVersion": self.API_VERSION, "kind": self.KIND, "metadata": metadata}
        doc.update(self.extra)
        if self.spec:
            doc["spec"] = self.spec
        if self.status:
            doc["status"] = self.status
        return doc


class Namespace(KubeObject):
    KIND = "Namespace"
    NAMESPACED = False


class Node(KubeObject):
    KIND = "Node"
    NAMESPACED = False


class Pod(KubeObject):
    KIND = "Pod"
    node_name = models.CharField(max_length=253, blank=True, db_index=True)
    phase = models.CharField(max_length=32, default="Pending", db_index=True)


class PriorityClass(KubeObject):
    KIND = "PriorityClass"
    API_VERSION = "scheduling.k8s.io/v1beta1"
    NAMESPACED = False


class Service(KubeObject):
    KIND = "Service"


class ReplicationController(KubeObject):
    KIND = "ReplicationController"


class ReplicaSet(KubeObject):
    KIND = "ReplicaSet"
    API_VERSION = "apps/v1"


class Deployment(KubeObject):
    KIND = "Deployment"
    API_VERSION = "apps/v1"


class StatefulSet(KubeObject):
    KIND = "StatefulSet"
    API_VERSION = "apps/v1"


class DaemonSet(KubeObject):
    KIND = "DaemonSet"
    API_VERSION = "apps/v1"


class CronJob(KubeObject):
    KIND = "CronJob"
    API_VERSION = "batch/v1"


class Job(KubeObject):
    KIND = "Job"
    API_VERSION = "batch/v1"


class PodDisruptionBudget(KubeObject):
    KIND = "PodDisruptionBudget"
    API_VERSION = "policy/v1beta1"


class PersistentVolume(KubeObject):
    KIND = "PersistentVolume"
    NAMESPACED = False


class PersistentVolumeClaim(KubeObject):
    KIND = "PersistentVolumeClaim"


class StorageClass(KubeObject):
    KIND = "StorageClass"
    API_VERSION = "storage.k8s.io/v1"
    NAMESPACED = False


class ConfigMap(KubeObject):
    KIND = "ConfigMap"


class ClusterVersion(KubeObject):
    KIND = "ClusterVersion"
    API_VERSION = "config.openshift.io/v1"
    NAMESPACED = False


class ClusterOperator(KubeObject):
    KIND = "ClusterOperator"
    API_VERSION = "config.openshift.io/v1"
    NAMESPACED = False


class MachineConfigPool(KubeObject):
    KIND = "MachineConfigPool"
    API_VERSION = "machineconfiguration.openshift.io/v1"
    NAMESPACED = False


class MachineConfig(KubeObject):
    KIND = "MachineConfig"
    API_VERSION = "machineconfiguration.openshift.io/v1"
    NAMESPACED = False


class Machine(KubeObject):
    KIND = "Machine"
    API_VERSION = "machine.openshift.io/v1beta1"


class MachineSet(KubeObject):
    KIND = "MachineSet"
    API_VERSION = "machine.openshift.io/v1beta1"


class MachineHealthCheck(KubeObject):
    KIND = "MachineHealthCheck"
    API_VERSION = "machine.openshift.io/v1beta1"


class KubeDescheduler(KubeObject):
    KIND = "KubeDescheduler"
    API_VERSION = "operator.openshift.io/v1"


# Kind name -> model, in the order objects are exported (and applied on import).
KIND_MODELS: dict[str, type[KubeObject]] = {
    m.KIND: m
    for m in (
        Namespace,
        PriorityClass,
        StorageClass,
        PersistentVolume,
        Node,
        Service,
        PersistentVolumeClaim,
        PodDisruptionBudget,
        Deployment,
        ReplicaSet,
        ReplicationController,
        StatefulSet,
        DaemonSet,
        CronJob,
        Job,
        Pod,
        ConfigMap,
        ClusterVersion,
        ClusterOperator,
        MachineConfig,
        MachineConfigPool,
        MachineSet,
        Machine,
        MachineHealthCheck,
        KubeDescheduler,
    )
}


class Event(models.Model):
    """A Kubernetes-style event, timed on the cluster's simulated clock."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="events")
    type = models.CharField(max_length=16, default="Normal")  # Normal | Warning
    reason = models.CharField(max_length=64, db_index=True)
    involved_kind = models.CharField(max_length=64)
    involved_namespace = models.CharField(max_length=63, blank=True)
    involved_name = models.CharField(max_length=253)
    message = models.TextField()
    count = models.PositiveIntegerField(default=1)
    first_time = models.FloatField()
    last_time = models.FloatField()
    source = models.CharField(max_length=64, blank=True)  # component: default-scheduler, taint-manager, ...
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["last_time", "id"]
        indexes = [models.Index(fields=["cluster", "involved_kind", "involved_namespace", "involved_name"])]

    def __str__(self) -> str:
        return f"{self.type} {self.reason} {self.involved_kind}/{self.involved_name}: {self.message}"

    @property
    def object_ref(self) -> str:
        parts = [self.involved_kind, self.involved_namespace, self.involved_name]
        return "/".join(p for p in parts if p)


# --- training: sessions a room follows, their questions and answers, and the snapshots that
# let a cluster go back to an earlier simulated moment ---------------------------------------


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
