"""The Machine API's objects as plain documents (machine.openshift.io/v1beta1): names,
labels, annotations, phases, conditions and the timings the machine controllers share.

Field names, label and annotation keys, condition types, reasons and severities are the
ones of openshift/api machine/v1beta1 (types_machine.go, types_provider.go,
types_machineset.go, types_machinehealthcheck.go) and openshift/machine-api-operator
(pkg/controller/machine, pkg/controller/machineset/delete_policy.go).

Times in documents are simulated seconds (numbers), as everywhere in the engine.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.controllers.garbage_collector import cascade_delete
from scheduling.engine.store import Store, annotations_of, labels_of, meta, time_value

API_VERSION = "machine.openshift.io/v1beta1"
NAMESPACE = "openshift-machine-api"

# metadata
FINALIZER = "machine.machine.openshift.io"
DELETE_MACHINE_ANNOTATION = "machine.openshift.io/delete-machine"
OLD_DELETE_MACHINE_ANNOTATION = "machine.openshift.io/cluster-api-delete-machine"
NODE_MACHINE_ANNOTATION = "machine.openshift.io/machine"  # on the Node: "<namespace>/<machine>"
EXCLUDE_NODE_DRAINING_ANNOTATION = "machine.openshift.io/exclude-node-draining"
INSTANCE_STATE_ANNOTATION = "machine.openshift.io/instance-state"
INSTANCE_TYPE_LABEL = "machine.openshift.io/instance-type"
REGION_LABEL = "machine.openshift.io/region"
ZONE_LABEL = "machine.openshift.io/zone"
CLUSTER_ID_LABEL = "machine.openshift.io/cluster-api-cluster"
ROLE_LABEL = "machine.openshift.io/cluster-api-machine-role"
TYPE_LABEL = "machine.openshift.io/cluster-api-machine-type"
MACHINESET_LABEL = "machine.openshift.io/cluster-api-machineset"
# The cluster autoscaler's node-group bounds on a MachineSet (set by a MachineAutoscaler).
AUTOSCALER_MIN_ANNOTATION = "machine.openshift.io/cluster-api-autoscaler-node-group-min-size"
AUTOSCALER_MAX_ANNOTATION = "machine.openshift.io/cluster-api-autoscaler-node-group-max-size"
# Not upstream: the simulated hook owners act on this machine's hooks by themselves.
HOOK_OWNERS_ANNOTATION = "clusterui.io/simulated-hook-owners"

# status.phase
PHASE_PROVISIONING = "Provisioning"
PHASE_PROVISIONED = "Provisioned"
PHASE_RUNNING = "Running"
PHASE_DELETING = "Deleting"
PHASE_FAILED = "Failed"
PHASES = (PHASE_PROVISIONING, PHASE_PROVISIONED, PHASE_RUNNING, PHASE_DELETING, PHASE_FAILED)

# status.conditions (types_provider.go)
DRAINABLE = "Drainable"
DRAINED = "Drained"
TERMINABLE = "Terminable"
INSTANCE_EXISTS = "InstanceExists"
REMEDIATION_ALLOWED = "RemediationAllowed"
HOOK_PRESENT = "HookPresent"
DRAIN_ERROR = "DrainError"
INSTANCE_NOT_CREATED = "InstanceNotCreated"
INSTANCE_MISSING = "InstanceMissing"
TOO_MANY_UNHEALTHY = "TooManyUnhealthy"
SEVERITY_WARNING = "Warning"

PRE_DRAIN = "preDrain"
PRE_TERMINATE = "preTerminate"
HOOK_POINTS = (PRE_DRAIN, PRE_TERMINATE)

DELETE_POLICIES = ("Random", "Newest", "Oldest")

# The machine controllers' timings (simulated seconds).
REQUEUE_AFTER = 30  # controller.go requeueAfter: after an instance is created, while it terminates
NODE_JOIN_SECONDS = 240  # instance created -> RHCOS booted, kubelet registered, CSRs approved
INSTANCE_TERMINATE_SECONDS = 30  # the cloud's "shutting-down" before the instance is gone
DRAIN_TIMEOUT = 20  # drain.Helper Timeout of the machine drain controller
DRAIN_BACKOFF_BASE = 5  # newDrainRateLimiter: exponential from 5 s ...
DRAIN_BACKOFF_CAP = 1000  # ... to 1000 s
DRAIN_NOT_PERMITTED_REQUEUE = 20  # RequeueAfterError{20 s}: another control-plane node is cordoned

# Instance types: what the node's capacity is (the cloud's published sizes; pods is
# OpenShift's default maxPods). Allocatable subtracts the kubelet's system reservation.
INSTANCE_TYPES: dict[str, dict[str, str]] = {
    "m6i.large": {"cpu": "2", "memory": "8Gi"},
    "m6i.xlarge": {"cpu": "4", "memory": "16Gi"},
    "m6i.2xlarge": {"cpu": "8", "memory": "32Gi"},
    "m6i.4xlarge": {"cpu": "16", "memory": "64Gi"},
    "m5.large": {"cpu": "2", "memory": "8Gi"},
    "m5.xlarge": {"cpu": "4", "memory": "16Gi"},
    "m5.2xlarge": {"cpu": "8", "memory": "32Gi"},
    "c5.xlarge": {"cpu": "4", "memory": "8Gi"},
    "c5.2xlarge": {"cpu": "8", "memory": "16Gi"},
    "r5.xlarge": {"cpu": "4", "memory": "32Gi"},
    "r5.2xlarge": {"cpu": "8", "memory": "64Gi"},
}
DEFAULT_INSTANCE_TYPE = "m6i.xlarge"
MAX_PODS = "250"
SYSTEM_RESERVED = {"cpu": 500, "memory": 1024}  # millicores, MiB


def node_capacity(instance_type: str) -> tuple[dict[str, str], dict[str, str]]:
    """(capacity, allocatable) of a node of this instance type."""
    size = INSTANCE_TYPES.get(instance_type) or INSTANCE_TYPES[DEFAULT_INSTANCE_TYPE]
    cpu = int(size["cpu"])
    mem_gi = int(size["memory"][:-2])
    capacity = {"cpu": str(cpu), "memory": f"{mem_gi}Gi", "pods": MAX_PODS}
    allocatable = {
        "cpu": f"{cpu * 1000 - SYSTEM_RESERVED['cpu']}m",
        "memory": f"{mem_gi * 1024 - SYSTEM_RESERVED['memory']}Mi",
        "pods": MAX_PODS,
    }
    return capacity, allocatable


# --- reading machines -----------------------------------------------------------------------------


def name_of(doc: Mapping[str, Any]) -> str:
    return meta(doc).get("name") or ""


def ns_of(doc: Mapping[str, Any]) -> str:
    return meta(doc).get("namespace") or "default"


def key_of(doc: Mapping[str, Any]) -> str:
    """"openshift-machine-api/worker-a-x7k2p": how state and the Node annotation name a machine."""
    return f"{ns_of(doc)}/{name_of(doc)}"


def machines(store: Store) -> list[dict]:
    return sorted(store.list("Machine"), key=lambda m: (ns_of(m), name_of(m)))


def phase_of(machine: Mapping[str, Any]) -> str:
    return (machine.get("status") or {}).get("phase") or ""


def is_deleting(doc: Mapping[str, Any]) -> bool:
    return meta(doc).get("deletionTimestamp") is not None


def hooks_of(machine: Mapping[str, Any], point: str) -> list[dict]:
    return [dict(h) for h in (((machine.get("spec") or {}).get("lifecycleHooks") or {}).get(point) or [])]


def format_hooks(hooks: Iterable[Mapping[str, Any]]) -> str:
    """Go's %+v of a []LifecycleHook: [{Name:EtcdQuorumOperator Owner:clusteroperator/etcd}]."""
    return "[" + " ".join(f"{{Name:{h.get('name', '')} Owner:{h.get('owner', '')}}}" for h in hooks) + "]"


