"""The engine's view of Kubernetes objects: frozen dataclasses built from documents.

Only what the controllers and the scheduler read is kept; the stored document stays
the source of truth (export, the UI's YAML). Documents are expected to be valid
(`engine.api.validation`) before they are turned into objects here.

Resource amounts follow Kubernetes' internal units: cpu in millicores
(`Quantity.MilliValue()`), every other resource in whole units (`Quantity.Value()`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Mapping

from scheduling.engine.api import selectors
from scheduling.engine.api.quantity import parse_quantity, stored_milli_value, stored_value


def _frozen(cls, values: dict):
    """What `cls(**values)` makes for a frozen dataclass given every one of its fields, without
    the checked setattr its __init__ makes per field (documents become thousands of these)."""
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj

# --- taints and tolerations -------------------------------------------------------

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
TAINT_EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)


@dataclass(frozen=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""
    time_added: float | None = None  # simulated seconds, NoExecute taints only

    def __str__(self) -> str:
        # Taint.ToString(): key=value:effect, key=value:, key:effect or key
        if not self.value and not self.effect:
            return self.key
        if not self.value:
            return f"{self.key}:{self.effect}"
        return f"{self.key}={self.value}:{self.effect}"

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Taint":
        return cls(
            key=doc.get("key") or "",
            value=doc.get("value") or "",
            effect=doc.get("effect") or "",
            time_added=doc.get("timeAdded"),
        )

    def to_doc(self) -> dict:
        doc = {"key": self.key, "effect": self.effect}
        if self.value:
            doc["value"] = self.value
        return doc


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = ""  # "" means Equal
    value: str = ""
    effect: str = ""  # "" matches every effect
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """`Toleration.ToleratesTaint` from k8s.io/api core/v1 toleration.go."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        # An empty key with Exists matches every key (validation forbids empty key with Equal).
        if self.operator == "Exists":
            return True
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return False

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Toleration":
        """The toleration a document holds; the same document text gives the same (frozen)
        object, remembered (every pod of a template carries the same few)."""
        try:
            key = tuple(doc.items())
            hit = _TOLERATIONS.get(key)
        except TypeError:  # a value that is not hashable: not remembered
            return cls._from_doc(doc)
        if hit is None:
            if len(_TOLERATIONS) >= _TOLERATIONS_MAX:
                _TOLERATIONS.clear()
            hit = _TOLERATIONS[key] = cls._from_doc(doc)
        return hit

    @classmethod
    def _from_doc(cls, doc: Mapping[str, Any]) -> "Toleration":
        seconds = doc.get("tolerationSeconds")
        return _frozen(cls, {
            "key": doc.get("key") or "",
            "operator": doc.get("operator") or "",
            "value": doc.get("value") or "",
            "effect": doc.get("effect") or "",
            "toleration_seconds": int(seconds) if seconds is not None else None,
        })


_TOLERATIONS: dict = {}  # a toleration document's items -> its Toleration
_TOLERATIONS_MAX = 4096


def tolerations_tolerate_taint(tolerations, taint: Taint) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def untolerated_taints(tolerations, taints, effects=None) -> list[Taint]:
    """Taints (optionally only those with the given effects) no toleration matches."""
    return [
        t
        for t in taints
        if (effects is None or t.effect in effects) and not tolerations_tolerate_taint(tolerations, t)
    ]


# --- label selection ----------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """A NodeSelectorRequirement or a LabelSelectorRequirement."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Requirement":
        return cls(doc.get("key") or "", doc.get("operator") or "", tuple(str(v) for v in doc.get("values") or ()))


@dataclass(frozen=True)
class LabelSelector:
    """metav1.LabelSelector. `None` (no selector) and an empty selector differ:
    callers decide; `matches` here treats an empty selector as matching everything."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[Requirement, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> "LabelSelector | None":
        if doc is None:
            return None
        return cls(
            tuple(sorted((k, str(v)) for k, v in (doc.get("matchLabels") or {}).items())),
            tuple(Requirement.from_doc(r) for r in doc.get("matchExpressions") or ()),
        )

    @classmethod
    def from_map(cls, labels: Mapping[str, str] | None) -> "LabelSelector | None":
        """A plain `selector: {k: v}` map (ReplicationController, Service)."""
        if labels is None:
            return None
        return cls(tuple(sorted((k, str(v)) for k, v in labels.items())))

    @property
    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Every matchLabels pair and matchExpression holds, as labels.Requirement.Matches
        (engine.api.selectors, the one matcher) decides; no validation (the stored selector
        was validated on create): an unknown operator matches nothing."""
        for k, v in self.match_labels:
            if labels.get(k) != v:
                return False
        return all(
            selectors.Requirement(r.key, selectors.NODE_SELECTOR_OPERATORS.get(r.operator, ""), r.values).matches(labels)
            for r in self.match_expressions
        )


