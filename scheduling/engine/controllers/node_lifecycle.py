"""The node lifecycle controller (pkg/controller/nodelifecycle, Kubernetes 1.11, with taint
nodes by condition and taint-based evictions on, as the OpenShift 4 taints documentation describes them).

Node conditions (Ready True/False/Unknown, MemoryPressure, DiskPressure, PIDPressure,
NetworkUnavailable, OutOfDisk) are what the kubelet reports: the user or a Timeline sets
them (engine.controllers.kubelet.set_condition records the kubelet's events). A node whose kubelet
stops reporting carries the annotation `clusterui.io/heartbeat-stopped-at` (the time of
its last heartbeat; any non-numeric value is stamped with the current time here). A node
without a Ready condition is Ready (nodes without conditions are treated as
Ready): the simulated kubelet reports it implicitly.

What runs, and when (`reconcile(store, now)` does all of it; call it at the times it
asks for, `Result.next_due`, and after changes; a caller whose clock does not stop on the
monitor times passes `monitor=True` on its first call after one):

* Taint nodes by condition (doNoScheduleTaintingPass, on every node change, at once):
  NoSchedule taints `node.kubernetes.io/not-ready` (Ready False), `unreachable` (Ready
  Unknown), `memory-pressure`, `disk-pressure`, `pid-pressure`, `network-unavailable`,
  `out-of-disk` (condition True) and `unschedulable` (spec.unschedulable, i.e. cordon);
  added with timeAdded, removed when the condition goes. Taints are compared by key and
  effect only (TaintSetDiff).
* The monitor pass (monitorNodeStatus), every `monitor_period` (5 s) at simulated times
  that are multiples of it, starting at 0:
  - a node whose last heartbeat H is older than the grace period (40 s) — the first pass
    with `now > H + 40` (strictly: `now.After(probeTimestamp.Add(gracePeriod))`) — gets
    Ready, MemoryPressure, DiskPressure and PIDPressure Unknown (reason
    NodeStatusUnknown, "Kubelet stopped posting node status."; NetworkUnavailable is left
    alone), and, if it was Ready, the event `NodeNotReady` `Node <name> status is now:
    NodeNotReady` (source node-controller). Stopping at t=0 gives Unknown at t=45.
  - taint-based evictions, from the Ready status the pass OBSERVED (the one the node had
    when the pass started): False -> the node is queued for the
    `node.kubernetes.io/not-ready:NoExecute` taint, Unknown -> for
    `node.kubernetes.io/unreachable:NoExecute` (swapped at once if the node has the other
    one), True -> both are removed at once. A node that this pass itself turned Unknown is
    queued by the next pass (t=50 in the example above).
  - zone states (ComputeZoneState, non-master nodes only, `system.IsMasterNode` on the
    name): FullDisruption when no node is Ready (and at least one is not);
    PartialDisruption when more than 2 are not Ready and they are >= 55 %; else Normal.
    Each zone's tainting rate: Normal 0.1 nodes/s; PartialDisruption 0.01/s if the zone
    has more than 50 nodes, else 0 (no more taints); FullDisruption 0.1/s (the normal
    rate) — unless every zone is FullDisruption: then all not-ready/unreachable NoExecute
    taints are removed from every node and no zone taints any more, until a node is Ready
    again (handleDisruption).
* The tainting queue (doNoExecuteTaintingPass, continuously): queued nodes get their
  NoExecute taint (with timeAdded) in the order they were queued, one per token of their
  zone's token bucket (rate above, burst 1: a token every 1/rate seconds).

What it remembers: the Ready condition's lastTransitionTime (when a pass queued the
node follows from it), the taints, and, in its controller state (name `node-lifecycle`,
persisted with the cluster), one entry per zone, `zone/<zone>` -> {state, since, nodes,
notReady, evictionRate, tokenAvailableAt}: the zone state and its rate limiter (zones
are named `<region>:<zone>` from the failure-domain.beta.kubernetes.io (or
topology.kubernetes.io) labels, or `cluster` when a node has neither).
Zone state changes are also recorded as events on the Zone (`ZoneStateChanged`,
`EnteringMasterDisruptionMode`, `ExitingMasterDisruptionMode`; upstream only logs them).

Not simulated: the node startup grace period (nodes are created reporting), pod
eviction without taints (--pod-eviction-timeout, off with taint-based evictions), the
probe-timestamp reset when leaving master disruption mode, cloud-provider node deletion.
The token bucket is continuous (a token exactly 1/rate after the last one); upstream's
juju bucket adds tokens on ticks aligned with the bucket's creation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.admission import (
    TAINT_NODE_DISK_PRESSURE,
    TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_OUT_OF_DISK,
    TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
)
from scheduling.engine.api.defaults import ZONE_KIND
from scheduling.engine.controller import ANY_KIND, Context
from scheduling.engine.store import (
    HEARTBEAT_STOPPED_ANNOTATION,
    Store,
    annotations_of,
    labels_of,
    meta,
    sim_time,
    time_text,
    time_value,
)

NAME = "node-lifecycle"
SOURCE = "node-controller"
ZONE_PREFIX = "zone/"

STATE_INITIAL = "Initial"
STATE_NORMAL = "Normal"
STATE_FULL_DISRUPTION = "FullDisruption"
STATE_PARTIAL_DISRUPTION = "PartialDisruption"

REGION_LABELS = ("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region")
ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
CLUSTER_ZONE = "cluster"  # the zone of nodes without zone labels ("Zone refers to entire cluster")

NODE_STATUS_UNKNOWN = "NodeStatusUnknown"
STOPPED_POSTING = "Kubelet stopped posting node status."
# Conditions set to Unknown with Ready when the kubelet stops posting (NetworkUnavailable
# is managed at the control-plane level and left alone).
REMAINING_CONDITION_TYPES = ("MemoryPressure", "DiskPressure", "PIDPressure")

# (condition type, status) -> NoSchedule taint key (nodeConditionToTaintKeyStatusMap).
CONDITION_TAINTS: dict[tuple[str, str], str] = {
    ("Ready", "False"): TAINT_NODE_NOT_READY,
    ("Ready", "Unknown"): TAINT_NODE_UNREACHABLE,
    ("MemoryPressure", "True"): TAINT_NODE_MEMORY_PRESSURE,
    ("DiskPressure", "True"): TAINT_NODE_DISK_PRESSURE,
    ("PIDPressure", "True"): TAINT_NODE_PID_PRESSURE,
    ("NetworkUnavailable", "True"): TAINT_NODE_NETWORK_UNAVAILABLE,
    ("OutOfDisk", "True"): TAINT_NODE_OUT_OF_DISK,
}
CONDITION_TAINT_KEYS = frozenset(CONDITION_TAINTS.values()) | {TAINT_NODE_UNSCHEDULABLE}
NO_EXECUTE_FOR_READY = {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE}


@dataclass(frozen=True)
class NodeLifecycleConfig:
    """kube-controller-manager's node lifecycle flags, with their upstream defaults."""

    monitor_period: float = 5.0  # --node-monitor-period
    grace_period: float = 40.0  # --node-monitor-grace-period (50 s since 1.32)
    eviction_rate: float = 0.1  # --node-eviction-rate
    secondary_eviction_rate: float = 0.01  # --secondary-node-eviction-rate
    unhealthy_zone_threshold: float = 0.55  # --unhealthy-zone-threshold
    large_cluster_threshold: int = 50  # --large-cluster-size-threshold
    taint_nodes_by_condition: bool = True
    taint_based_evictions: bool = True


