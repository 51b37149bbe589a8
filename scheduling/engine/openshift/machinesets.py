"""The MachineSet controller (openshift/machine-api-operator pkg/controller/machineset) and
the control plane machine set's replacement of deleted control-plane machines.

machineset-controller, per MachineSet: the machines it owns (its selector, its
controllerRef; orphans matching the selector are adopted), not counting those already
being deleted. Too few: new Machines named `<machineset>-<5 random characters>` with the
template's labels, annotations and spec (so a template edit changes only machines created
after it, as the OpenShift 4 docs' "Adding taints and tolerations using a machine set" says). Too many: the machines to delete chosen by the delete policy
(delete_policy.go): a machine with the `machine.openshift.io/delete-machine` annotation
first under every policy, then Random (machines without a node, then the rest in list
order), Oldest or Newest by creationTimestamp. Status: replicas, fullyLabeledReplicas,
readyReplicas, availableReplicas (nodes Ready for minReadySeconds), labelSelector,
observedGeneration.

control-plane-machine-set-controller (OnDelete strategy, one at a time): when a
control-plane Machine (role `master`) is being deleted and no replacement is in flight, a
new control-plane Machine for the same index is created from its spec (without its
lifecycle hooks: their owners add their own), named `<cluster>-master-<5 chars>-<index>`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api import selectors
from scheduling.engine.controller import Context
from scheduling.engine.controllers.controller_utils import ALPHANUMS, is_controlled_by, owner_reference
from scheduling.engine.store import controller_ref, labels_of, meta, sim_time, time_value

from . import machine_api as M

MACHINESET_CONTROLLER = "machineset-controller"
CPMS_CONTROLLER = "control-plane-machine-set-controller"

MUST_DELETE = 100.0
BETTER_DELETE = 50.0
PREFER_DELETE = 40.0
COULD_DELETE = 20.0
MUST_NOT_DELETE = 0.0
SECONDS_PER_HUNDRED_DAYS = 8640000.0


def _age_priority(machine: Mapping[str, Any], now: float) -> float:
    created = sim_time(meta(machine).get("creationTimestamp"))
    if created is None:
        return MUST_NOT_DELETE
    age = now - created
    if age < 0:
        return MUST_NOT_DELETE
    return BETTER_DELETE * (1.0 - math.exp(-age / SECONDS_PER_HUNDRED_DAYS))


def delete_priority(policy: str, machine: Mapping[str, Any], now: float) -> float:
    """deletePriority of one machine under `policy` (Random, Newest, Oldest)."""
    status = machine.get("status") or {}
    if M.is_deleting(machine):
        return MUST_DELETE
    marked = M.has_delete_annotation(machine) or status.get("errorReason") or status.get("errorMessage")
    if policy == "Oldest":
        if marked:
            return MUST_DELETE
        return _age_priority(machine, now) if meta(machine).get("creationTimestamp") is not None else MUST_NOT_DELETE
    if policy == "Newest":
        if marked:
            return MUST_DELETE
        return MUST_DELETE - _age_priority(machine, now)
    if marked:
        return BETTER_DELETE
    if not M.node_name_of(machine):
        return PREFER_DELETE
    return COULD_DELETE


def machines_to_delete(policy: str, machines: list[dict], diff: int, now: float) -> list[dict]:
    """getMachinesToDeletePrioritized: highest priority first, ties in list order."""
    if diff >= len(machines):
        return list(machines)
    if diff <= 0:
        return []
    ranked = sorted(enumerate(machines), key=lambda im: (-delete_priority(policy, im[1], now), im[0]))
    return [m for _, m in ranked[:diff]]


def format_selector(selector: Mapping[str, Any] | None) -> str:
    """The scale subresource's status.labelSelector: metav1.LabelSelectorAsSelector(...).String()
    (engine.api.selectors); "" when empty or refused."""
    selector = selector or {}
    try:
        return str(selectors.label_selector_as_selector(
            sorted((k, str(v)) for k, v in (selector.get("matchLabels") or {}).items()),
            selectors.expressions_of(selector.get("matchExpressions"))))
    except selectors.SelectorError:
        return ""


def node_ready_since(store, machine: Mapping[str, Any]) -> float | None:
    node = store.get("Node", "", M.node_name_of(machine)) if M.node_name_of(machine) else None
    if node is None:
        return None
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return (sim_time(c.get("lastTransitionTime")) or 0.0) if c.get("status") == "True" else None
    return sim_time(meta(node).get("creationTimestamp")) or 0.0  # no conditions: Ready


def random_name(ctx: Context, prefix: str, taken: set[str], *identity: Any) -> str:
    """names.SimpleNameGenerator: prefix + 5 characters, drawn for this decision."""
    attempt = 0
    while True:
        rng = ctx.rng(*identity, attempt)
        name = prefix + "".join(rng.choice(ALPHANUMS) for _ in range(5))
        if name not in taken:
            taken.add(name)
            return name
        attempt += 1


def owned_machines(store, ms: Mapping[str, Any]) -> list[dict]:
    """The machines a MachineSet owns: in its namespace, matching its (non-empty) selector,
    controlled by it or by nothing (orphans it adopts)."""
    selector = (ms.get("spec") or {}).get("selector") or {}
    if not selector:
        return []
    return [m for m in M.machines(store)
            if M.ns_of(m) == M.ns_of(ms) and M.selector_matches(selector, labels_of(m))
            and (controller_ref(m) is None or is_controlled_by(m, ms))]


def machine_from_template(ms: Mapping[str, Any], name: str, now: float) -> dict:
    """The Machine the MachineSet creates from its template: the template's labels,
    annotations and spec (taints included), owned by the set."""
    template = (ms.get("spec") or {}).get("template") or {}
    tmeta = template.get("metadata") or {}
    machine: dict[str, Any] = {
        "apiVersion": M.API_VERSION,
        "kind": "Machine",
        "metadata": {
            "name": name,
            "namespace": M.ns_of(ms),
            "generateName": f"{M.name_of(ms)}-",
            "labels": dict(tmeta.get("labels") or {}),
            "ownerReferences": [owner_reference(ms)],
            "creationTimestamp": time_value(now),
        },
        "spec": dict(template.get("spec") or {}),
    }
    if tmeta.get("annotations"):
        machine["metadata"]["annotations"] = dict(tmeta["annotations"])
    return machine


class MachineSetController:
    name = MACHINESET_CONTROLLER
    watches = frozenset({"MachineSet", "Machine", "Node"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        taken = {M.name_of(m) for m in ctx.store.list("Machine")}
        created = dict(ctx.state.get("created") or {})
        for ms in sorted(ctx.store.list("MachineSet"), key=lambda d: (M.ns_of(d), M.name_of(d))):
            actions, due = self._sync(ctx, ms, taken, created)
            result.actions += actions
            result.due(due)
        if created != (ctx.state.get("created") or {}):
            result.actions.append(A.SetControllerState(self.name, "created", created))
        return M.finished(result)

    def _sync(self, ctx: Context, ms: dict, taken: set[str], created: dict) -> tuple[list, float | None]:
        spec = ms.get("spec") or {}
        ns = M.ns_of(ms)
        selector = spec.get("selector") or {}
        owned = owned_machines(ctx.store, ms)
        actions: list = [A.SetControllerRef("Machine", ns, M.name_of(m), owner_reference(ms))
                         for m in owned if controller_ref(m) is None]
        active = [m for m in owned if not M.is_deleting(m)]
        replicas = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
        diff = len(active) - replicas
        key = M.key_of(ms)
        template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if diff < 0 and not (selector and M.selector_matches(selector, template_labels)):
            # validateMachineSet: machines it created would not be its own
            return actions + self._status(ctx, ms, active), None
        if diff < 0:
            count = int(created.get(key) or 0)
            for _ in range(-diff):
                count += 1
                name = random_name(ctx, f"{M.name_of(ms)}-", taken, self.name, key, count)
                actions.append(A.CreateObject(machine_from_template(ms, name, ctx.now)))
            created[key] = count
        elif diff > 0:
            policy = spec.get("deletePolicy") or "Random"
            for m in machines_to_delete(policy, active, diff, ctx.now):
                actions += M.request_deletion(ctx.store, ns, M.name_of(m), ctx.now)
        return actions + self._status(ctx, ms, active), self._available_due(ctx, ms, active)

    def _status(self, ctx: Context, ms: dict, machines: list[dict]) -> list:
        spec = ms.get("spec") or {}
        template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        min_ready = float(spec.get("minReadySeconds") or 0)
        fully = ready = available = 0
        for m in machines:
            if all(labels_of(m).get(k) == v for k, v in template_labels.items()):
                fully += 1
            since = node_ready_since(ctx.store, m)
            if since is not None:
                ready += 1
                if min_ready <= 0 or since + min_ready <= ctx.now:
                    available += 1
        fields = {
            "replicas": len(machines),
            # omitempty in the API: a zero count is absent
            "fullyLabeledReplicas": fully or None,
            "readyReplicas": ready or None,
            "availableReplicas": available or None,
            "labelSelector": format_selector(spec.get("selector")),
            "observedGeneration": meta(ms).get("generation") or 1,
        }
        status = ms.get("status") or {}
        if all(status.get(k) == v for k, v in fields.items()):
            return []
        return [A.PatchStatus("MachineSet", M.ns_of(ms), M.name_of(ms), fields)]

    def _available_due(self, ctx: Context, ms: dict, machines: list[dict]) -> float | None:
        min_ready = float((ms.get("spec") or {}).get("minReadySeconds") or 0)
        if min_ready <= 0:
            return None
        due = None
        for m in machines:
            since = node_ready_since(ctx.store, m)
            if since is not None and since + min_ready > ctx.now:
                due = since + min_ready if due is None else min(due, since + min_ready)
        return due


# --- control plane machine set ---------------------------------------------------------------------------------

_INDEX = re.compile(r"-(\d+)$")


def control_plane_index(machine: Mapping[str, Any]) -> str:
    found = _INDEX.search(M.name_of(machine))
    return found.group(1) if found else "0"


class ControlPlaneMachineSetController:
    name = CPMS_CONTROLLER
    watches = frozenset({"Machine"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        replaced = dict(ctx.state.get("replaced") or {})  # deleted machine key -> replacement name
        masters = [m for m in M.machines(ctx.store) if M.is_control_plane(m)]
        by_name = {M.name_of(m): m for m in masters}
        in_flight = [r for r in replaced.values() if r in by_name and M.phase_of(by_name[r]) != M.PHASE_RUNNING]
        taken = {M.name_of(m) for m in ctx.store.list("Machine")}
        for m in masters:
            if not M.is_deleting(m) or M.key_of(m) in replaced or controller_ref(m) is not None:
                continue
            if in_flight:
                break  # one at a time
            cluster = labels_of(m).get(M.CLUSTER_ID_LABEL) or "cluster"
            index = control_plane_index(m)
            name = random_name(ctx, f"{cluster}-master-", taken, self.name, M.key_of(m))
            name = f"{name}-{index}"
            spec = {k: v for k, v in (m.get("spec") or {}).items() if k not in ("lifecycleHooks", "providerID")}
            labels = {k: v for k, v in labels_of(m).items() if k not in (M.INSTANCE_TYPE_LABEL, M.REGION_LABEL, M.ZONE_LABEL)}
            result.actions.append(A.CreateObject({
                "apiVersion": M.API_VERSION,
                "kind": "Machine",
                "metadata": {"name": name, "namespace": M.ns_of(m), "labels": labels, "creationTimestamp": time_value(ctx.now)},
                "spec": spec,
            }))
            replaced[M.key_of(m)] = name
            in_flight.append(name)
        live = {M.key_of(m) for m in masters}
        for key in list(replaced):
            if key not in live and replaced[key] in by_name and M.phase_of(by_name[replaced[key]]) == M.PHASE_RUNNING:
                del replaced[key]
        if replaced != (ctx.state.get("replaced") or {}):
            result.actions.append(A.SetControllerState(self.name, "replaced", replaced or None))
        return M.finished(result)