# --- affinity -------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeSelectorTerm:
    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> "NodeSelectorTerm":
        doc = doc or {}
        return cls(
            tuple(Requirement.from_doc(r) for r in doc.get("matchExpressions") or ()),
            tuple(Requirement.from_doc(r) for r in doc.get("matchFields") or ()),
        )


@dataclass(frozen=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(frozen=True)
class NodeAffinity:
    # None: the pod has no required node affinity; (): present but empty (matches nothing).
    required: tuple[NodeSelectorTerm, ...] | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> "NodeAffinity | None":
        if doc is None:
            return None
        req = doc.get("requiredDuringSchedulingIgnoredDuringExecution")
        required = None
        if req is not None:
            required = tuple(NodeSelectorTerm.from_doc(t) for t in req.get("nodeSelectorTerms") or ())
        preferred = tuple(
            PreferredSchedulingTerm(int(p.get("weight") or 0), NodeSelectorTerm.from_doc(p.get("preference")))
            for p in doc.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        )
        return cls(required, preferred)


@dataclass(frozen=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    namespaces: tuple[str, ...] = ()  # empty (and no namespaceSelector): the pod's own namespace
    topology_key: str = ""
    # Read by the framework scheduler only (the 1.11 scheduler predates them).
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "PodAffinityTerm":
        return cls(
            LabelSelector.from_doc(doc.get("labelSelector")),
            tuple(doc.get("namespaces") or ()),
            doc.get("topologyKey") or "",
            LabelSelector.from_doc(doc.get("namespaceSelector")),
            tuple(doc.get("matchLabelKeys") or ()),
            tuple(doc.get("mismatchLabelKeys") or ()),
        )


@dataclass(frozen=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True)
class PodAffinity:
    """Used for both podAffinity and podAntiAffinity."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> "PodAffinity | None":
        if doc is None:
            return None
        return cls(
            tuple(PodAffinityTerm.from_doc(t) for t in doc.get("requiredDuringSchedulingIgnoredDuringExecution") or ()),
            tuple(
                WeightedPodAffinityTerm(int(w.get("weight") or 0), PodAffinityTerm.from_doc(w.get("podAffinityTerm") or {}))
                for w in doc.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
            ),
        )


@dataclass(frozen=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> "Affinity | None":
        if not doc:
            return None
        return cls(
            NodeAffinity.from_doc(doc.get("nodeAffinity")),
            PodAffinity.from_doc(doc.get("podAffinity")),
            PodAffinity.from_doc(doc.get("podAntiAffinity")),
        )


@dataclass(frozen=True)
class TopologySpreadConstraint:
    """core/v1 TopologySpreadConstraint, with the API server's defaults (nodeAffinityPolicy
    Honor, nodeTaintsPolicy Ignore when unset: the scheduler reads nil as those)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"
    match_label_keys: tuple[str, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "TopologySpreadConstraint":
        min_domains = doc.get("minDomains")
        return cls(
            int(doc.get("maxSkew") or 0),
            doc.get("topologyKey") or "",
            doc.get("whenUnsatisfiable") or "",
            LabelSelector.from_doc(doc.get("labelSelector")),
            None if min_domains is None else int(min_domains),
            doc.get("nodeAffinityPolicy") or "Honor",
            doc.get("nodeTaintsPolicy") or "Ignore",
            tuple(doc.get("matchLabelKeys") or ()),
        )


# --- resources ------------------------------------------------------------------------

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"


@dataclass
class Resource:
    """schedulercache.Resource: cpu in millicores, the rest in units."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pods: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, amounts: Mapping[str, Any] | None) -> "Resource":
        r = cls()
        r.add_list(amounts)
        return r

    def add_list(self, amounts: Mapping[str, Any] | None) -> None:
        for name, q in (amounts or {}).items():
            if name == CPU:
                self.milli_cpu += stored_milli_value(q)
            elif name == MEMORY:
                self.memory += stored_value(q)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += stored_value(q)
            elif name == PODS:
                self.allowed_pods += stored_value(q)
            else:
                self.scalar[name] = self.scalar.get(name, 0) + stored_value(q)

    def add(self, other: "Resource") -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.allowed_pods += other.allowed_pods
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + v

    def sub(self, other: "Resource") -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pods -= other.allowed_pods
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) - v

    def set_max(self, other: "Resource") -> None:
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        self.ephemeral_storage = max(self.ephemeral_storage, other.ephemeral_storage)
        for k, v in other.scalar.items():
            self.scalar[k] = max(self.scalar.get(k, 0), v)

    def copy(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pods, dict(self.scalar))


@dataclass(frozen=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True)
class Container:
    name: str
    image: str = ""
    requests: Mapping[str, Any] = field(default_factory=dict)  # raw quantities as written
    limits: Mapping[str, Any] = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Container":
        res = doc.get("resources") or {}
        return _frozen(cls, {
            "name": doc.get("name") or "",
            "image": doc.get("image") or "",
            "requests": dict(res.get("requests") or {}),
            "limits": dict(res.get("limits") or {}),
            "ports": tuple(
                ContainerPort(
                    int(p.get("containerPort") or 0),
                    int(p.get("hostPort") or 0),
                    p.get("protocol") or "TCP",
                    p.get("hostIP") or "",
                )
                for p in doc.get("ports") or ()
            ),
        })


# --- owner references ----------------------------------------------------------------------


@dataclass(frozen=True)
class OwnerReference:
    kind: str
    name: str
    uid: str = ""
    controller: bool = False


def _owner_refs(meta: Mapping[str, Any]) -> tuple[OwnerReference, ...]:
    return tuple(
        _frozen(OwnerReference, {"kind": o.get("kind") or "", "name": o.get("name") or "", "uid": o.get("uid") or "",
                                 "controller": bool(o.get("controller"))})
        for o in meta.get("ownerReferences") or ()
    )


# --- pods -------------------------------------------------------------------------------------


def qos_class(containers: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> str:
    """BestEffort, Burstable or Guaranteed (pkg/apis/core/helper/qos) of a pod whose
    containers (init containers first) have these (requests, limits)."""
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    for container_requests, container_limits in containers:
        for name in (CPU, MEMORY):
            req, lim = container_requests.get(name), container_limits.get(name)
            if req is not None and parse_quantity(req) != 0:
                requests[name] = req
            if lim is not None and parse_quantity(lim) != 0:
                limits[name] = lim
        for name in (CPU, MEMORY):
            lim = container_limits.get(name)
            req = container_requests.get(name, lim)
            if lim is None or parse_quantity(lim) == 0 or req is None or parse_quantity(req) != parse_quantity(lim):
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def pod_qos_class(doc: Mapping[str, Any]) -> str:
    """`Pod.from_doc(doc).qos_class`, read from the document alone."""
    spec = doc.get("spec") or {}
    return qos_class(
        (dict(res.get("requests") or {}), dict(res.get("limits") or {}))
        for c in (*(spec.get("initContainers") or ()), *(spec.get("containers") or ()))
        for res in (c.get("resources") or {},)
    )



DEFAULT_SCHEDULER = "default-scheduler"
DEFAULT_MILLI_CPU_REQUEST = 100  # priorities/util/non_zero.go: 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MB


@dataclass(frozen=True)
class Pod:
    name: str
    namespace: str = "default"
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner_references: tuple[OwnerReference, ...] = ()
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    volumes: tuple[Mapping[str, Any], ...] = ()  # raw volume documents
    node_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER
    priority: int = 0
    priority_class_name: str = ""
    host_network: bool = False
    termination_grace_period_seconds: int = 30
    phase: str = "Pending"
    deletion_timestamp: float | None = None  # simulated seconds; set while terminating
    nominated_node_name: str = ""
    # Read by the framework scheduler only (the 1.11 scheduler predates them).
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    preemption_policy: str = "PreemptLowerPriority"  # PreemptLowerPriority | Never
    overhead: Mapping[str, Any] = field(default_factory=dict)  # spec.overhead, raw quantities
    start_time: Any = None  # status.startTime as written (preemption orders victims by it)

    @cached_property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @cached_property
    def label_set(self) -> tuple[str, frozenset]:
        """(namespace, the labels as a set): what groups pods for selector counts."""
        return self.namespace, frozenset(self.labels.items())

    @cached_property
    def controller_ref(self) -> OwnerReference | None:
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None

    @cached_property
    def request(self) -> Resource:
        """What PodFitsResources asks for: per resource, max(sum(containers), max(init))."""
        total = Resource()
        for c in self.containers:
            total.add_list(c.requests)
        for c in self.init_containers:
            total.set_max(Resource.from_list(c.requests))
        return total

    @cached_property
    def container_request(self) -> Resource:
        """Sum over regular containers only: what a pod adds to its node's requested amount."""
        total = Resource()
        for c in self.containers:
            total.add_list(c.requests)
        return total

    @cached_property
    def non_zero_request(self) -> tuple[int, int]:
        """(milli cpu, memory) as priorities count them: unset requests get defaults."""
        cpu = mem = 0
        for c in self.containers:
            r = c.requests
            cpu += stored_milli_value(r[CPU]) if CPU in r else DEFAULT_MILLI_CPU_REQUEST
            mem += stored_value(r[MEMORY]) if MEMORY in r else DEFAULT_MEMORY_REQUEST
        return cpu, mem

    @cached_property
    def host_ports(self) -> tuple[ContainerPort, ...]:
        return tuple(p for c in self.containers for p in c.ports if p.host_port > 0)

    @cached_property
    def qos_class(self) -> str:
        """BestEffort, Burstable or Guaranteed (pkg/apis/core/helper/qos)."""
        return qos_class((c.requests, c.limits) for c in self.init_containers + self.containers)

    @property
    def is_terminating(self) -> bool:
        return self.deletion_timestamp is not None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Pod":
        meta = doc.get("metadata") or {}
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}
        priority = spec.get("priority")
        return _frozen(cls, {
            "name": meta.get("name") or "",
            "namespace": meta.get("namespace") or "default",
            "uid": meta.get("uid") or "",
            "labels": dict(meta.get("labels") or {}),
            "annotations": dict(meta.get("annotations") or {}),
            "owner_references": _owner_refs(meta),
            "containers": tuple(Container.from_doc(c) for c in spec.get("containers") or ()),
            "init_containers": tuple(Container.from_doc(c) for c in spec.get("initContainers") or ()),
            "node_selector": dict(spec.get("nodeSelector") or {}),
            "affinity": Affinity.from_doc(spec.get("affinity")),
            "tolerations": tuple(Toleration.from_doc(t) for t in spec.get("tolerations") or ()),
            "volumes": tuple(spec.get("volumes") or ()),
            "node_name": spec.get("nodeName") or "",
            "scheduler_name": spec.get("schedulerName") or DEFAULT_SCHEDULER,
            "priority": int(priority) if priority is not None else 0,
            "priority_class_name": spec.get("priorityClassName") or "",
            "host_network": bool(spec.get("hostNetwork")),
            "termination_grace_period_seconds": int(spec.get("terminationGracePeriodSeconds", 30)),
            "phase": status.get("phase") or ("Running" if spec.get("nodeName") else "Pending"),
            "deletion_timestamp": meta.get("deletionTimestamp"),
            "nominated_node_name": status.get("nominatedNodeName") or "",
            "topology_spread_constraints": tuple(
                TopologySpreadConstraint.from_doc(c) for c in spec.get("topologySpreadConstraints") or ()),
            "scheduling_gates": tuple((g or {}).get("name") or "" for g in spec.get("schedulingGates") or ()),
            "preemption_policy": spec.get("preemptionPolicy") or "PreemptLowerPriority",
            "overhead": dict(spec.get("overhead") or {}),
            "start_time": status.get("startTime"),
        })


# --- nodes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int = 0


@dataclass(frozen=True)
class Node:
    name: str
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Mapping[str, Any] = field(default_factory=dict)  # raw quantities
    capacity: Mapping[str, Any] = field(default_factory=dict)
    conditions: Mapping[str, str] = field(default_factory=dict)  # type -> "True"/"False"/"Unknown"
    images: tuple[ContainerImage, ...] = ()

    @cached_property
    def allocatable_resource(self) -> Resource:
        return Resource.from_list(self.allocatable)

    @property
    def ready(self) -> bool:
        return self.conditions.get("Ready", "True") == "True"

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Node":
        meta = doc.get("metadata") or {}
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}
        capacity = dict(status.get("capacity") or {})
        # The API server defaults allocatable to capacity (SetDefaults_NodeStatus).
        allocatable = dict(status.get("allocatable") or capacity)
        return cls(
            name=meta.get("name") or "",
            uid=meta.get("uid") or "",
            labels=dict(meta.get("labels") or {}),
            annotations=dict(meta.get("annotations") or {}),
            taints=tuple(Taint.from_doc(t) for t in spec.get("taints") or ()),
            unschedulable=bool(spec.get("unschedulable")),
            allocatable=allocatable,
            capacity=capacity,
            conditions={c.get("type"): c.get("status") for c in status.get("conditions") or ()},
            images=tuple(
                ContainerImage(tuple(i.get("names") or ()), int(i.get("sizeBytes") or 0))
                for i in status.get("images") or ()
            ),
        )


