"""The what-if previews of the Machine API pages, each the engine's one loop run on a copy
of the cluster: nothing here writes, and nothing here predicts beside the loop.

* `preview_scale`: `oc scale --replicas=N machineset X` applied at the clock, the loop run
  until nothing more happens: the machines created or deleted, the nodes that go or join,
  the pods evicted, where their replacements and the pending pods start;
* `preview_machine_delete`: the machine's deletion, its lifecycle hooks, drain and
  PDB-refused evictions as the machine controller runs them;
* `preview_template`: a template edit (the documented way to taint through a MachineSet) applied, then the set scaled to 0
  until its machines are gone and back, on the same copy: the new nodes (with the edited
  template's labels and taints) join and the pods start where the scheduler puts them, or
  stay Pending with the scheduler's FailedScheduling message and, for the new nodes' taints
  they do not tolerate, the toleration that would (`explain.taint_fixes` on the nodes the
  loop ended with).

The summaries (`Step`) are read from the loop's events and from the objects at the end
(`summarise`); the update pages use them too (updates.services.preview_update).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.pages import explain, forms, previews
from scheduling.store import kube, oc_cli, reconcile
from scheduling.engine import actions as A
from scheduling.engine.api.objects import Pod
from scheduling.engine.controllers.scheduling import build_state
from scheduling.engine.oc import commands
from scheduling.engine.preview import MAX_SECONDS, PreviewResult, run_preview
from scheduling.engine.store import is_terminating
from scheduling.models import Cluster

from scheduling.engine.openshift import machine_api as M
from scheduling.engine.openshift import template_rollout as R

MAX_EXPLAINED = 40  # pods left Pending given the tolerations that would let them on the new nodes
EditError = previews.EditError


# --- the edits of the template --------------------------------------------------------------------------


def _taint_add(doc: Mapping, data) -> tuple[dict, str]:
    form = forms.TaintForm(data)
    if not form.is_valid():
        raise EditError("; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    d = form.cleaned_data
    return R.add_template_taint(doc, d["key"].strip(), (d["value"] or "").strip(), d["effect"])


def _taint_remove(doc: Mapping, data) -> tuple[dict, str]:
    form = forms.IndexForm(data)
    if not form.is_valid():
        raise EditError("choose a taint of the template")
    try:
        return R.remove_template_taint(doc, form.cleaned_data["index"])
    except R.TemplateError as exc:
        raise EditError(str(exc)) from None


def _yaml(doc: Mapping, data) -> tuple[dict, str]:
    """`oc edit machineset`: the whole document, through the editor's YAML edit (EDITS)."""
    edited = previews.edit(dict(doc), "yaml", data)
    return edited.doc, "edit the MachineSet (oc edit)"


TEMPLATE_EDITS = {
    "template-taint-add": _taint_add,
    "template-taint-remove": _taint_remove,
    "yaml": _yaml,
}


def edit_template(doc: Mapping, op: str, data) -> tuple[dict, str]:
    """(the edited, checked MachineSet, a one-line summary); EditError or kube.DocumentError
    when the edit cannot be made."""
    make = TEMPLATE_EDITS.get(op)
    if make is None:
        raise EditError(f"unknown edit {op!r}")
    edited, summary = make(doc, data)
    errors = R.template_taint_errors(edited)
    if errors:
        raise EditError("The new nodes could not have these taints:\n" + "\n".join(errors))
    checked = previews.check(edited)
    # the status is the controller's (a status subresource): an edit of the object leaves it
    if "status" in doc:
        checked["status"] = doc["status"]
    else:
        checked.pop("status", None)
    return checked, summary


def previewed_document(text: str, namespace: str, name: str) -> dict:
    """The MachineSet an Apply form carries (JSON, as the preview rendered it), checked
    again: the same object, taints the nodes could have, the API server's rules."""
    doc = kube.parse_value(text, "", "the previewed document")
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    if not isinstance(meta, dict) or (doc.get("kind"), meta.get("namespace"), meta.get("name")) != ("MachineSet", namespace, name):
        raise EditError(f"the previewed document is not machineset {namespace}/{name}; preview the change again")
    errors = R.template_taint_errors(doc)
    if errors:
        raise EditError("\n".join(errors))
    return previews.check(doc)