def node_name_of(machine: Mapping[str, Any]) -> str:
    return ((machine.get("status") or {}).get("nodeRef") or {}).get("name") or ""


def instance_type_of(machine: Mapping[str, Any]) -> str:
    value = (((machine.get("spec") or {}).get("providerSpec") or {}).get("value") or {}).get("instanceType")
    return value or labels_of(machine).get(INSTANCE_TYPE_LABEL) or DEFAULT_INSTANCE_TYPE


def role_of(machine: Mapping[str, Any]) -> str:
    return labels_of(machine).get(ROLE_LABEL) or ""


def is_control_plane(machine: Mapping[str, Any]) -> bool:
    return role_of(machine) == "master"


def is_control_plane_node(node: Mapping[str, Any]) -> bool:
    labels = labels_of(node)
    return "node-role.kubernetes.io/control-plane" in labels or "node-role.kubernetes.io/master" in labels


def has_delete_annotation(machine: Mapping[str, Any]) -> bool:
    a = annotations_of(machine)
    return bool(a.get(DELETE_MACHINE_ANNOTATION) or a.get(OLD_DELETE_MACHINE_ANNOTATION))


def machine_for_node(store: Store, node: str) -> dict | None:
    for m in machines(store):
        if node_name_of(m) == node:
            return m
    return None