# --- the rest of the cluster ------------------------------------------------------------------


@dataclass(frozen=True)
class Service:
    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None  # None: a service without selector selects nothing

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Service":
        meta = doc.get("metadata") or {}
        spec = doc.get("spec") or {}
        return cls(meta.get("name") or "", meta.get("namespace") or "default", LabelSelector.from_map(spec.get("selector")))


@dataclass(frozen=True)
class Controller:
    """ReplicationController, ReplicaSet, Deployment, StatefulSet or DaemonSet."""

    kind: str
    name: str
    namespace: str = "default"
    uid: str = ""
    selector: LabelSelector | None = None
    replicas: int = 1
    template: Mapping[str, Any] = field(default_factory=dict)  # raw pod template document

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Controller":
        meta = doc.get("metadata") or {}
        spec = doc.get("spec") or {}
        kind = doc.get("kind") or ""
        template = spec.get("template") or {}
        raw_selector = spec.get("selector")
        if kind == "ReplicationController":
            # An RC without selector defaults to its template's labels.
            selector = LabelSelector.from_map(raw_selector if raw_selector is not None else (template.get("metadata") or {}).get("labels"))
        else:
            selector = LabelSelector.from_doc(raw_selector)
        replicas = spec.get("replicas")
        return cls(
            kind,
            meta.get("name") or "",
            meta.get("namespace") or "default",
            meta.get("uid") or "",
            selector,
            1 if replicas is None else int(replicas),
            template,
        )


