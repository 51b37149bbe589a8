"""Decoding: the JSON types of every field, checked as encoding/json would (the 400
"cannot be handled as a ..." errors), before validation proper.
"""

from __future__ import annotations

import datetime

from scheduling.engine.api import quantity
from scheduling.engine.api.validation.field import (
    as_str,
)


# ==========================================================================
# 4. Decoding: JSON types, as encoding/json would check them
# ==========================================================================
#
# A schema node is one of:
#   ("scalar", kind, go_type)   kind: str, bool, int32, int64, intstr, time, any
#   ("map", value_node, go_type)
#   ("list", item_node, go_type)
#   ("struct", go_type, {json_name: node})
# Fields absent from a schema are ignored, as Go ignores unknown fields.


_GO_SCALAR_TYPES = {"str": "string", "bool": "bool", "int32": "int32", "int64": "int64"}


def _scalar(kind: str, go_type: str = "") -> tuple:
    return ("scalar", kind, go_type or _GO_SCALAR_TYPES.get(kind, ""))


def _struct(go_type: str, **fields) -> tuple:
    return ("struct", go_type, fields)


def _map(node: tuple, go_type: str = "map[string]string") -> tuple:
    return ("map", node, go_type)


def _list(node: tuple, go_type: str) -> tuple:
    return ("list", node, go_type)


# The builders, for decode schemas kept beside the code that reads them (oc's alert data).
scalar_node, struct_node, list_node = _scalar, _struct, _list

_STR = _scalar("str")
_BOOL = _scalar("bool")
_INT32 = _scalar("int32")
_INT64 = _scalar("int64")
_INTSTR = _scalar("intstr", "int32")  # IntOrString falls back to decoding an int32
_TIME = _scalar("time", "string")  # metav1.Time decodes a string first
_ANY = _scalar("any")
_STR_MAP = _map(_STR)
_STR_LIST = _list(_STR, "[]string")
RESOURCE_LIST = _map(_ANY, "v1.ResourceList")  # quantities are checked by validation

_META = _struct(
    "v1.ObjectMeta",
    name=_STR,
    generateName=_STR,
    namespace=_STR,
    selfLink=_STR,
    uid=_STR,
    resourceVersion=_STR,
    generation=_INT64,
    creationTimestamp=_TIME,
    deletionTimestamp=_TIME,
    labels=_STR_MAP,
    annotations=_STR_MAP,
    finalizers=_STR_LIST,
    deletionGracePeriodSeconds=_INT64,
    ownerReferences=_list(
        _struct(
            "v1.OwnerReference",
            apiVersion=_STR,
            kind=_STR,
            name=_STR,
            uid=_scalar("str", "types.UID"),
            controller=_BOOL,
            blockOwnerDeletion=_BOOL,
        ),
        "[]v1.OwnerReference",
    ),
)
_LABEL_SELECTOR = _struct(
    "v1.LabelSelector",
    matchLabels=_STR_MAP,
    matchExpressions=_list(
        _struct(
            "v1.LabelSelectorRequirement",
            key=_STR,
            operator=_scalar("str", "v1.LabelSelectorOperator"),
            values=_STR_LIST,
        ),
        "[]v1.LabelSelectorRequirement",
    ),
)
_TAINT = _struct(
    "v1.Taint", key=_STR, value=_STR, effect=_scalar("str", "v1.TaintEffect"), timeAdded=_TIME
)
_TOLERATION = _struct(
    "v1.Toleration",
    key=_STR,
    operator=_scalar("str", "v1.TolerationOperator"),
    value=_STR,
    effect=_scalar("str", "v1.TaintEffect"),
    tolerationSeconds=_INT64,
)
TAINTS = _list(_TAINT, "[]v1.Taint")
TOLERATIONS = _list(_TOLERATION, "[]v1.Toleration")
_NODE_SELECTOR_REQUIREMENTS = _list(
    _struct(
        "v1.NodeSelectorRequirement",
        key=_STR,
        operator=_scalar("str", "v1.NodeSelectorOperator"),
        values=_STR_LIST,
    ),
    "[]v1.NodeSelectorRequirement",
)
_NODE_SELECTOR_TERM = _struct(
    "v1.NodeSelectorTerm", matchExpressions=_NODE_SELECTOR_REQUIREMENTS, matchFields=_NODE_SELECTOR_REQUIREMENTS
)
_NODE_SELECTOR = _struct("v1.NodeSelector", nodeSelectorTerms=_list(_NODE_SELECTOR_TERM, "[]v1.NodeSelectorTerm"))
_POD_AFFINITY_TERM = _struct(
    "v1.PodAffinityTerm", labelSelector=_LABEL_SELECTOR, namespaces=_STR_LIST, topologyKey=_STR
)
_WEIGHTED_POD_AFFINITY_TERM = _struct("v1.WeightedPodAffinityTerm", weight=_INT32, podAffinityTerm=_POD_AFFINITY_TERM)


