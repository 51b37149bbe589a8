"""What the four strategies share: the DeschedulerPolicy document, the flags, which pods
may be evicted, and the Evictor that evicts them through the eviction API.

Upstream (openshift/descheduler v3.11.0):

* `DeschedulerPolicy` (`descheduler/v1alpha1`, pkg/api/v1alpha1/types.go): `strategies`, a
  map from strategy name to `{enabled, weight, params}`; `params` has
  `nodeResourceUtilizationThresholds` (`thresholds`, `targetThresholds`, `numberOfNodes`)
  and `nodeAffinityType`. A strategy missing from the map is off (its zero value has
  `enabled: false`); unknown strategy names are ignored.
* The flags (cmd/descheduler/app/options): `--max-pods-to-evict-per-node` (0: no limit,
  counted per node across all strategies of one run), `--node-selector` (labels.Parse
  syntax: only the matching nodes are considered) and `--dry-run` (EvictPod answers
  "evicted" without calling the API).
* pkg/descheduler/pod: a pod is evictable unless it is a mirror pod (annotation
  `kubernetes.io/config.mirror`), has local storage (a hostPath or emptyDir volume), has no
  ownerReferences, has a DaemonSet among its ownerReferences, or is critical
  (`IsCritical`: namespace kube-system or openshift-*, and the annotation
  `scheduler.alpha.kubernetes.io/critical-pod` present with the value "" -- the 3.11 code,
  which is stricter than the documentation's wording). Pods are listed per node with the field
  selector `spec.nodeName=<node>,status.phase!=Succeeded,status.phase!=Failed`, in the
  API's order (namespace, then name).

One deviation: a pod that is already terminating is listed (and counted in utilisation)
but not evicted again, so that a descheduler running on an interval does not count the
same pod twice while its grace period runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.objects import Node, Pod
from scheduling.engine.controllers import eviction
from scheduling.engine.store import Store, is_terminating

API_VERSION = "descheduler/v1alpha1"
KIND = "DeschedulerPolicy"
DEFAULT_POLICY_NAME = "descheduler-policy"
SOURCE = "descheduler"

REMOVE_DUPLICATES = "RemoveDuplicates"
LOW_NODE_UTILIZATION = "LowNodeUtilization"
REMOVE_POD_ANTI_AFFINITY = "RemovePodsViolatingInterPodAntiAffinity"
REMOVE_NODE_AFFINITY = "RemovePodsViolatingNodeAffinity"
STRATEGY_NAMES = (REMOVE_DUPLICATES, LOW_NODE_UTILIZATION, REMOVE_POD_ANTI_AFFINITY, REMOVE_NODE_AFFINITY)
REQUIRED_DURING_SCHEDULING = "requiredDuringSchedulingIgnoredDuringExecution"

CRITICAL_POD_ANNOTATION = "scheduler.alpha.kubernetes.io/critical-pod"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
NAMESPACE_SYSTEM = "kube-system"

# Never-evicted reasons, as the preview and the tests name them.
NOT_EVICTABLE_MIRROR = "mirror pod"
NOT_EVICTABLE_LOCAL_STORAGE = "pod with local storage"
NOT_EVICTABLE_NO_OWNER = "pod without a controller"
NOT_EVICTABLE_DAEMONSET = "DaemonSet pod"
NOT_EVICTABLE_CRITICAL = "critical pod"

ABORT_MESSAGE = "The cluster size is 0 or 1 meaning eviction causes service disruption or degradation. So aborting.."


class DeschedulerPolicyError(ValueError):
    """A DeschedulerPolicy the 3.11 binary cannot decode; str() is the message."""


# --- the policy document -------------------------------------------------------------------------


@dataclass(frozen=True)
class Thresholds:
    """nodeResourceUtilizationThresholds: resource name -> percentage."""

    thresholds: Mapping[str, float] | None = None  # None: not given (Go nil map)
    target_thresholds: Mapping[str, float] | None = None
    number_of_nodes: int = 0


@dataclass(frozen=True)
class Strategy:
    name: str
    enabled: bool = False
    weight: int = 0
    thresholds: Thresholds = Thresholds()
    node_affinity_type: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeschedulerPolicy:
    name: str
    strategies: Mapping[str, Strategy]

    def strategy(self, name: str) -> Strategy:
        """The strategy as the binary sees it: a missing one is its zero value (off)."""
        return self.strategies.get(name) or Strategy(name)

    @property
    def enabled(self) -> tuple[str, ...]:
        return tuple(n for n in STRATEGY_NAMES if self.strategy(n).enabled)


def _type_error(path: str, want: str, got: Any) -> DeschedulerPolicyError:
    kind = {bool: "bool", int: "number", float: "number", str: "string", list: "array", dict: "object"}.get(type(got), type(got).__name__)
    return DeschedulerPolicyError(f"failed decoding descheduler's policy config: {path}: expected {want}, got {kind}")


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _type_error(path, "object", value)
    return value


def _percentages(value: Any, path: str) -> dict[str, float] | None:
    if value is None:
        return None
    out: dict[str, float] = {}
    for name, amount in _mapping(value, path).items():
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise _type_error(f"{path}.{name}", "number", amount)
        out[str(name)] = float(amount)
    return out


def _int(value: Any, path: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise _type_error(path, "integer", value)
    return value


def load_policy(doc: Mapping[str, Any] | None) -> DeschedulerPolicy:
    """A DeschedulerPolicy from its document; raises DeschedulerPolicyError."""
    if not isinstance(doc, Mapping):
        raise DeschedulerPolicyError("failed decoding descheduler's policy config: the policy must be an object")
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if kind != KIND or api_version != API_VERSION:
        raise DeschedulerPolicyError(
            f"failed decoding descheduler's policy config: no kind \"{kind}\" is registered for version \"{api_version}\""
        )
    name = str(((doc.get("metadata") or {}).get("name")) or DEFAULT_POLICY_NAME)
    strategies: dict[str, Strategy] = {}
    for sname, raw in _mapping(doc.get("strategies"), "strategies").items():
        path = f"strategies.{sname}"
        body = _mapping(raw, path)
        enabled = body.get("enabled", False)
        if not isinstance(enabled, bool):
            raise _type_error(f"{path}.enabled", "bool", enabled)
        params = _mapping(body.get("params"), f"{path}.params")
        nrut = _mapping(params.get("nodeResourceUtilizationThresholds"), f"{path}.params.nodeResourceUtilizationThresholds")
        tpath = f"{path}.params.nodeResourceUtilizationThresholds"
        affinity = params.get("nodeAffinityType")
        if affinity is not None and (not isinstance(affinity, list) or not all(isinstance(a, str) for a in affinity)):
            raise _type_error(f"{path}.params.nodeAffinityType", "array of strings", affinity)
        strategies[str(sname)] = Strategy(
            name=str(sname),
            enabled=enabled,
            weight=_int(body.get("weight"), f"{path}.weight"),
            thresholds=Thresholds(
                _percentages(nrut.get("thresholds"), f"{tpath}.thresholds"),
                _percentages(nrut.get("targetThresholds"), f"{tpath}.targetThresholds"),
                _int(nrut.get("numberOfNodes"), f"{tpath}.numberOfNodes"),
            ),
            node_affinity_type=tuple(affinity or ()),
        )
    return DeschedulerPolicy(name, strategies)


@dataclass(frozen=True)
class Flags:
    """The 3.11 binary's flags (simulate prefixes them with --descheduler-)."""

    max_pods_to_evict_per_node: int = 0
    node_selector: str = ""
    dry_run: bool = False

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> "Flags":
        """From Cluster.descheduler["flags"]: the flag names without dashes, camelCased or not."""
        doc = doc or {}

        def pick(*names: str, default: Any = None) -> Any:
            for n in names:
                if n in doc and doc[n] is not None:
                    return doc[n]
            return default

        return cls(
            max_pods_to_evict_per_node=int(pick("maxPodsToEvictPerNode", "max-pods-to-evict-per-node", "max_pods_to_evict_per_node", default=0)),
            node_selector=str(pick("nodeSelector", "node-selector", "node_selector", default="")),
            dry_run=bool(pick("dryRun", "dry-run", "dry_run", default=False)),
        )

    def to_doc(self) -> dict:
        return {"maxPodsToEvictPerNode": self.max_pods_to_evict_per_node, "nodeSelector": self.node_selector, "dryRun": self.dry_run}