def scale_back_to(data, doc: Mapping[str, Any]) -> int:
    """How many machines the preview scales the set back to: the form's number, else the
    edited set's spec.replicas."""
    try:
        value = int(data.get("replicas", ""))
    except (TypeError, ValueError):
        value = int((doc.get("spec") or {}).get("replicas", 1) or 0)
    return max(0, min(value, MAX_REPLICAS))


MAX_REPLICAS = 50


def _replicas(ms: Mapping[str, Any]) -> int:
    value = (ms.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


# --- what the loop does: a change applied on a copy, the controllers run on -----------------------------
#
# Every preview below is scheduling.engine.preview.run_preview: the cluster's loop run up to its
# clock (reconcile.loop_at_clock, nothing written), the change applied at the clock as the write
# would be (oc's actions checked as the API server checks them: oc_cli.checked_actions), and the
# same controllers run on until nothing more happens. What the page says is read from the loop's
# events and from the objects at the end; nothing here predicts anything beside the loop.

PreviewRefused = previews.PreviewRefused
TAINT_MANAGER = "taint-manager"  # engine.controllers.taint_manager.NAME: pod -> when it deletes it
GONE_REASONS = ("Evicted", "Killing", "TaintManagerEviction", "Preempted", "Deleted")
MAX_EVENTS = 300  # events listed in a preview's timeline (the rest counted)


def _key(doc: Mapping[str, Any]) -> str:
    m = doc.get("metadata") or {}
    return f"{m.get('namespace') or ''}/{m.get('name') or ''}"


def _owner(doc: Mapping[str, Any]) -> str:
    refs = (doc.get("metadata") or {}).get("ownerReferences") or []
    return f"{refs[0].get('kind')} {refs[0].get('name')}" if refs else ""


@dataclass(frozen=True)
class Objects:
    """What the page compares before and after a step: pods, machines and nodes."""

    pods: dict[str, dict]  # "<ns>/<name>" -> {"node", "phase", "terminating", "owner", "doc"}
    machines: dict[str, dict]  # "<ns>/<name>" -> {"name", "phase", "node"}
    nodes: tuple[str, ...]

    @classmethod
    def of(cls, sim) -> "Objects":
        store = sim.store
        pods = {}
        for doc in store.list("Pod"):
            key = _key(doc)
            pods[key] = {"node": (doc.get("spec") or {}).get("nodeName") or None, "phase": sim.phase(key),
                         "terminating": is_terminating(doc), "owner": _owner(doc), "doc": doc}
        machines = {_key(d): {"name": M.name_of(d), "phase": M.phase_of(d), "node": M.node_name_of(d)}
                    for d in store.list("Machine")}
        return cls(pods, machines, tuple(sorted(M.name_of(n) for n in store.list("Node"))))


def _running(p: Mapping[str, Any]) -> bool:
    return bool(p["node"]) and not p["terminating"] and p["phase"] not in ("Succeeded", "Failed")


@dataclass
class Step:
    """One change and what the loop did after it, for people."""

    title: str  # the command, as the user would type it
    at: float
    until: float
    events: list[dict]
    machines: list[dict] = field(default_factory=list)  # name, before, after ("" = gone), node, created, deleted_at
    nodes_gone: list[str] = field(default_factory=list)
    nodes_new: list[str] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)  # pods that ran and were evicted or deleted: pod, node, owner, time, reason
    started: list[dict] = field(default_factory=list)  # pods that start running: pod, node, owner, time, new_node, evict_at
    pending: list[dict] = field(default_factory=list)  # pods without a node at the end: pod, owner, message, fixes
    warnings: list[dict] = field(default_factory=list)  # Warning events by (reason, object): count, first, message
    open: bool = False  # the loop still had things to do when the preview stopped looking
    pods: list[dict] = field(default_factory=list)  # every pod at the end, as engine.preview lists them

    @property
    def seconds(self) -> float:
        return self.until - self.at

    @property
    def nothing_happens(self) -> bool:
        return not (self.machines or self.nodes_gone or self.nodes_new or self.gone or self.started or self.warnings)

    @property
    def timeline(self) -> list[dict]:
        return self.events[:MAX_EVENTS]

    @property
    def more_events(self) -> int:
        return max(0, len(self.events) - MAX_EVENTS)


