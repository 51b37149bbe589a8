"""The Machine Config Operator's node side, as two controllers of the one protocol.

`mco-node-controller` (the MCC: render, node and drain controllers):
* pools: `master` and `worker` always, plus one per other `node-role.kubernetes.io/<role>`
  label found on nodes (a custom pool selecting worker and <role> MachineConfigs), when
  missing; base MachineConfigs `00-master` / `00-worker` (osImageURL of the running
  release) when missing;
* render: `rendered-<pool>-<md5 of the pool's MachineConfigs>`, the pool's
  `spec.configuration`;
* node controller (pkg/controller/node): per pool, unless paused, sets
  `machineconfiguration.openshift.io/desiredConfig` on candidates: nodes not yet targeting
  the pool's config, at most maxUnavailable (int or percent of the pool's nodes, rounded
  down, at least 1) minus unavailable nodes minus nodes failing on this config; when there
  are more candidates than capacity they are sorted by topology.kubernetes.io/zone (nodes
  without a zone last), then oldest creationTimestamp first; event SetDesiredConfig; the
  `UpdateInProgress:PreferNoSchedule` taint on nodes being updated, removed when done; the
  pool status counts and conditions computed as pkg/controller/node/status.go does;
* drain controller: cordon, evict (eviction API, PDBs respected, DaemonSet pods stay) and,
  while a PDB refuses, retry after 1 minute, after 10 minutes of failing every 5 minutes
  (drain_controller.go DefaultConfig); uncordon when the daemon asks.

`mco-daemon` (the MCD on each node): state Working and desiredDrain drain-<config>, waits for
the drain (events Cordon and Drain when it asks), writes files and the OS (InClusterUpgrade,
OSUpdateStarted, OSUpgradeApplied, OSUpdateStaged when the OS changes), reboots
(`Reboot`; the kubelet stops reporting, so the node goes NotReady and the node lifecycle
controller taints it), comes back and asks for desiredDrain uncordon-<config>; once the drain
controller has uncordoned it (seen at the daemon's next 10 s poll) it records `Uncordon`, then
`NodeDone`, and writes currentConfig = desired and state Done (pkg/daemon completeUpdate, then
updateConfigAndState). Their events, like the controllers', are in the namespace
openshift-machine-config-operator (ctrlcommon.NamespacedEventRecorder). Durations: OS update 60-120 s and reboot 60-120 s (cloud figures of the
update-duration docs), from ctx.rng, or the node annotations `clusterui.io/update-seconds` /
`clusterui.io/reboot-seconds`. `clusterui.io/fail-update: "<message>"` on a node makes its
update fail (state Degraded, reason = message) until the annotation is removed.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import operator
from typing import Any, Iterable, Mapping, NamedTuple

from scheduling.engine import actions as A
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.controller import Context
from scheduling.engine.oc import drain
from scheduling.engine.store import (
    HEARTBEAT_STOPPED_ANNOTATION,
    annotations_of,
    labels_of,
    name_of,
    sim_time,
    time_text,
    time_value,
)

from . import conditions as C
from .cvo import current_version, os_image
from .kubelet import kubelet_version

NODE_CONTROLLER = "mco-node-controller"
DAEMON = "mco-daemon"
MCC_SOURCE = "machineconfigcontroller-nodecontroller"
# pkg/controller/drain registers its event recorder under the node controller's name
DRAIN_SOURCE = "machineconfigcontroller-nodecontroller"
MCD_SOURCE = "machineconfigdaemon"
# ctrlcommon.NamespacedEventRecorder: the controllers' and the daemon's events on cluster-scoped
# objects (Nodes, MachineConfigPools) get this namespace in their involvedObject, so they are
# listed by `oc get events -n openshift-machine-config-operator` (and not by `oc describe node`,
# whose field selector asks for involvedObject.namespace="")
EVENT_NAMESPACE = "openshift-machine-config-operator"
API = "machineconfiguration.openshift.io/v1"

CURRENT = "machineconfiguration.openshift.io/currentConfig"
DESIRED = "machineconfiguration.openshift.io/desiredConfig"
STATE = "machineconfiguration.openshift.io/state"
REASON = "machineconfiguration.openshift.io/reason"
DESIRED_DRAIN = "machineconfiguration.openshift.io/desiredDrain"
DESIRED_IMAGE = "machineconfiguration.openshift.io/desiredImage"
LAST_DRAIN = "machineconfiguration.openshift.io/lastAppliedDrain"
ROLE_LABEL = "machineconfiguration.openshift.io/role"
GENERATED_BY = "machineconfiguration.openshift.io/generated-by-controller-version"
ZONE_LABEL = "topology.kubernetes.io/zone"
TAINT_KEY = "UpdateInProgress"
UPDATE_SECONDS = "clusterui.io/update-seconds"
REBOOT_SECONDS = "clusterui.io/reboot-seconds"
FAIL_UPDATE = "clusterui.io/fail-update"

STATE_DONE, STATE_WORKING, STATE_DEGRADED, STATE_UNRECONCILABLE = "Done", "Working", "Degraded", "Unreconcilable"
DRAIN_REQUEUE = 60.0
DRAIN_FAILING_THRESHOLD = 600.0
DRAIN_FAILING_DELAY = 300.0
DRAIN_TIMEOUT = 3600.0
UNCORDON_POLL = 10.0  # completeUpdate's wait.PollUntilContextTimeout interval
RELEASE_VERSION = "machineconfiguration.openshift.io/release-image-version"
# the controller's git commit in generated-by-controller-version (a fixed stand-in)
CONTROLLER_VERSION = hashlib.sha1(b"clusterui machine-config-controller").hexdigest()
# the drain helper of pkg/controller/drain: Force, IgnoreAllDaemonSets, DeleteEmptyDirData,
# GracePeriodSeconds -1, Timeout DrainHelperTimeout (90 s)
MCO_DRAIN_OPTIONS = drain.DrainOptions(force=True, ignore_daemonsets=True, delete_emptydir_data=True, timeout=90.0)


# --- pools and nodes --------------------------------------------------------------------------------------------


def node_roles(node: Mapping[str, Any]) -> list[str]:
    roles = []
    for key in labels_of(node):
        if key.startswith("node-role.kubernetes.io/"):
            role = key.split("/", 1)[1]
            roles.append("master" if role == "control-plane" else role)
    return sorted(set(roles))


def pool_doc(name: str, now: float) -> dict:
    if name in ("master", "worker"):
        mc_selector = {"matchLabels": {ROLE_LABEL: name}}
    else:
        mc_selector = {"matchExpressions": [{"key": ROLE_LABEL, "operator": "In", "values": ["worker", name]}]}
    return {"apiVersion": API, "kind": "MachineConfigPool",
            "metadata": {"name": name, "creationTimestamp": time_value(now),
                         "labels": {f"pools.operator.machineconfiguration.openshift.io/{name}": ""}},
            "spec": {"machineConfigSelector": mc_selector,
                     "nodeSelector": {"matchLabels": {f"node-role.kubernetes.io/{name}": ""}},
                     "paused": False, "configuration": {}}, "status": {}}


def base_config(role: str, version: str, now: float) -> dict:
    return {"apiVersion": API, "kind": "MachineConfig",
            "metadata": {"name": f"00-{role}", "creationTimestamp": time_value(now), "labels": {ROLE_LABEL: role},
                         "annotations": {GENERATED_BY: CONTROLLER_VERSION, **({RELEASE_VERSION: version} if version else {})}},
            "spec": {"osImageURL": os_image(version) if version else "", "config": {"ignition": {"version": "3.2.0"}}}}


def _selector(doc_selector: Any) -> LabelSelector | None:
    return LabelSelector.from_doc(doc_selector) if doc_selector is not None else None


OS_LABEL = "kubernetes.io/os"


def pools_for_node(name: str, labels: Mapping[str, str], selectors: Iterable[tuple[str, LabelSelector | None]]) -> list[str]:
    """The pools a node belongs to, primary first, as pkg/helpers GetPoolsForNode decides: a
    Windows node (kubernetes.io/os=windows) and a node no pool selects are in none (a pool
    with an empty selector matches nothing); one custom pool wins over worker (the node is
    in [custom, worker]), but master wins over a custom pool ([master, worker] when worker
    matches too); master and worker: master. More than one custom pool is an error
    (ValueError with upstream's message): the node is in no pool."""
    if labels.get(OS_LABEL) == "windows":
        return []
    master = worker = None
    custom: list[str] = []
    for pool, sel in selectors:
        if sel is None or sel.is_empty or not sel.matches(labels):
            continue
        if pool == "master":
            master = pool
        elif pool == "worker":
            worker = pool
        else:
            custom.append(pool)
    if len(custom) > 1:
        raise ValueError(f"node {name} belongs to {len(custom)} custom roles, cannot proceed with this Node")
    if custom:
        return [master or custom[0]] + ([worker] if worker else [])
    if master:
        return [master]
    return [worker] if worker else []


def primary_pool(name: str, labels: Mapping[str, str], selectors: Iterable[tuple[str, LabelSelector | None]]) -> str | None:
    """GetPrimaryPoolForNode: the first of pools_for_node; None when there is none or the
    node's pools are an error (getNodesForPool then skips the node: "can't get pool for node")."""
    try:
        pools = pools_for_node(name, labels, selectors)
    except ValueError:
        return None
    return pools[0] if pools else None


def pool_nodes(store, pool: Mapping[str, Any]) -> list[dict]:
    """The pool's nodes: the nodes whose primary pool it is (getNodesForPool)."""
    sel = _selector((pool.get("spec") or {}).get("nodeSelector"))
    if sel is None or sel.is_empty:
        return []
    selectors = [(name_of(p), _selector((p.get("spec") or {}).get("nodeSelector"))) for p in store.list("MachineConfigPool")]
    return [node for node in store.list("Node")
            if sel.matches(labels_of(node)) and primary_pool(name_of(node), labels_of(node), selectors) == name_of(pool)]


def pool_configs(store, pool: Mapping[str, Any]) -> list[dict]:
    sel = _selector((pool.get("spec") or {}).get("machineConfigSelector"))
    if sel is None or sel.is_empty:
        return []
    return sorted((mc for mc in store.list("MachineConfig")
                   if not name_of(mc).startswith("rendered-") and sel.matches(labels_of(mc))), key=name_of)


def rendered_name(pool: str, configs: list[dict]) -> str:
    payload = json.dumps([[name_of(mc), mc.get("spec") or {}] for mc in configs], sort_keys=True)
    return f"rendered-{pool}-{hashlib.md5(payload.encode()).hexdigest()}"


def is_node_ready(node: Mapping[str, Any]) -> bool:
    for c in ((node.get("status") or {}).get("conditions") or ()):
        t, s = c.get("type"), c.get("status")
        if t == "Ready" and s != "True":
            return False
        if t in ("DiskPressure", "NetworkUnavailable") and s != "False":
            return False
    if HEARTBEAT_STOPPED_ANNOTATION in annotations_of(node):
        return False
    return not (node.get("spec") or {}).get("unschedulable")


def is_node_done(node: Mapping[str, Any]) -> bool:
    ann = annotations_of(node)
    return bool(ann.get(CURRENT)) and ann.get(CURRENT) == ann.get(DESIRED) and ann.get(STATE) == STATE_DONE


def is_node_failing(node: Mapping[str, Any]) -> bool:
    return annotations_of(node).get(STATE) in (STATE_DEGRADED, STATE_UNRECONCILABLE)


def is_node_unavailable(node: Mapping[str, Any]) -> bool:
    if not is_node_ready(node):
        return True
    if is_node_done(node):
        return False
    return annotations_of(node).get(STATE) == STATE_WORKING or (
        annotations_of(node).get(CURRENT) != annotations_of(node).get(DESIRED) and not is_node_failing(node))


def scaled_int_or_percent(value: Any, total: int, round_up: bool) -> int:
    """k8s.io/apimachinery intstr.GetScaledValueFromIntOrPercent: an int as it is; a string
    must be a percentage ("40%": Atoi of what precedes the "%", so "40 %" and "60" are errors),
    scaled by `total` and rounded up or down. Raises ValueError with upstream's message."""
    if isinstance(value, bool) or value is None:
        raise ValueError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        raise ValueError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if not value.endswith("%"):
        raise ValueError(f"invalid value for IntOrString: invalid type: string is not a percentage")
    digits = value[:-1]
    if not digits or not (digits.isascii() and (digits.isdigit() or (digits[0] in "+-" and digits[1:].isdigit()))):
        raise ValueError(f'invalid value for IntOrString: invalid value "{value}": strconv.Atoi: parsing "{digits}": invalid syntax')
    percent = int(digits)
    scaled = percent * total / 100
    return math.ceil(scaled) if round_up else math.floor(scaled)


def max_unavailable(pool: Mapping[str, Any], count: int) -> int:
    """maxUnavailable as the node controller's getMaxUnavailable reads it: unset is 1, else
    intstr.GetScaledValueFromIntOrPercent rounded down (a string must be a percentage: "60" or
    "40 %" are errors), and 0 becomes 1; 0 when the value is an error (the CRD takes any
    int-or-string): upstream the node controller's sync then fails before it targets any node,
    and only the pool's status is kept up."""
    value = (pool.get("spec") or {}).get("maxUnavailable")
    if value is None:
        return 1
    try:
        n = scaled_int_or_percent(value, count, False)
    except ValueError:
        return 0
    return n if n != 0 else 1


def _creation(node: Mapping[str, Any]) -> float:
    return sim_time((node.get("metadata") or {}).get("creationTimestamp")) or 0.0


def sort_candidates(nodes: list[dict]) -> list[dict]:
    """sortNodeList: by zone (nodes without one last), then oldest first (name breaks ties)."""
    return sorted(nodes, key=_candidate_order)


def _candidate_order(node: Mapping[str, Any]) -> tuple:
    zone = labels_of(node).get(ZONE_LABEL)
    return (zone is None, zone or "", _creation(node), name_of(node))


def pool_status(pool: Mapping[str, Any], nodes: list[dict], now: float) -> dict:
    target = ((pool.get("spec") or {}).get("configuration") or {}).get("name") or ""
    updated = [n for n in nodes if is_node_done(n) and annotations_of(n).get(CURRENT) == target]
    ready = [n for n in updated if is_node_ready(n)]
    unavailable = [n for n in nodes if is_node_unavailable(n)]
    degraded = [n for n in nodes if is_node_failing(n)]
    return _pool_status(pool, len(nodes), len(updated), len(ready), len(unavailable), degraded, now)


def _pool_status(pool: Mapping[str, Any], machines: int, updated: int, ready: int, unavailable: int,
                 degraded: list[dict], now: float) -> dict:
    """The pool's status from the counts of its nodes (updated: done on the pool's config;
    ready: of those, the ready ones) and its degraded nodes, in node order."""
    target = ((pool.get("spec") or {}).get("configuration") or {}).get("name") or ""
    old = pool.get("status") or {}
    conds = [dict(c) for c in old.get("conditions") or ()]
    status: dict[str, Any] = {
        "observedGeneration": (pool.get("metadata") or {}).get("generation", 1),
        "machineCount": machines, "updatedMachineCount": updated, "readyMachineCount": ready,
        "unavailableMachineCount": unavailable, "degradedMachineCount": len(degraded),
        "configuration": old.get("configuration") or {},
    }
    all_updated = updated == machines and ready == machines and not unavailable
    line = f"MachineConfig {target}"
    if all_updated:
        status["configuration"] = dict((pool.get("spec") or {}).get("configuration") or {})
        conds = C.set_condition(conds, "Updated", "True", "", f"All nodes are updated with {line}", now)
        conds = C.set_condition(conds, "Updating", "False", "", "", now)
    else:
        conds = C.set_condition(conds, "Updated", "False", "", "", now)
        if (pool.get("spec") or {}).get("paused"):
            conds = C.set_condition(conds, "Updating", "False", "", f"Pool is paused; will not update to {line}", now)
        else:
            conds = C.set_condition(conds, "Updating", "True", "", f"All nodes are updating to {line}", now)
    if degraded:
        msgs = ", ".join(f'Node {name_of(n)} is reporting: "{annotations_of(n).get(REASON, "")}"' for n in degraded)
        conds = C.set_condition(conds, "NodeDegraded", "True", f"{len(degraded)} nodes are reporting degraded status on sync", msgs, now)
    else:
        conds = C.set_condition(conds, "NodeDegraded", "False", "", "", now)
    conds = C.set_condition(conds, "RenderDegraded", C.find(conds, "RenderDegraded") and C.find(conds, "RenderDegraded").get("status") or "False", "", "", now)
    render_degraded = C.is_true(conds, "RenderDegraded")
    conds = C.set_condition(conds, "Degraded", "True" if degraded or render_degraded else "False", "", "", now)
    status["conditions"] = conds
    return status


def os_update_events(store, current: str, desired: str, *, started: bool) -> list[tuple[str, str]]:
    """The MCD's events around the OS part of an update (pkg/daemon/update.go applyOSChanges,
    applyLayeredOSChanges): at the start InClusterUpgrade and OSUpdateStarted (its reason is
    machineConfigDiff.osChangesString), at the end OSUpgradeApplied and OSUpdateStaged; none
    when the configs differ only in files (no OS image, extension, kernel type or kernel
    argument change)."""
    old = (store.get("MachineConfig", "", current) or {}).get("spec") or {}
    new = (store.get("MachineConfig", "", desired) or {}).get("spec") or {}
    os_update = old.get("osImageURL") != new.get("osImageURL")
    extensions = (old.get("extensions") or []) != (new.get("extensions") or [])
    kernel_type = (old.get("kernelType") or "default") != (new.get("kernelType") or "default")
    kargs = (old.get("kernelArguments") or []) != (new.get("kernelArguments") or [])
    if not (os_update or extensions or kernel_type or kargs):
        return []
    if not started:
        out = []
        if os_update:
            out.append(("OSUpgradeApplied", f"OS upgrade applied; new MachineConfig ({desired}) has new OS image "
                                            f"({new.get('osImageURL') or ''})"))
        else:
            out.append(("OSUpgradeSkipped", f"OS upgrade skipped; new MachineConfig ({desired}) has same OS image "
                                            f"({new.get('osImageURL') or ''}) as old MachineConfig ({current})"))
        return out + [("OSUpdateStaged", "Changes to OS staged")]
    changes = [text for flag, text in ((os_update, "Upgrading OS"), (extensions, "Installing extensions"),
                                       (kernel_type, "Changing kernel type"), (kargs, "Changing kernel arguments")) if flag]
    out = []
    if os_update or extensions or kernel_type:
        out.append(("InClusterUpgrade", f"Updating from oscontainer {new.get('osImageURL') or ''}"))
    return out + [("OSUpdateStarted", "; ".join(changes))]


# --- the controllers ------------------------------------------------------------------------------------------


class _NodeFacts(NamedTuple):
    """What the node controller counts of a node, for its pool's configuration `target`."""

    updated: bool  # done, on target
    ready: bool
    unavailable: bool
    failing: bool
    targeting: bool  # desiredConfig is target
    has_current: bool
    order: tuple  # where sort_candidates puts it

    @classmethod
    def of(cls, node: Mapping[str, Any], target: str) -> "_NodeFacts":
        ann = annotations_of(node)
        return cls(is_node_done(node) and ann.get(CURRENT) == target, is_node_ready(node), is_node_unavailable(node),
                   is_node_failing(node), ann.get(DESIRED) == target, bool(ann.get(CURRENT)), _candidate_order(node))


class _PoolCounts:
    """A pool's nodes (names) and their _NodeFacts for one target, with the counts the node
    controller and the pool status read, kept as nodes change."""

    def __init__(self, target: str):
        self.target = target
        self.facts: dict[str, _NodeFacts] = {}
        self.updated = self.ready = self.unavailable = self.failing_targets = 0
        # not targeting the pool's config, with a current one, and ready (getAllCandidateMachines
        # skips a node that is not: it already counts as unavailable, never twice)
        self.candidates: set[str] = set()
        self.degraded: set[str] = set()

    def set(self, name: str, facts: _NodeFacts | None) -> None:
        old = self.facts.pop(name, None)
        if old is not None:
            self._count(name, old, -1)
        if facts is not None:
            self.facts[name] = facts
            self._count(name, facts, 1)

    def _count(self, name: str, f: _NodeFacts, delta: int) -> None:
        self.updated += delta * f.updated
        self.ready += delta * (f.updated and f.ready)
        self.unavailable += delta * f.unavailable
        self.failing_targets += delta * (f.targeting and f.failing)
        for group, member in ((self.candidates, not f.targeting and f.has_current and f.ready), (self.degraded, f.failing)):
            if member and delta > 0:
                group.add(name)
            elif member:
                group.discard(name)


class _Membership:
    """Which pools each node belongs to (pool_nodes, node by node), and the nodes' roles,
    kept from one run to the next: only the changed nodes are looked at again, every node
    when a pool's nodeSelector changes."""

    def __init__(self) -> None:
        self.pools_key: tuple | None = None
        self.roles: dict[str, list[str]] = {}
        self.pools_of: dict[str, tuple[str, ...]] = {}
        self.members: dict[str, dict[str, None]] = {}
        self.role_count: dict[str, int] = {}

    def update(self, store, changed: set[str] | None) -> set[str] | None:
        """Bring it up to date; the nodes whose membership may differ (None: all)."""
        pools = store.list("MachineConfigPool")
        key = tuple((name_of(p), (p.get("spec") or {}).get("nodeSelector")) for p in pools)
        if key != self.pools_key or changed is None:
            self.pools_key = key
            self.roles, self.pools_of, self.members, self.role_count = {}, {}, {}, {}
            changed = None
        selectors = [(name, _selector(raw)) for name, raw in key]
        names = [name_of(n) for n in store.list("Node")] if changed is None else changed
        for name in names:
            for role in self.roles.pop(name, ()):
                self.role_count[role] -= 1
            for pool in self.pools_of.pop(name, ()):
                self.members[pool].pop(name, None)
            node = store.get("Node", "", name)
            if node is None:
                continue
            self.roles[name] = node_roles(node)
            for role in self.roles[name]:
                self.role_count[role] = self.role_count.get(role, 0) + 1
            primary = primary_pool(name, labels_of(node), selectors)
            pools_of = (primary,) if primary else ()
            self.pools_of[name] = pools_of
            for pool in pools_of:
                self.members.setdefault(pool, {})[name] = None
        return None if changed is None else set(names)

    def wanted(self) -> set[str]:
        return {role for role, n in self.role_count.items() if n > 0}


class MCONodeController:
    """Works over what changed since its last run: the changed nodes, and the nodes with a
    drain under way (in its state); a pool's counts are kept as its nodes change (see
    _PoolCounts, _Membership), so a run does not go over every node of a large pool."""

    name = NODE_CONTROLLER
    watches = frozenset({"Node", "MachineConfigPool", "MachineConfig", "ClusterVersion", "Pod", "PodDisruptionBudget"})

    def __init__(self) -> None:
        self._membership: _Membership | None = None
        self._pools: dict[str, _PoolCounts] = {}  # a pool not here: every node of it is looked at
        self._backlog: set[str] = set()  # changed nodes a run returned early before looking at
        self._configs: dict[str, tuple] = {}  # pool -> (the MachineConfigs, its selector, its configs, rendered name)
        self._idle: dict[str, tuple | None] = {}  # pool -> (its document, its counts) after a run of it that did nothing

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        store, now = ctx.store, ctx.now
        if not store.names("Node", ""):
            self._membership = None  # the nodes that went meanwhile: every node looked at when nodes come back
            return result
        if self._membership is None or ctx.changed is None:
            self._membership, self._pools = _Membership(), {}
            changed = None
        else:
            changed = {name for kind, _, name in ctx.changed if kind == "Node"}
        changed = self._membership.update(store, changed)
        if changed is None:
            self._pools = {}
            changed = set()
        changed |= self._backlog
        self._backlog = set()
        cv = store.get("ClusterVersion", "", "version")
        version = current_version(cv) if cv else ""
        # missing pools (from node roles) and base configs
        wanted = {"master", "worker"} | self._membership.wanted()
        created = False
        for name in sorted(wanted):
            if store.get("MachineConfigPool", "", name) is None:
                result.actions.append(A.CreateObject(pool_doc(name, now)))
                created = True
        for role in ("master", "worker"):
            if store.get("MachineConfig", "", f"00-{role}") is None:
                result.actions.append(A.CreateObject(base_config(role, version, now)))
                created = True
        if created:
            self._backlog = changed
            result.due(now)
            return result
        state = dict(ctx.state.get("drains") or {})
        for pool in store.list("MachineConfigPool"):
            self._pool(ctx, pool, state, result, changed)
        if state != (ctx.state.get("drains") or {}):
            result.actions.append(A.SetControllerState(NODE_CONTROLLER, "drains", state or None))
        return result

    def _pool(self, ctx: Context, pool: dict, drains: dict, result: A.Result, changed: set[str]) -> None:
        """One pool; `changed`: the nodes that changed since the last run."""
        size = len(result.actions)
        store, now = ctx.store, ctx.now
        pname = name_of(pool)
        spec = pool.get("spec") or {}
        configs, rendered = self._rendered(store, pool)
        if configs:
            if store.get("MachineConfig", "", rendered) is None:
                result.actions.append(A.CreateObject(_rendered_config(configs, rendered, pname, now)))
            configuration = {"name": rendered, "source": [{"apiVersion": API, "kind": "MachineConfig", "name": name_of(mc)} for mc in configs]}
            if spec.get("configuration") != configuration:
                result.actions.append(A.ReplaceObject({**pool, "spec": {**spec, "configuration": configuration}}, keep_status=True))
                pool = {**pool, "spec": {**spec, "configuration": configuration}}
                spec = pool["spec"]
        target = (spec.get("configuration") or {}).get("name") or ""
        assert self._membership is not None
        members = self._membership.members.get(pname, {})
        if not target:
            self._pools.pop(pname, None)
            return
        counts = self._pools.get(pname)
        if counts is None or counts.target != target:
            counts = self._pools[pname] = _PoolCounts(target)
            look: Iterable[str] = members
        else:
            look = [n for n in changed if n in members or n in counts.facts]
        draining = [n for n in drains if n in members]
        idle = self._idle.get(pname)
        if not look and not draining and idle is not None and idle[0] is pool and idle[1] is counts:
            return  # nothing it reads changed since a run of this pool that did nothing: nothing again
        for name in look:
            node = store.get("Node", "", name) if name in members else None
            counts.set(name, None if node is None else _NodeFacts.of(node, target))
        nodes = store.in_order("Node", (("", n) for n in look if n in members))
        # a node that never had a config: installed with the pool's config
        for node in nodes:
            if not annotations_of(node).get(DESIRED):
                result.actions.append(A.SetAnnotation("Node", "", name_of(node), DESIRED, target))
        # the update-in-progress taint and the drain controller: the nodes that changed and
        # the drains under way (any other node has nothing to do)
        if draining:
            nodes = store.in_order("Node", {("", name_of(n)) for n in nodes} | {("", n) for n in draining})
        for node in nodes:
            self._drain(ctx, node, drains, result)
            _untaint_when_done(node, target, result)
        if not spec.get("paused"):
            _set_new_targets(store, now, pool, len(members), counts, target, result)
        _sync_pool_status(store, now, pool, len(members), counts, result)
        # a run that did nothing, with no drain under way (which would have asked for a time)
        self._idle[pname] = (pool, counts) if len(result.actions) == size and not draining else None

    def _rendered(self, store, pool: Mapping[str, Any]) -> tuple[list[dict], str]:
        """(pool_configs, rendered_name): worked out again only when a MachineConfig or the
        pool's machineConfigSelector changed."""
        mcs = store.list("MachineConfig")
        selector = (pool.get("spec") or {}).get("machineConfigSelector")
        hit = self._configs.get(name_of(pool))
        if hit is not None and hit[1] == selector and len(hit[0]) == len(mcs) and all(map(operator.is_, hit[0], mcs)):
            return hit[2], hit[3]
        configs = pool_configs(store, pool)
        rendered = rendered_name(name_of(pool), configs) if configs else ""
        self._configs[name_of(pool)] = (mcs, selector, configs, rendered)
        return configs, rendered

    def _drain(self, ctx: Context, node: dict, drains: dict, result: A.Result) -> None:
        """The drain controller (pkg/controller/drain): desiredDrain drain-X -> cordon, run
        kubectl's drain (engine.oc.drain, with the MCO's helper options and its 90 s
        timeout), on failure requeue after 1 minute, after 10 minutes of failing every 5
        minutes (event DrainThresholdExceeded), after an hour the node is Degraded;
        uncordon-X -> uncordon (no event: the daemon records Uncordon). Then lastAppliedDrain =
        desiredDrain."""
        store, now = ctx.store, ctx.now
        nname = name_of(node)
        ann = annotations_of(node)
        want = ann.get(DESIRED_DRAIN) or ""
        if not want or want == ann.get(LAST_DRAIN):
            drains.pop(nname, None)
            return
        action = want.partition("-")[0]
        if action == "uncordon":
            result.actions.append(A.SetUnschedulable(nname, False))
            result.actions.append(A.SetAnnotation("Node", "", nname, LAST_DRAIN, want))
            drains.pop(nname, None)
            return
        d = dict(drains.get(nname) or {})
        if d.get("want") != want:
            d = {"want": want, "started": now, "next": now, "attempt": None, "log": []}
            result.actions.append(A.SetUnschedulable(nname, True))
        drains[nname] = d
        if now + 1e-9 < d["next"]:
            result.due(d["next"])
            return
        if d.get("attempt") is None:
            attempt = drain.plan(store, nname, MCO_DRAIN_OPTIONS)
        else:
            attempt = drain.DrainPlan.from_dict(d["attempt"])
        if attempt.errors:
            failed, error = True, drain.aggregate(attempt.errors)
        else:
            actions, _, done = drain.evict_pass(store, attempt, now)
            result.actions.extend(actions)
            if not done:
                d["attempt"] = attempt.to_dict()
                d["next"] = attempt.next_due if attempt.next_due is not None else now
                blocked = [f"{p.namespace}/{p.name}" for p in attempt.pods if p.state == "evict" and p.next_try > now]
                d["blocked"] = blocked
                if attempt.next_due is not None and attempt.next_due > now:
                    result.due(attempt.next_due)
                return
            failed = bool(attempt.failures)
            error = drain.aggregate(attempt.failures) if failed else ""
        d["attempt"] = None
        if not failed:
            result.actions.append(A.SetAnnotation("Node", "", nname, LAST_DRAIN, want))
            if ann.get(REASON, "").startswith("failed to drain node"):
                result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_WORKING))
                result.actions.append(A.SetAnnotation("Node", "", nname, REASON, None))
            drains.pop(nname, None)
            return
        _record_drain_failure(now, nname, ann, d, error, result)