# --- pods --------------------------------------------------------------------------------------------


def is_critical(pod: Pod) -> bool:
    """IsCritical (kubelet types, 3.11): kube-system or openshift-* namespace and the
    critical-pod annotation with an empty value."""
    if pod.namespace != NAMESPACE_SYSTEM and not pod.namespace.startswith("openshift-"):
        return False
    return pod.annotations.get(CRITICAL_POD_ANNOTATION) == ""


def has_local_storage(pod: Pod) -> bool:
    return any(v.get("hostPath") is not None or v.get("emptyDir") is not None for v in pod.volumes)


def not_evictable_reason(pod: Pod) -> str | None:
    """Why IsEvictable says no (None: evictable), checked in upstream's order."""
    if MIRROR_POD_ANNOTATION in pod.annotations:
        return NOT_EVICTABLE_MIRROR
    if has_local_storage(pod):
        return NOT_EVICTABLE_LOCAL_STORAGE
    if not pod.owner_references:
        return NOT_EVICTABLE_NO_OWNER
    if any(ref.kind == "DaemonSet" for ref in pod.owner_references):
        return NOT_EVICTABLE_DAEMONSET
    if is_critical(pod):
        return NOT_EVICTABLE_CRITICAL
    return None


def is_evictable(pod: Pod) -> bool:
    return not_evictable_reason(pod) is None