DEFAULT_CONFIG = NodeLifecycleConfig()


# --- reading nodes -----------------------------------------------------------------------------------


def zone_of(node_doc: Mapping[str, Any]) -> str:
    """The zone (utilnode.GetZoneKey): "<region>:<zone>", or `cluster` without labels."""
    labels = labels_of(node_doc)
    region = next((labels[k] for k in REGION_LABELS if labels.get(k)), "")
    zone = next((labels[k] for k in ZONE_LABELS if labels.get(k)), "")
    if not region and not zone:
        return CLUSTER_ZONE
    return f"{region}:{zone}"


def is_master_node(name: str) -> bool:
    """system.IsMasterNode (1.11): the name matches "master(-...)?$"."""
    if name.endswith("master"):
        return True
    if len(name) >= 10:
        return name[: len(name) - 3].endswith("master-")
    return False


def conditions_of(node_doc: Mapping[str, Any]) -> dict[str, dict]:
    return {c.get("type"): c for c in (node_doc.get("status") or {}).get("conditions") or () if c.get("type")}


def ready_status(node_doc: Mapping[str, Any]) -> str:
    """Ready's status; a node without a Ready condition is Ready."""
    cond = conditions_of(node_doc).get("Ready")
    return (cond.get("status") or "Unknown") if cond is not None else "True"