def _sync_pool_status(store, now: float, pool: Mapping[str, Any], size: int, counts: "_PoolCounts", result: A.Result) -> None:
    """status.go syncStatusOnly: the pool's status from its nodes' counts (patched where it
    changed), and Completed recorded when the pool reaches a new configuration (a pool's
    first configuration, the install, is not an update)."""
    pname = name_of(pool)
    degraded = store.in_order("Node", (("", n) for n in counts.degraded))
    status = _pool_status(pool, size, counts.updated, counts.ready, counts.unavailable, degraded, now)
    old = pool.get("status") or {}
    fields = {k: v for k, v in status.items() if old.get(k) != v}
    if fields:
        result.actions.append(A.PatchStatus("MachineConfigPool", "", pname, fields))
    done, before = (status.get("configuration") or {}).get("name"), (old.get("configuration") or {}).get("name")
    if done and before and done != before:
        result.actions.append(A.RecordEvent(now, "Normal", "Completed", "MachineConfigPool", EVENT_NAMESPACE, pname,
                                            f"Pool {pname} has completed update to MachineConfig {done}", MCC_SOURCE))


def _untaint_when_done(node: Mapping[str, Any], target: str, result: A.Result) -> None:
    """The update-in-progress taint goes once the node is done with the target (or never
    had a config)."""
    ann = annotations_of(node)
    has_taint = any(t.get("key") == TAINT_KEY for t in (node.get("spec") or {}).get("taints") or ())
    if is_node_done(node) and ann.get(DESIRED) == target or not ann.get(CURRENT):
        if has_taint:
            result.actions.append(A.RemoveTaint(name_of(node), TAINT_KEY, "PreferNoSchedule"))


