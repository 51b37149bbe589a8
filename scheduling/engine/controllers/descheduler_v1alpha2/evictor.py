"""One descheduling cycle's shared machinery: the pods as the plugins list them, the
DefaultEvictor (pkg/framework/plugins/defaultevictor) of a profile, and the PodEvictor
(pkg/descheduler/evictions) with its limits.

* DefaultEvictor.Filter: a pod carrying `descheduler.alpha.kubernetes.io/evict` passes;
  with `noEvictionPolicy: Mandatory`, one carrying
  `descheduler.alpha.kubernetes.io/prefer-no-eviction` does not; mirror pods, static pods
  (`kubernetes.io/config.source` not `api`), terminating pods never do; then the
  protections (PodsWithLocalStorage, SystemCriticalPods -- priority >= 2000000000 -- and,
  when a `priorityThreshold` is set, any pod at or above it, FailedBarePods, DaemonSetPods;
  the extra PodsWithPVC, PodsWithoutPDB; the deprecated booleans map onto them), the
  `labelSelector`, `minReplicas`, `minPodAge`.
* DefaultEvictor.PreEvictionFilter: `nodeFit` (the pod fits another ready node: its node
  selector and required node affinity, NoSchedule/NoExecute taints, cordon, and the
  node's free requests) and the `namespaceLabelSelector`.
* PodEvictor.EvictPod: the total, per-node and per-namespace limits (their errors stop a
  plugin as upstream: the total ends it, the node limit moves it to the next node), then
  the eviction API (engine.controllers.eviction: a PodDisruptionBudget may refuse). In a
  dry run (Predictive mode) the eviction API is asked but nothing is evicted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.objects import LabelSelector, Node, Pod, untolerated_taints
from scheduling.engine.controllers import eviction
from scheduling.engine.oc import OcError, parse_selector
from scheduling.engine.controllers.descheduler_strategies.common import PlannedEviction
from scheduling.engine.api.selectors import SelectorError
from scheduling.engine.scheduler.predicates.node_selector import label_selector_as_selector, pod_matches_node_selector_and_affinity
from scheduling.engine.store import Store, is_terminating, sim_time

from .operator import parse_duration
from .policy import DEFAULT_EVICTOR, Profile

SOURCE = "sigs.k8s.io/descheduler"
EVICT_ANNOTATION = "descheduler.alpha.kubernetes.io/evict"
NO_EVICTION_ANNOTATION = "descheduler.alpha.kubernetes.io/prefer-no-eviction"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source"
SYSTEM_CRITICAL_PRIORITY = 2000000000


class LimitError(Exception):
    """An eviction limit: `scope` is "total", "node" or "namespace"."""

    def __init__(self, scope: str, message: str):
        super().__init__(message)
        self.scope = scope


@dataclass
class PodRef:
    doc: Mapping[str, Any]
    pod: Pod

    @property
    def key(self) -> str:
        return self.pod.key

    @property
    def status(self) -> Mapping[str, Any]:
        return self.doc.get("status") or {}

    @property
    def phase(self) -> str:
        return self.status.get("phase") or "Pending"

    def created(self) -> float | None:
        return sim_time((self.doc.get("metadata") or {}).get("creationTimestamp"))

    def restarts(self, init: bool) -> int:
        total = sum(int(c.get("restartCount") or 0) for c in self.status.get("containerStatuses") or ())
        if init:
            total += sum(int(c.get("restartCount") or 0) for c in self.status.get("initContainerStatuses") or ())
        return total


def has_local_storage(pod: Pod) -> bool:
    """utils.IsPodWithLocalStorage: a hostPath or emptyDir volume."""
    return any(v.get("hostPath") is not None or v.get("emptyDir") is not None for v in pod.volumes)


def has_pvc(pod: Pod) -> bool:
    return any(v.get("persistentVolumeClaim") is not None for v in pod.volumes)


def effective_protections(args: Mapping[str, Any]) -> list[str]:
    """getEffectivePodProtections."""
    pp = args.get("podProtections") or {}
    extra, disabled = list(pp.get("extraEnabled") or ()), list(pp.get("defaultDisabled") or ())
    if not extra and not disabled:
        out = []
        if not args.get("evictLocalStoragePods"):
            out.append("PodsWithLocalStorage")
        if not args.get("evictDaemonSetPods"):
            out.append("DaemonSetPods")
        if not args.get("evictSystemCriticalPods"):
            out.append("SystemCriticalPods")
        if not args.get("evictFailedBarePods"):
            out.append("FailedBarePods")
        if args.get("ignorePvcPods"):
            out.append("PodsWithPVC")
        if args.get("ignorePodsWithoutPDB"):
            out.append("PodsWithoutPDB")
        return out
    base = [p for p in ("PodsWithLocalStorage", "SystemCriticalPods", "FailedBarePods", "DaemonSetPods") if p not in disabled]
    return base + extra


class DefaultEvictor:
    def __init__(self, args: Mapping[str, Any], cycle: "Cycle"):
        self.args = args
        self.cycle = cycle
        self.protections = set(effective_protections(args))
        self.threshold = self._threshold()
        self.label_selector = LabelSelector.from_doc(args.get("labelSelector"))
        ns_sel = args.get("namespaceLabelSelector")
        self.namespace_selector = LabelSelector.from_doc(ns_sel) if ns_sel and (ns_sel.get("matchLabels") or ns_sel.get("matchExpressions")) else None
        self._ready: list[Node] | None = None

    def _threshold(self) -> int | None:
        pt = self.args.get("priorityThreshold") or {}
        if pt.get("value") is not None:
            return int(pt["value"])
        if pt.get("name"):
            pc = self.cycle.store.get("PriorityClass", "", pt["name"])
            return int((pc or {}).get("value") or 0)
        return None

    def filter_reasons(self, ref: PodRef) -> list[str]:
        """Filter's failed checks, upstream's texts (empty: the pod passes)."""
        pod = ref.pod
        if EVICT_ANNOTATION in pod.annotations:
            return []
        if self.args.get("noEvictionPolicy") == "Mandatory" and NO_EVICTION_ANNOTATION in pod.annotations:
            return ["pod has the prefer-no-eviction annotation"]
        errs = []
        if MIRROR_ANNOTATION in pod.annotations:
            errs.append("pod is a mirror pod")
        source = pod.annotations.get(CONFIG_SOURCE_ANNOTATION)
        if source is not None and source != "api":
            errs.append("pod is a static pod")
        if is_terminating(ref.doc):
            errs.append("pod is terminating")
        if "SystemCriticalPods" in self.protections:
            if pod.priority >= SYSTEM_CRITICAL_PRIORITY:
                errs.append("pod has system critical priority and is protected against eviction")
            if self.threshold is not None and pod.priority >= self.threshold:
                errs.append("pod has higher priority than specified priority class threshold")
        if "FailedBarePods" in self.protections:
            if not pod.owner_references:
                errs.append("pod does not have any ownerRefs")
        elif not pod.owner_references and ref.phase != "Failed":
            errs.append("pod does not have any ownerRefs and is not in failed phase")
        if "PodsWithLocalStorage" in self.protections and has_local_storage(pod):
            errs.append("pod has local storage and is protected against eviction")
        if "DaemonSetPods" in self.protections and any(o.kind == "DaemonSet" for o in pod.owner_references):
            errs.append("daemonset pods are protected against eviction")
        if "PodsWithPVC" in self.protections:
            errs += self._pvc_protection(ref)
        if "PodsWithResourceClaims" in self.protections and ((ref.doc.get("spec") or {}).get("resourceClaims")):
            errs.append("pod has ResourceClaims and descheduler is configured to protect ResourceClaims pods")
        if "PodsWithoutPDB" in self.protections and not eviction.pdbs_of(self.cycle.store, ref.doc, ordered=False):
            errs.append("pod does not have a PodDisruptionBudget and is protected against eviction")
        if self.label_selector is not None and not self.label_selector.is_empty and not self.label_selector.matches(pod.labels):
            errs.append("pod labels do not match the labelSelector filter in the policy parameter")
        min_replicas = int(self.args.get("minReplicas") or 0)
        if min_replicas > 1 and len(pod.owner_references) == 1:
            owner = pod.owner_references[0]
            n = sum(1 for d in self.cycle.store.list("Pod") if any(
                (o.get("uid") or o.get("name")) == (owner.uid or owner.name) and o.get("kind") == owner.kind
                for o in (d.get("metadata") or {}).get("ownerReferences") or ()) and (d.get("metadata") or {}).get("namespace") == pod.namespace)
            if n < min_replicas:
                errs.append(f"owner has {n} replicas which is less than minReplicas of {min_replicas}")
        min_age = self.args.get("minPodAge")
        if min_age is not None:
            start = sim_time(ref.status.get("startTime"))
            if start is None or self.cycle.now - start < parse_duration(min_age):
                errs.append(f"pod age is not older than MinPodAge: {min_age} seconds")
        return errs

    def _pvc_protection(self, ref: PodRef) -> list[str]:
        """applyPVCPodsProtection: every pod with a PVC, or, with protectedStorageClasses,
        the pods whose claims use one of them (a claim that cannot be read, or without a
        storage class, protects the pod too)."""
        config = (((self.args.get("podProtections") or {}).get("config") or {}).get("PodsWithPVC") or {})
        protected = {c.get("name") for c in config.get("protectedStorageClasses") or ()}
        if not protected:
            return ["pod with PVC is protected against eviction"] if has_pvc(ref.pod) else []
        classes = []
        for v in ref.pod.volumes:
            claim = v.get("persistentVolumeClaim")
            if claim is None:
                continue
            pvc = self.cycle.store.get("PersistentVolumeClaim", ref.pod.namespace, claim.get("claimName") or "")
            if pvc is None:
                return [f'failed to get persistent volume claim "{ref.pod.namespace}"/"{claim.get("claimName")}"']
            sc = (pvc.get("spec") or {}).get("storageClassName")
            if not sc:
                return [f'failed to resolve storage class for pod "{ref.pod.namespace}"/"{claim.get("claimName")}"']
            classes.append(sc)
        for sc in classes:
            if sc in protected:
                return [f'pod using protected storage class "{sc}"']
        return []

    def filter(self, ref: PodRef) -> bool:
        return not self.filter_reasons(ref)

    def ready_nodes(self) -> list[Node]:
        """nodeutil.ReadyNodes with the evictor's own nodeSelector."""
        if self._ready is None:
            try:
                matches = parse_selector(self.args.get("nodeSelector") or "")
            except OcError:
                matches = None
            docs = self.cycle.store.list("Node")
            self._ready = [n for n in (Node.from_doc(d) for d in docs) if n.ready and (matches is None or matches(n.labels))]
        return self._ready

    def pre_eviction_filter(self, ref: PodRef) -> bool:
        if self.args.get("nodeFit") and not any(
                n.name != ref.pod.node_name and self.cycle.pod_fits_node(ref, n) for n in self.ready_nodes()):
            return False  # PodFitsAnyOtherNode
        if self.namespace_selector is not None:
            ns = self.cycle.store.get("Namespace", "", ref.pod.namespace)
            # the API server labels every namespace with its name
            labels = {**(((ns or {}).get("metadata") or {}).get("labels") or {}), "kubernetes.io/metadata.name": ref.pod.namespace}
            if ns is None or not self.namespace_selector.matches(labels):
                return False
        return True