def condition(doc: Mapping[str, Any], type_: str) -> dict | None:
    for c in (doc.get("status") or {}).get("conditions") or []:
        if c.get("type") == type_:
            return c
    return None


def condition_is_true(doc: Mapping[str, Any], type_: str) -> bool:
    c = condition(doc, type_)
    return c is not None and c.get("status") == "True"


def true_condition(type_: str) -> dict:
    """conditions.TrueCondition: no reason, no message, no severity."""
    return {"type": type_, "status": "True"}


def false_condition(type_: str, reason: str, message: str, severity: str = SEVERITY_WARNING) -> dict:
    return {"type": type_, "status": "False", "severity": severity, "reason": reason, "message": message}


def set_condition(conditions: Iterable[Mapping[str, Any]], new: Mapping[str, Any], now: float) -> list[dict]:
    """conditions.Set: lastTransitionTime moves only when status, reason, severity or
    message change; a new condition is appended."""
    out = [dict(c) for c in conditions]
    fresh = dict(new)
    for i, c in enumerate(out):
        if c.get("type") == fresh["type"]:
            same = all((c.get(k) or "") == (fresh.get(k) or "") for k in ("status", "reason", "severity", "message"))
            fresh["lastTransitionTime"] = c.get("lastTransitionTime") if same else time_value(now)
            out[i] = fresh
            return out
    fresh["lastTransitionTime"] = time_value(now)
    out.append(fresh)
    return out


def lifecycle_conditions(machine: Mapping[str, Any], conditions: Iterable[Mapping[str, Any]], now: float) -> list[dict]:
    """setLifecycleHookConditions: Drainable and Terminable from the hooks present."""
    out = list(conditions)
    drain = hooks_of(machine, PRE_DRAIN)
    term = hooks_of(machine, PRE_TERMINATE)
    out = set_condition(out, false_condition(DRAINABLE, HOOK_PRESENT, f"Drain operation currently blocked by: {format_hooks(drain)}")
                        if drain else true_condition(DRAINABLE), now)
    out = set_condition(out, false_condition(TERMINABLE, HOOK_PRESENT, f"Terminate operation currently blocked by: {format_hooks(term)}")
                        if term else true_condition(TERMINABLE), now)
    return out