def _rendered_config(configs: list[dict], rendered: str, pname: str, now: float) -> dict:
    """The pool's rendered MachineConfig: the configs' specs merged in order (an empty
    value does not override), the latest release version, owned by the pool."""
    merged: dict[str, Any] = {}
    release = ""
    for mc in configs:
        for k, v in (mc.get("spec") or {}).items():
            if v not in (None, "", [], {}):
                merged[k] = v
        release = annotations_of(mc).get(RELEASE_VERSION) or release
    return {
        "apiVersion": API, "kind": "MachineConfig",
        "metadata": {"name": rendered, "creationTimestamp": time_value(now),
                     "annotations": {GENERATED_BY: CONTROLLER_VERSION, **({RELEASE_VERSION: release} if release else {})},
                     "ownerReferences": [{"apiVersion": API, "kind": "MachineConfigPool", "name": pname,
                                          "controller": True, "blockOwnerDeletion": True}]},
        "spec": merged}


def _set_new_targets(store, now: float, pool: Mapping[str, Any], size: int, counts: "_PoolCounts", target: str,
                     result: A.Result) -> None:
    """The node controller's new targets: as many candidates as maxUnavailable leaves room
    for (less the nodes failing to reach the target), in sort_candidates' order, get the
    desired config and the update-in-progress taint; SetDesiredConfig recorded."""
    max_u = max_unavailable(pool, size)
    if counts.unavailable >= max_u:
        return
    capacity = max_u - counts.unavailable
    failing = counts.failing_targets
    if not counts.candidates or failing >= capacity:
        return
    capacity -= failing
    if capacity < len(counts.candidates):  # sort_candidates (its order has no ties)
        names = heapq.nsmallest(capacity, counts.candidates, key=lambda n: counts.facts[n].order)
        candidates = [store.get("Node", "", n) for n in names]
    else:
        candidates = store.in_order("Node", (("", n) for n in counts.candidates))
    for node in candidates:
        result.actions.append(A.SetAnnotation("Node", "", name_of(node), DESIRED, target))
        if DESIRED_IMAGE in annotations_of(node):
            # SetDesiredStateFromPool of a pool that is not layered: no desired image
            result.actions.append(A.SetAnnotation("Node", "", name_of(node), DESIRED_IMAGE, None))
        result.actions.append(A.AddTaint(name_of(node), {"key": TAINT_KEY, "effect": "PreferNoSchedule"}))
    msg = (f"Targeted node {name_of(candidates[0])} to MachineConfig: {target}" if len(candidates) == 1
           else f"Set target for {len(candidates)} nodes to MachineConfig: {target}")
    pname = name_of(pool)
    result.actions.append(A.RecordEvent(now, "Normal", "SetDesiredConfig", "MachineConfigPool", EVENT_NAMESPACE, pname, msg, MCC_SOURCE))


