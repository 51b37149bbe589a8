"""The API server's defaults, as pure functions, and the kinds (read from engine.api.kinds).

`apply_defaults` is the same defaulting scheduling/store/kube.py applies to loaded documents
(kube.py imports yaml, which the engine must not); the engine uses it for objects that
arrive during a simulation (Timeline `apply` steps, controller-created objects).
scheduling/store/kube.py can call this one instead of keeping its own copy.
"""

from __future__ import annotations

import uuid

from scheduling.engine.api.documents import document_copy
from scheduling.engine.api.kinds import BY_KIND, TABLE, Kind
from scheduling.engine.api.objects import pod_qos_class


# Derived from the one kinds table (engine.api.kinds): kind -> its entry (api_versions, namespaced, ...).
KINDS: dict[str, Kind] = BY_KIND
WORKLOAD_KINDS = tuple(k.kind for k in TABLE if k.workload)
# Not a Kubernetes kind: the node lifecycle controller's per-zone state (engine.controllers.node_lifecycle).
ZONE_KIND = "Zone"
CLUSTERUI_API_VERSION = "clusterui.io/v1alpha1"


def is_namespaced(kind: str) -> bool:
    info = KINDS.get(kind)
    return info.namespaced if info is not None else False


def apply_defaults(doc: dict, *, in_place: bool = False) -> dict:
    """A copy of `doc` with the defaults the API server would set (the ones we simulate);
    `in_place`: `doc` itself, defaulted (a caller that owns it and keeps no other use).

    `doc` must be of a kind in KINDS and valid (engine.api.validation)."""
    if not in_place:
        doc = document_copy(doc)
    kind = doc["kind"]
    info = KINDS[kind]
    doc.setdefault("apiVersion", info.api_versions[0])
    meta = doc.setdefault("metadata", {})
    if info.namespaced:
        meta.setdefault("namespace", "default")
        if not meta["namespace"]:
            meta["namespace"] = "default"
    else:
        meta.pop("namespace", None)
    spec = doc.get("spec")
    if kind == "Pod":
        spec = doc.setdefault("spec", {})
        _default_pod_spec(spec)
        status = doc.setdefault("status", {})
        status.setdefault("phase", "Pending")
        status.setdefault("qosClass", pod_qos_class(doc))
    elif kind == "Node":
        status = doc.setdefault("status", {})
        if "capacity" in status and "allocatable" not in status:
            status["allocatable"] = dict(status["capacity"])
    elif kind in ("Job", "CronJob"):
        _default_batch(doc)
    elif kind in WORKLOAD_KINDS:
        spec = doc.setdefault("spec", {})
        template = spec.setdefault("template", {})
        template.setdefault("metadata", {})
        _default_pod_spec(template.setdefault("spec", {}))
        labels = (template.get("metadata") or {}).get("labels") or {}
        if kind != "DaemonSet":
            spec.setdefault("replicas", 1)
        if kind == "ReplicationController":
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            if not meta.get("labels"):
                meta["labels"] = dict(labels)
        if kind == "Deployment":
            spec.setdefault("strategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("progressDeadlineSeconds", 600)
        if kind == "StatefulSet":
            spec.setdefault("podManagementPolicy", "OrderedReady")
            spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
            spec.setdefault("revisionHistoryLimit", 10)
        if kind == "DaemonSet":
            spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}})
            spec.setdefault("revisionHistoryLimit", 10)
    elif kind == "Service":
        spec = doc.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        for port in spec.get("ports") or []:
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))
    elif kind == "Namespace":
        doc.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        doc.setdefault("status", {}).setdefault("phase", "Active")
    elif kind == "PersistentVolume":
        spec = doc.setdefault("spec", {})
        spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        spec.setdefault("volumeMode", "Filesystem")
        doc.setdefault("status", {}).setdefault("phase", "Available" if not spec.get("claimRef") else "Bound")
    elif kind == "PersistentVolumeClaim":
        spec = doc.setdefault("spec", {})
        spec.setdefault("volumeMode", "Filesystem")
        doc.setdefault("status", {}).setdefault("phase", "Bound" if spec.get("volumeName") else "Pending")
    elif kind == "StorageClass":
        doc.setdefault("reclaimPolicy", "Delete")
        doc.setdefault("volumeBindingMode", "Immediate")
    elif kind == "PriorityClass":
        doc.setdefault("globalDefault", False)
    elif kind == "MachineHealthCheck":
        # the CRD's kubebuilder defaults (openshift/api machine/v1beta1)
        spec = doc.setdefault("spec", {})
        spec.setdefault("maxUnhealthy", "100%")
        spec.setdefault("nodeStartupTimeout", "10m")
    elif kind == "MachineSet":
        spec = doc.setdefault("spec", {})
        spec.setdefault("replicas", 1)
    if spec is None and "spec" in doc and doc["spec"] is None:
        doc.pop("spec")
    return doc