def heartbeat_stopped_at(node_doc: Mapping[str, Any]) -> float | None:
    """The last heartbeat of a node that stopped reporting (None: reporting, or a value
    without a time yet, which reconcile stamps)."""
    value = annotations_of(node_doc).get(HEARTBEAT_STOPPED_ANNOTATION)
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def is_reporting(node_doc: Mapping[str, Any]) -> bool:
    return HEARTBEAT_STOPPED_ANNOTATION not in annotations_of(node_doc)


def _taints(node_doc: Mapping[str, Any]) -> list[dict]:
    return list((node_doc.get("spec") or {}).get("taints") or ())


def _has_taint(taints, key: str, effect: str) -> bool:
    for t in taints:
        if t.get("key") == key and t.get("effect") == effect:
            return True
    return False


def is_tick(now: float, period: float) -> bool:
    return abs(now / period - round(now / period)) < 1e-9


def next_tick_after(t: float, period: float) -> float:
    """The first monitor pass strictly after `t`."""
    k = math.floor(t / period + 1e-9) + 1
    return k * period


def first_tick_at_or_after(t: float, period: float) -> float:
    k = math.ceil(t / period - 1e-9)
    return k * period


def queued_at(node_doc: Mapping[str, Any], config: NodeLifecycleConfig = DEFAULT_CONFIG) -> float | None:
    """When a monitor pass queued this not-Ready node for its NoExecute taint (None: Ready).

    The first pass that OBSERVED the status: at or after the condition's transition, or
    strictly after it when the controller itself set Unknown in a pass."""
    status = ready_status(node_doc)
    if status == "True":
        return None
    cond = conditions_of(node_doc).get("Ready") or {}
    since = sim_time(cond.get("lastTransitionTime")) or 0.0
    if cond.get("reason") == NODE_STATUS_UNKNOWN:
        return next_tick_after(since, config.monitor_period)
    return first_tick_at_or_after(since, config.monitor_period)


# --- zones ---------------------------------------------------------------------------------------------


@dataclass
class ZoneStatus:
    name: str
    state: str
    since: float
    nodes: int = 0
    not_ready: int = 0
    rate: float = 0.1
    token_at: float | None = 0.0
    exists: bool = True

    @classmethod
    def from_state(cls, name: str, s: Mapping[str, Any]) -> "ZoneStatus":
        token = s.get("tokenAvailableAt")
        return cls(
            name,
            s.get("state") or STATE_INITIAL,
            sim_time(s.get("since")) or 0.0,
            int(s.get("nodes") or 0),
            int(s.get("notReady") or 0),
            float(s.get("evictionRate") or 0.0),
            None if token is None else sim_time(token),
        )

    def to_state(self) -> dict:
        return {
            "state": self.state,
            "since": time_value(self.since),
            "nodes": self.nodes,
            "notReady": self.not_ready,
            "evictionRate": self.rate,
            "tokenAvailableAt": None if self.token_at is None else time_value(self.token_at),
        }

    def action(self) -> A.SetControllerState:
        return A.SetControllerState(NAME, ZONE_PREFIX + self.name, self.to_state())

    def swap_limiter(self, rate: float, now: float) -> None:
        """RateLimitedTimedQueue.SwapLimiter: a new bucket, drained unless the old one
        still had its token."""
        if rate == self.rate:
            return
        had_token = self.token_at is not None and self.token_at <= now
        if rate <= 0:
            self.token_at = None
        else:
            self.token_at = now if had_token else now + 1.0 / rate
        self.rate = rate

    def try_accept(self, now: float) -> bool:
        if self.token_at is None or self.token_at > now + 1e-9:
            return False
        self.token_at = now + 1.0 / self.rate
        return True


def compute_zone_state(statuses: list[str], config: NodeLifecycleConfig = DEFAULT_CONFIG) -> tuple[int, str]:
    """ComputeZoneState over the Ready statuses of a zone's nodes: (not ready, state)."""
    ready = sum(1 for s in statuses if s == "True")
    return _zone_state(len(statuses), ready, config)


def _zone_state(members: int, ready: int, config: NodeLifecycleConfig) -> tuple[int, str]:
    """compute_zone_state from the counts: the zone's nodes and the Ready ones."""
    not_ready = members - ready
    if ready == 0 and not_ready > 0:
        return not_ready, STATE_FULL_DISRUPTION
    if not_ready > 2 and not_ready / (not_ready + ready) >= config.unhealthy_zone_threshold:
        return not_ready, STATE_PARTIAL_DISRUPTION
    return not_ready, STATE_NORMAL