def _pod_affinity_schema(go_type: str) -> tuple:
    return _struct(
        go_type,
        requiredDuringSchedulingIgnoredDuringExecution=_list(_POD_AFFINITY_TERM, "[]v1.PodAffinityTerm"),
        preferredDuringSchedulingIgnoredDuringExecution=_list(
            _WEIGHTED_POD_AFFINITY_TERM, "[]v1.WeightedPodAffinityTerm"
        ),
    )


_AFFINITY = _struct(
    "v1.Affinity",
    nodeAffinity=_struct(
        "v1.NodeAffinity",
        requiredDuringSchedulingIgnoredDuringExecution=_NODE_SELECTOR,
        preferredDuringSchedulingIgnoredDuringExecution=_list(
            _struct("v1.PreferredSchedulingTerm", weight=_INT32, preference=_NODE_SELECTOR_TERM),
            "[]v1.PreferredSchedulingTerm",
        ),
    ),
    podAffinity=_pod_affinity_schema("v1.PodAffinity"),
    podAntiAffinity=_pod_affinity_schema("v1.PodAntiAffinity"),
)
_RESOURCES = _struct("v1.ResourceRequirements", limits=RESOURCE_LIST, requests=RESOURCE_LIST)
_CONTAINER = _struct(
    "v1.Container",
    name=_STR,
    image=_STR,
    imagePullPolicy=_scalar("str", "v1.PullPolicy"),
    terminationMessagePolicy=_scalar("str", "v1.TerminationMessagePolicy"),
    resources=_RESOURCES,
    ports=_list(
        _struct(
            "v1.ContainerPort",
            name=_STR,
            hostPort=_INT32,
            containerPort=_INT32,
            protocol=_scalar("str", "v1.Protocol"),
            hostIP=_STR,
        ),
        "[]v1.ContainerPort",
    ),
)
_VOLUME = _struct(
    "v1.Volume",
    name=_STR,
    persistentVolumeClaim=_struct("v1.PersistentVolumeClaimVolumeSource", claimName=_STR, readOnly=_BOOL),
    hostPath=_struct("v1.HostPathVolumeSource", path=_STR),
    gcePersistentDisk=_struct(
        "v1.GCEPersistentDiskVolumeSource", pdName=_STR, fsType=_STR, partition=_INT32, readOnly=_BOOL
    ),
    awsElasticBlockStore=_struct(
        "v1.AWSElasticBlockStoreVolumeSource", volumeID=_STR, fsType=_STR, partition=_INT32, readOnly=_BOOL
    ),
    rbd=_struct("v1.RBDVolumeSource", monitors=_STR_LIST, image=_STR, pool=_STR, readOnly=_BOOL),
    iscsi=_struct("v1.ISCSIVolumeSource", targetPortal=_STR, iqn=_STR, lun=_INT32, readOnly=_BOOL),
    azureDisk=_struct("v1.AzureDiskVolumeSource", diskName=_STR, diskURI=_STR),
)
_CONDITION_FIELDS = dict(
    status=_scalar("str", "v1.ConditionStatus"),
    reason=_STR,
    message=_STR,
    lastTransitionTime=_TIME,
)
_CONTAINER_STATE = _struct(
    "v1.ContainerState",
    waiting=_struct("v1.ContainerStateWaiting", reason=_STR, message=_STR),
    running=_struct("v1.ContainerStateRunning", startedAt=_TIME),
    terminated=_struct(
        "v1.ContainerStateTerminated", exitCode=_INT32, signal=_INT32, reason=_STR, message=_STR,
        startedAt=_TIME, finishedAt=_TIME, containerID=_STR,
    ),
)
_CONTAINER_STATUSES = _list(
    _struct(
        "v1.ContainerStatus", name=_STR, state=_CONTAINER_STATE, lastState=_CONTAINER_STATE, ready=_BOOL,
        restartCount=_INT32, image=_STR, imageID=_STR, containerID=_STR, started=_BOOL,
    ),
    "[]v1.ContainerStatus",
)
_POD_STATUS = _struct(
    "v1.PodStatus",
    phase=_scalar("str", "v1.PodPhase"),
    conditions=_list(
        _struct("v1.PodCondition", type=_scalar("str", "v1.PodConditionType"), lastProbeTime=_TIME, **_CONDITION_FIELDS),
        "[]v1.PodCondition",
    ),
    message=_STR,
    reason=_STR,
    nominatedNodeName=_STR,
    hostIP=_STR,
    podIP=_STR,
    startTime=_TIME,
    qosClass=_scalar("str", "v1.PodQOSClass"),
    podIPs=_list(_struct("v1.PodIP", ip=_STR), "[]v1.PodIP"),
    containerStatuses=_CONTAINER_STATUSES,
    initContainerStatuses=_CONTAINER_STATUSES,
)
_NODE_STATUS = _struct(
    "v1.NodeStatus",
    capacity=RESOURCE_LIST,
    allocatable=RESOURCE_LIST,
    phase=_scalar("str", "v1.NodePhase"),
    conditions=_list(
        _struct(
            "v1.NodeCondition", type=_scalar("str", "v1.NodeConditionType"), lastHeartbeatTime=_TIME, **_CONDITION_FIELDS
        ),
        "[]v1.NodeCondition",
    ),
    addresses=_list(
        _struct("v1.NodeAddress", type=_scalar("str", "v1.NodeAddressType"), address=_STR), "[]v1.NodeAddress"
    ),
    images=_list(_struct("v1.ContainerImage", names=_STR_LIST, sizeBytes=_INT64), "[]v1.ContainerImage"),
    nodeInfo=_struct(
        "v1.NodeSystemInfo",
        **{name: _STR for name in ("machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                   "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
                                   "operatingSystem", "architecture")},
    ),
)
_WORKLOAD_STATUS_COUNTS = (
    "replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "currentReplicas", "fullyLabeledReplicas",
)
_DAEMON_SET_STATUS_COUNTS = (
    "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "updatedNumberScheduled",
    "numberAvailable", "numberUnavailable",
)
_POD_SPEC = _struct(
    "v1.PodSpec",
    volumes=_list(_VOLUME, "[]v1.Volume"),
    containers=_list(_CONTAINER, "[]v1.Container"),
    initContainers=_list(_CONTAINER, "[]v1.Container"),
    restartPolicy=_scalar("str", "v1.RestartPolicy"),
    terminationGracePeriodSeconds=_INT64,
    activeDeadlineSeconds=_INT64,
    dnsPolicy=_scalar("str", "v1.DNSPolicy"),
    nodeSelector=_STR_MAP,
    serviceAccountName=_STR,
    nodeName=_STR,
    hostNetwork=_BOOL,
    hostname=_STR,
    subdomain=_STR,
    affinity=_AFFINITY,
    schedulerName=_STR,
    tolerations=TOLERATIONS,
    priorityClassName=_STR,
    priority=_INT32,
    preemptionPolicy=_scalar("str", "v1.PreemptionPolicy"),
    readinessGates=_list(
        _struct("v1.PodReadinessGate", conditionType=_scalar("str", "v1.PodConditionType")), "[]v1.PodReadinessGate"
    ),
)
_POD_TEMPLATE = _struct("v1.PodTemplateSpec", metadata=_META, spec=_POD_SPEC)