def _default_pod_spec(spec: dict) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        image = c.get("image") or ""
        tag = image.rsplit("/", 1)[-1]
        c.setdefault("imagePullPolicy", "Always" if ":" not in tag or tag.endswith(":latest") else "IfNotPresent")
        c.setdefault("terminationMessagePath", "/dev/termination-log")
        c.setdefault("terminationMessagePolicy", "File")
        for port in c.get("ports") or []:
            port.setdefault("protocol", "TCP")
        # SetDefaults_Pod: a resource with a limit but no request is requested at its limit.
        resources = c.get("resources")
        if resources and resources.get("limits"):
            requests = resources.setdefault("requests", {})
            for name, amount in resources["limits"].items():
                requests.setdefault(name, amount)


# --- batch/v1 (pkg/apis/batch/v1/defaults.go, pkg/registry/batch/job/strategy.go) -------------------------

# The labels the API server puts on a Job's pod template (and selects by) when it generates the selector.
JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
CONTROLLER_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"


def object_uid(doc: dict) -> str:
    """The uid a document gets where the API server would draw one: its own, or one derived
    from its kind, namespace, name and creation time (the simulator's uids are deterministic,
    so a stored cluster and `simulate` give its pods the same `controller-uid` labels)."""
    meta = doc.setdefault("metadata", {})
    if not meta.get("uid"):
        identity = "/".join(str(part) for part in (doc.get("kind"), meta.get("namespace") or "", meta.get("name") or "",
                                                   meta.get("creationTimestamp", "")))
        meta["uid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, "clusterui.io/" + identity))
    return meta["uid"]


def _default_job_spec(spec: dict) -> None:
    """SetDefaults_Job's part of the spec (a CronJob's jobTemplate gets the pod template's only)."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = 2147483647 if spec.get("backoffLimitPerIndex") is not None else 6
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"


def _generate_selector(doc: dict) -> None:
    """job strategy's generateSelector (PrepareForCreate, unless spec.manualSelector): the
    job-name and controller-uid labels on the template, the selector on the uid."""
    uid = object_uid(doc)
    name = doc["metadata"].get("name") or ""
    spec = doc["spec"]
    template_meta = spec["template"].setdefault("metadata", {})
    labels = template_meta.get("labels")
    if labels is None:
        labels = template_meta["labels"] = {}
    for key in JOB_NAME_LABELS:
        labels.setdefault(key, name)
    for key in CONTROLLER_UID_LABELS:
        labels.setdefault(key, uid)
    selector = spec.get("selector")
    if selector is None:
        selector = spec["selector"] = {}
    match = selector.get("matchLabels")
    if match is None:
        match = selector["matchLabels"] = {}
    match.setdefault(CONTROLLER_UID_LABEL, uid)


def _default_batch(doc: dict) -> None:
    spec = doc.setdefault("spec", {})
    if doc["kind"] == "CronJob":
        spec.setdefault("concurrencyPolicy", "Allow")
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)
        job_spec = spec.setdefault("jobTemplate", {}).setdefault("spec", {})
        _default_pod_spec(job_spec.setdefault("template", {}).setdefault("spec", {}))
        return
    _default_job_spec(spec)
    template = spec.setdefault("template", {})
    _default_pod_spec(template.setdefault("spec", {}))
    if not spec.get("manualSelector"):
        _generate_selector(doc)
    # SetDefaults_Job runs on every read from storage too: a Job without labels shows its
    # template's, the generated ones included
    meta = doc["metadata"]
    labels = (template.get("metadata") or {}).get("labels")
    if labels and not meta.get("labels"):
        meta["labels"] = dict(labels)