def zone_rate(state: str, zone_size: int, config: NodeLifecycleConfig = DEFAULT_CONFIG) -> float:
    """setLimiterInZone: the tainting rate of a zone in a state."""
    if state == STATE_PARTIAL_DISRUPTION:
        return config.secondary_eviction_rate if zone_size > config.large_cluster_threshold else 0.0
    return config.eviction_rate


def recorded_zones(state: Mapping[str, Any]) -> dict[str, dict]:
    """Zone -> its recorded status ({state, since, nodes, notReady, evictionRate,
    tokenAvailableAt}), from the controller's state (`store.state_of(NAME)`)."""
    return {k[len(ZONE_PREFIX):]: dict(v) for k, v in state.items() if k.startswith(ZONE_PREFIX)}


def zone_states(store: Store) -> dict[str, str]:
    """Zone -> state as the controller last recorded it."""
    return {name: z.get("state") or STATE_INITIAL for name, z in recorded_zones(store.state_of(NAME)).items()}


def compute_zone_states(store: Store, config: NodeLifecycleConfig = DEFAULT_CONFIG) -> dict[str, str]:
    """Zone -> the state the nodes' current Ready conditions give (a what-if reading)."""
    by_zone: dict[str, list[str]] = {}
    for node in store.list("Node"):
        if is_master_node(meta(node).get("name") or ""):
            continue
        by_zone.setdefault(zone_of(node), []).append(ready_status(node))
    return {z: compute_zone_state(s, config)[1] for z, s in by_zone.items()}


# --- the controller ----------------------------------------------------------------------------------------


def condition_taint_actions(node_doc: Mapping[str, Any], now: float) -> list:
    """doNoScheduleTaintingPass for one node: add/remove the condition NoSchedule taints."""
    name = meta(node_doc).get("name") or ""
    wanted: list[str] = []
    for ctype, cond in conditions_of(node_doc).items():
        key = CONDITION_TAINTS.get((ctype, cond.get("status") or ""))
        if key is not None and key not in wanted:
            wanted.append(key)
    if (node_doc.get("spec") or {}).get("unschedulable"):
        wanted.append(TAINT_NODE_UNSCHEDULABLE)
    have = [t.get("key") for t in _taints(node_doc) if t.get("effect") == "NoSchedule" and t.get("key") in CONDITION_TAINT_KEYS]
    out: list = []
    for key in wanted:
        if key not in have:
            out.append(A.AddTaint(name, {"key": key, "effect": "NoSchedule", "timeAdded": _t(now)}))
    for key in dict.fromkeys(have):
        if key not in wanted:
            out.append(A.RemoveTaint(name, key, "NoSchedule"))
    return out


def _t(now: float) -> int | float:
    return int(now) if float(now).is_integer() else now


class _Read:
    """What the passes read of a Node document (the same for as long as it is the node's)."""

    __slots__ = ("name", "zone", "master", "status", "unknown_since", "taints", "heartbeat", "stopped", "conditions",
                 "queued", "condition_taints")

    def __init__(self, doc: Mapping[str, Any], config: NodeLifecycleConfig):
        self.name = meta(doc).get("name") or ""
        self.zone = zone_of(doc)
        self.master = is_master_node(self.name)
        self.conditions = conditions_of(doc)
        self.status = ready_status(doc)
        ready = self.conditions.get("Ready") or {}
        # when the controller itself set Ready Unknown (None: it did not)
        self.unknown_since = (sim_time(ready.get("lastTransitionTime")) or 0.0) if ready.get("reason") == NODE_STATUS_UNKNOWN else None
        self.taints = tuple(_taints(doc))
        self.heartbeat = annotations_of(doc).get(HEARTBEAT_STOPPED_ANNOTATION)
        self.stopped = heartbeat_stopped_at(doc)
        self.queued = queued_at(doc, config)
        self.condition_taints = bool(config.taint_nodes_by_condition and condition_taint_actions(doc, 0.0))


@dataclass
class _Node:
    doc: Mapping[str, Any]
    read: _Read
    index: int
    name: str
    zone: str
    master: bool
    observed: str  # Ready status when the pass starts
    current: str  # Ready status after this pass's own updates
    taints: list = field(default_factory=list)
    fresh: bool = False  # Ready was set Unknown by a pass at this instant (not observed yet)