def summarise(title: str, before: Objects, result: PreviewResult, *, explain_pending: bool = True) -> Step:
    """A step of the loop told from its events and its objects at the end."""
    after = Objects.of(result.sim)
    events = [{**e, "after": e["time"] - result.at} for e in result.events]
    first: dict[tuple[str, str], dict] = {}
    last_failed: dict[str, str] = {}
    for e in events:
        first.setdefault((e["object"], e["reason"]), e)
        if e["reason"] == "FailedScheduling" and e["object"].startswith("Pod/"):
            last_failed[e["object"][4:]] = e["message"]
    step = Step(title, result.at, result.until, events, pods=result.pods)

    for key in dict.fromkeys([*before.machines, *after.machines]):
        old, new = before.machines.get(key), after.machines.get(key)
        if old == new:
            continue
        deleted = first.get((f"Machine/{key}", "Deleted")) if new is None else None
        step.machines.append({"name": (new or old)["name"], "before": (old or {}).get("phase") or "",
                              "after": (new or {}).get("phase") or "", "gone": new is None, "created": old is None,
                              "node": (new or {}).get("node") or (old or {}).get("node") or "",
                              "deleted_at": deleted["after"] if deleted else None})
    step.nodes_gone = [n for n in before.nodes if n not in after.nodes]
    step.nodes_new = [n for n in after.nodes if n not in before.nodes]
    new_nodes = set(step.nodes_new)
    timers = (result.sim.store.controller_state.get(TAINT_MANAGER) or {})

    for key, p in before.pods.items():
        now = after.pods.get(key)
        if _running(p) and (now is None or now["terminating"]):
            e = next((first[(f"Pod/{key}", r)] for r in GONE_REASONS if (f"Pod/{key}", r) in first), None)
            step.gone.append({"pod": key, "node": p["node"], "owner": p["owner"], "time": e["after"] if e else None,
                              "reason": e["reason"] if e else "deleted", "message": e["message"] if e else ""})
    for key, p in after.pods.items():
        old = before.pods.get(key)
        if _running(p) and (old is None or not old["node"]):
            scheduled = first.get((f"Pod/{key}", "Scheduled"))
            evict_at = timers.get(key)
            step.started.append({"pod": key, "node": p["node"], "owner": p["owner"], "was_pending": old is not None,
                                 "time": scheduled["after"] if scheduled else None, "new_node": p["node"] in new_nodes,
                                 "evict_at": (float(evict_at) - result.at) if isinstance(evict_at, (int, float)) else None})
        elif not p["node"] and not p["terminating"] and p["phase"] == "Pending":
            step.pending.append({"pod": key, "owner": p["owner"], "message": last_failed.get(key, ""), "fixes": (),
                                 "namespace": key.partition("/")[0], "name": key.partition("/")[2], "doc": p["doc"]})
    if explain_pending and step.pending and new_nodes:
        state = build_state(result.sim.store.list("Node"))
        for row in step.pending[:MAX_EXPLAINED]:
            row["fixes"] = tuple(explain.taint_fixes(state, Pod.from_doc(row["doc"]), sorted(new_nodes)))

    warnings: dict[tuple[str, str], dict] = {}
    for e in events:
        if e["type"] == "Warning":
            w = warnings.setdefault((e["reason"], e["object"]), {"reason": e["reason"], "object": e["object"], "count": 0,
                                                                 "first": e["after"]})
            w["count"] += 1
            w["message"] = e["message"]
    step.warnings = list(warnings.values())
    return step


def oc_actions(cluster: Cluster, store, argv: list[str]) -> list:
    """`oc ARGS` run on the loop's store at the clock, its writes as the API server takes them."""
    result = commands.run(store, argv, cluster.now)
    if result.exit_code != 0:
        raise PreviewRefused(result.stderr.rstrip("\n") or f"exit status {result.exit_code}")
    try:
        return oc_cli.checked_actions(cluster, store, result.actions)
    except oc_cli.WriteError as exc:
        raise PreviewRefused(str(exc)) from exc