def _top(go_type: str, **fields) -> tuple:
    return _struct(go_type, apiVersion=_STR, kind=_STR, metadata=_META, **fields)


def metadata_schema(kind: str, pkg: str) -> tuple:
    """The decode schema of a kind known only by its ObjectMeta (the rest is not read here)."""
    return _top(f"{pkg}.{kind}")


def schema_for(kind: str, pkg: str) -> tuple:
    """The decode schema of a kind; ``pkg`` is the Go package name (the version)."""
    if kind == "Pod":
        return _top("v1.Pod", spec=_POD_SPEC, status=_POD_STATUS)
    if kind == "Node":
        return _top(
            "v1.Node",
            spec=_struct(
                "v1.NodeSpec", podCIDR=_STR, podCIDRs=_STR_LIST, providerID=_STR, unschedulable=_BOOL, taints=TAINTS
            ),
            status=_NODE_STATUS,
        )
    if kind == "Namespace":
        return _top("v1.Namespace")
    if kind == "PriorityClass":
        return _top(
            f"{pkg}.PriorityClass", value=_INT32, globalDefault=_BOOL, description=_STR,
            preemptionPolicy=_scalar("str", "v1.PreemptionPolicy"),
        )
    if kind == "Service":
        return _top(
            "v1.Service",
            spec=_struct(
                "v1.ServiceSpec",
                ports=_list(
                    _struct(
                        "v1.ServicePort",
                        name=_STR,
                        protocol=_scalar("str", "v1.Protocol"),
                        port=_INT32,
                        targetPort=_INTSTR,
                        nodePort=_INT32,
                    ),
                    "[]v1.ServicePort",
                ),
                selector=_STR_MAP,
                clusterIP=_STR,
                type=_scalar("str", "v1.ServiceType"),
                sessionAffinity=_scalar("str", "v1.ServiceAffinity"),
                externalName=_STR,
                externalIPs=_STR_LIST,
            ),
        )
    if kind == "ReplicationController":
        return _top(
            "v1.ReplicationController",
            spec=_struct(
                "v1.ReplicationControllerSpec",
                replicas=_INT32,
                minReadySeconds=_INT32,
                selector=_STR_MAP,
                template=_POD_TEMPLATE,
            ),
        )
    if kind in ("ReplicaSet", "Deployment", "StatefulSet", "DaemonSet"):
        fields = dict(
            replicas=_INT32,
            minReadySeconds=_INT32,
            revisionHistoryLimit=_INT32,
            selector=_LABEL_SELECTOR,
            template=_POD_TEMPLATE,
        )
        if kind == "Deployment":
            fields.update(
                progressDeadlineSeconds=_INT32,
                paused=_BOOL,
                strategy=_struct(
                    f"{pkg}.DeploymentStrategy",
                    type=_scalar("str", f"{pkg}.DeploymentStrategyType"),
                    rollingUpdate=_struct(
                        f"{pkg}.RollingUpdateDeployment", maxUnavailable=_INTSTR, maxSurge=_INTSTR
                    ),
                ),
            )
        elif kind == "StatefulSet":
            fields.update(
                serviceName=_STR,
                podManagementPolicy=_scalar("str", f"{pkg}.PodManagementPolicyType"),
                updateStrategy=_struct(
                    f"{pkg}.StatefulSetUpdateStrategy",
                    type=_scalar("str", f"{pkg}.StatefulSetUpdateStrategyType"),
                    rollingUpdate=_struct(f"{pkg}.RollingUpdateStatefulSetStrategy", partition=_INT32),
                ),
            )
        elif kind == "DaemonSet":
            fields.update(
                templateGeneration=_INT64,
                updateStrategy=_struct(
                    f"{pkg}.DaemonSetUpdateStrategy",
                    type=_scalar("str", f"{pkg}.DaemonSetUpdateStrategyType"),
                    rollingUpdate=_struct(f"{pkg}.RollingUpdateDaemonSet", maxUnavailable=_INTSTR),
                ),
            )
        counts = _DAEMON_SET_STATUS_COUNTS if kind == "DaemonSet" else _WORKLOAD_STATUS_COUNTS
        status = _struct(
            f"{pkg}.{kind}Status",
            observedGeneration=_INT64,
            collisionCount=_INT32,
            conditions=_list(
                _struct(
                    f"{pkg}.{kind}Condition", type=_scalar("str", f"{pkg}.{kind}ConditionType"),
                    lastUpdateTime=_TIME, **_CONDITION_FIELDS,
                ),
                f"[]{pkg}.{kind}Condition",
            ),
            **{name: _INT32 for name in counts},
        )
        return _top(f"{pkg}.{kind}", spec=_struct(f"{pkg}.{kind}Spec", **fields), status=status)
    if kind == "PodDisruptionBudget":
        return _top(
            f"{pkg}.PodDisruptionBudget",
            spec=_struct(
                f"{pkg}.PodDisruptionBudgetSpec",
                minAvailable=_INTSTR,
                maxUnavailable=_INTSTR,
                selector=_LABEL_SELECTOR,
            ),
            status=_struct(
                f"{pkg}.PodDisruptionBudgetStatus",
                observedGeneration=_INT64,
                disruptedPods=_map(_TIME, "map[string]v1.Time"),
                disruptionsAllowed=_INT32,
                podDisruptionsAllowed=_INT32,
                currentHealthy=_INT32,
                desiredHealthy=_INT32,
                expectedPods=_INT32,
            ),
        )
    if kind == "PersistentVolume":
        return _top(
            "v1.PersistentVolume",
            spec=_struct(
                "v1.PersistentVolumeSpec",
                capacity=RESOURCE_LIST,
                accessModes=_list(_scalar("str", "v1.PersistentVolumeAccessMode"), "[]v1.PersistentVolumeAccessMode"),
                persistentVolumeReclaimPolicy=_scalar("str", "v1.PersistentVolumeReclaimPolicy"),
                storageClassName=_STR,
                volumeMode=_scalar("str", "v1.PersistentVolumeMode"),
                nodeAffinity=_struct("v1.VolumeNodeAffinity", required=_NODE_SELECTOR),
                hostPath=_struct("v1.HostPathVolumeSource", path=_STR),
                local=_struct("v1.LocalVolumeSource", path=_STR),
                nfs=_struct("v1.NFSVolumeSource", server=_STR, path=_STR),
                claimRef=_struct(
                    "v1.ObjectReference",
                    kind=_STR,
                    namespace=_STR,
                    name=_STR,
                    uid=_scalar("str", "types.UID"),
                    apiVersion=_STR,
                    resourceVersion=_STR,
                ),
            ),
            status=_struct("v1.PersistentVolumeStatus", phase=_scalar("str", "v1.PersistentVolumePhase")),
        )
    if kind == "PersistentVolumeClaim":
        return _top(
            "v1.PersistentVolumeClaim",
            spec=_struct(
                "v1.PersistentVolumeClaimSpec",
                accessModes=_list(_scalar("str", "v1.PersistentVolumeAccessMode"), "[]v1.PersistentVolumeAccessMode"),
                selector=_LABEL_SELECTOR,
                resources=_RESOURCES,
                volumeName=_STR,
                storageClassName=_STR,
                volumeMode=_scalar("str", "v1.PersistentVolumeMode"),
            ),
            status=_struct("v1.PersistentVolumeClaimStatus", phase=_scalar("str", "v1.PersistentVolumeClaimPhase")),
        )
    if kind == "StorageClass":
        return _top(
            f"{pkg}.StorageClass",
            provisioner=_STR,
            parameters=_STR_MAP,
            reclaimPolicy=_scalar("str", "v1.PersistentVolumeReclaimPolicy"),
            mountOptions=_STR_LIST,
            allowVolumeExpansion=_BOOL,
            volumeBindingMode=_scalar("str", f"{pkg}.VolumeBindingMode"),
        )
    if kind in ("Job", "CronJob"):
        return _batch_schema(kind, pkg)
    if kind == "Event":  # core/v1 Event: the fields `oc describe` reads
        return _top(
            "v1.Event",
            involvedObject=_struct(
                "v1.ObjectReference", kind=_STR, namespace=_STR, name=_STR, uid=_scalar("str", "types.UID"),
                apiVersion=_STR, resourceVersion=_STR, fieldPath=_STR,
            ),
            reason=_STR,
            message=_STR,
            source=_struct("v1.EventSource", component=_STR, host=_STR),
            firstTimestamp=_TIME,
            lastTimestamp=_TIME,
            count=_INT32,
            type=_STR,
            eventTime=_scalar("time", "string"),
            reportingComponent=_STR,
            reportingInstance=_STR,
        )
    raise KeyError(kind)