def reconcile(store: Store, now: float, config: NodeLifecycleConfig = DEFAULT_CONFIG,
              monitor: bool | None = None) -> A.Result:
    """One run at `now`. The monitor pass runs when `now` is a multiple of the monitor
    period (the simulation calls at exactly those times: they are in `next_due`); a caller
    whose clock does not stop on them passes `monitor=True` on its first call after one."""
    return _reconcile(store, now, config, monitor, list(enumerate(store.list("Node"))), None)


def is_quiet(node_doc: Mapping[str, Any], config: NodeLifecycleConfig = DEFAULT_CONFIG) -> bool:
    """Whether a node gives the controller nothing to do whatever the time: it reports, is
    Ready, has no NoExecute taint of the controller's and the condition taints it should
    have. Such a node only counts as a Ready node of its zone."""
    if HEARTBEAT_STOPPED_ANNOTATION in annotations_of(node_doc) or ready_status(node_doc) != "True":
        return False
    taints = _taints(node_doc)
    if _has_taint(taints, TAINT_NODE_UNREACHABLE, "NoExecute") or _has_taint(taints, TAINT_NODE_NOT_READY, "NoExecute"):
        return False
    return not (config.taint_nodes_by_condition and condition_taint_actions(node_doc, 0.0))


class QuietNodes:
    """The quiet nodes (is_quiet) counted by zone, and the others, kept as nodes change
    (`update` with the names of the changed nodes): what an incremental run needs."""

    def __init__(self, store: Store, config: NodeLifecycleConfig):
        self.config = config
        self.facts: dict[str, tuple[dict, str, bool, bool]] = {}  # name -> (doc, zone, master, quiet)
        self.reads: dict[str, tuple[dict, _Read]] = {}  # name -> (doc, what the passes read of it)
        self.ready: dict[str, int] = {}  # zone -> quiet nodes (not masters)
        self.busy: set[str] = set()
        self.zone_order: list[str] | None = None  # zones with a node that is not a master, by their first node
        self.update(store, [meta(doc).get("name") or "" for doc in store.list("Node")])

    def update(self, store: Store, names: Iterable[str]) -> bool:
        """Whether a pass reads anything different now: a node came or went, is not quiet
        (its document changed), or was not quiet or in another zone or role before (a quiet
        node that stays quiet in its zone only counts there)."""
        relevant = False
        for name in names:
            doc = store.get("Node", "", name)
            old = self.facts.pop(name, None)
            if old is not None and old[0] is doc:
                self.facts[name] = old
                continue
            if old is not None:
                self._count(name, old, -1)
            if doc is None:
                self.zone_order = None
                self.reads.pop(name, None)
                relevant = True
                continue
            new = (doc, zone_of(doc), is_master_node(name), is_quiet(doc, self.config))
            if old is None or old[1:3] != new[1:3]:
                self.zone_order = None
            if old is None or old[1:] != new[1:] or not new[3]:
                relevant = True
            self.facts[name] = new
            self._count(name, new, 1)
        return relevant

    def _count(self, name: str, facts: tuple[dict, str, bool, bool], delta: int) -> None:
        _, zone, master, quiet = facts
        if not quiet:
            if delta > 0:
                self.busy.add(name)
            else:
                self.busy.discard(name)
        elif not master:
            self.ready[zone] = self.ready.get(zone, 0) + delta

    def read(self, doc: Mapping[str, Any]) -> _Read:
        """_Read(doc), kept while `doc` is the node's document."""
        name = meta(doc).get("name") or ""
        hit = self.reads.get(name)
        if hit is None or hit[0] is not doc:
            hit = self.reads[name] = (doc, _Read(doc, self.config))
        return hit[1]

    def zones(self, store: Store) -> list[str]:
        if self.zone_order is None:
            order: dict[str, None] = {}
            for doc in store.list("Node"):
                if not is_master_node(meta(doc).get("name") or ""):
                    order[zone_of(doc)] = None
            self.zone_order = list(order)
        return self.zone_order