@dataclass
class Cycle:
    """One descheduling cycle over a working copy of the store (evictions are applied to
    it as they happen, so budgets shrink and later plugins see the pods gone)."""

    store: Store
    now: float
    nodes: list[Node]
    dry_run: bool = False
    max_per_node: int | None = None
    max_per_namespace: int | None = None
    max_total: int | None = None
    planned: list[PlannedEviction] = field(default_factory=list)
    actions: list = field(default_factory=list)
    node_count: dict[str, int] = field(default_factory=dict)
    namespace_count: dict[str, int] = field(default_factory=dict)
    total: int = 0
    profile: str = ""
    evictor: DefaultEvictor | None = None
    failure_events: bool = False  # evictionFailureEventNotification: a Warning EvictionFailed per failed eviction

    def _failed(self, ref: PodRef, why: str) -> None:
        """PodEvictor's EvictionFailed event (with evictionFailureEventNotification, not in a dry run)."""
        if self.failure_events and not self.dry_run:
            self.actions.append(A.RecordEvent(self.now, "Warning", "EvictionFailed", "Pod", ref.pod.namespace, ref.pod.name,
                                              _failed_message(ref.pod.node_name, why), "descheduler"))

    def use_profile(self, profile: Profile) -> None:
        self.profile = profile.name
        self.evictor = DefaultEvictor(profile.args(DEFAULT_EVICTOR), self)

    # --- listing ------------------------------------------------------------------------------

    def pods_on(self, node: Node, *, all_phases: bool = False) -> list[PodRef]:
        """ListPodsOnANode (not Succeeded/Failed) or ListAllPodsOnANode, in the API's order."""
        out = []
        for ns, name in self.store.pods_on_node(node.name):
            doc = self.store.get("Pod", ns, name)
            if doc is None:
                continue
            if not all_phases and (doc.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            out.append(PodRef(doc, Pod.from_doc(doc)))
        out.sort(key=lambda r: (r.pod.namespace, r.pod.name))
        return out

    def filter(self, ref: PodRef) -> bool:
        return self.evictor is None or self.evictor.filter(ref)

    def pre_eviction_filter(self, ref: PodRef) -> bool:
        return self.evictor is None or self.evictor.pre_eviction_filter(ref)

    def fits_other_node(self, ref: PodRef) -> bool:
        """nodeutil.PodFitsAnyOtherNode: another ready node whose labels, taints, cordon and
        free requests admit the pod."""
        return any(n.name != ref.pod.node_name and self.pod_fits_node(ref, n) for n in self.nodes)

    def pod_fits_node(self, ref: PodRef, node: Node) -> bool:
        """nodeutil.NodeFit: the node is not cordoned, matches the pod's node selector and
        required node affinity, carries no NoSchedule/NoExecute taint the pod does not
        tolerate, holds no pod the pod's required anti-affinity matches (when the node has the
        term's topology key), and -- unless it is the pod's own node -- has room for the pod's
        requests and one more pod (the requests of its pods not Succeeded/Failed)."""
        pod = ref.pod
        if node.unschedulable:
            return False
        if not pod_matches_node_selector_and_affinity(pod, node):
            return False
        if untolerated_taints(pod.tolerations, node.taints, ("NoSchedule", "NoExecute")):
            return False
        on_node = self.pods_on(node)
        if self._anti_affinity_blocks(pod, node, on_node):
            return False
        if pod.node_name != node.name:
            cap = node.allocatable_resource
            cpu = sum(o.pod.request.milli_cpu for o in on_node)
            mem = sum(o.pod.request.memory for o in on_node)
            req = pod.request
            if req.milli_cpu and req.milli_cpu > cap.milli_cpu - cpu:
                return False
            if req.memory and req.memory > cap.memory - mem:
                return False
            if cap.allowed_pods - len(on_node) <= 0:
                return False
        return True

    @staticmethod
    def _anti_affinity_blocks(pod: Pod, node: Node, on_node: list[PodRef]) -> bool:
        """podMatchesInterPodAntiAffinity."""
        a = pod.affinity
        if a is None or a.pod_anti_affinity is None:
            return False
        for term in a.pod_anti_affinity.required or ():
            namespaces = set(term.namespaces) if term.namespaces else {pod.namespace}
            try:
                selector = label_selector_as_selector(term.label_selector)
            except SelectorError:
                return True
            for other in on_node:
                if other.pod.name == pod.name or other.pod.namespace not in namespaces or not selector.matches(other.pod.labels):
                    continue
                if term.topology_key in node.labels:
                    return True
        return False

    # --- evicting -----------------------------------------------------------------------------

    def evict(self, ref: PodRef, plugin: str, reason: str) -> bool:
        """PodEvictor.EvictPod; raises LimitError for a limit; False when the eviction API
        refused (the refusal is recorded)."""
        pod = ref.pod
        node = pod.node_name
        if self.max_total is not None and self.total + 1 > self.max_total:
            self._failed(ref, f"total eviction limit exceeded ({self.max_total})")
            raise LimitError("total", "maximum number of evicted pods per a descheduling cycle reached")
        if node and self.max_per_node is not None and self.node_count.get(node, 0) + 1 > self.max_per_node:
            self._failed(ref, f"node eviction limit exceeded ({self.max_per_node})")
            raise LimitError("node", "maximum number of evicted pods per node reached")
        if self.max_per_namespace is not None and self.namespace_count.get(pod.namespace, 0) + 1 > self.max_per_namespace:
            self._failed(ref, f"namespace eviction limit exceeded ({self.max_per_namespace})")
            raise LimitError("namespace", "maximum number of evicted pods per namespace reached")
        answer = eviction.evict(self.store, pod.namespace, pod.name, self.now)
        if not answer.allowed:
            refusal = " ".join((answer.message,) + tuple(answer.causes)).strip()
            self.planned.append(PlannedEviction(pod.namespace, pod.name, node, plugin, reason, False, refusal))
            self._failed(ref, f"error when evicting pod (ignoring) \"{pod.name}\": {refusal}")
            return False
        self.store.apply_all(answer.actions)
        if not self.dry_run:
            self.actions.extend(answer.actions)
            self.actions.append(A.RecordEvent(self.now, "Normal", "Descheduled", "Pod", pod.namespace, pod.name,
                                              descheduled_message(node, plugin), "descheduler"))
        if node:
            self.node_count[node] = self.node_count.get(node, 0) + 1
        self.namespace_count[pod.namespace] = self.namespace_count.get(pod.namespace, 0) + 1
        self.total += 1
        entry = PlannedEviction(pod.namespace, pod.name, node, plugin, reason, True)
        entry.profile = self.profile  # type: ignore[attr-defined]
        self.planned.append(entry)
        return True


def _failed_message(node: str, why: str) -> str:
    return f"pod eviction from {node} node by {SOURCE} failed: {why}"


def descheduled_message(node: str, plugin: str) -> str:
    """The eviction event's note as the descheduler records it ("pod eviction from <node>
    node by sigs.k8s.io/descheduler"; upstream puts the plugin in the event's reason field,
    the simulator's reason is Descheduled, so the plugin follows in parentheses)."""
    return f"pod eviction from {node} node by {SOURCE} ({plugin})"