def run_step(cluster: Cluster, sim, title: str, make_actions, for_seconds: float | None = None) -> Step:
    """`make_actions(store)` applied to the loop `sim` at its clock, and the loop run on
    (None: until nothing more happens); the step summarised."""
    before = Objects.of(sim)
    result = run_preview(sim, make_actions(sim.store), for_seconds)
    step = summarise(title, before, result)
    step.open = for_seconds is not None or result.until >= result.at + MAX_SECONDS - 1e-6
    return step


def scale_command(namespace: str, name: str, replicas: int) -> list[str]:
    return ["oc", "scale", f"--replicas={replicas}", "machineset", name, "-n", namespace]


def preview_scale(cluster: Cluster, namespace: str, name: str, replicas: int) -> Step:
    """`oc scale --replicas=N machineset X`: which machines are created or deleted, which nodes
    go and join, which pods are evicted and where they and the pending pods start."""
    argv = scale_command(namespace, name, replicas)
    sim = reconcile.loop_at_clock(cluster)
    return run_step(cluster, sim, shlex.join(argv), lambda store: oc_actions(cluster, store, argv))


def preview_machine_delete(cluster: Cluster, namespace: str, name: str) -> Step:
    """`oc delete machine X`: the deletion the page writes (with finalizers the machine is only
    marked), then the machine controller's hooks, drain and PDB-refused evictions as the loop
    runs them."""
    sim = reconcile.loop_at_clock(cluster)
    if sim.store.get("Machine", namespace, name) is None:
        raise PreviewRefused(f'Error from server (NotFound): machines.machine.openshift.io "{name}" not found')

    def actions(store) -> list:
        return oc_cli.checked_actions(cluster, store, M.request_deletion(store, namespace, name, cluster.now))

    return run_step(cluster, sim, shlex.join(["oc", "delete", "machine", name, "-n", namespace]), actions)


# --- the page's preview of a template edit ----------------------------------------------------------------


@dataclass
class TemplatePreview:
    doc: dict  # the edited MachineSet (what apply writes)
    summary: str
    diff: str
    resource_version: int
    applied: Step  # the edit applied, the loop run on: existing nodes do not change
    existing: list[dict]  # the set's machines and nodes as they stay (template_rollout.existing_machines)
    down: Step  # then scaled to 0, until the machines are gone
    up: Step  # then scaled back, until the new nodes joined and the pods started
    replicas_before: int = 1  # spec.replicas stored and edited: an `oc edit` may scale the set too
    replicas_after: int = 1
    replicas: int = 1  # what the preview scales back to

    @property
    def template_taints(self) -> list[str]:
        return R.taint_texts(R.template_taints(self.doc))

    @property
    def scales(self) -> bool:
        return self.replicas_before != self.replicas_after

    @property
    def steps(self) -> list[Step]:
        return [self.down, self.up]


def preview_template(cluster: Cluster, obj, op: str, data) -> TemplatePreview:
    """The preview of the template edit `op` of the stored MachineSet `obj` on one copy of the
    loop: the edit applied (nothing happens to existing nodes), the set scaled to 0 until
    its machines are gone, then back until nothing more happens. Raises EditError or
    kube.DocumentError (PreviewRefused, an EditError, when the API server would refuse)."""
    edited, summary = edit_template(obj.document, op, data)
    namespace, name = M.ns_of(edited), M.name_of(edited)
    replicas = scale_back_to(data, edited)
    sim = reconcile.loop_at_clock(cluster)
    existing = R.existing_machines(sim.store, edited)  # the edit changes no machine or node
    applied = run_step(cluster, sim, f"oc apply -f machineset-{name}.yaml",
                       lambda store: oc_cli.checked_actions(cluster, store, [A.ReplaceObject(edited)]))
    down_argv, up_argv = scale_command(namespace, name, 0), scale_command(namespace, name, replicas)
    down = run_step(cluster, sim, shlex.join(down_argv), lambda store: oc_actions(cluster, store, down_argv))
    up = run_step(cluster, sim, shlex.join(up_argv), lambda store: oc_actions(cluster, store, up_argv))
    return TemplatePreview(edited, summary, previews.diff(obj.document, edited), obj.resource_version, applied, existing,
                           down, up, _replicas(obj.document), _replicas(edited), replicas)