def _reconcile(store: Store, now: float, config: NodeLifecycleConfig, monitor: bool | None,
               docs: list[tuple[int, dict]], quiet: QuietNodes | None) -> A.Result:
    """reconcile over `docs` ((position, Node) in store order): every node, or (`quiet`)
    the nodes that are not quiet, the quiet ones counted by zone."""
    result = A.Result()
    period = config.monitor_period
    nodes: list[_Node] = []
    for i, doc in docs:
        r = quiet.read(doc) if quiet is not None else _Read(doc, config)
        fresh = r.unknown_since is not None and r.unknown_since >= now - 1e-9
        nodes.append(_Node(doc, r, i, r.name, r.zone, r.master, r.status, r.status, list(r.taints), fresh))
    zones_of = (lambda: _by_zone(nodes, None, None)) if quiet is None else (lambda: _by_zone(nodes, quiet.ready, quiet.zones(store)))

    # Stamp "stopped reporting" annotations that carry no time.
    for n in nodes:
        value = n.read.heartbeat
        if value is not None and not isinstance(value, (int, float)):
            try:
                float(value)
            except ValueError:
                result.actions.append(A.SetAnnotation("Node", "", n.name, HEARTBEAT_STOPPED_ANNOTATION, time_text(now)))

    if config.taint_nodes_by_condition:
        for n in nodes:
            if n.read.condition_taints:
                result.actions += condition_taint_actions(n.doc, now)

    zones = {name: ZoneStatus.from_state(name, z) for name, z in recorded_zones(store.state_of(NAME)).items()}
    touched: set[str] = set()
    pass_now = is_tick(now, period) if monitor is None else monitor
    if pass_now:
        _monitor_pass(nodes, zones, touched, now, config, result, zones_of)
    if config.taint_based_evictions:
        _tainting_pass(nodes, zones, touched, now, config, result)
    for name in sorted(touched):
        z = zones[name]
        result.actions.append(z.action() if z.exists else A.SetControllerState(NAME, ZONE_PREFIX + name, None))
    result.due(_next_pass(nodes, zones, now, config, pass_now, zones_of()))
    return result


def _by_zone(nodes: list[_Node], quiet: Mapping[str, int] | None, order: list[str] | None) -> dict[str, tuple[int, int]]:
    """Zone -> (nodes, Ready nodes) over the nodes that are not masters (their current
    status), in the order of each zone's first node; `quiet`: more Ready nodes by zone
    (in the zones of `order`)."""
    by_zone: dict[str, list[int]] = {zone: [quiet.get(zone, 0)] * 2 for zone in order or ()} if quiet is not None else {}
    for n in nodes:
        if not n.master:
            counts = by_zone.setdefault(n.zone, [0, 0])
            counts[0] += 1
            counts[1] += n.current == "True"
    return {zone: (members, ready) for zone, (members, ready) in by_zone.items() if members}