def _start_update(now: float, nname: str, desired: str, result: A.Result) -> dict:
    """The daemon starts an update: state Working, the drain asked of the drain controller,
    Cordon and Drain recorded. Returns the node's new entry in the daemon's state."""
    result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_WORKING))
    result.actions.append(A.SetAnnotation("Node", "", nname, REASON, None))
    result.actions.append(A.SetAnnotation("Node", "", nname, DESIRED_DRAIN, f"drain-{desired}"))
    result.actions.append(A.RecordEvent(now, "Normal", "Cordon", "Node", EVENT_NAMESPACE, nname, "Cordoned node to apply update", MCD_SOURCE))
    result.actions.append(A.RecordEvent(now, "Normal", "Drain", "Node", EVENT_NAMESPACE, nname, "Draining node to update config.", MCD_SOURCE))
    return {"config": desired, "phase": "Draining", "since": now}


def _report_kubelet(store, node: Mapping[str, Any], config: str, result: A.Result) -> None:
    """The kubelet of the release a rendered config carries (its release-image-version)
    reports its version in status.nodeInfo.kubeletVersion (the other nodeInfo fields kept)."""
    release = annotations_of(store.get("MachineConfig", "", config) or {}).get(RELEASE_VERSION) or ""
    version = kubelet_version(release)
    info = dict((node.get("status") or {}).get("nodeInfo") or {})
    if version and info.get("kubeletVersion") != version:
        result.actions.append(A.PatchStatus("Node", "", name_of(node), {"nodeInfo": {**info, "kubeletVersion": version}}))