def _batch_schema(kind: str, pkg: str) -> tuple:
    """batch/v1 Job and CronJob: the fields the simulator reads."""
    job_spec = _struct(
        f"{pkg}.JobSpec", parallelism=_INT32, completions=_INT32, activeDeadlineSeconds=_INT64, backoffLimit=_INT32,
        ttlSecondsAfterFinished=_INT32, completionMode=_scalar("str", f"{pkg}.CompletionMode"), suspend=_BOOL,
        manualSelector=_BOOL, selector=_LABEL_SELECTOR, template=_POD_TEMPLATE,
        podReplacementPolicy=_scalar("str", f"{pkg}.PodReplacementPolicy"),
    )
    if kind == "Job":
        status = _struct(
            f"{pkg}.JobStatus", active=_INT32, succeeded=_INT32, failed=_INT32, ready=_INT32, terminating=_INT32,
            startTime=_TIME, completionTime=_TIME,
            conditions=_list(_struct(f"{pkg}.JobCondition", type=_scalar("str", f"{pkg}.JobConditionType"),
                                     lastProbeTime=_TIME, **_CONDITION_FIELDS), f"[]{pkg}.JobCondition"),
        )
        return _top(f"{pkg}.Job", spec=job_spec, status=status)
    spec = _struct(
        f"{pkg}.CronJobSpec", schedule=_STR, timeZone=_STR, startingDeadlineSeconds=_INT64,
        concurrencyPolicy=_scalar("str", f"{pkg}.ConcurrencyPolicy"), suspend=_BOOL,
        successfulJobsHistoryLimit=_INT32, failedJobsHistoryLimit=_INT32,
        jobTemplate=_struct(f"{pkg}.JobTemplateSpec", metadata=_META, spec=job_spec),
    )
    status = _struct(f"{pkg}.CronJobStatus", lastScheduleTime=_TIME, lastSuccessfulTime=_TIME)
    return _top(f"{pkg}.CronJob", spec=spec, status=status)


