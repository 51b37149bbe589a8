"""Taints through a MachineSet (OpenShift 4's "Adding taints and tolerations using a machine set"), as documents: editing the template changes
no existing machine or node; only machines created after the edit get it, so the documented
procedure scales the set to 0 (`oc scale --replicas=0 machineset <set>`: every machine is
deleted, its node drained and removed) and back up (`--replicas=N`: new machines, whose
nodes carry the template's labels and taints).

`scale_to_zero_and_back(store, machineset, replicas, now)` says, without running anything,
what the machine controllers would do on the way: which nodes go (and which lifecycle hooks
or PodDisruptionBudgets would hold them), what each drain does with each pod (kubectl's
drain as the machine drain controller runs it: Force, IgnoreAllDaemonSets,
DeleteEmptyDirData: a pod with a controller is evicted and created again by it, a pod
without one is deleted for good, a DaemonSet pod is left to go with its node), and the
Nodes the new machines' kubelets would register (machines.node_document, the same builder
as the machine controller's), with the pods each DaemonSet would put on them. Where the
evicted pods then land is the scheduler's answer: the what-if preview
(updates/machine_previews.py) places them with the scheduling engine, before and after the
new nodes join.

The template edits the MachineSet page offers (a taint added to or removed from
spec.template.spec.taints) are here too, pure functions on the document.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scheduling.engine.api.objects import Pod, Taint
from scheduling.engine.api.validation import validate_taints
from scheduling.engine.controllers.daemonset import daemon_pod_doc, node_should_run_daemon_pod
from scheduling.engine.controllers.eviction import pdb_pods, pdb_status
from scheduling.engine.oc import drain
from scheduling.engine.store import Store, controller_ref, is_terminating, meta

from . import machine_api as M
from .machines import drain_options, node_document
from .machinesets import machine_from_template, owned_machines

# what a drain does with a pod of a node that goes away
RECREATED = "recreated"  # evicted; its controller creates it again (it goes back to the scheduler)
DELETED = "deleted"  # no controller: the forced drain deletes it and nothing brings it back
WITH_NODE = "with-node"  # a DaemonSet pod: the drain leaves it, it goes when its node is deleted
FINISHED = "finished"  # Succeeded or Failed: deleted, not run again


# --- the template edits ---------------------------------------------------------------------------------


class TemplateError(ValueError):
    """A template edit that cannot be made; str() is the message."""


def template_spec(ms: Mapping[str, Any]) -> Mapping[str, Any]:
    return ((ms.get("spec") or {}).get("template") or {}).get("spec") or {}


def template_taints(ms: Mapping[str, Any]) -> list[dict]:
    return [dict(t) for t in template_spec(ms).get("taints") or []]


def with_template_taints(ms: Mapping[str, Any], taints: Sequence[Mapping[str, Any]]) -> dict:
    """A copy of the MachineSet whose spec.template.spec.taints is `taints` (omitted when empty)."""
    out = copy.deepcopy(dict(ms))
    (out.get("metadata") or {}).pop("resourceVersion", None)
    spec = out.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    else:
        spec.pop("taints", None)
    return out


def add_template_taint(ms: Mapping[str, Any], key: str, value: str, effect: str) -> tuple[dict, str]:
    """The taint added to the template (a taint with the same key and effect has its value
    replaced: a node's taints are unique by key and effect); (document, summary)."""
    taint = {"key": key, **({"value": value} if value else {}), "effect": effect}
    taints = template_taints(ms)
    for i, t in enumerate(taints):
        if t.get("key") == key and t.get("effect") == effect:
            taints[i] = taint
            break
    else:
        taints.append(taint)
    return with_template_taints(ms, taints), f"add taint {Taint.from_doc(taint)} to the template"


def remove_template_taint(ms: Mapping[str, Any], index: int) -> tuple[dict, str]:
    taints = template_taints(ms)
    if not 0 <= index < len(taints):
        raise TemplateError("that taint is no longer in the template")
    removed = taints.pop(index)
    return with_template_taints(ms, taints), f"remove taint {Taint.from_doc(removed)} from the template"


def template_instance_type(ms: Mapping[str, Any]) -> str:
    """The instance type the set's new machines get (their nodes' capacity)."""
    return M.instance_type_of(machine_from_template(ms, M.name_of(ms), 0))


def taint_texts(taints) -> list[str]:
    """Each taint as Taint.ToString prints it (key=value:Effect)."""
    return [str(Taint.from_doc(t)) for t in taints or ()]


def existing_machines(store: Store, ms: Mapping[str, Any]) -> list[dict]:
    """The set's machines and their nodes as a template edit leaves them: {name, phase,
    node, node_exists, taints (the node's), missing (the template's taints the node has not)}."""
    wanted = taint_texts(template_taints(ms))
    rows = []
    for m in owned_machines(store, ms):
        node = store.get("Node", "", M.node_name_of(m)) if M.node_name_of(m) else None
        taints = taint_texts(((node or {}).get("spec") or {}).get("taints"))
        rows.append({"name": M.name_of(m), "phase": M.phase_of(m), "node": M.node_name_of(m), "node_exists": node is not None,
                     "taints": taints, "missing": [t for t in wanted if node is not None and t not in taints]})
    return rows


def template_taint_errors(ms: Mapping[str, Any]) -> list[str]:
    """What the Node API would refuse in the template's taints (they become the new nodes'):
    Kubernetes' taint validation at spec.template.spec.taints."""
    taints = template_spec(ms).get("taints")
    if taints is None:
        return []
    if not isinstance(taints, list):
        return ["spec.template.spec.taints: Invalid value: must be a list of taints"]
    return [str(e) for e in validate_taints(taints, "spec.template.spec.taints")]


# --- scale to 0 and back ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Displaced:
    """A pod of a node that goes away, and what the drain does with it."""

    doc: dict  # the pod as it is now
    node: str
    fate: str  # RECREATED, DELETED, WITH_NODE, FINISHED
    owner: str = ""  # its controller, "ReplicaSet/web-5d9c7" ("" for none)

    @property
    def key(self) -> str:
        return f"{meta(self.doc).get('namespace') or 'default'}/{meta(self.doc).get('name') or ''}"

    def pending_copy(self) -> dict:
        """The pod as its controller creates it again: the same spec, no node, Pending."""
        out = copy.deepcopy(self.doc)
        m = out.setdefault("metadata", {})
        for k in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "uid"):
            m.pop(k, None)
        out.setdefault("spec", {}).pop("nodeName", None)
        out["status"] = {"phase": "Pending"}
        return out