def _complete_update(now: float, nname: str, desired: str, result: A.Result) -> None:
    """The daemon's last steps of an update: Uncordon and NodeDone recorded, currentConfig
    set to the desired one and the state Done."""
    result.actions.append(A.RecordEvent(now, "Normal", "Uncordon", "Node", EVENT_NAMESPACE, nname,
                                        f"Update completed for config {desired} and node has been uncordoned", MCD_SOURCE))
    result.actions.append(A.RecordEvent(now, "Normal", "NodeDone", "Node", EVENT_NAMESPACE, nname,
                                        f"Setting node {nname}, currentConfig {desired} to Done", MCD_SOURCE))
    result.actions.append(A.SetAnnotation("Node", "", nname, CURRENT, desired))
    result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_DONE))
    result.actions.append(A.SetAnnotation("Node", "", nname, REASON, None))


def _record_drain_failure(now: float, nname: str, ann: Mapping[str, str], d: dict, error: str, result: A.Result) -> None:
    """A failed drain attempt, as the drain controller reports it: retry after a minute,
    after DRAIN_FAILING_THRESHOLD every DRAIN_FAILING_DELAY (DrainThresholdExceeded), after
    the hour DrainFailed and the node Degraded; the last lines kept in `d["log"]`."""
    failing_for = now - d["started"]
    if failing_for > DRAIN_TIMEOUT:  # every attempt after the hour (drainNode's DrainFailed)
        result.actions.append(A.RecordEvent(now, "Warning", "DrainFailed", "Node", EVENT_NAMESPACE, nname,
                                            f"node {nname}: drain exceeded timeout: 1h0m0s. Will continue to retry.", DRAIN_SOURCE))
    if failing_for > DRAIN_FAILING_THRESHOLD:
        line = (f"Drain failed. Drain has been failing for more than {DRAIN_FAILING_THRESHOLD / 60:g} minutes. "
                f"Waiting {DRAIN_FAILING_DELAY / 60:g} minutes then retrying. Error message from drain: {error}")
        result.actions.append(A.RecordEvent(now, "Warning", "DrainThresholdExceeded", "Node", EVENT_NAMESPACE, nname, line, DRAIN_SOURCE))
        d["next"] = now + DRAIN_FAILING_DELAY
    else:
        line = f"Drain failed. Waiting {DRAIN_REQUEUE / 60:g} minute then retrying. Error message from drain: {error}"
        d["next"] = now + DRAIN_REQUEUE
    d["log"] = (d.get("log") or [])[-9:] + [{"time": time_value(now), "message": f"node {nname}: {line}"}]
    if failing_for > DRAIN_TIMEOUT and ann.get(STATE) != STATE_DEGRADED:
        d["log"].append({"time": time_value(now), "message": f"node {nname}: drain exceeded timeout: 1h0m0s. Will continue to retry."})
        result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_DEGRADED))
        result.actions.append(A.SetAnnotation("Node", "", nname, REASON, f"failed to drain node: {nname} after 1 hour. "
                                              "Please see machine-config-controller logs for more information"))
    result.due(d["next"])