def _json_kind(value: object) -> str:
    """The JSON value kind Go names in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (str, datetime.date)):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class Decoder:
    """Walks a document in order; keeps Go's first type error."""

    def __init__(self) -> None:
        self.error: tuple[str, str] | None = None  # (json path, message)
        self.needs_normalizing = False
        self.has_null_items = False

    def fail(self, value: object, go_type: str, struct: str, stack: list[str], literal: str = "") -> None:
        if self.error is not None:
            return
        got = _json_kind(value) + (f" {literal}" if literal else "")
        path = ".".join(stack)
        if struct or stack:
            msg = f"json: cannot unmarshal {got} into Go struct field {struct}.{path} of type {go_type}"
        else:
            msg = f"json: cannot unmarshal {got} into Go value of type {go_type}"
        self.error = (path, msg)

    def walk(self, value: object, node: tuple, struct: str, stack: list[str]) -> None:
        if value is None or self.error is not None:
            return  # JSON null leaves the zero value; only the first error counts
        shape = node[0]
        if shape == "struct":
            if not isinstance(value, dict):
                self.fail(value, node[1], struct, stack)
                return
            name = node[1].rpartition(".")[2]
            fields = node[2]
            for key, item in value.items():
                if not isinstance(key, str):
                    self.needs_normalizing = True
                child = fields.get(key)
                if child is not None and item is None:
                    self.has_null_items = True  # dropped: Go leaves the field as if absent
                elif child is not None:
                    stack.append(key)
                    self.walk(item, child, name, stack)
                    stack.pop()
        elif shape == "map":
            if not isinstance(value, dict):
                self.fail(value, node[2], struct, stack)
                return
            for key, item in value.items():
                if not isinstance(key, str):
                    self.needs_normalizing = True
                if item is None:
                    self.has_null_items = True
                self.walk(item, node[1], struct, stack)
        elif shape == "list":
            if not isinstance(value, list):
                self.fail(value, node[2], struct, stack)
                return
            for item in value:
                if item is None:
                    self.has_null_items = True
                self.walk(item, node[1], struct, stack)
        else:
            self.scalar(value, node[1], node[2], struct, stack)

    def scalar(self, value: object, kind: str, go_type: str, struct: str, stack: list[str]) -> None:
        if kind == "any":
            return
        if kind == "time" and isinstance(value, (int, float)) and not isinstance(value, bool):
            # clusterui keeps times on the simulated clock as numbers of seconds
            # (deletionTimestamp, timeAdded, ...): accepted beside RFC 3339 strings.
            return
        if kind in ("str", "time"):
            if isinstance(value, datetime.date):
                # PyYAML turns an unquoted 2018-01-01 into a date; kubectl's YAML
                # library keeps it a string.
                self.needs_normalizing = True
            elif not isinstance(value, str):
                self.fail(value, go_type, struct, stack)
        elif kind == "bool":
            if not isinstance(value, bool):
                self.fail(value, go_type, struct, stack)
        elif kind == "intstr" and isinstance(value, str):
            return
        else:  # int32, int64, intstr
            bits = 64 if kind == "int64" else 32
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(value, go_type, struct, stack)
                return
            if isinstance(value, float):
                if not value.is_integer():
                    self.fail(value, go_type, struct, stack, quantity.go_json_number(value))
                    return
                literal = quantity.go_json_number(value)
                value = int(value)
            else:
                literal = str(value)
            if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
                self.fail(value, go_type, struct, stack, literal)


