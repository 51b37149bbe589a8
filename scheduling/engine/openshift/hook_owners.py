"""Simulated hook-implementing controllers (the example use cases of the machine deletion
lifecycle hooks documentation) and a simulated cluster autoscaler (the flow's fourth deletion trigger).

machine-hook-owners: the owners the documentation's examples describe, acting by themselves on the hooks of
machines annotated `clusterui.io/simulated-hook-owners: "true"` (a MachineSet passes it on
through its template); elsewhere a hook waits for someone acting as its owner (the
dashboard). Each owner removes its hook when its work is done, after a realistic time
measured from the moment the hook started holding the machine (the deletion for a
preDrain hook, Drained=True for a preTerminate hook):

| hook (name, owner) | point | done when |
| MigrateImportantApp, my-app-migration-controller | preDrain | its own drain: 60 s |
| ProactiveReplacement, machine-replacement-controller | preDrain | the MachineSet's replacement machine is Running with a Ready node |
| BackupFileSystem, my-backup-controller | preTerminate | the backup is written: 120 s |
| CloudProviderSpecialCase, my-custom-storage-detach-controller | preTerminate | 20 s |
| WaitForStorageDetach, my-custom-storage-detach-controller | preTerminate | volumes detached: 45 s |
| LogFlushDelay, cluster-logging-operator | preTerminate | the log exporter caught up: 90 s |

cluster-autoscaler: for a MachineSet with the autoscaler's node-group bounds (the
annotations a MachineAutoscaler sets), a node whose pods (DaemonSet pods aside) request
less than half of its allocatable CPU and memory for 10 minutes (scale-down-unneeded-time)
is removed, one at a time, never below the minimum: the node is tainted
`ToBeDeletedByClusterAutoscaler:NoSchedule` (event `ScaleDown` "marked the node as
toBeDeleted/unschedulable"), and, as the cluster-api provider does, its Machine gets the
`machine.openshift.io/delete-machine` annotation and the MachineSet's replicas go down
by one; the MachineSet then deletes exactly that machine.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.quantity import milli_value
from scheduling.engine.controller import Context
from scheduling.engine.store import annotations_of, controller_ref, time_value

from . import machine_api as M
from .machinesets import node_ready_since

HOOK_OWNERS = "machine-hook-owners"
AUTOSCALER = "cluster-autoscaler"

# (name, owner) -> (point, seconds of work; None: a condition instead of a duration)
SIMULATED_HOOKS: dict[tuple[str, str], tuple[str, float | None]] = {
    ("MigrateImportantApp", "my-app-migration-controller"): (M.PRE_DRAIN, 60.0),
    ("ProactiveReplacement", "machine-replacement-controller"): (M.PRE_DRAIN, None),
    ("BackupFileSystem", "my-backup-controller"): (M.PRE_TERMINATE, 120.0),
    ("CloudProviderSpecialCase", "my-custom-storage-detach-controller"): (M.PRE_TERMINATE, 20.0),
    ("WaitForStorageDetach", "my-custom-storage-detach-controller"): (M.PRE_TERMINATE, 45.0),
    ("LogFlushDelay", "cluster-logging-operator"): (M.PRE_TERMINATE, 90.0),
}
SCALE_DOWN_UTILIZATION = 0.5
SCALE_DOWN_UNNEEDED_SECONDS = 600.0
TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"


def simulated(machine: Mapping[str, Any]) -> bool:
    return annotations_of(machine).get(M.HOOK_OWNERS_ANNOTATION) == "true"


def _replacement_ready(store, machine: Mapping[str, Any]) -> bool:
    """The machine's MachineSet has as many Ready machines (not being deleted) as it wants."""
    ref = controller_ref(machine)
    if ref is None or ref.get("kind") != "MachineSet":
        return True
    ms = store.get("MachineSet", M.ns_of(machine), ref.get("name") or "")
    if ms is None:
        return True
    want = int((ms.get("spec") or {}).get("replicas") or 0)
    ready = 0
    for m in store.list("Machine"):
        r = controller_ref(m)
        if r is not None and r.get("name") == M.name_of(ms) and not M.is_deleting(m) and node_ready_since(store, m) is not None:
            ready += 1
    return ready >= want