def selector_matches(selector_doc: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector; an empty selector matches everything (as the MHC reads it)."""
    selector = LabelSelector.from_doc(selector_doc or {})
    return selector is None or selector.is_empty or selector.matches(labels)


# --- writing machines ----------------------------------------------------------------------------------


def with_changes(doc: Mapping[str, Any], mutate) -> A.ReplaceObject | None:
    """A ReplaceObject of `doc` after `mutate(copy)`; None when nothing changed."""
    new = copy.deepcopy(dict(doc))
    mutate(new)
    return None if new == doc else A.ReplaceObject(new)


def request_deletion(store: Store, namespace: str, name: str, now: float) -> list:
    """A DELETE of a Machine, as the API server takes it (workloads.cascade_delete): with
    finalizers it only sets metadata.deletionTimestamp (once) and the machine controller
    finishes the job; without, the object is removed at once."""
    return cascade_delete(store, "Machine", namespace, name, now)


def set_hooks(machine: Mapping[str, Any], point: str, hooks: Iterable[Mapping[str, Any]]) -> A.ReplaceObject | None:
    """Replace the hooks at one lifecycle point (what a hook owner writes)."""
    hooks = [{"name": h["name"], "owner": h["owner"]} for h in hooks]

    def mutate(doc: dict) -> None:
        spec = doc.setdefault("spec", {})
        lifecycle = dict(spec.get("lifecycleHooks") or {})
        if hooks:
            lifecycle[point] = hooks
        else:
            lifecycle.pop(point, None)
        if lifecycle:
            spec["lifecycleHooks"] = lifecycle
        else:
            spec.pop("lifecycleHooks", None)

    return with_changes(machine, mutate)


def remove_hook(machine: Mapping[str, Any], point: str, name: str) -> A.ReplaceObject | None:
    return set_hooks(machine, point, [h for h in hooks_of(machine, point) if h.get("name") != name])


def add_hook(machine: Mapping[str, Any], point: str, name: str, owner: str) -> A.ReplaceObject | None:
    hooks = hooks_of(machine, point)
    if any(h.get("name") == name for h in hooks):
        return None
    return set_hooks(machine, point, hooks + [{"name": name, "owner": owner}])


def finished(result: A.Result) -> A.Result:
    """The result a machine controller returns: next_due in float seconds (the loop's clock
    and the event times stay floats even though documents store whole seconds as ints)."""
    if result.next_due is not None:
        result.next_due = float(result.next_due)
    return result


def event(now: float, reason: str, machine: Mapping[str, Any], message: str, source: str, type_: str = "Normal") -> A.RecordEvent:
    return A.RecordEvent(float(now), type_, reason, machine.get("kind") or "Machine", ns_of(machine), name_of(machine), message, source)


# --- the machine deletion flow of the lifecycle hooks documentation, step by step (the machine page draws it) -------------------------------

DELETION_STEPS: tuple[str, ...] = (
    "The machine is removed (oc delete machine, the delete-machine annotation, a MachineSet scale-down, "
    "the cluster autoscaler, a MachineHealthCheck)",
    "The machine enters the Deleting phase: marked for deletion, still in the API",
    "preDrain hooks: their owners act; Drainable=False until every preDrain hook is removed",
    "No preDrain hook left: Drainable=True",
    "The machine controller drains the node; a failed drain sets Drained=False and is retried",
    "Drained=True",
    "preTerminate hooks: their owners act; Terminable=False until every preTerminate hook is removed",
    "No preTerminate hook left: Terminable=True",
    "The machine controller deletes the instance from the infrastructure provider",
    "The machine controller deletes the Node object",
)


def deletion_step(machine: Mapping[str, Any] | None) -> int:
    """The step of DELETION_STEPS (1-10) the machine is at; 0: not being deleted; 11: gone."""
    if machine is None:
        return 11
    if not is_deleting(machine):
        return 0
    if phase_of(machine) != PHASE_DELETING:
        return 2
    if hooks_of(machine, PRE_DRAIN):
        return 3
    if not condition_is_true(machine, DRAINED):
        return 5
    if hooks_of(machine, PRE_TERMINATE):
        return 7
    if annotations_of(machine).get(INSTANCE_STATE_ANNOTATION) == "shutting-down":
        return 9
    return 8