_ZERO_SCALARS = {"str": "", "time": "", "bool": False, "int32": 0, "int64": 0}


def _zero_value(node: tuple) -> object:
    """What Go leaves for a JSON null inside a list or map: the element type's zero value."""
    if node[0] in ("struct", "map"):
        return {}
    if node[0] == "list":
        return []
    return _ZERO_SCALARS.get(node[1])


def zero_nulls(value: object, node: tuple) -> object:
    """A copy where null items of typed lists and maps hold their zero value
    (``containers: [null]`` decodes to one empty Container in Go) and null fields of
    structs are gone (``template: {spec: null}`` leaves the zero PodSpec, as if absent)."""
    shape = node[0]
    if shape == "struct" and isinstance(value, dict):
        fields = node[2]
        return {
            k: (zero_nulls(v, fields[k]) if k in fields else v)
            for k, v in value.items() if not (v is None and k in fields)
        }
    if shape == "map" and isinstance(value, dict):
        return {k: (_zero_value(node[1]) if v is None else zero_nulls(v, node[1])) for k, v in value.items()}
    if shape == "list" and isinstance(value, list):
        return [_zero_value(node[1]) if v is None else zero_nulls(v, node[1]) for v in value]
    return value


def normalize(value: object) -> object:
    """Make a PyYAML document look like the JSON kubectl would send: dates
    become strings and non-string map keys become strings."""
    if isinstance(value, dict):
        return {as_str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, datetime.date):
        return as_str(value)
    return value
