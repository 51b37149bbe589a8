"""A snapshot of a cluster for one scheduling cycle, and the per-node aggregate (NodeInfo).

`ClusterState` is plain data: the scheduler, the controllers, the CLI and the what-if
previews all build one (from the database or from YAML files) and hand it to the engine.
`NodeInfo` mirrors schedulercache.NodeInfo of Kubernetes 1.11: a node with its pods and the
sums the predicates and priorities read. Predicates receive one NodeInfo and must not look
at anything else except the per-pod `CycleContext` (engine.scheduler.context).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduling.engine.api.objects import (
    Controller,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Resource,
    Service,
    Volume,
)


@dataclass
class ClusterState:
    nodes: list[Node] = field(default_factory=list)  # input order is display order
    pods: list[Pod] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    controllers: list[Controller] = field(default_factory=list)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    persistent_volumes: list[Volume] = field(default_factory=list)
    persistent_volume_claims: list[Volume] = field(default_factory=list)
    storage_classes: list[Volume] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)

    def controllers_of_kind(self, *kinds: str) -> list[Controller]:
        return [c for c in self.controllers if c.kind in kinds]

    def node_infos(self) -> dict[str, "NodeInfo"]:
        """NodeInfo per node name, in node order, with the bound pods added."""
        return infos_with(self.nodes, self.pods)


class NodeInfo:
    """A node, the pods bound to it, and the sums kept incrementally."""

    __slots__ = ("node", "pods", "requested", "non_zero_cpu", "non_zero_memory", "used_ports", "generation", "cache", "observer")

    def __init__(self, node: Node):
        self.node = node
        self.pods: list[Pod] = []
        self.requested = Resource()  # sum of regular containers' requests (no defaults)
        self.non_zero_cpu = 0  # the same with the priorities' defaults for unset requests
        self.non_zero_memory = 0
        self.used_ports: list[tuple[str, str, int]] = []  # (hostIP, protocol, hostPort)
        self.generation = 0  # bumped on every change; lets callers cache per node state
        # Derived per-node data kept across cycles, {key: (generation or other token, value)};
        # see priorities.normalize.node_cached. A clone starts empty.
        self.cache: dict = {}
        # Told of every change of the pods (`observer.pod_changed(info, removed, added)`):
        # the scheduler's cache (engine.scheduler.cache) keeps its arrays and indexes in step this way
        # while it schedules a queue. A clone has none: what-if copies change nothing else.
        self.observer = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable_resource

    def add_pod(self, pod: Pod) -> None:
        self.pods.append(pod)
        self.requested.add(pod.container_request)
        cpu, mem = pod.non_zero_request
        self.non_zero_cpu += cpu
        self.non_zero_memory += mem
        for p in pod.host_ports:
            self.used_ports.append((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port))
        self.generation += 1
        if self.observer is not None:
            self.observer.pod_changed(self, None, pod)

    def add_pods(self, pods: list[Pod]) -> None:
        """`add_pod` of each, in order (the sums taken in one pass)."""
        if self.observer is not None:
            for pod in pods:
                self.add_pod(pod)
            return
        requested = self.requested
        cpu = memory = storage = allowed = nz_cpu = nz_memory = 0
        for pod in pods:
            r = pod.container_request
            cpu += r.milli_cpu
            memory += r.memory
            storage += r.ephemeral_storage
            allowed += r.allowed_pods
            if r.scalar:
                for k, v in r.scalar.items():
                    requested.scalar[k] = requested.scalar.get(k, 0) + v
            pod_cpu, pod_memory = pod.non_zero_request
            nz_cpu += pod_cpu
            nz_memory += pod_memory
            for p in pod.host_ports:
                self.used_ports.append((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port))
        requested.milli_cpu += cpu
        requested.memory += memory
        requested.ephemeral_storage += storage
        requested.allowed_pods += allowed
        self.non_zero_cpu += nz_cpu
        self.non_zero_memory += nz_memory
        self.pods.extend(pods)
        self.generation += len(pods)

    def remove_pod(self, pod: Pod) -> None:
        for i, existing in enumerate(self.pods):
            if existing.namespace == pod.namespace and existing.name == pod.name:
                del self.pods[i]
                break
        else:
            raise KeyError(f"pod {pod.key} is not on node {self.name}")
        self.requested.sub(pod.container_request)
        cpu, mem = pod.non_zero_request
        self.non_zero_cpu -= cpu
        self.non_zero_memory -= mem
        for p in pod.host_ports:
            self.used_ports.remove((p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port))
        self.generation += 1
        if self.observer is not None:
            self.observer.pod_changed(self, existing, None)

    def replace_pod(self, old: Pod, new: Pod) -> None:
        """Swap a pod for an updated copy with the same requests and ports (say, one now
        terminating), keeping its position: the order of a node's pods is visible to some
        predicates."""
        for i, existing in enumerate(self.pods):
            if existing.key == old.key:
                self.pods[i] = new
                self.generation += 1
                if self.observer is not None:
                    self.observer.pod_changed(self, existing, new)
                return
        raise KeyError(f"pod {old.key} is not on node {self.name}")

    def clone(self) -> "NodeInfo":
        other = NodeInfo(self.node)
        other.pods = list(self.pods)
        other.requested = self.requested.copy()
        other.non_zero_cpu = self.non_zero_cpu
        other.non_zero_memory = self.non_zero_memory
        other.used_ports = list(self.used_ports)
        other.generation = self.generation
        return other

    def __repr__(self) -> str:
        return f"NodeInfo({self.name!r}, pods={len(self.pods)})"


TERMINAL_PHASES = ("Succeeded", "Failed")


def assigned_node(pod: Pod) -> str:
    """The node a pod counts on for the scheduler ("" for none): its node, unless it ran to
    its end (the scheduler's pod informer leaves out Succeeded and Failed pods)."""
    return "" if pod.phase in TERMINAL_PHASES else pod.node_name


def infos_with(nodes: list[Node], pods: list[Pod], without: set[str] | frozenset[str] = frozenset()) -> dict[str, NodeInfo]:
    """NodeInfo per node name, in node order, with the pods bound to them (in `pods` order)
    that have not finished, but for the pods whose key is in `without`."""
    infos = {n.name: NodeInfo(n) for n in nodes}
    bound: dict[str, list[Pod]] = {}
    for pod in pods:
        name = assigned_node(pod)
        if name and name in infos and (not without or pod.key not in without):
            bound.setdefault(name, []).append(pod)
    for name, on_node in bound.items():
        infos[name].add_pods(on_node)
    return infos