def _monitor_pass(nodes: list[_Node], zones: dict[str, ZoneStatus], touched: set[str], now: float,
                  config: NodeLifecycleConfig, result: A.Result, zones_of) -> None:
    # 1. Nodes whose kubelet stopped posting for longer than the grace period.
    for n in nodes:
        stopped = n.read.stopped
        if stopped is None:
            stopped = now if n.read.heartbeat is not None else None
        if stopped is None or not now > stopped + config.grace_period + 1e-9:
            continue
        conds = n.read.conditions
        ready = conds.get("Ready")
        if ready is None or ready.get("status") != "Unknown":
            result.actions.append(
                A.SetNodeCondition(n.name, "Ready", "Unknown", NODE_STATUS_UNKNOWN, STOPPED_POSTING, now, stopped)
            )
        for ctype in REMAINING_CONDITION_TYPES:
            cond = conds.get(ctype)
            if cond is None or cond.get("status") != "Unknown":
                heartbeat = sim_time(cond.get("lastHeartbeatTime")) if cond is not None else None
                result.actions.append(
                    A.SetNodeCondition(n.name, ctype, "Unknown", NODE_STATUS_UNKNOWN, STOPPED_POSTING, now,
                                       stopped if heartbeat is None else heartbeat)
                )
        n.current = "Unknown"
        if n.observed == "True":
            result.actions.append(
                A.RecordEvent(now, "Normal", "NodeNotReady", "Node", "", n.name,
                              f"Node {n.name} status is now: NodeNotReady", SOURCE)
            )

    # 2. Taint-based evictions from the observed Ready status (swaps and removals are
    #    immediate; additions go through the zone's rate-limited queue).
    if config.taint_based_evictions:
        for n in nodes:
            if n.fresh:
                continue  # set Unknown by a pass at this very instant: the next pass observes it
            if n.observed == "True":
                for key in (TAINT_NODE_UNREACHABLE, TAINT_NODE_NOT_READY):
                    if _has_taint(n.taints, key, "NoExecute"):
                        result.actions.append(A.RemoveTaint(n.name, key, "NoExecute"))
                        n.taints = [t for t in n.taints if not (t.get("key") == key and t.get("effect") == "NoExecute")]
            elif n.observed in NO_EXECUTE_FOR_READY:
                want = NO_EXECUTE_FOR_READY[n.observed]
                other = TAINT_NODE_UNREACHABLE if want == TAINT_NODE_NOT_READY else TAINT_NODE_NOT_READY
                if _has_taint(n.taints, other, "NoExecute"):
                    _swap(n, want, other, now, result)

    # 3. Zone states and their rate limiters (handleDisruption).
    by_zone = zones_of()
    for name in list(zones):
        if name not in by_zone:
            zones[name].exists = False
            touched.add(name)
    new_states: dict[str, tuple[int, str]] = {}
    for name, (members, ready) in by_zone.items():
        new_states[name] = _zone_state(members, ready, config)
        if name not in zones or not zones[name].exists:
            zones[name] = ZoneStatus(name, STATE_INITIAL, now, members, 0, config.eviction_rate, now)
            touched.add(name)
        z = zones[name]
        if (z.nodes, z.not_ready) != (members, new_states[name][0]):
            z.nodes, z.not_ready = members, new_states[name][0]
            touched.add(name)
    present = [zones[name] for name in by_zone]
    all_are_full = all(s == STATE_FULL_DISRUPTION for _, s in new_states.values())
    all_were_full = all(z.state == STATE_FULL_DISRUPTION for z in present)
    if all_are_full and all_were_full:
        return
    if all_are_full:
        # Entering master disruption mode: every node reachable again, no more taints.
        for n in nodes:
            for key in (TAINT_NODE_UNREACHABLE, TAINT_NODE_NOT_READY):
                if _has_taint(n.taints, key, "NoExecute"):
                    result.actions.append(A.RemoveTaint(n.name, key, "NoExecute"))
                    n.taints = [t for t in n.taints if not (t.get("key") == key and t.get("effect") == "NoExecute")]
        for z in present:
            z.swap_limiter(0.0, now)
            if z.state != STATE_FULL_DISRUPTION:
                z.state, z.since = STATE_FULL_DISRUPTION, now
            touched.add(z.name)
        result.actions.append(_zone_event(now, CLUSTER_ZONE if len(present) != 1 else present[0].name,
                                          "EnteringMasterDisruptionMode",
                                          "Controller detected that all Nodes are not-Ready. Entering master disruption mode."))
        return
    if all_were_full and present:
        result.actions.append(_zone_event(now, CLUSTER_ZONE if len(present) != 1 else present[0].name,
                                          "ExitingMasterDisruptionMode",
                                          "Controller detected that some Nodes are Ready. Exiting master disruption mode."))
        for z in present:
            state = new_states[z.name][1]
            z.swap_limiter(zone_rate(state, z.nodes, config), now)
            if z.state != state:
                z.state, z.since = state, now
            touched.add(z.name)
        return
    for z in present:
        state = new_states[z.name][1]
        if z.state == state:
            continue
        z.swap_limiter(zone_rate(state, z.nodes, config), now)
        if not (z.state == STATE_INITIAL and state == STATE_NORMAL):
            result.actions.append(_zone_event(now, z.name, "ZoneStateChanged",
                                              f"Controller detected that zone {z.name} is now in state {state}."))
        z.state, z.since = state, now
        touched.add(z.name)


def _zone_event(now: float, zone: str, reason: str, message: str) -> A.RecordEvent:
    return A.RecordEvent(now, "Normal", reason, ZONE_KIND, "", zone, message, SOURCE)


def _swap(n: _Node, want: str, other: str, now: float, result: A.Result) -> None:
    """SwapNodeControllerTaint: add `want`:NoExecute, remove `other`:NoExecute."""
    if _has_taint(n.taints, other, "NoExecute"):
        result.actions.append(A.RemoveTaint(n.name, other, "NoExecute"))
    result.actions.append(A.AddTaint(n.name, {"key": want, "effect": "NoExecute", "timeAdded": _t(now)}))
    n.taints = [t for t in n.taints if not (t.get("key") == other and t.get("effect") == "NoExecute")]
    n.taints.append({"key": want, "effect": "NoExecute", "timeAdded": _t(now)})


def _queued(n: _Node, now: float, config: NodeLifecycleConfig) -> float | None:
    """When `n` was queued for its NoExecute taint, if it is queued and still needs it."""
    want = NO_EXECUTE_FOR_READY.get(n.current)
    if want is None or _has_taint(n.taints, want, "NoExecute"):
        return None
    if n.current != n.observed:  # set by this very pass: queued by the next one
        return None
    return n.read.queued