@dataclass(frozen=True)
class DaemonSetOnNewNodes:
    daemon_set: str  # "<namespace>/<name>"
    nodes: int  # how many of the new nodes it puts a pod on
    untolerated: tuple[str, ...] = ()  # the new nodes' taints its pods do not tolerate (when on none)


@dataclass(frozen=True)
class Rollout:
    machineset: str  # "<namespace>/<name>"
    replicas: int  # scaled back to
    machines: tuple[str, ...]  # the machines scaling to 0 deletes
    old_nodes: tuple[str, ...]  # their nodes (drained, then deleted)
    new_nodes: tuple[dict, ...]  # the Nodes the new machines register
    displaced: tuple[Displaced, ...]
    daemon_pods: tuple[dict, ...]  # the pods the DaemonSets put on the new nodes (bound)
    daemon_sets: tuple[DaemonSetOnNewNodes, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def new_node_names(self) -> tuple[str, ...]:
        return tuple(meta(n).get("name") or "" for n in self.new_nodes)

    @property
    def recreated(self) -> list[dict]:
        """The pods the controllers create again, as the scheduler would take them: higher
        priority first, then in the order the drains evicted them."""
        pods = [d for d in self.displaced if d.fate == RECREATED]
        ordered = sorted(enumerate(pods), key=lambda ip: (-int((ip[1].doc.get("spec") or {}).get("priority") or 0), ip[0]))
        return [d.pending_copy() for _, d in ordered]

    @property
    def gone(self) -> set[tuple[str, str, str]]:
        """(kind, namespace, name) of every object the scale-down removes."""
        out = {("Node", "", n) for n in self.old_nodes}
        out |= {("Pod", meta(d.doc).get("namespace") or "default", meta(d.doc).get("name") or "") for d in self.displaced}
        return out


def _owner(pod: Mapping[str, Any]) -> str:
    ref = controller_ref(pod)
    return f"{ref.get('kind')}/{ref.get('name')}" if ref else ""


def _fate(store: Store, pod: Mapping[str, Any], evicted: set[str]) -> str:
    key = f"{meta(pod).get('namespace') or 'default'}/{meta(pod).get('name') or ''}"
    ref = controller_ref(pod)
    if key not in evicted:
        return WITH_NODE  # a DaemonSet pod (or a mirror pod): the drain leaves it
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return FINISHED
    if ref is None:
        return DELETED
    if is_terminating(pod):
        return FINISHED  # already on its way out: its controller has made its replacement
    return RECREATED


def _hook_notes(machines: Sequence[Mapping[str, Any]]) -> list[str]:
    notes = []
    for m in machines:
        for point, what in ((M.PRE_DRAIN, "its node is drained"), (M.PRE_TERMINATE, "its instance is deleted")):
            hooks = M.hooks_of(m, point)
            if hooks:
                names = ", ".join(f"{h.get('name')} (owner {h.get('owner')})" for h in hooks)
                notes.append(f"machine {M.name_of(m)} has {point} hooks: {what} only once their owners remove them: {names}")
    return notes


def _pdb_notes(store: Store, displaced: Sequence[Displaced], now: float) -> list[str]:
    evicted = {d.key for d in displaced if d.fate in (RECREATED, DELETED)}
    notes = []
    for pdb in store.list("PodDisruptionBudget"):
        covered = [p for p in pdb_pods(store, pdb) if f"{meta(p).get('namespace') or 'default'}/{meta(p).get('name')}" in evicted]
        if not covered:
            continue
        allowed = int(pdb_status(store, pdb, now).get("disruptionsAllowed") or 0)
        if allowed < len(covered):
            ns, name = meta(pdb).get("namespace") or "default", meta(pdb).get("name")
            notes.append(
                f"PodDisruptionBudget {ns}/{name} allows {allowed} disruption(s) and the drains evict {len(covered)} of its pods: "
                "the others are evicted only as their replacements run (the drain retries every 5 s); a replacement that "
                "cannot be placed keeps its old machine in Deleting (Drained=False) with the pod still running there")
    return notes


def _daemon_sets(store: Store, new_nodes: Sequence[dict]) -> tuple[list[dict], list[DaemonSetOnNewNodes]]:
    pods: list[dict] = []
    summary: list[DaemonSetOnNewNodes] = []
    for ds in sorted(store.list("DaemonSet"), key=lambda d: (meta(d).get("namespace") or "default", meta(d).get("name") or "")):
        key = f"{meta(ds).get('namespace') or 'default'}/{meta(ds).get('name')}"
        count = 0
        untolerated: dict[str, None] = {}
        for node in new_nodes:
            _, schedule, _ = node_should_run_daemon_pod(ds, node, [])
            node_name = meta(node).get("name") or ""
            if schedule:
                count += 1
                pod = daemon_pod_doc(ds, node_name)
                pod["metadata"]["name"] = f"{meta(ds).get('name')}-{node_name}"
                pod["status"] = {"phase": "Running"}
                pods.append(pod)
            else:
                tolerations = Pod.from_doc(daemon_pod_doc(ds, node_name)).tolerations
                for taint in (Taint.from_doc(t) for t in (node.get("spec") or {}).get("taints") or ()):
                    if taint.effect in ("NoSchedule", "NoExecute") and not any(x.tolerates(taint) for x in tolerations):
                        untolerated[str(taint)] = None
        summary.append(DaemonSetOnNewNodes(key, count, tuple(untolerated) if not count else ()))
    return pods, summary


def scale_to_zero_and_back(store: Store, machineset: Mapping[str, Any], replicas: int, now: float) -> Rollout:
    """What `oc scale --replicas=0` then `--replicas=<replicas>` of `machineset` (its edited
    document: the template the new machines are made from) would do to the cluster in
    `store` (read only)."""
    machines = [m for m in owned_machines(store, machineset) if not M.is_deleting(m)]
    old_nodes = [M.node_name_of(m) for m in machines if M.node_name_of(m) and store.get("Node", "", M.node_name_of(m)) is not None]
    displaced: list[Displaced] = []
    notes = _hook_notes(machines)
    for node in old_nodes:
        plan = drain.plan(store, node, drain_options(store.get("Node", "", node)))
        notes += [f"the drain of {node} cannot start: {e}" for e in plan.errors]
        evicted = {f"{p.namespace}/{p.name}" for p in plan.pods}
        on_node = sorted((p for p in store.list("Pod") if (p.get("spec") or {}).get("nodeName") == node),
                         key=lambda p: (meta(p).get("namespace") or "default", meta(p).get("name") or ""))
        displaced += [Displaced(p, node, _fate(store, p, evicted), _owner(p)) for p in on_node]
    notes += _pdb_notes(store, displaced, now)

    taken = {meta(n).get("name") for n in store.list("Node")}
    new_nodes = []
    for i in range(1, replicas + 1):
        name = f"{M.name_of(machineset)}-new-{i}"
        while name in taken:
            name += "x"
        taken.add(name)
        machine = machine_from_template(machineset, name, now)
        new_nodes.append(node_document(machine, name, f"192.0.2.{i}", f"i-new{i}", now))
    template_hooks = (template_spec(machineset).get("lifecycleHooks") or {})
    if any(template_hooks.get(p) for p in M.HOOK_POINTS):
        notes.append("the new machines carry the template's lifecycle hooks: their owners hold each machine's deletion in turn")
    daemon_pods, daemon_sets = _daemon_sets(store, new_nodes)
    return Rollout(M.key_of(machineset), replicas, tuple(M.name_of(m) for m in machines), tuple(old_nodes),
                   tuple(new_nodes), tuple(displaced), tuple(daemon_pods), tuple(daemon_sets), tuple(notes))