@dataclass(frozen=True)
class PodDisruptionBudget:
    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    disruptions_allowed: int = 0

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "PodDisruptionBudget":
        meta = doc.get("metadata") or {}
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}
        return cls(
            meta.get("name") or "",
            meta.get("namespace") or "default",
            LabelSelector.from_doc(spec.get("selector")),
            spec.get("minAvailable"),
            spec.get("maxUnavailable"),
            int(status.get("disruptionsAllowed") or status.get("podDisruptionsAllowed") or 0),
        )


@dataclass(frozen=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "PriorityClass":
        meta = doc.get("metadata") or {}
        return cls(meta.get("name") or "", int(doc.get("value") or 0), bool(doc.get("globalDefault")))


SYSTEM_PRIORITY_CLASSES = (
    PriorityClass("system-node-critical", 2000001000),
    PriorityClass("system-cluster-critical", 2000000000),
)


@dataclass(frozen=True)
class Volume:
    """PersistentVolume, PersistentVolumeClaim or StorageClass, kept as a document."""

    kind: str
    name: str
    namespace: str = ""
    doc: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> "Volume":
        meta = doc.get("metadata") or {}
        return cls(doc.get("kind") or "", meta.get("name") or "", meta.get("namespace") or "", doc)

    @property
    def spec(self) -> Mapping[str, Any]:
        return self.doc.get("spec") or {}