class HookOwners:
    name = HOOK_OWNERS
    watches = frozenset({"Machine", "MachineSet", "Node"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        started = dict(ctx.state.get("started") or {})
        live: set[str] = set()
        for machine in M.machines(ctx.store):
            if not simulated(machine) or not M.is_deleting(machine):
                continue
            for point in M.HOOK_POINTS:
                if point == M.PRE_TERMINATE and not M.condition_is_true(machine, M.DRAINED):
                    continue
                for hook in M.hooks_of(machine, point):
                    known = SIMULATED_HOOKS.get((hook.get("name"), hook.get("owner")))
                    if known is None or known[0] != point:
                        continue
                    key = f"{M.key_of(machine)}|{point}|{hook['name']}"
                    live.add(key)
                    since = started.setdefault(key, time_value(ctx.now))
                    seconds = known[1]
                    done = _replacement_ready(ctx.store, machine) if seconds is None else ctx.now + 1e-9 >= since + seconds
                    if done:
                        result.actions.append(M.remove_hook(machine, point, hook["name"]))
                        live.discard(key)
                        break  # one write per machine per pass
                    if seconds is not None:
                        result.due(since + seconds)
        started = {k: v for k, v in started.items() if k in live}
        if started != (ctx.state.get("started") or {}):
            result.actions.append(A.SetControllerState(self.name, "started", started or None))
        result.actions = [a for a in result.actions if a is not None]
        return M.finished(result)


def _utilization(store, node: Mapping[str, Any]) -> float:
    alloc = (node.get("status") or {}).get("allocatable") or (node.get("status") or {}).get("capacity") or {}
    cpu_alloc = milli_value(alloc.get("cpu", "0")) or 1
    mem_alloc = milli_value(alloc.get("memory", "0")) or 1
    cpu = mem = 0
    name = M.name_of(node)
    for pod in store.list("Pod"):
        if (pod.get("spec") or {}).get("nodeName") != name:
            continue
        ref = controller_ref(pod)
        if ref is not None and ref.get("kind") == "DaemonSet":
            continue
        for c in (pod.get("spec") or {}).get("containers") or []:
            req = (c.get("resources") or {}).get("requests") or {}
            cpu += milli_value(req.get("cpu", "0"))
            mem += milli_value(req.get("memory", "0"))
    return max(cpu / cpu_alloc, mem / mem_alloc)


class ClusterAutoscaler:
    name = AUTOSCALER
    watches = frozenset({"MachineSet", "Machine", "Node", "Pod"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        unneeded = dict(ctx.state.get("unneeded") or {})
        seen: set[str] = set()
        removed = False
        for ms in sorted(ctx.store.list("MachineSet"), key=lambda d: (M.ns_of(d), M.name_of(d))):
            a = annotations_of(ms)
            if M.AUTOSCALER_MIN_ANNOTATION not in a:
                continue
            minimum = int(a[M.AUTOSCALER_MIN_ANNOTATION])
            replicas = int((ms.get("spec") or {}).get("replicas") or 0)
            for m in M.machines(ctx.store):
                ref = controller_ref(m)
                if ref is None or ref.get("name") != M.name_of(ms) or M.is_deleting(m) or M.has_delete_annotation(m):
                    continue
                node = ctx.store.get("Node", "", M.node_name_of(m)) if M.node_name_of(m) else None
                if node is None or _utilization(ctx.store, node) >= SCALE_DOWN_UTILIZATION:
                    continue
                name = M.name_of(node)
                seen.add(name)
                since = unneeded.setdefault(name, time_value(ctx.now))
                if ctx.now + 1e-9 < since + SCALE_DOWN_UNNEEDED_SECONDS:
                    result.due(since + SCALE_DOWN_UNNEEDED_SECONDS)
                    continue
                if removed or replicas <= minimum:
                    continue
                removed = True
                replicas -= 1
                seen.discard(name)
                result.actions += [
                    A.AddTaint(name, {"key": TO_BE_DELETED_TAINT, "value": str(int(ctx.now)), "effect": "NoSchedule"}),
                    A.RecordEvent(ctx.now, "Normal", "ScaleDown", "Node", "", name, "marked the node as toBeDeleted/unschedulable", AUTOSCALER),
                    A.SetAnnotation("Machine", M.ns_of(m), M.name_of(m), M.DELETE_MACHINE_ANNOTATION, "true"),
                    A.SetReplicas("MachineSet", M.ns_of(ms), M.name_of(ms), replicas),
                ]
        unneeded = {k: v for k, v in unneeded.items() if k in seen}
        if unneeded != (ctx.state.get("unneeded") or {}):
            result.actions.append(A.SetControllerState(self.name, "unneeded", unneeded or None))
        return M.finished(result)
