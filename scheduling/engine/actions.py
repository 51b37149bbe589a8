"""What the controllers ask for: small frozen dataclasses, applied to documents by a store.

Every controller of the engine (taint manager, node lifecycle, kubelet, workloads,
scheduler driver, `oc`) is a pure function over the cluster's documents (the plain dicts
the API stores, the shape scheduling/store/kube.py produces) and the simulated time `now`. It
returns a `Result`: the actions to apply and `next_due`, the simulated time at which it
wants to run again even if no document changes (None: only when something changes).

Applying the actions is the caller's job: `engine.store.Store.apply` does it in memory
(the CLI, the tests, the what-if previews); the Django side applies the same actions to
the database with compare-and-swap writes. Every action is idempotent: applying it to a
document that already has the effect changes nothing (the store reports no change), so a
controller run twice on the same documents at the same time yields no new actions, and a
crash between runs loses nothing (all controller state lives in the documents and in
each controller's own state, SetControllerState, persisted with them).

Times are simulated seconds (floats; whole numbers are stored as ints in documents).
Kinds are Kubernetes kinds; `namespace` is "" for cluster-scoped kinds (Node, Zone).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class CreateObject:
    """Create `doc` (a Pod made by a controller, a ReplicaSet made by a Deployment...).
    No change if an object of that kind/namespace/name already exists."""

    doc: Mapping[str, Any]


@dataclass(frozen=True)
class ReplaceObject:
    """Replace the whole object (a Timeline `apply`, like `kubectl replace`), creating it
    when it does not exist. `keep_status`: keep the stored `status` (the document came
    without one, as a status subresource would); metadata.uid and creationTimestamp are
    always kept."""

    doc: Mapping[str, Any]
    keep_status: bool = False


@dataclass(frozen=True)
class DeleteObject:
    """Remove the object now (a pod whose grace period ended, a deleted controller)."""

    kind: str
    namespace: str
    name: str


@dataclass(frozen=True)
class Bind:
    """Set a pending pod's spec.nodeName (the scheduler's binding) and clear its
    status.nominatedNodeName. The kubelet of the node then starts it (status.phase)."""

    namespace: str
    name: str
    node: str


@dataclass(frozen=True)
class SetNominatedNode:
    """status.nominatedNodeName of a pod ("" clears it)."""

    namespace: str
    name: str
    node: str


@dataclass(frozen=True)
class SetPodDeletion:
    """Graceful deletion requested at `at`: metadata.deletionTimestamp = at + grace (as the
    API server sets it: the time by which the pod is gone) and
    metadata.deletionGracePeriodSeconds = grace. No change when the pod is already
    terminating (the first deletion wins). `reason` says who asked (TaintManagerEviction,
    Preempted, Evicted, SuccessfulDelete, Deleted, GarbageCollected) and is not stored."""

    namespace: str
    name: str
    at: float
    grace_seconds: int
    reason: str = ""


@dataclass(frozen=True)
class SetAnnotation:
    """metadata.annotations[key] = value; value None removes the key."""

    kind: str
    namespace: str
    name: str
    key: str
    value: str | None


@dataclass(frozen=True)
class SetLabel:
    """metadata.labels[key] = value; value None removes the key."""

    kind: str
    namespace: str
    name: str
    key: str
    value: str | None


@dataclass(frozen=True)
class SetControllerRef:
    """Adopt an orphan: append `owner` (an ownerReference document with controller: true)
    to metadata.ownerReferences unless the object already has a controller."""

    kind: str
    namespace: str
    name: str
    owner: Mapping[str, Any]


@dataclass(frozen=True)
class AddTaint:
    """Add `taint` ({key, value?, effect, timeAdded?}) at the end of spec.taints, or
    replace the taint with the same key and effect in place (AddOrUpdateTaint)."""

    node: str
    taint: Mapping[str, Any]


@dataclass(frozen=True)
class RemoveTaint:
    """Remove the taints with this key and effect (effect "" removes every effect)."""

    node: str
    key: str
    effect: str = ""


@dataclass(frozen=True)
class SetTaints:
    """Replace spec.taints with `taints` (what `oc adm taint` sends: the whole list)."""

    node: str
    taints: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class SetUnschedulable:
    """spec.unschedulable (cordon / uncordon); False removes the field."""

    node: str
    value: bool


@dataclass(frozen=True)
class SetNodeCondition:
    """Set one status.conditions entry of a node. lastTransitionTime becomes `at` when the
    status changes (kept otherwise); lastHeartbeatTime becomes `heartbeat` (default `at`).
    A condition the node does not have yet is appended."""

    node: str
    type: str
    status: str
    reason: str = ""
    message: str = ""
    at: float = 0.0
    heartbeat: float | None = None


@dataclass(frozen=True)
class PatchStatus:
    """Merge `fields` into status (top-level keys; a None value removes the key)."""

    kind: str
    namespace: str
    name: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class SetReplicas:
    """spec.replicas of a workload (a Deployment scaling its ReplicaSets)."""

    kind: str
    namespace: str
    name: str
    replicas: int


@dataclass(frozen=True)
class SetControllerState:
    """state[controller][key] = value (JSON-serialisable; None removes the key): a
    controller's own memory (timers, retries, progress), kept by the store beside the
    documents and persisted with the cluster, never in fields users write."""

    controller: str
    key: str
    value: Any


@dataclass(frozen=True)
class RecordEvent:
    """A Kubernetes Event: `source` is the component (default-scheduler, taint-controller,
    node-controller, kubelet, replicaset-controller...). Events are not deduplicated here;
    the Django side counts repeats."""

    time: float
    type: str
    reason: str
    kind: str
    namespace: str
    name: str
    message: str
    source: str = ""

    @property
    def object(self) -> str:
        """"Pod/default/web-1", "Node/node1": how the simulate output names the object."""
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"

    def to_doc(self) -> dict:
        return {"time": self.time, "type": self.type, "reason": self.reason, "object": self.object, "message": self.message}


Action = (
    CreateObject | ReplaceObject | DeleteObject | Bind | SetNominatedNode | SetPodDeletion | SetAnnotation | SetLabel
    | SetControllerRef | AddTaint | RemoveTaint | SetTaints | SetUnschedulable | SetNodeCondition | PatchStatus
    | SetReplicas | SetControllerState | RecordEvent
)


@dataclass
class Result:
    """What one controller run returns."""

    actions: list = field(default_factory=list)
    next_due: float | None = None  # simulated time of the next run it wants (None: on change only)

    def due(self, at: float | None) -> None:
        """Ask to run again at `at` (the earliest request wins)."""
        if at is not None and (self.next_due is None or at < self.next_due):
            self.next_due = at

    def extend(self, other: "Result") -> None:
        self.actions.extend(other.actions)
        self.due(other.next_due)
