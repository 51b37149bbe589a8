"""The what-if preview of a MachineSet template edit (seed 000 §7.7.3), computed by the
engines on copies: nothing here writes.

Applying the edit changes no existing machine or node: `previews.preview_documents` (the
what-if path every edit of the dashboard takes) shows it, computed like any other edit.
The seed then scales the set to 0 and back; `rollout_preview` says where each pod would go
on the way, with the scheduling what-if engine (`whatif.preview`, the pods a controller
creates again placed in turn) run twice:

1. scaled to 0: the set's nodes and their pods gone (updates.engine.template_rollout
   says which pods the drains evict, delete or leave), the evicted pods created again by
   their controllers and placed on the nodes that remain, or left Pending;
2. scaled back up: the new machines' nodes (with the edited template's labels and taints)
   and their DaemonSet pods join; the pods still Pending are placed again.

A pod that stays Pending is explained as the explainer explains it (`explain.explain_pod`
on the cluster as it would then be: the FailedScheduling message) with, for the new nodes'
taints it does not tolerate, the toleration that would (`explain.taint_fixes`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scheduling import explain, forms, kube, previews, whatif
from scheduling.engine.api.objects import Node, Pod
from scheduling.engine.controllers.scheduling import build_state
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.policy import Policy
from scheduling.engine.store import Store
from scheduling.models import Cluster
from scheduling.state import cluster_documents, cluster_state, eviction_timers

from .engine import machine_api as M
from .engine import template_rollout as R

EditError = whatif.EditError
MAX_EXPLAINED = 40  # kinds of pods left Pending explained (the others keep the placement check's message)


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


# --- where the pods would go ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PodOutcome:
    """One pod of the set's nodes through the scale-down and the scale-up."""

    pod: str  # "<namespace>/<name>"
    node: str  # where it runs now
    fate: str  # template_rollout: RECREATED, DELETED, WITH_NODE, FINISHED
    owner: str = ""
    during: str | None = None  # the node it lands on while the set is at 0 (None: Pending)
    during_message: str = ""
    after: str | None = None  # where it is once the new nodes joined (None: still Pending)
    on_new_node: bool = False
    message: str = ""  # the FailedScheduling message when it stays Pending
    fixes: tuple[explain.TaintFix, ...] = ()  # the new nodes' taints it does not tolerate, with the toleration
    eviction: whatif.Eviction | None = None  # the taint manager evicts it later (tolerationSeconds)

    @property
    def namespace(self) -> str:
        return self.pod.partition("/")[0]

    @property
    def name(self) -> str:
        return self.pod.partition("/")[2]

    @property
    def pending(self) -> bool:
        return self.fate == R.RECREATED and self.after is None


@dataclass
class RolloutPreview:
    rollout: R.Rollout
    pods: list[PodOutcome] = field(default_factory=list)
    started: list[whatif.Placement] = field(default_factory=list)  # pending pods that start once the new nodes join
    stranded: list[whatif.Placement] = field(default_factory=list)  # pending pods the scale-down leaves with no node
    truncated: bool = False

    @property
    def new_nodes(self) -> tuple[str, ...]:
        return self.rollout.new_node_names

    @property
    def pending(self) -> list[PodOutcome]:
        return [p for p in self.pods if p.pending]


def _key(doc: Mapping[str, Any]) -> str:
    m = doc.get("metadata") or {}
    return f"{m.get('namespace') or 'default'}/{m.get('name') or ''}"


def _signature(doc: Mapping[str, Any]) -> str:
    """What the scheduler sees of a pod apart from its name: its namespace, owner, labels and spec."""
    m = doc.get("metadata") or {}
    return json.dumps([m.get("namespace"), m.get("ownerReferences"), m.get("labels"), doc.get("spec")], sort_keys=True, default=str)


def _with(state: ClusterState, *, nodes: Sequence[Node] = (), pods: Sequence[Pod] = ()) -> ClusterState:
    out = whatif.copy_state(state)
    out.nodes.extend(nodes)
    out.pods.extend(pods)
    return out


def _placed(result: whatif.Preview, keys: set[str]) -> dict[str, str]:
    return {p.pod: p.after for p in result.scheduled if p.after and p.pod in keys}


def _evictions(result: whatif.Preview, keys: set[str]) -> dict[str, whatif.Eviction]:
    return {e.pod: e for e in [*result.evicted_now, *result.evicted_later] if e.pod in keys}


