"""The machine controller and the machine drain controller (openshift/machine-api-operator
pkg/controller/machine: controller.go, drain_controller.go), with a simulated cloud.

machine-controller, per Machine:
* adds the finalizer `machine.machine.openshift.io` first (and does nothing else in that pass);
* a new machine goes Provisioning; the cloud instance is created (event `Create`
  "Created Machine <name>", as the AWS actuator records it; spec.providerID, addresses);
  `REQUEUE_AFTER` later the instance exists: Provisioned (InstanceExists True); when the
  instance has booted and its kubelet registered (`NODE_JOIN_SECONDS` after creation) the
  Node appears with the machine's instance type capacity, the template's labels
  (spec.metadata.labels) and taints (spec.taints), the Node annotation
  `machine.openshift.io/machine`, and the machine gets status.nodeRef: Running;
* every status update recomputes Drainable / Terminable from the lifecycle hooks
  (HookPresent, Warning, "Drain operation currently blocked by: [{Name:... Owner:...}]");
* a machine with a deletionTimestamp goes Deleting and waits for Drained=True (the drain
  controller), then for every preTerminate hook to be removed; then the instance is deleted
  (event `Delete` "Deleted machine <name>"), and once it is gone the Node is deleted and
  the finalizer removed, which lets the API server remove the Machine.

machine-drain-controller, per deleting Machine with a node: while preDrain hooks exist,
event `DrainBlocked` "Drain blocked by pre-drain hook"; then `DrainProceeds` "Node drain
proceeds", cordon and kubectl's drain (scheduling.engine.oc.drain: PDB-respecting
evictions retried every 5 s, a 20 s timeout); success: events
`DrainSucceeded` and `Deleted` "Node \"<node>\" drained", Drained=True "Drain finished
successfully"; failure: Drained=False (DrainError, Warning, "could not drain machine: ...")
and `DrainRequeued` "Node drain requeued: ...", retried with the exponential backoff of
the controller's rate limiter (5 s doubling to 1000 s). Only one control-plane node is
drained at a time ("drain not permitted"). A machine without a node, or annotated
`machine.openshift.io/exclude-node-draining`, gets `DrainSkipped` and Drained=True
"Node drain skipped".

All timers (instance creation and termination, drain attempts, retries, backoff) are the
controllers' own state (SetControllerState), never fields of the Machine.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controller import Context
from scheduling.engine.oc import drain
from scheduling.engine.store import annotations_of, meta, sim_time, time_value

from . import machine_api as M

MACHINE_CONTROLLER = "machine-controller"
DRAIN_CONTROLLER = "machine-drain-controller"
CLOUD_SOURCE = "aws-controller"  # the actuator's event recorder


# --- the simulated cloud ------------------------------------------------------------------------------------


def _placement(machine: Mapping[str, Any]) -> tuple[str, str]:
    value = ((machine.get("spec") or {}).get("providerSpec") or {}).get("value") or {}
    placement = value.get("placement") if isinstance(value, Mapping) else None
    if not isinstance(placement, Mapping):
        placement = {}  # the CRD keeps providerSpec.value as written; what is not a Placement is none
    region = _text(placement.get("region")) or M.labels_of(machine).get(M.REGION_LABEL) or "us-east-1"
    zone = _text(placement.get("availabilityZone")) or M.labels_of(machine).get(M.ZONE_LABEL) or f"{region}a"
    return region, zone


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _node_name(ip: str, region: str) -> str:
    host = "ip-" + ip.replace(".", "-")
    return f"{host}.ec2.internal" if region == "us-east-1" else f"{host}.{region}.compute.internal"


def _new_instance(ctx: Context, machine: Mapping[str, Any], taken_ips: set[str]) -> dict:
    """An instance id and a private address, drawn for this machine."""
    # drawn by name, not uid: a stored cluster (uids from the database) and `simulate`
    # (no uids) give the same instances
    rng = ctx.rng(MACHINE_CONTROLLER, "instance", M.key_of(machine))
    instance = "i-0" + "".join(rng.choice("0123456789abcdef") for _ in range(16))
    while True:
        ip = f"10.0.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
        if ip not in taken_ips:
            taken_ips.add(ip)
            break
    return {"instance": instance, "ip": ip, "createdAt": time_value(ctx.now)}


def instance_of(ctx_state: Mapping[str, Any], machine: Mapping[str, Any]) -> dict | None:
    """The cloud's record of the machine's instance (None: never created by us). A machine
    that arrives provisioned (spec.providerID set) is taken as having a running instance."""
    record = (ctx_state.get("instances") or {}).get(M.key_of(machine))
    if record is not None:
        return dict(record)
    if (machine.get("spec") or {}).get("providerID"):
        return {"instance": (machine["spec"]["providerID"]).rsplit("/", 1)[-1], "createdAt": -10**9, "imported": True}
    return None


def instance_exists(record: Mapping[str, Any] | None, now: float) -> bool:
    if record is None:
        return False
    created = sim_time(record.get("createdAt")) or 0.0
    if now < created + M.REQUEUE_AFTER and not record.get("imported"):
        return False
    gone = record.get("terminatedAt")
    return gone is None or now < gone


def node_document(machine: Mapping[str, Any], name: str, ip: str, instance: str, now: float) -> dict:
    """The Node a machine's instance registers (Ready): its instance type's capacity, the
    cloud's labels, the role label, the machine's spec.metadata.labels and spec.taints (a
    control-plane machine's node also gets the master NoSchedule taint), the annotation
    linking it to the machine."""
    region, zone = _placement(machine)
    itype = M.instance_type_of(machine)
    capacity, allocatable = M.node_capacity(itype)
    spec = machine.get("spec") or {}
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": itype,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": region,
        "failure-domain.beta.kubernetes.io/zone": zone,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name.split(".")[0],
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "node.openshift.io/os_id": "rhcos",
        "topology.kubernetes.io/region": region,
        "topology.kubernetes.io/zone": zone,
    }
    role = M.role_of(machine)
    if role:
        labels[f"node-role.kubernetes.io/{role}"] = ""
        if role == "master":
            labels["node-role.kubernetes.io/control-plane"] = ""
    labels.update((spec.get("metadata") or {}).get("labels") or {})
    taints = [dict(t) for t in spec.get("taints") or []]
    if role == "master" and not any(t.get("key") == "node-role.kubernetes.io/master" for t in taints):
        taints.append({"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"})
    created = time_value(now)
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {M.NODE_MACHINE_ANNOTATION: M.key_of(machine)},
            "creationTimestamp": created,
        },
        "spec": {"providerID": spec.get("providerID") or f"aws:///{zone}/{instance}"},
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
                 "lastHeartbeatTime": created, "lastTransitionTime": created},
            ],
        },
    }
    if taints:
        node["spec"]["taints"] = taints
    return node


# --- machine-controller ----------------------------------------------------------------------------------------


class MachineController:
    name = MACHINE_CONTROLLER
    watches = frozenset({"Machine", "Node"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        instances = dict(ctx.state.get("instances") or {})
        changed = False
        taken_ips = {str(r.get("ip")) for r in instances.values() if r.get("ip")}
        for machine in M.machines(ctx.store):
            key = M.key_of(machine)
            record = instance_of(ctx.state, machine)
            actions, new_record, due = self._machine(ctx, machine, record, taken_ips)
            result.actions += actions
            result.due(due)
            if new_record != (ctx.state.get("instances") or {}).get(key) and not (new_record or {}).get("imported"):
                if new_record is None:
                    instances.pop(key, None)
                else:
                    instances[key] = new_record
                changed = True
        # forget instances of machines that no longer exist
        live = {M.key_of(m) for m in ctx.store.list("Machine")}
        for key in list(instances):
            if key not in live and instances[key].get("terminatedAt") is not None:
                del instances[key]
                changed = True
        if changed:
            result.actions.append(A.SetControllerState(self.name, "instances", instances or None))
        return M.finished(result)

    def _status(self, ctx: Context, machine: Mapping[str, Any], phase: str, conditions: list[dict] | None = None,
                extra: Mapping[str, Any] | None = None) -> list:
        """updateStatus: the phase, the lifecycle hook conditions, lastUpdated when anything moved."""
        status = machine.get("status") or {}
        conds = M.lifecycle_conditions(machine, conditions if conditions is not None else status.get("conditions") or [], ctx.now)
        fields: dict[str, Any] = {"phase": phase, "conditions": conds, **(extra or {})}
        if all(status.get(k) == v for k, v in fields.items()):
            return []
        fields["lastUpdated"] = time_value(ctx.now)
        return [A.PatchStatus("Machine", M.ns_of(machine), M.name_of(machine), fields)]

    def _machine(self, ctx: Context, machine: dict, record: dict | None, taken_ips: set[str]) -> tuple[list, dict | None, float | None]:
        now = ctx.now
        finalizers = list(meta(machine).get("finalizers") or [])
        if not M.is_deleting(machine):
            if M.FINALIZER not in finalizers:
                return [M.with_changes(machine, lambda d: d["metadata"].__setitem__("finalizers", finalizers + [M.FINALIZER]))], record, None
            return self._provision(ctx, machine, record, taken_ips)
        return self._delete(ctx, machine, record)

    # provisioning ----------------------------------------------------------------------------------------------

    def _provision(self, ctx: Context, machine: dict, record: dict | None, taken_ips: set[str]) -> tuple[list, dict | None, float | None]:
        now = ctx.now
        phase = M.phase_of(machine)
        conditions = list((machine.get("status") or {}).get("conditions") or [])
        if phase == M.PHASE_FAILED:
            return [], record, None
        if instance_exists(record, now):
            conditions = M.set_condition(conditions, M.true_condition(M.INSTANCE_EXISTS), now)
            actions: list = []
            due = None
            node = M.node_name_of(machine)
            if not node:
                created = sim_time(record.get("createdAt")) or 0.0
                join_at = created + M.NODE_JOIN_SECONDS
                if now + 1e-9 >= join_at and record.get("ip"):
                    actions += self._join(ctx, machine, record)
                    node = _node_name(record["ip"], _placement(machine)[0])
                else:
                    due = join_at
            if annotations_of(machine).get(M.INSTANCE_STATE_ANNOTATION) != "running":
                actions.insert(0, M.with_changes(machine, lambda d: d["metadata"].setdefault("annotations", {}).__setitem__(M.INSTANCE_STATE_ANNOTATION, "running")))
            extra: dict[str, Any] = {}
            if node and not M.node_name_of(machine):
                node_doc = ctx.store.get("Node", "", node)
                extra["nodeRef"] = {"kind": "Node", "name": node, **({"uid": meta(node_doc)["uid"]} if node_doc and meta(node_doc).get("uid") else {})}
            actions += self._status(ctx, machine, M.PHASE_RUNNING if node else M.PHASE_PROVISIONED, conditions, extra)
            return [a for a in actions if a is not None], record, due
        if (machine.get("spec") or {}).get("providerID") and record is not None and record.get("terminatedAt") is not None:
            conditions = M.set_condition(conditions, M.false_condition(M.INSTANCE_EXISTS, M.INSTANCE_MISSING, "Instance not found on provider"), now)
            return self._status(ctx, machine, M.PHASE_FAILED, conditions, {"errorMessage": "can't find created instance"}), record, None
        conditions = M.set_condition(conditions, M.false_condition(M.INSTANCE_EXISTS, M.INSTANCE_NOT_CREATED, "Instance has not been created"), now)
        if not phase:
            return self._status(ctx, machine, M.PHASE_PROVISIONING, conditions), record, None
        if record is not None:  # created, not yet visible
            return self._status(ctx, machine, phase, conditions), record, (sim_time(record.get("createdAt")) or 0.0) + M.REQUEUE_AFTER
        # actuator.Create
        record = _new_instance(ctx, machine, taken_ips)
        region, zone = _placement(machine)
        itype = M.instance_type_of(machine)
        provider_id = f"aws:///{zone}/{record['instance']}"

        def mutate(doc: dict) -> None:
            doc.setdefault("spec", {})["providerID"] = provider_id
            m = doc["metadata"]
            m["annotations"] = {**(m.get("annotations") or {}), M.INSTANCE_STATE_ANNOTATION: "pending"}
            m["labels"] = {**(m.get("labels") or {}), M.INSTANCE_TYPE_LABEL: itype, M.REGION_LABEL: region, M.ZONE_LABEL: zone}

        addresses = [
            {"type": "InternalIP", "address": record["ip"]},
            {"type": "InternalDNS", "address": _node_name(record["ip"], region)},
            {"type": "Hostname", "address": _node_name(record["ip"], region)},
        ]
        actions = [M.with_changes(machine, mutate)]
        actions += self._status(ctx, machine, phase, conditions, {"addresses": addresses})
        actions.append(M.event(ctx.now, "Create", machine, f"Created Machine {M.name_of(machine)}", CLOUD_SOURCE))
        return [a for a in actions if a is not None], record, now + M.REQUEUE_AFTER

    def _join(self, ctx: Context, machine: dict, record: Mapping[str, Any]) -> list:
        """The instance's kubelet registers its Node; the nodelink controller links it."""
        name = _node_name(record["ip"], _placement(machine)[0])
        if ctx.store.get("Node", "", name) is not None:
            return []
        node = node_document(machine, name, record["ip"], record["instance"], ctx.now)
        return [A.CreateObject(node), A.RecordEvent(ctx.now, "Normal", "RegisteredNode", "Node", "", name,
                                                     f"Node {name} event: Registered Node {name} in Controller", "node-controller")]

    # deletion ------------------------------------------------------------------------------------------------------

    def _delete(self, ctx: Context, machine: dict, record: dict | None) -> tuple[list, dict | None, float | None]:
        now = ctx.now
        actions = self._status(ctx, machine, M.PHASE_DELETING)
        finalizers = list(meta(machine).get("finalizers") or [])
        if not finalizers:  # someone removed every finalizer: the API server removes the object
            return [A.DeleteObject("Machine", M.ns_of(machine), M.name_of(machine))], record, None
        if M.FINALIZER not in finalizers:
            return actions, record, None
        if not M.condition_is_true(machine, M.DRAINED):
            return actions, record, None  # the drain controller sets it
        if M.hooks_of(machine, M.PRE_TERMINATE):
            return actions, record, None  # a preTerminate hook holds the instance
        if record is not None and record.get("terminatedAt") is None:
            record = {**{k: v for k, v in record.items() if k != "imported"}, "terminatedAt": time_value(now + M.INSTANCE_TERMINATE_SECONDS)}
            actions.insert(0, M.with_changes(machine, lambda d: d["metadata"].setdefault("annotations", {}).__setitem__(M.INSTANCE_STATE_ANNOTATION, "shutting-down")))
            actions.append(M.event(now, "Delete", machine, f"Deleted machine {M.name_of(machine)}", CLOUD_SOURCE))
            return [a for a in actions if a is not None], record, now + M.REQUEUE_AFTER
        if record is not None and record.get("terminatedAt") is not None and now < record["terminatedAt"]:
            return actions, record, now + M.REQUEUE_AFTER
        node = M.node_name_of(machine)
        if node and ctx.store.get("Node", "", node) is not None:
            actions.append(A.DeleteObject("Node", "", node))
        rest = [f for f in finalizers if f != M.FINALIZER]
        if rest:
            actions.insert(0, M.with_changes(machine, lambda d: d["metadata"].__setitem__("finalizers", rest)))
        else:
            actions = [A.DeleteObject("Machine", M.ns_of(machine), M.name_of(machine))]
            if node and ctx.store.get("Node", "", node) is not None:
                actions.insert(0, A.DeleteObject("Node", "", node))
        return actions, record, None


# --- machine-drain-controller ------------------------------------------------------------------------------------


def node_unreachable(node: Mapping[str, Any] | None) -> bool:
    """nodeIsUnreachable: the node's Ready condition is Unknown."""
    for c in ((node or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "Unknown"
    return False


def drain_options(node: Mapping[str, Any] | None) -> drain.DrainOptions:
    """The drain.Helper of drain_controller.go: Force, IgnoreAllDaemonSets,
    DeleteEmptyDirData, the pods' own grace periods, a 20 s timeout; for an unreachable
    node a 1 s grace period and no waiting for pods deleted more than 1 s ago."""
    unreachable = node_unreachable(node)
    return drain.DrainOptions(force=True, ignore_daemonsets=True, delete_emptydir_data=True,
                              grace_period=1 if unreachable else -1, timeout=float(M.DRAIN_TIMEOUT),
                              skip_wait_for_delete_timeout=1 if unreachable else 0)


def backoff(failures: int) -> float:
    """ItemExponentialFailureRateLimiter(5 s, 1000 s): the delay before retry n."""
    return float(min(M.DRAIN_BACKOFF_BASE * 2 ** max(failures - 1, 0), M.DRAIN_BACKOFF_CAP))


class DrainController:
    name = DRAIN_CONTROLLER
    watches = frozenset({"Machine", "Node", "Pod", "PodDisruptionBudget"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        live = set()
        for machine in M.machines(ctx.store):
            key = M.key_of(machine)
            live.add(key)
            st = dict(ctx.state.get(key) or {})
            actions, new_st, due = self._machine(ctx, machine, st)
            result.actions += actions
            result.due(due)
            if new_st != st:
                result.actions.append(A.SetControllerState(self.name, key, new_st or None))
        for key in ctx.state:
            if key not in live:
                result.actions.append(A.SetControllerState(self.name, key, None))
        return M.finished(result)

    def _drained(self, ctx: Context, machine: Mapping[str, Any], message: str) -> A.PatchStatus:
        conds = M.set_condition((machine.get("status") or {}).get("conditions") or [], {**M.true_condition(M.DRAINED), "message": message}, ctx.now)
        return A.PatchStatus("Machine", M.ns_of(machine), M.name_of(machine), {"conditions": conds})

    def _failed(self, ctx: Context, machine: Mapping[str, Any], error: str, st: dict, requeue: float | None) -> tuple[list, dict, float]:
        """Drained=False, DrainRequeued, and the retry: after `requeue` (a RequeueAfterError)
        or the rate limiter's backoff."""
        conds = M.set_condition((machine.get("status") or {}).get("conditions") or [],
                                M.false_condition(M.DRAINED, M.DRAIN_ERROR, f"could not drain machine: {error}"), ctx.now)
        failures = int(st.get("failures") or 0) + (0 if requeue is not None else 1)
        delay = requeue if requeue is not None else backoff(failures)
        new = {"failures": failures, "retryAt": time_value(ctx.now + delay)}
        return ([A.PatchStatus("Machine", M.ns_of(machine), M.name_of(machine), {"conditions": conds}),
                 M.event(ctx.now, "DrainRequeued", machine, f"Node drain requeued: {error}", DRAIN_CONTROLLER)],
                new, ctx.now + delay)

    def _machine(self, ctx: Context, machine: dict, st: dict) -> tuple[list, dict, float | None]:
        now = ctx.now
        if not M.is_deleting(machine) or M.phase_of(machine) != M.PHASE_DELETING or M.condition_is_true(machine, M.DRAINED):
            return [], {}, None
        node_name = M.node_name_of(machine)
        if M.EXCLUDE_NODE_DRAINING_ANNOTATION in annotations_of(machine) or not node_name:
            return [M.event(now, "DrainSkipped", machine, "Node drain skipped", DRAIN_CONTROLLER),
                    self._drained(ctx, machine, "Node drain skipped")], {}, None
        hooks = M.hooks_of(machine, M.PRE_DRAIN)
        if hooks:
            if st.get("blockedBy") == hooks:
                return [], st, None
            return [M.event(now, "DrainBlocked", machine, "Drain blocked by pre-drain hook", DRAIN_CONTROLLER)], {**st, "blockedBy": hooks}, None
        st = {k: v for k, v in st.items() if k != "blockedBy"}
        if st.get("plan") is not None:
            return self._continue(ctx, machine, st)
        retry_at = st.get("retryAt")
        if retry_at is not None and now + 1e-9 < retry_at:
            return [], st, retry_at
        return self._attempt(ctx, machine, node_name, st)

    def _attempt(self, ctx: Context, machine: dict, node_name: str, st: dict) -> tuple[list, dict, float | None]:
        now = ctx.now
        actions: list = [M.event(now, "DrainProceeds", machine, "Node drain proceeds", DRAIN_CONTROLLER)]
        node = ctx.store.get("Node", "", node_name)
        if node is None:  # deleted by someone else: nothing to drain
            return actions + self._success(ctx, machine, node_name, with_node_event=False), {}, None
        if not (node.get("spec") or {}).get("unschedulable") and M.is_control_plane_node(node):
            for other in ctx.store.list("Node"):
                if other is not node and M.is_control_plane_node(other) and (other.get("spec") or {}).get("unschedulable"):
                    failed, new, due = self._failed(ctx, machine, f"drain not permitted: requeue in: {M.DRAIN_NOT_PERMITTED_REQUEUE}s",
                                                    st, float(M.DRAIN_NOT_PERMITTED_REQUEUE))
                    return actions + failed, new, due
        actions.append(A.SetUnschedulable(node_name, True))
        p = drain.plan(ctx.store, node_name, drain_options(node))
        if p.errors:
            failed, new, due = self._failed(ctx, machine, drain.aggregate(p.errors), st, None)
            return actions + failed, new, due
        more, new, due = self._pass(ctx, machine, node_name, p, st)
        return actions + more, new, due

    def _continue(self, ctx: Context, machine: dict, st: dict) -> tuple[list, dict, float | None]:
        p = drain.DrainPlan.from_dict(st["plan"])
        if p.next_due is not None and ctx.now + 1e-9 < p.next_due:
            return [], st, p.next_due
        return self._pass(ctx, machine, p.node, p, st)

    def _pass(self, ctx: Context, machine: dict, node_name: str, p: drain.DrainPlan, st: dict) -> tuple[list, dict, float | None]:
        """One pass of drain.RunNodeDrain's evictions; the drain ends when every pod is gone
        or failed (the 20 s timeout makes the rest fail)."""
        actions, _, done = drain.evict_pass(ctx.store, p, ctx.now)
        st = {k: v for k, v in st.items() if k not in ("plan", "retryAt")}
        if not done:
            return actions, {**st, "plan": p.to_dict()}, p.next_due
        if p.failures:
            failed, new, due = self._failed(ctx, machine, drain.aggregate(p.failures), st, None)
            return actions + failed, new, due
        return actions + self._success(ctx, machine, node_name), {}, None

    def _success(self, ctx: Context, machine: dict, node_name: str, with_node_event: bool = True) -> list:
        actions = []
        if with_node_event:
            actions.append(M.event(ctx.now, "Deleted", machine, f'Node "{node_name}" drained', DRAIN_CONTROLLER))
        actions.append(M.event(ctx.now, "DrainSucceeded", machine, "Node drain succeeded", DRAIN_CONTROLLER))
        actions.append(self._drained(ctx, machine, "Drain finished successfully"))
        return actions
