"""What a plugin is and what it returns (pkg/scheduler/framework/interface.go).

A plugin is a class with a `name` and the methods of the extension points it implements
(none is required): PreEnqueue, PreFilter (with AddPod/RemovePod extensions), Filter,
PostFilter, PreScore, Score (with NormalizeScore), Reserve, Bind. The runtime
(engine.framework.runtime) calls each method a profile enables, in the profile's order.

Statuses carry upstream's codes and reasons verbatim; a reason is what a user reads in
the FailedScheduling message (`node(s) had untolerated taint(s)`), counted per node.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1

# Status codes (fwk.Code), spelled as upstream's String() spells them.
SUCCESS = "Success"
ERROR = "Error"
UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
WAIT = "Wait"
SKIP = "Skip"
PENDING = "Pending"


@dataclass(frozen=True)
class Status:
    """fwk.Status: a code, the reasons (verbatim) and the plugin that returned it."""

    code: str = SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def is_success(self) -> bool:
        return self.code == SUCCESS

    @property
    def is_skip(self) -> bool:
        return self.code == SKIP

    @property
    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (IsRejected)."""
        return self.code in (UNSCHEDULABLE, UNRESOLVABLE, PENDING)

    @property
    def message(self) -> str:
        """Status.Message(): the reasons joined with ", "."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        return self if self.plugin == plugin else Status(self.code, self.reasons, plugin)


OK = Status()
SKIPPED = Status(SKIP)


def unschedulable(*reasons: str) -> Status:
    return Status(UNSCHEDULABLE, tuple(reasons))


def unresolvable(*reasons: str) -> Status:
    return Status(UNRESOLVABLE, tuple(reasons))


def error(message: str) -> Status:
    return Status(ERROR, (message,))


class CycleState(dict):
    """fwk.CycleState: what the plugins keep for one scheduling cycle, by their own keys
    (normally their name). `clone()` copies it for preemption's what-ifs: a value with a
    `clone()` method is cloned with it, any other value deep-copied unless immutable."""

    skip_filter: set[str]
    skip_score: set[str]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.skip_filter = set()
        self.skip_score = set()

    def clone(self) -> "CycleState":
        out = CycleState()
        for key, value in self.items():
            if hasattr(value, "clone"):
                out[key] = value.clone()
            elif isinstance(value, (str, int, float, bool, tuple, frozenset, type(None))):
                out[key] = value
            else:
                out[key] = copy.deepcopy(value)
        out.skip_filter = set(self.skip_filter)
        out.skip_score = set(self.skip_score)
        return out


@dataclass
class Handle:
    """framework.Handle, what a plugin may read beyond its arguments: the snapshot's
    NodeInfos (every node, node order: SnapshotSharedLister), the cluster's other objects
    (PVs, PVCs, StorageClasses, PDBs, Namespaces: the informers), and the pods nominated
    to each node (the queue's PodNominator)."""

    state: ClusterState
    node_infos: dict[str, NodeInfo]
    nominated: Mapping[str, Sequence[Pod]] = field(default_factory=dict)
    namespace_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # The profile's runtime (engine.framework.runtime.Framework), for the plugins that run
    # the others (DefaultPreemption: RunFilterPluginsWithNominatedPods); set by the runtime.
    framework: Any = None

    def all_nodes(self) -> list[NodeInfo]:
        return list(self.node_infos.values())


class Plugin:
    """The base of every plugin: its name and its arguments (the profile's pluginConfig
    `args` for it, as a dict with upstream's defaults applied by the plugin).

    Extension points, each optional (the runtime looks them up with getattr):

    * `pre_enqueue(pod) -> Status`
    * `pre_filter(cs, pod, nodes: list[NodeInfo]) -> Status`: SKIP skips its Filter;
      a rejection rejects every node with this status.
    * `add_pod(cs, pod, pod_to_add, info) -> Status` and `remove_pod(cs, pod, pod_to_remove,
      info) -> Status`: PreFilterExtensions, keep the PreFilter state right when preemption
      or nominated pods change what stands on `info` (cs is then a clone).
    * `filter(cs, pod, info) -> Status`
    * `pre_score(cs, pod, nodes: list[NodeInfo]) -> Status`: SKIP skips its Score.
    * `score(cs, pod, info) -> int` (may raise ScoreError)
    * `normalize_score(cs, pod, scores: dict[str, int]) -> None`: in place, node name -> score.
    * `events`: the cluster events (`"<Kind>/<Action>"`, e.g. "Node/Add", "Node/UpdateNodeTaint",
      "AssignedPod/Delete") after which a pod this plugin rejected may fit (EventsToRegister).
    """

    name: str = ""
    events: frozenset[str] = frozenset()

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle):
        self.args = dict(args or {})
        self.handle = handle


class ScoreError(Exception):
    """A Score or NormalizeScore plugin failed: the attempt fails with this message."""


class ArgsError(ValueError):
    """A plugin's args are invalid: str() is the validation message (field path and
    Kubernetes' wording)."""