# --- one run -------------------------------------------------------------------------------------------


@dataclass
class PlannedEviction:
    """One pod a strategy evicted (or, in a dry run, would evict)."""

    namespace: str
    name: str
    node: str
    strategy: str
    reason: str
    evicted: bool  # the eviction API said yes (always True in a dry run, as upstream's EvictPod)
    refusal: str = ""  # the eviction API's refusal (real run), or the one it would give (dry run)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def to_doc(self) -> dict:
        return {"pod": self.key, "node": self.node, "strategy": self.strategy, "reason": self.reason,
                "evicted": self.evicted, "refusal": self.refusal or None}


@dataclass
class RunContext:
    """What the strategies of one run share: a working copy of the store (each allowed
    eviction is applied to it, so a PDB's budget shrinks as pods go), the time, the
    flags, the per-node eviction counts and what was evicted."""

    store: Store
    now: float
    flags: Flags
    counts: dict[str, int] = field(default_factory=dict)
    planned: list[PlannedEviction] = field(default_factory=list)
    actions: list = field(default_factory=list)

    def pods_on(self, node: Node) -> list[Pod]:
        """ListPodsOnANode: not Succeeded/Failed, in the API's order."""
        pods = []
        for doc in self.store.list("Pod"):
            spec = doc.get("spec") or {}
            if spec.get("nodeName") != node.name:
                continue
            if ((doc.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
                continue
            pods.append(doc)
        pods.sort(key=lambda d: ((d.get("metadata") or {}).get("namespace") or "default", (d.get("metadata") or {}).get("name") or ""))
        return [Pod.from_doc(d) for d in pods]

    def evictable_pods_on(self, node: Node) -> list[Pod]:
        """ListEvictablePodsOnNode (minus pods already terminating)."""
        return [p for p in self.pods_on(node) if is_evictable(p) and not self.terminating(p)]

    def terminating(self, pod: Pod) -> bool:
        doc = self.store.get("Pod", pod.namespace, pod.name)
        return doc is None or is_terminating(doc)

    def limit_reached(self, node: Node) -> bool:
        """`maxPodsToEvict > 0 && nodepodCount[node]+1 > maxPodsToEvict`."""
        limit = self.flags.max_pods_to_evict_per_node
        return limit > 0 and self.counts.get(node.name, 0) + 1 > limit

    def evict(self, pod: Pod, node: Node, strategy: str, reason: str) -> bool:
        """evictions.EvictPod: True when the pod is (or, dry run, would be) evicted. The
        per-node count is the caller's (upstream's strategies differ on failures)."""
        answer = eviction.evict(self.store, pod.namespace, pod.name, self.now)
        refusal = "" if answer.allowed else " ".join((answer.message,) + tuple(answer.causes)).strip()
        if answer.allowed:
            self.store.apply_all(answer.actions)
            if not self.flags.dry_run:
                self.actions.extend(answer.actions)
                self.actions.append(A.RecordEvent(self.now, "Normal", "Descheduled", "Pod", pod.namespace, pod.name,
                                                  descheduled_message(strategy), SOURCE))
        evicted = self.flags.dry_run or answer.allowed
        self.planned.append(PlannedEviction(pod.namespace, pod.name, node.name, strategy, reason, evicted, refusal))
        return evicted


def descheduled_message(strategy: str) -> str:
    """The Descheduled event (later descheduler releases record it; 3.11 only logs)."""
    return f"pod evicted by sigs.k8s.io/descheduler ({strategy})"


# --- node usage (LowNodeUtilization, and the preview's bars) -----------------------------------------------------


def percentage(amount: float, capacity: float) -> float:
    """Go's float64 division: x/0 is +Inf (NaN for 0/0)."""
    if capacity == 0:
        return math.nan if amount == 0 else math.inf
    return amount * 100 / capacity


def node_capacity(node: Node) -> tuple[int, int, int]:
    """(milli cpu, memory bytes, pods) of Allocatable (Capacity when Allocatable is empty)."""
    r = node.allocatable_resource
    return r.milli_cpu, r.memory, r.allowed_pods


def pod_requests(pod: Pod) -> tuple[int, int]:
    """helper.GetResourceRequest for cpu (milli) and memory (bytes)."""
    r = pod.request
    return r.milli_cpu, r.memory


def refresh_pdbs(store: Store, now: float) -> None:
    """The disruption controller's view of every budget, in the working copy, so the
    eviction API answers from current numbers even before the controller has run."""
    for pdb in store.list("PodDisruptionBudget"):
        status = eviction.pdb_status(store, pdb, now)
        store.apply(A.PatchStatus("PodDisruptionBudget", (pdb.get("metadata") or {}).get("namespace") or "default",
                                  (pdb.get("metadata") or {}).get("name") or "", status))
