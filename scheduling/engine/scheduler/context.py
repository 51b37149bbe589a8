"""Per-pod scheduling cycle context (the 1.11 scheduler's "predicate/priority metadata").

One `CycleContext` is made for each attempt to schedule one pod. It carries the pod, the
cluster snapshot and the NodeInfos, and a `memo` dict where predicates and priorities keep
what they precompute once per cycle (matching anti-affinity terms of existing pods, the
services that select the pod, ...). Modules key the memo by their own name so they never
collide. A what-if or a preemption check that changes the pods of a node makes a new
context with `without(...)`, which starts with an empty memo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo
from scheduling.engine.api.objects import Controller, Pod, Service


@dataclass
class CycleContext:
    pod: Pod
    state: ClusterState
    node_infos: dict[str, NodeInfo]  # every node, in node order
    memo: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def services_for_pod(self) -> list[Service]:
        """Services in the pod's namespace whose selector matches the pod (GetPodServices):
        a service without selector selects nothing, one with `selector: {}` every pod."""
        return [
            s
            for s in self.state.services
            if s.namespace == self.pod.namespace and s.selector is not None and s.selector.matches(self.pod.labels)
        ]

    def controllers_for_pod(self, *kinds: str) -> list[Controller]:
        """Controllers of the given kinds in the pod's namespace whose selector matches it
        (an empty controller selector matches nothing, as the 1.11 listers say)."""
        return [
            c
            for c in self.state.controllers
            if c.kind in kinds and c.namespace == self.pod.namespace and c.selector is not None
            and not c.selector.is_empty and c.selector.matches(self.pod.labels)
        ]

    def all_pods(self):
        """Every pod bound to a node of the snapshot (what the scheduler cache holds)."""
        for info in self.node_infos.values():
            yield from info.pods

    def without(self, node_infos: dict[str, NodeInfo]) -> "CycleContext":
        """The same pod against other NodeInfos (e.g. a node with victims removed)."""
        return CycleContext(self.pod, self.state, node_infos)