def _tainting_pass(nodes: list[_Node], zones: dict[str, ZoneStatus], touched: set[str], now: float,
                   config: NodeLifecycleConfig, result: A.Result) -> None:
    by_zone: dict[str, list[tuple[float, int, _Node]]] = {}
    for n in nodes:
        at = _queued(n, now, config)
        if at is not None and at <= now + 1e-9:
            by_zone.setdefault(n.zone, []).append((at, n.index, n))
    for zone, queue in by_zone.items():
        z = zones.get(zone)
        if z is None or not z.exists:
            continue  # the zone's tainter appears with the next monitor pass
        for _, _, n in sorted(queue, key=lambda q: (q[0], q[1])):
            if not z.try_accept(now):
                break
            want = NO_EXECUTE_FOR_READY[n.current]
            other = TAINT_NODE_UNREACHABLE if want == TAINT_NODE_NOT_READY else TAINT_NODE_NOT_READY
            _swap(n, want, other, now, result)
            touched.add(zone)


def _next_pass(nodes: list[_Node], zones: dict[str, ZoneStatus], now: float, config: NodeLifecycleConfig,
               ran: bool, by_zone: dict[str, tuple[int, int]]) -> float | None:
    """When the controller has something left to do without any document changing."""
    period = config.monitor_period
    due: list[float] = []
    tick = next_tick_after(now, period)
    for n in nodes:
        if n.read.heartbeat is not None and n.current != "Unknown":
            stopped = n.read.stopped
            stopped = now if stopped is None else stopped
            due.append(max(tick, next_tick_after(stopped + config.grace_period, period)))
        if not config.taint_based_evictions:
            continue
        if n.current == "True":
            if _has_taint(n.taints, TAINT_NODE_UNREACHABLE, "NoExecute") or _has_taint(n.taints, TAINT_NODE_NOT_READY, "NoExecute"):
                due.append(tick if ran or n.observed != n.current else first_tick_at_or_after(now, period))
            continue
        want = NO_EXECUTE_FOR_READY.get(n.current)
        if want is None or _has_taint(n.taints, want, "NoExecute"):
            continue
        at = _queued(n, now, config)
        if at is None or at > now + 1e-9:
            due.append(max(tick, at) if at is not None else tick)
            continue
        z = zones.get(n.zone)
        if z is None or not z.exists:
            due.append(tick)
        elif z.token_at is not None:
            due.append(max(z.token_at, now) if z.token_at > now + 1e-9 else tick)
    # Zone states that the next pass would change.
    for name, (members, ready) in by_zone.items():
        z = zones.get(name)
        not_ready, state = _zone_state(members, ready, config)
        if z is None or not z.exists or z.state != state or (z.nodes, z.not_ready) != (members, not_ready):
            due.append(tick)
    if any(z.exists and z.name not in by_zone for z in zones.values()):
        due.append(tick)
    due = [d for d in due if d > now + 1e-9]
    return min(due) if due else None


class NodeLifecycleController:
    """Runs `reconcile` over the nodes that are not quiet (is_quiet), the quiet ones counted
    by zone (QuietNodes, brought up to date with the nodes that changed since its last run).
    What it reads is the Nodes, its state and the time: run again at the same instant with
    none of them changed (other kinds changed, or only quiet nodes that stay quiet in their
    zone: QuietNodes.update), it would ask for what it already asked for, all done: it
    answers with its last next_due."""

    name = NAME
    watches = frozenset({ANY_KIND})

    def __init__(self) -> None:
        self._quiet: QuietNodes | None = None
        self._last: tuple[float, dict, float | None] | None = None  # (now, its state, next_due) of its last run

    def reconcile(self, ctx: Context) -> A.Result:
        store = ctx.store
        config = ctx.settings.get("node_lifecycle") or DEFAULT_CONFIG
        if ctx.changed is None or self._quiet is None or self._quiet.config != config:
            self._quiet = QuietNodes(store, config)
        else:
            nodes = {name for kind, _, name in ctx.changed if kind == "Node"}
            relevant = self._quiet.update(store, nodes)
            last = self._last
            if (not relevant and last is not None and last[0] == ctx.now and len(last[1]) == len(ctx.state)
                    and all(ctx.state.get(k) is v for k, v in last[1].items())):
                return A.Result(next_due=last[2])
        docs = [(store.order("Node", "", name), doc) for name in self._quiet.busy for doc in (store.get("Node", "", name),) if doc]
        docs.sort(key=lambda item: item[0])
        result = _reconcile(store, ctx.now, config, None, docs, self._quiet)
        self._last = (ctx.now, dict(ctx.state), result.next_due)
        return result