class MCODaemon:
    """Looks at the nodes that changed since its last run and the nodes with an update under
    way (in its state) whose time has come: a node's daemon reads only its Node, its entry
    in the state and the time, so a node that is the document its last look saw, looked at
    before the time that look asked for, has nothing to do (it still asks for that time);
    any other node is where it was when nothing needed doing for it."""

    name = DAEMON
    watches = frozenset({"Node", "MachineConfig"})

    def __init__(self) -> None:
        self._seen: dict[str, tuple[Mapping[str, Any], float | None]] = {}  # node -> (its document, next_due) at its last look

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        store, now = ctx.store, ctx.now
        nodes_state = dict(ctx.state.get("nodes") or {})
        if ctx.changed is None:
            self._seen = {}
            nodes = store.list("Node")
        else:
            look = {name for kind, _, name in ctx.changed if kind == "Node"}
            for name in nodes_state:
                seen = self._seen.get(name)
                if name in look or seen is None or seen[0] is not store.get("Node", "", name) or (
                        seen[1] is not None and now + 1e-9 >= seen[1]):
                    look.add(name)
                else:
                    result.due(seen[1])
            nodes = store.in_order("Node", (("", name) for name in look))
        for node in nodes:
            one = A.Result()
            self._node(ctx, node, nodes_state, one)
            result.extend(one)
            self._seen[name_of(node)] = (node, one.next_due)
        if nodes_state != (ctx.state.get("nodes") or {}):
            result.actions.append(A.SetControllerState(DAEMON, "nodes", nodes_state or None))
        return result

    def _seconds(self, ctx: Context, node: Mapping[str, Any], annotation: str, what: str, config: str) -> float:
        raw = annotations_of(node).get(annotation)
        if raw:
            try:
                return float(raw)
            except ValueError:
                pass
        return float(60 + round(60 * ctx.rng(DAEMON, what, name_of(node), config).random()))

    def _node(self, ctx: Context, node: dict, states: dict, result: A.Result) -> None:
        now = ctx.now
        nname = name_of(node)
        ann = annotations_of(node)
        desired, current = ann.get(DESIRED), ann.get(CURRENT)
        if not desired:
            return
        if not current:
            # first boot: the node came up with this config (and its kubelet, when the node
            # does not say which)
            result.actions.append(A.SetAnnotation("Node", "", nname, CURRENT, desired))
            result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_DONE))
            if not ((node.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion"):
                _report_kubelet(ctx.store, node, desired, result)
            return
        st = dict(states.get(nname) or {})
        if desired == current and not st:
            if ann.get(STATE) != STATE_DONE and FAIL_UPDATE not in ann:
                result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_DONE))
                result.actions.append(A.SetAnnotation("Node", "", nname, REASON, None))
            return
        if st.get("config") != desired:
            st = _start_update(now, nname, desired, result)
        phase = st["phase"]
        if phase == "Draining":
            if ann.get(LAST_DRAIN) != f"drain-{desired}":
                states[nname] = st
                return
            for reason, msg in os_update_events(ctx.store, current, desired, started=True):
                result.actions.append(A.RecordEvent(now, "Normal", reason, "Node", EVENT_NAMESPACE, nname, msg, MCD_SOURCE))
            st.update(phase="Updating", since=now, until=now + self._seconds(ctx, node, UPDATE_SECONDS, "update", desired))
            phase = "Updating"
        if phase == "Updating":
            if not self._update_os(ctx, node, st, current, desired, result):
                states[nname] = st
                return
            phase = "Rebooting"
        if phase == "Rebooting":
            if now < st["until"]:
                result.due(st["until"])
                states[nname] = st
                return
            # back from the reboot: completeUpdate asks the drain controller to uncordon; the
            # kubelet of the new release reports its version
            result.actions.append(A.SetAnnotation("Node", "", nname, HEARTBEAT_STOPPED_ANNOTATION, None))
            _report_kubelet(ctx.store, node, desired, result)
            result.actions.append(A.SetAnnotation("Node", "", nname, DESIRED_DRAIN, f"uncordon-{desired}"))
            st.update(phase="Uncordoning", since=now, until=now + UNCORDON_POLL)
            phase = "Uncordoning"
        if phase == "Uncordoning":
            # completeUpdate polls the node every 10 s until lastAppliedDrain = desiredDrain,
            # records Uncordon; then updateConfigAndState records NodeDone and SetDone writes
            # currentConfig and state Done (pkg/daemon/daemon.go)
            if now + 1e-9 < st["until"] or ann.get(LAST_DRAIN) != f"uncordon-{desired}":
                if now + 1e-9 >= st["until"]:
                    st["until"] = now + UNCORDON_POLL
                result.due(st["until"])
                states[nname] = st
                return
            _complete_update(now, nname, desired, result)
            states.pop(nname, None)

    def _update_os(self, ctx: Context, node: dict, st: dict, current: str, desired: str, result: A.Result) -> bool:
        """The Updating phase: held Degraded while the node's update is made to fail, the OS
        update for its time, then the events and the reboot (st moves to Rebooting: True)."""
        now, nname, ann = ctx.now, name_of(node), annotations_of(node)
        if FAIL_UPDATE in ann:
            if ann.get(STATE) != STATE_DEGRADED:
                result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_DEGRADED))
                result.actions.append(A.SetAnnotation("Node", "", nname, REASON, ann[FAIL_UPDATE]))
            return False
        if ann.get(STATE) == STATE_DEGRADED:
            result.actions.append(A.SetAnnotation("Node", "", nname, STATE, STATE_WORKING))
            result.actions.append(A.SetAnnotation("Node", "", nname, REASON, None))
            st["until"] = now + self._seconds(ctx, node, UPDATE_SECONDS, "retry", desired)
        if now < st["until"]:
            result.due(st["until"])
            return False
        for reason, msg in [*os_update_events(ctx.store, current, desired, started=False),
                            ("Reboot", f"Node will reboot into config {desired}")]:
            result.actions.append(A.RecordEvent(now, "Normal", reason, "Node", EVENT_NAMESPACE, nname, msg, MCD_SOURCE))
        result.actions.append(A.SetAnnotation("Node", "", nname, HEARTBEAT_STOPPED_ANNOTATION, time_text(now)))
        st.update(phase="Rebooting", since=now, until=now + self._seconds(ctx, node, REBOOT_SECONDS, "reboot", desired))
        return True