def rollout_preview(docs: Sequence[Mapping[str, Any]], rollout: R.Rollout, policy: Policy, *, now: float, seed: int = 0,
                    preemption: bool = True, timers: Mapping[str, float] | None = None,
                    before: ClusterState | None = None) -> RolloutPreview:
    """Where the pods of `rollout` (template_rollout.scale_to_zero_and_back over `docs`)
    would go, computed by the scheduling what-if engine: no database, nothing written.
    `before`: the engine's state of `docs` when the caller has it already."""
    before = before if before is not None else build_state(docs)
    gone_nodes, gone_pods = set(rollout.old_nodes), {d.key for d in rollout.displaced}
    down_state = whatif.copy_state(before)
    down_state.nodes = [n for n in down_state.nodes if n.name not in gone_nodes]
    down_state.pods = [p for p in down_state.pods if p.key not in gone_pods]
    recreated = [Pod.from_doc(d) for d in rollout.recreated]
    keys = {p.key for p in recreated}

    # 1. scaled to 0: the evicted pods created again, placed on the nodes that remain
    down = whatif.preview(before, down_state, policy, now=now, seed=seed, preemption=preemption, recreated=recreated,
                          timers=timers)
    placed_down = _placed(down, keys)
    unplaced_down = {p.pod: p.message or "" for p in down.unplaceable if p.pod in keys}
    # 2. scaled back up: the new nodes and their DaemonSet pods join; the pods still Pending are placed again
    bound = [dataclasses.replace(p, node_name=placed_down[p.key], phase="Running") for p in recreated if p.key in placed_down]
    still = [p for p in recreated if p.key not in placed_down]
    up_state = _with(down_state, nodes=[Node.from_doc(n) for n in rollout.new_nodes],
                     pods=[*bound, *(Pod.from_doc(d) for d in rollout.daemon_pods)])
    up = whatif.preview(before, up_state, policy, now=now, seed=seed, preemption=preemption, recreated=still, timers=timers)
    placed_up = _placed(up, keys)
    unplaced_up = {p.pod: p.message or "" for p in up.unplaceable if p.pod in keys}
    evictions = {**_evictions(down, set(placed_down)), **_evictions(up, set(placed_up))}

    # the pods left Pending, explained on the cluster as it would then be
    final = _with(up_state, pods=[dataclasses.replace(p, node_name=placed_up[p.key], phase="Running") if p.key in placed_up else p
                                  for p in still])
    new_nodes = rollout.new_node_names
    explained: dict[str, tuple[str, tuple[explain.TaintFix, ...]]] = {}
    # pods of one controller with the same labels and spec get the same answer on the same
    # cluster: one explanation each
    by_spec: dict[str, tuple[str, tuple[explain.TaintFix, ...]]] = {}
    signatures = {_key(d): _signature(d) for d in rollout.recreated}
    truncated = down.truncated or up.truncated
    for pod in still:
        if pod.key in placed_up:
            continue
        signature = signatures[pod.key]
        if signature not in by_spec:
            if len(by_spec) >= MAX_EXPLAINED:
                truncated = True
                continue
            explanation = explain.explain_pod(final, policy, pod.key, seed=seed, preemption=False)
            by_spec[signature] = (explanation.message or "", tuple(explain.taint_fixes(final, explanation.pod, new_nodes)))
        explained[pod.key] = by_spec[signature]

    result = RolloutPreview(rollout, truncated=truncated)
    new = set(new_nodes)
    for d in rollout.displaced:
        key = d.key
        outcome = PodOutcome(key, d.node, d.fate, d.owner)
        if d.fate == R.RECREATED:
            during = placed_down.get(key)
            after = during or placed_up.get(key)
            message, fixes = explained.get(key, (unplaced_up.get(key, ""), ()))
            outcome = dataclasses.replace(
                outcome, during=during, during_message="" if during else unplaced_down.get(key, ""), after=after,
                on_new_node=after in new, message="" if after else message, fixes=() if after else fixes,
                eviction=evictions.get(key))
        result.pods.append(outcome)
    result.started = [p for p in up.scheduled if p.pod not in keys]
    result.stranded = [p for p in down.unscheduled if p.pod not in keys]
    return result


# --- the page's preview ---------------------------------------------------------------------------------


@dataclass
class TemplatePreview:
    doc: dict  # the edited MachineSet (what apply writes)
    summary: str
    diff: str
    resource_version: int
    applied: whatif.Preview  # what applying the edit does by itself (nothing, to existing nodes)
    existing: list[dict]  # the set's machines and nodes as they stay (template_rollout.existing_machines)
    rollout: RolloutPreview
    replicas_before: int = 1  # spec.replicas stored and edited: an `oc edit` may scale the set too
    replicas_after: int = 1

    @property
    def template_taints(self) -> list[str]:
        return R.taint_texts(R.template_taints(self.doc))

    @property
    def scales(self) -> bool:
        return self.replicas_before != self.replicas_after


def scale_back_to(data, doc: Mapping[str, Any]) -> int:
    """How many machines the preview scales the set back to: the form's number, else the
    edited set's spec.replicas."""
    try:
        value = int(data.get("replicas", ""))
    except (TypeError, ValueError):
        value = int((doc.get("spec") or {}).get("replicas", 1) or 0)
    return max(0, min(value, MAX_REPLICAS))


MAX_REPLICAS = 50


def preview_template(cluster: Cluster, obj, op: str, data) -> TemplatePreview:
    """The preview of the template edit `op` of the stored MachineSet `obj`: what applying
    it does (nothing to existing nodes), then where every pod of the set's nodes would go
    after scaling it to 0 and back. Raises EditError or kube.DocumentError."""
    edited, summary = edit_template(obj.document, op, data)
    applied = previews.preview_documents(cluster, [(obj, edited)])
    docs = cluster_documents(cluster)
    store = Store(docs)
    rollout = R.scale_to_zero_and_back(store, edited, scale_back_to(data, edited), cluster.now)
    placement = rollout_preview(docs, rollout, explain.cluster_policy(cluster), now=cluster.now, seed=cluster.seed,
                                preemption=cluster.preemption_enabled, timers=eviction_timers(cluster),
                                before=cluster_state(cluster))
    return TemplatePreview(edited, summary, previews.diff(obj.document, edited), obj.resource_version, applied,
                           R.existing_machines(store, edited), placement, _replicas(obj.document), _replicas(edited))


def _replicas(ms: Mapping[str, Any]) -> int:
    value = (ms.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)
