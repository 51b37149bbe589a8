"""The what-if work of the pages: edits of one object previewed on copies, and scheduler
policies compared, computed by the engine without writing anything.

`EDITS` is the literal table of the edits the editor offers: op -> the form that reads it,
the function that makes it on the document, and the verb `oc` prints once it is applied
("node/node2 labeled"). Taint edits take one path, `oc adm taint` (engine.oc), so the
editor's taint buttons and its `oc adm taint` field behave and fail alike. A view parses
the request, calls `preview_edit` or `compare_policies`, and renders the result.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import random
import shlex
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from django import forms as django_forms

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.oc import commands
from scheduling.engine.preview import MAX_SECONDS, PreviewResult, run_preview
from scheduling.engine.api.objects import Taint, Toleration
from scheduling.engine.framework import config as framework_config
from scheduling.engine.framework import runtime as framework_runtime
from scheduling.engine.scheduler.policy import PolicyError, load_policy
from scheduling.engine.scheduler.sample_policies import SAMPLE_POLICIES
from scheduling.engine.scheduler.scheduler import TOTAL, last_results, run_queue
from scheduling.engine.store import Store

from scheduling.pages import explain, forms, whatif
from scheduling.store import kube, oc_cli, reconcile, services
from scheduling.models import Cluster, Node
from scheduling.store.state import cluster_state, cluster_versions

EditError = whatif.EditError


def editable(doc: Mapping) -> dict:
    """The document as the editor shows it: without the fields the store manages."""
    doc = dict(doc)
    doc["metadata"] = {k: v for k, v in doc["metadata"].items() if k not in ("resourceVersion", "uid")}
    return doc


# --- the edits ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edited:
    doc: dict
    summary: str  # one line: what the edit does
    verb: str = ""  # what oc printed, when the edit ran through oc
    # `oc adm taint nodes` naming other nodes, --all or -l: every changed node, as
    # (edited document, verb oc printed for it); empty when only `doc` changes
    changed: tuple[tuple[dict, str], ...] = ()
    notes: tuple[str, ...] = ()  # what oc printed on stderr for nodes it could not change


def oc_taint(doc: Mapping, args: list[str], overwrite: bool, now: float = 0.0) -> Edited:
    """`oc adm taint nodes <node> <args>` on a copy of the node document (engine.oc, with
    oc's messages as EditError)."""
    doc = whatif.edited(doc)
    command = ["oc", "adm", "taint", "nodes", doc["metadata"]["name"], *args] + (["--overwrite"] if overwrite else [])
    return oc_taint_command(Store([doc]), command, now)


def taint_add(doc: Mapping, key: str, value: str, effect: str, now: float = 0.0) -> Edited:
    """Add a taint, or set the value of the one with the same key and effect (then with
    --overwrite, and oc says "modified")."""
    spec = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
    taints = (doc.get("spec") or {}).get("taints") or []
    overwrite = any(t.get("key") == key and t.get("effect") == effect for t in taints)
    edited = oc_taint(doc, [spec], overwrite=overwrite, now=now)
    return Edited(edited.doc, f"add taint {Taint(key, value, effect)}", edited.verb)


def taint_remove(doc: Mapping, index: int, now: float = 0.0) -> Edited:
    """Remove the node's taint number `index` (`oc adm taint nodes <node> key:Effect-`)."""
    taints = (doc.get("spec") or {}).get("taints") or []
    if not 0 <= index < len(taints):
        raise EditError("that taint is no longer on the node")
    taint = Taint.from_doc(taints[index])
    edited = oc_taint(doc, [f"{taint.key}:{taint.effect}-"], overwrite=False, now=now)
    return Edited(edited.doc, f"remove taint {taint}", edited.verb)


def yaml_mapping(text: str, what: str) -> dict | None:
    """The mapping the text holds (None for no text); EditError with the one YAML message."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        loaded = kube.parse_value(text, "")
    except kube.DocumentError as exc:
        raise EditError(str(exc)) from None
    if not isinstance(loaded, dict):
        raise EditError(f"{what} must be a mapping (an object)")
    return loaded


def replace_yaml(doc: Mapping, text: str) -> Edited:
    new = yaml_mapping(text, "the object")
    if not new:
        raise EditError("the YAML is empty")
    meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
    same = (
        new.get("kind") == doc["kind"]
        and meta.get("name") == doc["metadata"]["name"]
        and (meta.get("namespace") or doc["metadata"].get("namespace", "")) == doc["metadata"].get("namespace", "")
    )
    if not same:
        raise EditError(
            f"the YAML must describe the same object ({doc['kind']} {doc['metadata']['name']}); "
            "kind, name and namespace cannot change here"
        )
    return Edited({**new, "metadata": {k: v for k, v in meta.items() if k != "resourceVersion"}}, "replace with edited YAML")


# Each edit of the table: (the document, its valid form (None when it takes no input), the
# cluster's time) -> the edited copy and its summary.


def _taint_add(doc, form, now) -> Edited:
    d = form.cleaned_data
    return taint_add(doc, d["key"], d["value"], d["effect"], now)


OC_TAINT = ("oc", "adm", "taint")
NO_NAME = "at least one resource name must be specified"  # oc's usage error: no node named


def oc_taint_command(store: Store, command: list[str], now: float) -> Edited:
    """A whole `oc adm taint nodes ...` command run on a copy of the cluster's nodes: every
    node it names, --all or -l selects. EditError with oc's message when nothing changes."""
    result = oc.run(store, command, now)
    if not result.actions:
        if result.exit_code != 0:
            raise EditError(result.stderr.strip())
        raise EditError((result.stdout.strip() or "nothing to change") + " (nothing to preview)")
    verbs = {}
    for line in result.stdout.strip().splitlines():
        target, _, verb = line.rpartition(" ")
        verbs[target.partition("/")[2]] = verb
    refs = store.apply_all(result.actions)
    changed = []
    for name in verbs or dict.fromkeys(ref[2] for ref in refs if ref[0] == "Node"):
        node = store.get("Node", "", name)
        if node is None:
            continue
        if not (node.get("spec") or {}).get("taints", True):
            del node["spec"]["taints"]  # an empty list is omitted, as the API server writes it (omitempty)
        changed.append((node, verbs.get(name, "tainted")))
    if not changed:
        raise EditError("nothing to change (nothing to preview)")
    notes = tuple(line for line in result.stderr.strip().splitlines() if line)
    first, verb = changed[0]
    return Edited(first, shlex.join(command), verb, tuple(changed) if len(changed) > 1 else (), notes)


def _taint_oc(doc, form, now, nodes=None) -> Edited:
    """The node page's `oc adm taint` field, as oc takes it: a whole command
    (`oc adm taint nodes node1 k=v:NoExecute`), or the words after `oc adm taint nodes`
    (`node1 node2 k=v:NoExecute`, `--all k-`, `-l zone=a k:NoSchedule-`); words that name
    no node (`k=v:NoExecute`) apply to the panel's node. `nodes`: every node document of
    the cluster (the named or selected nodes are looked up there)."""
    d = form.cleaned_data
    try:
        words = shlex.split(d["taint"])
    except ValueError as exc:
        raise EditError(f"error: {exc}") from None
    if words[:1] == ["oc"]:
        if tuple(words[:3]) != OC_TAINT:
            raise EditError("this field runs `oc adm taint` (the console runs the other oc commands)")
        command = words
    else:
        command = [*OC_TAINT, "nodes", *words]
    if d["overwrite"] and "--overwrite" not in command:
        command.append("--overwrite")
    name = doc["metadata"]["name"]
    docs = [whatif.edited(n) for n in (nodes if nodes is not None else [doc])]
    store = Store(docs, copy=False)  # edited() copied them
    if words[:1] != ["oc"] and NO_NAME in oc.run(store, command, now).stderr:
        command = [*OC_TAINT, "nodes", name, *words] + (["--overwrite"] if d["overwrite"] and "--overwrite" not in words else [])
    return oc_taint_command(store, command, now)


def _taint_remove(doc, form, now) -> Edited:
    return taint_remove(doc, form.cleaned_data["index"], now)


def _label_set(doc, form, now) -> Edited:
    d = form.cleaned_data
    return Edited(whatif.set_label(doc, d["key"], d["value"]), f"label {d['key']}={d['value']}")


def _label_remove(doc, form, now) -> Edited:
    key = form.cleaned_data["key"]
    return Edited(whatif.remove_label(doc, key), f"remove label {key}")


def _cordon(doc, form, now) -> Edited:
    return Edited(whatif.set_unschedulable(doc, True), "cordon")


def _uncordon(doc, form, now) -> Edited:
    return Edited(whatif.set_unschedulable(doc, False), "uncordon")


def _condition(doc, form, now) -> Edited:
    d = form.cleaned_data
    return Edited(whatif.set_condition(doc, d["type"], d["status"]), f"condition {d['type']}={d['status']}")


def _toleration_add(doc, form, now) -> Edited:
    toleration = form.toleration()
    return Edited(whatif.add_toleration(doc, toleration), f"add toleration {explain.toleration_text(Toleration.from_doc(toleration))}")


def _toleration_remove(doc, form, now) -> Edited:
    return Edited(whatif.remove_toleration(doc, form.cleaned_data["index"]), "remove a toleration")


def _selector_set(doc, form, now) -> Edited:
    d = form.cleaned_data
    return Edited(whatif.set_node_selector(doc, d["key"], d["value"]), f"node selector {d['key']}={d['value']}")


def _selector_remove(doc, form, now) -> Edited:
    key = form.cleaned_data["key"]
    return Edited(whatif.remove_node_selector(doc, key), f"remove node selector {key}")


def _node_affinity_add(doc, form, now) -> Edited:
    d, values = form.cleaned_data, form.value_list()
    return Edited(
        whatif.add_node_affinity_requirement(doc, d["key"], d["operator"], values),
        f"require node label {d['key']} {d['operator']} {', '.join(values)}".rstrip(),
    )


def _pod_affinity_add(doc, form, now) -> Edited:
    d = form.cleaned_data
    anti = d["kind"] == "anti-affinity"
    return Edited(
        whatif.add_pod_affinity_term(doc, anti, d["key"], d["value"], d["topology_key"]),
        f"{'pod anti-affinity' if anti else 'pod affinity'} to {d['key']}={d['value']} by {d['topology_key']}",
    )


def _scheduler_set(doc, form, now) -> Edited:
    name = form.cleaned_data["name"]
    return Edited(whatif.set_scheduler_name(doc, name), f"schedulerName {name}")


def _affinity(doc, form, now) -> Edited:
    affinity = yaml_mapping(form.cleaned_data["text"], "affinity")
    return Edited(whatif.set_affinity(doc, affinity), "set affinity" if affinity else "remove affinity")


def _yaml(doc, form, now) -> Edited:
    return replace_yaml(doc, form.cleaned_data["text"])


@dataclass(frozen=True)
class Edit:
    form: type[django_forms.Form] | None  # None: the edit takes no input
    make: Callable[..., Edited]
    verb: str  # what oc prints after applying it ("node/node2 <verb>"), unless the edit ran through oc
    cluster_wide: bool = False  # make() also takes nodes=every node document (it may change several)


EDITS: dict[str, Edit] = {
    "taint-add": Edit(forms.TaintForm, _taint_add, "tainted"),
    "taint-oc": Edit(forms.OcTaintForm, _taint_oc, "tainted", cluster_wide=True),
    "taint-remove": Edit(forms.IndexForm, _taint_remove, "untainted"),
    "label-set": Edit(forms.LabelForm, _label_set, "labeled"),
    "label-remove": Edit(forms.KeyForm, _label_remove, "labeled"),
    "cordon": Edit(None, _cordon, "cordoned"),
    "uncordon": Edit(None, _uncordon, "uncordoned"),
    "condition": Edit(forms.ConditionForm, _condition, "replaced"),
    "toleration-add": Edit(forms.TolerationForm, _toleration_add, "replaced"),
    "toleration-remove": Edit(forms.IndexForm, _toleration_remove, "replaced"),
    "selector-set": Edit(forms.LabelForm, _selector_set, "replaced"),
    "selector-remove": Edit(forms.KeyForm, _selector_remove, "replaced"),
    "node-affinity-add": Edit(forms.NodeAffinityForm, _node_affinity_add, "replaced"),
    "pod-affinity-add": Edit(forms.PodAffinityForm, _pod_affinity_add, "replaced"),
    "affinity": Edit(forms.TextForm, _affinity, "replaced"),
    "scheduler-set": Edit(forms.SchedulerNameForm, _scheduler_set, "replaced"),
    "yaml": Edit(forms.TextForm, _yaml, "replaced"),
}


def _form_errors(form) -> str:
    return "; ".join(f"{k}: {' '.join(v)}" if k != "__all__" else " ".join(v) for k, v in form.errors.items())


def edit(doc: dict, op: str, data, now: float = 0.0, nodes: list[dict] | None = None) -> Edited:
    """The edit `op` of EDITS made on a copy of `doc` with the request's `data`; EditError
    (the form's errors too) when it cannot be made. `nodes`: every node document, for the
    edits that may change several nodes (None: `doc` alone)."""
    entry = EDITS.get(op)
    if entry is None:
        raise EditError(f"unknown edit {op!r}")
    form = None
    if entry.form is not None:
        form = entry.form(data)
        if not form.is_valid():
            raise EditError(_form_errors(form))
    edited = entry.make(doc, form, now, nodes=nodes) if entry.cluster_wide else entry.make(doc, form, now)
    return dataclasses.replace(edited, verb=edited.verb or entry.verb)


def check(doc: dict) -> dict:
    """The API server's validation and defaults; kube.DocumentError when invalid."""
    return kube.check_documents([doc], f"{doc.get('kind')} {(doc.get('metadata') or {}).get('name', '')}", extra_kinds=())[0]


# --- the preview --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One object an edit changes: its edited, checked document, the version the preview was
    computed from (apply compares and swaps on it) and the verb oc prints for it."""

    doc: dict
    resource_version: int
    verb: str
    base: dict | None = None  # the document the edit was made from (apply re-applies the edit to a newer one)

    @property
    def ref(self) -> str:
        return f"{self.doc['kind'].lower()}/{self.doc['metadata']['name']}"


@dataclass(frozen=True)
class EditPreview:
    doc: dict  # the edited, checked document (what apply writes); the first target's
    summary: str
    verb: str
    preview: whatif.LoopPreview
    diff: str
    targets: tuple[Target, ...] = ()  # every object the edit changes (one for most edits)

    @property
    def document_json(self) -> str:
        """What the apply form carries: the document, or the list of every target's."""
        if len(self.targets) > 1:
            return json.dumps([t.doc for t in self.targets], sort_keys=True)
        return json.dumps(self.doc, sort_keys=True)

    @property
    def base_json(self) -> str:
        """The documents the edit was made from, as document_json lists the edited ones."""
        if len(self.targets) > 1:
            return json.dumps([t.base for t in self.targets], sort_keys=True)
        return json.dumps(self.targets[0].base if self.targets else None, sort_keys=True)

    @property
    def versions(self) -> str:
        return ",".join(str(t.resource_version) for t in self.targets)

    @property
    def verbs(self) -> str:
        return ",".join(t.verb for t in self.targets)


def preview_edit(cluster: Cluster, obj, op: str, data) -> EditPreview:
    """What the edit `op` of `obj` would do to the stored cluster: the documents the apply
    would write, checked as the apply checks them, previewed by the loop on a copy
    (preview_documents); nothing is written. Raises EditError or kube.DocumentError when
    the edit cannot be made."""
    entry = EDITS.get(op)
    stored = {}
    if entry is not None and entry.cluster_wide:
        stored = {n.name: n for n in Node.objects.filter(cluster=cluster).order_by("pk")}
        edited = edit(obj.document, op, data, cluster.now, nodes=[n.document for n in stored.values()])
    else:
        edited = edit(obj.document, op, data, cluster.now)
    changed = edited.changed or ((edited.doc, edited.verb),)
    targets = []
    for doc, verb in changed:
        original = stored.get(doc["metadata"]["name"], obj) if stored else obj
        checked = check(doc)
        services.check_update_admission(cluster, checked)
        targets.append((original, Target(checked, original.resource_version, verb, original.document)))
    first = targets[0][1]
    notes = list(edited.notes)
    writes = []
    for original, target in targets:  # a pod's update: what the API server's update rules answer
        try:
            writes.append((original, services.updated_document(cluster, target.doc, original.document)))
        except services.Invalid as exc:
            notes.append("Apply will be refused: " + exc.error.cli_message().split("\n", 1)[0])
    if len(writes) == len(targets):
        preview = preview_documents(cluster, writes)
    else:  # the API server refuses the write: the loop would see no change
        preview = whatif.LoopPreview(at=cluster.now, until=cluster.now)
    if notes:
        preview.notes = [*notes, *preview.notes]
    diffs = "\n".join(
        (f"# {t.ref}\n" if len(targets) > 1 else "") + diff(o.document, t.doc) for o, t in targets
    )
    return EditPreview(first.doc, edited.summary, first.verb, preview, diffs, tuple(t for _, t in targets))


def preview_documents(cluster: Cluster, edits: list[tuple[Any, dict]], for_seconds: float | None = None) -> whatif.LoopPreview:
    """The loop's preview of replacing each stored object of `edits` by its new document
    (as the API server stores it: checked, services.updated_document for a pod): the
    replacements applied at the clock, the controllers run on (preview_actions)."""
    docs = [doc for _, doc in edits]
    return summarised(cluster, lambda store: [A.ReplaceObject(doc) for doc in docs], for_seconds)


def diff(old: dict, new: dict) -> str:
    a = kube.dump_documents([editable(old)]).splitlines()
    b = kube.dump_documents([editable(new)]).splitlines()
    lines = list(difflib.unified_diff(a, b, "stored", "edited", n=2, lineterm=""))
    return "\n".join(lines[2:])


# --- scheduler policies ----------------------------------------------------------------------------


def parse_policy_text(text: str):
    """(document or None for the default, error message)."""
    text = (text or "").strip()
    if not text:
        return None, ""
    try:
        doc = kube.parse_value(text, "", "the Policy")  # JSON is YAML
    except kube.DocumentError as exc:
        return None, str(exc)
    if isinstance(doc, dict) and doc.get("kind") in framework_config.CONFIG_KINDS:
        try:
            framework_config.schedulers_for([doc])
        except framework_config.ConfigError as exc:
            return None, kube.short(f"{doc.get('kind')}: {exc}")
        return doc, ""
    try:
        load_policy(doc)
    except PolicyError as exc:
        return None, kube.short(f"Policy: {exc}")
    return doc, ""


def framework_samples() -> dict[str, dict]:
    """The OpenShift `Scheduler` profiles, as documents a user can load and compare."""
    return {profile: {"apiVersion": framework_config.OPENSHIFT_API_VERSION, "kind": framework_config.OPENSHIFT_KIND,
                      "metadata": {"name": "cluster"}, "spec": {"profile": profile}}
            for profile in framework_config.OPENSHIFT_PROFILES}


def samples_for(cluster: Cluster) -> dict[str, dict]:
    """The sample configurations the policy page offers: 3.11 Policies, or on a cluster that
    runs the OpenShift 4 scheduler its `Scheduler` profiles."""
    return framework_samples() if explain.is_framework(explain.cluster_policy(cluster)) else SAMPLE_POLICIES


def scheduler_of(cluster: Cluster, doc):
    """The default scheduler a configuration document (None: the cluster's default) makes on
    this cluster: a 3.11 Policy or a framework Profile."""
    schedulers = dict(framework_config.select_schedulers([doc], cluster_versions(cluster)))
    return schedulers.get("default-scheduler") or next(iter(schedulers.values()))


def _queue(state, scheduler, cluster: Cluster):
    if explain.is_framework(scheduler):
        return framework_runtime.run_queue(state, scheduler, random.Random(cluster.seed), cluster.preemption_enabled,
                                           now=cluster.now, explain=False)[0]
    return run_queue(state, scheduler, random.Random(cluster.seed), cluster.preemption_enabled, now=cluster.now, explain=False)


def _choice_policy(cluster: Cluster, choice: str, text: str):
    """(label, policy document or None, error)."""
    if choice == "current":
        return "this cluster's policy", cluster.policy, ""
    if choice == "edited":
        doc, error = parse_policy_text(text)
        return "the edited policy", doc, error
    samples = samples_for(cluster)
    if choice.startswith("sample:") and choice[7:] in samples:
        return f"sample {choice[7:]}", samples[choice[7:]], ""
    return choice, None, f"unknown policy choice {choice!r}"


def compare_policies(cluster: Cluster, a: str, b: str, text: str) -> dict:
    """Where the pending queue would go under policy `a` and under policy `b` ("current",
    "edited" (the editor's `text`) or "sample:<name>"), pod by pod."""
    label_a, doc_a, err_a = _choice_policy(cluster, a, text)
    label_b, doc_b, err_b = _choice_policy(cluster, b, text)
    if err_a or err_b:
        return {"error": err_a or err_b}
    base = cluster_state(cluster)
    outcomes = []
    try:
        policies = [scheduler_of(cluster, doc_a), scheduler_of(cluster, doc_b)]
    except framework_config.ConfigError as exc:
        return {"error": str(exc)}
    for policy in policies:
        state = whatif.copy_state(base)
        outcomes.append(last_results(_queue(state, policy, cluster)))
    rows = []
    for key in dict.fromkeys(list(outcomes[0]) + list(outcomes[1])):
        ra, rb = outcomes[0].get(key), outcomes[1].get(key)
        rows.append({
            "pod": key,
            "a": ra.node if ra else None, "a_message": (ra.message if ra and ra.node is None else ""),
            "b": rb.node if rb else None, "b_message": (rb.message if rb and rb.node is None else ""),
            "differs": (ra.node if ra else None) != (rb.node if rb else None),
        })
    running = [p for p in base.pods if p.node_name and not p.is_terminating and p.phase not in ("Succeeded", "Failed")]
    running_rows = []
    for pod in running[:MAX_COMPARED_RUNNING]:
        sides = [_running_side(base, policy, pod, cluster.seed) for policy in policies]
        running_rows.append({
            "pod": pod.key, "node": pod.node_name, "sides": sides,
            "differs": sides[0]["best"] != sides[1]["best"],
        })
    return {
        "label_a": label_a, "label_b": label_b, "rows": rows,
        "running": running_rows, "running_more": max(0, len(running) - MAX_COMPARED_RUNNING),
    }


MAX_COMPARED_RUNNING = 100  # running pods scored under both policies (each is one scheduling pass)


def _running_side(state, policy, pod, seed: int) -> dict:
    """A running pod under `policy`, as if it were scheduled now (taken off its node): its
    node's score, the best node(s) and their score; avoid-pods (x10000) left out of both
    (whatif.avoid_pods_weights), since it only separates annotated nodes."""
    result = explain.attempt(explain.unbound_copy(pod), state, explain.infos_without(state, {pod.key}), policy, seed,
                             None, True)
    avoid = {} if explain.is_framework(policy) else whatif.avoid_pods_weights(policy)

    def rest(scores) -> int:
        return int(scores.get(TOTAL, 0)) - sum(int(scores.get(n, 0)) * w for n, w in avoid.items())

    totals = {n: rest(sc) for n, sc in result.scores.items()}
    top = max(totals.values()) if totals else None
    return {
        "here": totals.get(pod.node_name),  # None: it would not fit its node any more (or no scoring)
        "fits_here": not result.filters.get(pod.node_name),
        "best": tuple(n for n, t in totals.items() if t == top) if top is not None else ((result.node,) if result.node else ()),
        "best_score": top,
        "message": result.message or "",
    }


# --- the loop on a copy ------------------------------------------------------------------------------


class PreviewRefused(Exception):
    """The change cannot be previewed: the command failed or the API server would refuse
    the write; str() is what oc prints."""


def preview_actions(cluster: Cluster, make_actions: Callable[[Any], list], for_seconds: float | None = None, *,
                    explain: bool = False) -> PreviewResult:
    """The cluster's loop run up to its clock (reconcile.loop_at_clock, nothing written), the
    change `make_actions(store)` applied at the clock, and the loop run on for `for_seconds`
    (None: until nothing more happens, at most engine.preview.MAX_SECONDS)."""
    sim = reconcile.loop_at_clock(cluster, explain=explain)
    return run_preview(sim, make_actions(sim.store), for_seconds)


def _command_actions(cluster: Cluster, argv: list[str], files: Mapping[str, list[dict]] | None):
    """`oc ARGS` run on the loop's store at the clock as it would run on the stored cluster,
    its writes checked as the API server checks them (oc_cli.checked_actions): the actions a
    preview applies. PreviewRefused when oc would fail."""

    def make_actions(store) -> list:
        result = commands.run(store, argv, cluster.now, files=files)
        if result.exit_code != 0:
            raise PreviewRefused(result.stderr.rstrip("\n") or f"exit status {result.exit_code}")
        try:
            return oc_cli.checked_actions(cluster, store, result.actions, oc_cli.sources_of(files))
        except oc_cli.WriteError as exc:
            raise PreviewRefused(str(exc)) from exc

    return make_actions


def preview_command(cluster: Cluster, argv: list[str], files: Mapping[str, list[dict]] | None = None,
                    for_seconds: float | None = None, *, explain: bool = False) -> PreviewResult:
    """`oc ARGS` previewed: the command runs on the loop at the clock as it would on the stored
    cluster (oc_cli.run_on_cluster), its writes checked as the API server checks them
    (oc_cli.checked_actions), then the loop runs on. PreviewRefused when oc would fail."""
    return preview_actions(cluster, _command_actions(cluster, argv, files), for_seconds, explain=explain)


SCRIPT_MARGIN = 0.001  # a preview stops this long before the script's next step


def summarised(cluster: Cluster, make_actions: Callable[[Any], list], for_seconds: float | None = None) -> whatif.LoopPreview:
    """preview_actions summarised for people (whatif.summarise), with the score changes of
    the affected pods under the cluster's policy. Left to run until nothing more happens, a
    preview stops just before the cluster's next Timeline step (what the script does next is
    not the change's doing; the note says so)."""
    sim = reconcile.loop_at_clock(cluster)
    before = list(sim.store.all())  # documents are never changed in place: a snapshot
    actions = list(make_actions(sim.store))
    note = ""
    step = sim.next_step_time
    if for_seconds is None and step is not None and sim.now < step - SCRIPT_MARGIN <= sim.now + MAX_SECONDS:
        for_seconds = step - SCRIPT_MARGIN - sim.now
        note = (f"the preview stops before the script's next step at t={whatif.time_text(step)}s "
                "(run the clock to see what the script does next)")
    result = run_preview(sim, actions, for_seconds)
    summary = whatif.summarise(result, before, actions, policy=_policy_for_scores(cluster), seed=cluster.seed)
    if note:
        summary.notes.append(note)
    return summary


def summarised_command(cluster: Cluster, argv: list[str], files: Mapping[str, list[dict]] | None = None,
                       for_seconds: float | None = None) -> whatif.LoopPreview:
    """`oc ARGS` previewed (preview_command), summarised for people."""
    return summarised(cluster, _command_actions(cluster, argv, files), for_seconds)


def _policy_for_scores(cluster):
    """The 3.11 Policy whose scores a preview compares; None on a cluster that runs the
    OpenShift 4 scheduler (its preview shows placements, without the score changes)."""
    scheduler = explain.cluster_policy(cluster)
    return None if explain.is_framework(scheduler) else scheduler
