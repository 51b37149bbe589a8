"""Pages. A view parses, calls services, renders; access checks raise PermissionDenied."""

from __future__ import annotations

import json
import re

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from . import board, clock, explain, forms, kube, services, whatif
from .engine.admission import PLUGIN_NAMES as ADMISSION_PLUGIN_NAMES
from .engine.objects import Toleration
from .engine.policy import DEFAULT_POLICY_DOC, PolicyError, load_policy
from .engine.sample_policies import SAMPLE_POLICIES
from .engine.simulate import build_state
from .engine.scenarios import SCENARIOS
from .models import KIND_MODELS, Cluster
from .permissions import can_edit, get_cluster_for_user, require_editor
from .state import cluster_documents, cluster_state


def _list_context(request, **extra) -> dict:
    return {
        "clusters": Cluster.objects.all(),
        "can_edit": can_edit(request.user),
        "create_form": forms.ClusterForm(),
        "import_form": forms.ImportForm(),
        "scenarios": SCENARIOS,
        **extra,
    }


@require_GET
def cluster_list(request):
    return render(request, "scheduling/cluster_list.html", _list_context(request))


@require_POST
def scenario_load(request, name: str):
    require_editor(request)
    try:
        cluster = services.load_scenario(name)
    except services.StoreError as exc:
        messages.error(request, str(exc))
        return redirect("cluster-list")
    return _to_cluster(request, cluster)


@require_POST
def cluster_create(request):
    require_editor(request)
    form = forms.ClusterForm(request.POST)
    if form.is_valid():
        try:
            cluster = services.create_cluster(**form.cleaned_data)
        except services.StoreError as exc:
            form.add_error("name", str(exc))
        else:
            return _to_cluster(request, cluster)
    return _form_error(request, "create-form", create_form=form)


@require_POST
def cluster_import(request):
    require_editor(request)
    form = forms.ImportForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            cluster = services.import_new_cluster(
                form.cleaned_data["name"], form.cleaned_data["text"], form.cleaned_data["source"],
                description=form.cleaned_data["description"],
            )
        except (kube.DocumentError, services.StoreError) as exc:
            form.add_error(None, str(exc))
        else:
            return _to_cluster(request, cluster)
    return _form_error(request, "import-form", import_form=form)


@require_POST
def cluster_fork(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    name = (request.POST.get("name") or "").strip() or f"{cluster.name}-fork"
    form = forms.ClusterForm({"name": name, "description": cluster.description, "seed": cluster.seed})
    if not form.is_valid():
        messages.error(request, "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect("cluster-list")
    try:
        fork = services.fork_cluster(cluster, name)
    except services.StoreError as exc:
        messages.error(request, str(exc))
        return redirect("cluster-list")
    return _to_cluster(request, fork)


@require_POST
def cluster_delete(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    services.delete_cluster(cluster)
    messages.success(request, f'cluster "{cluster.name}" deleted')
    if request.htmx:
        return HttpResponseClientRedirect(reverse("cluster-list"))
    return redirect("cluster-list")


@require_GET
def cluster_export(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    text = kube.dump_documents(services.export_documents(cluster))
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{cluster.name}.yaml"'
    return response


def cluster_summary_context(cluster: Cluster) -> dict:
    counts = []
    for kind, model in KIND_MODELS.items():
        n = model.objects.filter(cluster=cluster).count()
        if n:
            counts.append((kind, n))
    pods = dict(
        KIND_MODELS["Pod"].objects.filter(cluster=cluster).values_list("phase").annotate(n=Count("pk")).order_by()
    )
    zones = [
        {"name": z["metadata"]["name"], **(z.get("status") or {})}
        for z in (cluster.controller_state or {}).get("zones") or []
    ]
    return {"cluster": cluster, "counts": counts, "pod_phases": sorted(pods.items()), "zones": zones}


def _to_cluster(request, cluster: Cluster):
    url = reverse("cluster-detail", args=[cluster.pk])
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _form_error(request, partial: str, **forms_):
    context = _list_context(request, **forms_)
    if request.htmx:
        return render(request, f"scheduling/cluster_list.html#{partial}", context, status=422)
    return render(request, "scheduling/cluster_list.html", context, status=422)


# --- the cluster page: board, pending queue, events, clock ---------------------------------------

SPEEDS = (1, 10, 60, 120, 300, 600)
STEPS = ((10, "+10 s"), (60, "+1 min"), (600, "+10 min"))


def clock_context(cluster: Cluster) -> dict:
    return {"cluster": cluster, "clock_text": board.format_clock(cluster.now), "speeds": SPEEDS, "steps": STEPS}


def _urls(cluster: Cluster) -> dict:
    """URL prefixes the templates join with names (no reverse() per pod chip)."""
    return {
        "pod_base": reverse("cluster-detail", args=[cluster.pk]) + "pods/",
        "node_base": reverse("cluster-detail", args=[cluster.pk]) + "nodes/",
    }


def live_context(request, cluster: Cluster, options: board.BoardOptions) -> dict:
    the_board, pending = board.build_board(cluster, options)
    return {
        **cluster_summary_context(cluster),
        **clock_context(cluster),
        **_urls(cluster),
        "options": options,
        "board": the_board,
        "pending": pending,
        "events": board.events(cluster, options),
        "can_edit": can_edit(request.user),
        "group_choices": board.GROUP_CHOICES,
        "color_choices": board.COLOR_CHOICES,
    }


@require_GET
def cluster_detail(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    context = live_context(request, cluster, options)
    if request.htmx and request.htmx.target == "live":
        return render(request, "scheduling/cluster_detail.html#live", context)
    return render(request, "scheduling/cluster_detail.html", context)


@require_GET
def node_card(request, pk: int, name: str):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    card = board.node_cards(cluster, [name], options)[name]
    if card is None:
        raise Http404(f'nodes "{name}" not found')
    return render(request, "scheduling/cluster_detail.html#node-card", {"cluster": cluster, "card": card, **_urls(cluster)})


@require_GET
def pending_section(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    return render(
        request, "scheduling/cluster_detail.html#pending",
        {"cluster": cluster, "pending": board.pending_queue(cluster, options), **_urls(cluster)},
    )


@require_GET
def events_section(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    return render(request, "scheduling/cluster_detail.html#events", {"cluster": cluster, "events": board.events(cluster, options)})


@require_POST
def clock_action(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    form = forms.ClockForm(request.POST)
    if not form.is_valid():
        return HttpResponse("; ".join(e for errs in form.errors.values() for e in errs), status=400)
    action = form.cleaned_data["action"]
    if action == "play":
        clock.play(cluster, form.cleaned_data["speed"])
    elif action == "pause":
        clock.pause(cluster)
    elif action == "speed":
        if form.cleaned_data["speed"] is None:
            return HttpResponse("choose a speed", status=400)
        clock.set_speed(cluster, form.cleaned_data["speed"])
    else:
        clock.step(cluster, float(action.split("-", 1)[1]))
    cluster.refresh_from_db()
    if request.htmx:
        return render(request, "scheduling/cluster_detail.html#clock", {**clock_context(cluster), "can_edit": True})
    return redirect("cluster-detail", pk=cluster.pk)


# --- nodes, pods and controllers: the explainer and the what-if editor -------------------------


def _error_status(request, status: int) -> int:
    """htmx requests get 200 for a refused change too: the fragment (with its role="alert"
    message) is what the page swaps in, and browsers log every 4xx response as a console
    error. Plain form posts get the real status."""
    return 200 if request.htmx else status


def _panel(request, template: str, partial: str, context: dict, status: int = 200):
    """A panel of the cluster page (htmx) or the same content as a page of its own."""
    if request.htmx:
        return render(request, f"{template}#{partial}", context, status=status)
    return render(request, template, context, status=status)


APPLIED = re.compile(r"^[a-z]+/[a-z0-9][-a-z0-9.]{0,252} [a-z]+$")


def _applied(request) -> str:
    """The confirmation shown after an apply ("node/node2 tainted"), passed back by URL;
    anything else is ignored (a link must not put words in the page's mouth)."""
    text = request.GET.get("applied") or ""
    return text if APPLIED.match(text) else ""


def _object_or_404(cluster: Cluster, kind: str, name: str, namespace: str = ""):
    try:
        return services.get_object(cluster, kind, name, namespace)
    except services.NotFound as exc:
        raise Http404(str(exc)) from None


def node_context(request, cluster: Cluster, name: str, **extra) -> dict:
    obj = _object_or_404(cluster, "Node", name)
    state = cluster_state(cluster)
    policy = explain.cluster_policy(cluster)
    card = board.node_cards(cluster, [name])[name]
    return {
        "cluster": cluster,
        "obj": obj,
        "doc": obj.document,
        "card": card,
        "why": explain.explain_node(state, policy, name, seed=cluster.seed),
        "yaml_text": kube.dump_documents([_editable(obj.document)]),
        "can_edit": can_edit(request.user),
        "taint_form": forms.TaintForm(),
        "label_form": forms.LabelForm(),
        "condition_form": forms.ConditionForm(),
        "conditions": _conditions(obj.document),
        "effect_meaning": explain.EFFECT_MEANING,
        **_urls(cluster),
        **extra,
    }


def _conditions(doc: dict) -> list[tuple[str, str]]:
    have = {c.get("type"): c.get("status") for c in (doc.get("status") or {}).get("conditions") or ()}
    return [(t, have.get(t, "")) for t in whatif.NODE_CONDITIONS]


def _editable(doc: dict) -> dict:
    doc = dict(doc)
    doc["metadata"] = {k: v for k, v in doc["metadata"].items() if k not in ("resourceVersion", "uid")}
    return doc


@require_GET
def node_detail(request, pk: int, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _panel(request, "scheduling/node.html", "node-panel", node_context(request, cluster, name, applied=_applied(request)))


WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet")


def _controllers_of(cluster: Cluster, doc: dict) -> list[tuple[str, str, str]]:
    """(kind, namespace, name) of the pod's controller chain, nearest first, that exist."""
    out = []
    current = doc
    for _ in range(3):
        refs = [r for r in (current.get("metadata") or {}).get("ownerReferences") or () if r.get("controller")]
        if not refs or refs[0].get("kind") not in WORKLOAD_KINDS:
            break
        ref = refs[0]
        namespace = (current.get("metadata") or {}).get("namespace") or "default"
        model = KIND_MODELS[ref["kind"]]
        owner = model.objects.filter(cluster=cluster, namespace=namespace, name=ref.get("name")).first()
        if owner is None:
            break
        out.append((ref["kind"], namespace, owner.name))
        current = owner.document
    return out


def pod_context(request, cluster: Cluster, namespace: str, name: str, **extra) -> dict:
    obj = _object_or_404(cluster, "Pod", name, namespace)
    state = cluster_state(cluster)
    policy = explain.cluster_policy(cluster)
    explanation = explain.explain_pod(
        state, policy, f"{namespace}/{name}", seed=cluster.seed, preemption=cluster.preemption_enabled
    )
    return {
        **_object_editor_context(request, cluster, obj),
        "explanation": explanation,
        "pod_events": explain.object_events(cluster, "Pod", name, namespace),
        "condition_message": board.condition_message(obj.document.get("status") or {}),
        "controllers": _controllers_of(cluster, obj.document),
        **extra,
    }


def _object_editor_context(request, cluster: Cluster, obj) -> dict:
    doc = obj.document
    _, spec = whatif.pod_spec(doc)
    return {
        "cluster": cluster,
        "obj": obj,
        "kind": obj.KIND,
        "doc": doc,
        "spec": spec,
        "tolerations": [explain.toleration_text(Toleration.from_doc(t)) for t in spec.get("tolerations") or ()],
        "yaml_text": kube.dump_documents([_editable(doc)]),
        "affinity_text": kube.dump_documents([spec["affinity"]]) if spec.get("affinity") else "",
        "toleration_form": forms.TolerationForm(),
        "label_form": forms.LabelForm(),
        "node_affinity_form": forms.NodeAffinityForm(),
        "pod_affinity_form": forms.PodAffinityForm(),
        "can_edit": can_edit(request.user),
        **_urls(cluster),
    }


@require_GET
def pod_detail(request, pk: int, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _panel(request, "scheduling/pod.html", "pod-panel", pod_context(request, cluster, namespace, name, applied=_applied(request)))


def controller_context(request, cluster: Cluster, kind: str, namespace: str, name: str, **extra) -> dict:
    if kind not in WORKLOAD_KINDS:
        raise Http404(f"no editor for {kind}")
    obj = _object_or_404(cluster, kind, name, namespace)
    return {**_object_editor_context(request, cluster, obj), **extra}


@require_GET
def controller_detail(request, pk: int, kind: str, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _panel(
        request, "scheduling/pod.html", "pod-panel", controller_context(request, cluster, kind, namespace, name, applied=_applied(request))
    )


# --- previews and apply ---------------------------------------------------------------------------


# What `oc` prints after each kind of edit: "<kind>/<name> <verb>".
VERBS = {
    "taint-add": "tainted", "taint-remove": "untainted", "label-set": "labeled", "label-remove": "labeled",
    "cordon": "cordoned", "uncordon": "uncordoned",
}


def _edit(doc: dict, op: str, data, now: float = 0.0) -> tuple[dict, str]:
    """The edited document and a one-line summary of the edit; whatif.EditError or
    forms errors (as EditError) when the edit cannot be made."""

    def checked(form_class):
        form = form_class(data)
        if not form.is_valid():
            raise whatif.EditError("; ".join(f"{k}: {' '.join(v)}" if k != "__all__" else " ".join(v) for k, v in form.errors.items()))
        return form

    def valid(form_class):
        return checked(form_class).cleaned_data

    if op == "taint-add":
        d = valid(forms.TaintForm)
        return whatif.add_taint(doc, d["key"], d["value"], d["effect"]), f"add taint {board.TaintChip(d['key'], d['value'], d['effect']).text}"
    if op == "taint-oc":
        d = valid(forms.OcTaintForm)
        return _oc_taint(doc, d["taint"], d["overwrite"], now)
    if op == "taint-remove":
        d = valid(forms.IndexForm)
        taints = (doc.get("spec") or {}).get("taints") or []
        text = board.TaintChip(**{k: taints[d["index"]].get(k, "") for k in ("key", "value", "effect")}).text if d["index"] < len(taints) else ""
        return whatif.remove_taint(doc, d["index"]), f"remove taint {text}"
    if op == "label-set":
        d = valid(forms.LabelForm)
        return whatif.set_label(doc, d["key"], d["value"]), f"label {d['key']}={d['value']}"
    if op == "label-remove":
        d = valid(forms.KeyForm)
        return whatif.remove_label(doc, d["key"]), f"remove label {d['key']}"
    if op == "cordon":
        return whatif.set_unschedulable(doc, True), "cordon"
    if op == "uncordon":
        return whatif.set_unschedulable(doc, False), "uncordon"
    if op == "condition":
        d = valid(forms.ConditionForm)
        return whatif.set_condition(doc, d["type"], d["status"]), f"condition {d['type']}={d['status']}"
    if op == "toleration-add":
        t = checked(forms.TolerationForm).toleration()
        return whatif.add_toleration(doc, t), f"add toleration {explain.toleration_text(Toleration.from_doc(t))}"
    if op == "toleration-remove":
        d = valid(forms.IndexForm)
        return whatif.remove_toleration(doc, d["index"]), "remove a toleration"
    if op == "selector-set":
        d = valid(forms.LabelForm)
        return whatif.set_node_selector(doc, d["key"], d["value"]), f"node selector {d['key']}={d['value']}"
    if op == "selector-remove":
        d = valid(forms.KeyForm)
        return whatif.remove_node_selector(doc, d["key"]), f"remove node selector {d['key']}"
    if op == "node-affinity-add":
        form = checked(forms.NodeAffinityForm)
        d = form.cleaned_data
        return (
            whatif.add_node_affinity_requirement(doc, d["key"], d["operator"], form.value_list()),
            f"require node label {d['key']} {d['operator']} {', '.join(form.value_list())}".rstrip(),
        )
    if op == "pod-affinity-add":
        d = valid(forms.PodAffinityForm)
        anti = d["kind"] == "anti-affinity"
        return (
            whatif.add_pod_affinity_term(doc, anti, d["key"], d["value"], d["topology_key"]),
            f"{'pod anti-affinity' if anti else 'pod affinity'} to {d['key']}={d['value']} by {d['topology_key']}",
        )
    if op == "affinity":
        d = valid(forms.TextForm)
        affinity = _yaml_mapping(d["text"], "affinity")
        return whatif.set_affinity(doc, affinity), "set affinity" if affinity else "remove affinity"
    if op == "yaml":
        d = valid(forms.TextForm)
        new = _yaml_mapping(d["text"], "the object")
        if not new:
            raise whatif.EditError("the YAML is empty")
        meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
        same = (
            new.get("kind") == doc["kind"]
            and meta.get("name") == doc["metadata"]["name"]
            and (meta.get("namespace") or doc["metadata"].get("namespace", "")) == doc["metadata"].get("namespace", "")
        )
        if not same:
            raise whatif.EditError(
                f"the YAML must describe the same object ({doc['kind']} {doc['metadata']['name']}); "
                "kind, name and namespace cannot change here"
            )
        new = {**new, "metadata": {k: v for k, v in meta.items() if k not in ("resourceVersion",)}}
        return new, "replace with edited YAML"
    raise whatif.EditError(f"unknown edit {op!r}")


def _oc_taint(doc: dict, text: str, overwrite: bool, now: float = 0.0) -> tuple[dict, str]:
    """`oc adm taint nodes <node> <text>` on the node document (engine/oc.py, with oc's
    messages). Returns the edited document and "<summary>|<verb oc printed>"."""
    import shlex

    from .engine import oc
    from .engine.store import Store

    name = doc["metadata"]["name"]
    try:
        args = shlex.split(text)
    except ValueError as exc:
        raise whatif.EditError(f"error: {exc}") from None
    command = ["oc", "adm", "taint", "nodes", name, *args] + (["--overwrite"] if overwrite else [])
    store = Store([doc])
    result = oc.run(store, command, now)
    if result.exit_code != 0:
        raise whatif.EditError(result.stderr.strip())
    if not result.actions:
        raise whatif.EditError((result.stdout.strip() or "nothing to change") + " (nothing to preview)")
    store.apply_all(result.actions)
    printed = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    verb = printed.rsplit(" ", 1)[-1] if printed else "tainted"
    return store.get("Node", "", name), f"{shlex.join(command[:5])} {text}|{verb}"


def _yaml_mapping(text: str, what: str):
    import yaml

    text = (text or "").strip()
    if not text:
        return None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise whatif.EditError(f"error parsing YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(loaded, dict):
        raise whatif.EditError(f"{what} must be a mapping (an object)")
    return loaded


def _check(doc: dict) -> dict:
    """The API server's validation and defaults; kube.DocumentError when invalid."""
    return kube.check_documents([doc], f"{doc.get('kind')} {(doc.get('metadata') or {}).get('name', '')}", extra_kinds=())[0]


def _preview_for(cluster: Cluster, obj, new_doc: dict) -> whatif.Preview:
    docs = cluster_documents(cluster)
    key = (obj.KIND, obj.namespace, obj.name)

    def same(d):
        m = d.get("metadata") or {}
        return (d.get("kind"), m.get("namespace", ""), m.get("name")) == key

    notes: list[str] = []
    if obj.KIND == "Node":
        new_doc, notes = whatif.with_lifecycle_taints(obj.document, new_doc, cluster.now)
    before = build_state(docs)
    after = build_state([new_doc if same(d) else d for d in docs])
    recreated = []
    if obj.KIND in WORKLOAD_KINDS:
        owned = [p for p in before.pods if p.controller_ref is not None and p.controller_ref.name == obj.name and p.namespace == obj.namespace]
        recreated = whatif.template_pods(new_doc, owned)
    return whatif.preview(
        before, after, explain.cluster_policy(cluster), now=cluster.now, seed=cluster.seed,
        preemption=cluster.preemption_enabled, recreated=recreated, notes=notes,
    )


def _preview(request, cluster: Cluster, obj):
    op = request.POST.get("op", "")
    context = {"cluster": cluster, "obj": obj, "can_edit": can_edit(request.user), **_urls(cluster)}
    try:
        new_doc, summary = _edit(obj.document, op, request.POST, cluster.now)
        new_doc = _check(new_doc)
    except (whatif.EditError, kube.DocumentError) as exc:
        return render(request, "scheduling/whatif.html#preview", {**context, "error": str(exc)}, status=_error_status(request, 422))
    result = _preview_for(cluster, obj, new_doc)
    verb = VERBS.get(op, "replaced")
    if op == "taint-oc":
        summary, verb = summary.split("|", 1)
    apply_form = forms.ApplyForm(initial={
        "document": json.dumps(new_doc, sort_keys=True),
        "resource_version": obj.resource_version,
        "verb": verb,
    })
    return render(request, "scheduling/whatif.html#preview", {
        **context, "preview": result, "summary": summary, "apply_form": apply_form,
        "diff": _diff(obj.document, new_doc),
    })


def _diff(old: dict, new: dict) -> str:
    import difflib

    a = kube.dump_documents([_editable(old)]).splitlines()
    b = kube.dump_documents([_editable(new)]).splitlines()
    lines = [line for line in difflib.unified_diff(a, b, "stored", "edited", n=2, lineterm="")]
    return "\n".join(lines[2:])


@require_POST
def node_preview(request, pk: int, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _preview(request, cluster, _object_or_404(cluster, "Node", name))


@require_POST
def pod_preview(request, pk: int, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _preview(request, cluster, _object_or_404(cluster, "Pod", name, namespace))


@require_POST
def controller_preview(request, pk: int, kind: str, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    if kind not in WORKLOAD_KINDS:
        raise Http404(f"no editor for {kind}")
    return _preview(request, cluster, _object_or_404(cluster, kind, name, namespace))


@require_POST
def apply_edit(request, pk: int):
    """Commit a previewed edit: compare-and-swap on the version the preview was made from."""
    cluster = get_cluster_for_user(request, pk, write=True)
    form = forms.ApplyForm(request.POST)
    context = {"cluster": cluster, "can_edit": True, **_urls(cluster)}
    if not form.is_valid():
        return render(request, "scheduling/whatif.html#applied", {**context, "error": "the preview was incomplete; preview the change again"}, status=_error_status(request, 400))
    try:
        doc = json.loads(form.cleaned_data["document"])
        if not isinstance(doc, dict):
            raise ValueError
        doc = _check(doc)
    except (ValueError, kube.DocumentError) as exc:
        return render(request, "scheduling/whatif.html#applied", {**context, "error": str(exc) or "not a document"}, status=_error_status(request, 422))
    meta = doc["metadata"]
    try:
        obj = services.replace_object(cluster, doc, expected_version=form.cleaned_data["resource_version"])
    except services.StoreError as exc:
        return render(request, "scheduling/whatif.html#applied", {**context, "error": str(exc), "conflict": isinstance(exc, services.Conflict)}, status=_error_status(request, 409))
    kind = doc["kind"]
    target = f"{kind.lower()}/{meta['name']}"
    return render(request, "scheduling/whatif.html#applied", {
        **context, "obj": obj, "message": f"{target} {form.cleaned_data['verb'] or 'replaced'}",
        "panel_url": _panel_url(cluster, obj),
    })


def _panel_url(cluster: Cluster, obj) -> str:
    if obj.KIND == "Node":
        return reverse("node-detail", args=[cluster.pk, obj.name])
    if obj.KIND == "Pod":
        return reverse("pod-detail", args=[cluster.pk, obj.namespace, obj.name])
    return reverse("controller-detail", args=[cluster.pk, obj.KIND, obj.namespace, obj.name])


# --- the scheduler policy ---------------------------------------------------------------------------


def _policy_text(doc) -> str:
    return json.dumps(doc, indent=2) if doc is not None else ""


def _parse_policy_text(text: str):
    """(document or None for the default, error message)."""
    import yaml

    text = (text or "").strip()
    if not text:
        return None, ""
    try:
        doc = yaml.safe_load(text)  # JSON is YAML
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return None, f"error parsing the Policy{where}: {getattr(exc, 'problem', None) or exc}"
    try:
        load_policy(doc)
    except PolicyError as exc:
        return None, f"Policy: {exc}"
    return doc, ""


def policy_context(request, cluster: Cluster, **extra) -> dict:
    import yaml

    current = cluster.policy
    shown = current if current is not None else DEFAULT_POLICY_DOC
    return {
        "cluster": cluster,
        "can_edit": can_edit(request.user),
        "is_default": current is None,
        "policy_json": json.dumps(shown, indent=2),
        "policy_yaml": yaml.safe_dump(shown, sort_keys=False, default_flow_style=False),
        "form": forms.PolicyForm(initial={"text": _policy_text(current)}),
        "samples": list(SAMPLE_POLICIES),
        "admission_plugins": [(n, (cluster.admission or {}).get(n, True)) for n in ADMISSION_PLUGIN_NAMES],
        "compare_choices": [("current", "this cluster's policy"), ("edited", "the text in the editor")]
        + [(f"sample:{n}", f"sample: {n}") for n in SAMPLE_POLICIES],
        **extra,
    }


@require_POST
def cluster_settings(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    enabled = set(request.POST.getlist("admission"))
    services.set_cluster_settings(
        cluster,
        admission={name: name in enabled for name in ADMISSION_PLUGIN_NAMES},
        preemption=request.POST.get("preemption") == "on",
    )
    messages.success(request, "admission plugins and preemption saved")
    return redirect("policy", pk=cluster.pk)


@require_GET
def policy_page(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    return render(request, "scheduling/policy.html", policy_context(request, cluster))


@require_POST
def policy_action(request, pk: int):
    action = request.POST.get("action", "validate")
    cluster = get_cluster_for_user(request, pk, write=action == "save")
    form = forms.PolicyForm(request.POST)
    form.is_valid()
    text = form.cleaned_data.get("text", "")
    extra: dict = {"form": form}
    if action.startswith("sample:"):
        name = action.split(":", 1)[1]
        if name not in SAMPLE_POLICIES:
            raise Http404("no such sample policy")
        form = forms.PolicyForm(initial={"text": json.dumps(SAMPLE_POLICIES[name], indent=2)})
        extra = {"form": form, "notice": f'sample policy "{name}" loaded into the editor: validate, compare or save it'}
    elif action in ("validate", "save"):
        doc, error = _parse_policy_text(text)
        if error:
            extra["error"] = error
        elif action == "validate":
            extra["notice"] = "the policy is valid" + (" (empty: the default policy)" if doc is None else "")
        else:
            try:
                services.set_policy(cluster, doc)
            except kube.DocumentError as exc:
                extra["error"] = str(exc)
            else:
                cluster.refresh_from_db()
                named = (doc or {}).get("schedulerName")
                if named and named != "default-scheduler":
                    extra["notice"] = f'policy saved for the scheduler "{named}" (pods with schedulerName: {named})'
                else:
                    extra["notice"] = "policy saved" if doc is not None else "policy reset to the default"
    elif action == "compare":
        extra["comparison"] = _compare(cluster, request.POST.get("a", "current"), request.POST.get("b", "edited"), text)
        extra["compare_a"] = request.POST.get("a", "current")
        extra["compare_b"] = request.POST.get("b", "edited")
    else:
        return HttpResponse("unknown action", status=400)
    context = policy_context(request, cluster, **extra)
    status = 422 if extra.get("error") or (extra.get("comparison") or {}).get("error") else 200
    if request.htmx:
        return render(request, "scheduling/policy.html#policy-main", context, status=_error_status(request, status))
    return render(request, "scheduling/policy.html", context, status=status)


def _choice_policy(cluster: Cluster, choice: str, text: str):
    """(label, policy document or None, error)."""
    if choice == "current":
        return "this cluster's policy", cluster.policy, ""
    if choice == "edited":
        doc, error = _parse_policy_text(text)
        return "the edited policy", doc, error
    if choice.startswith("sample:") and choice[7:] in SAMPLE_POLICIES:
        return f"sample {choice[7:]}", SAMPLE_POLICIES[choice[7:]], ""
    return choice, None, f"unknown policy choice {choice!r}"


def _compare(cluster: Cluster, a: str, b: str, text: str) -> dict:
    import random

    from .engine.scheduler import last_results, run_queue

    label_a, doc_a, err_a = _choice_policy(cluster, a, text)
    label_b, doc_b, err_b = _choice_policy(cluster, b, text)
    if err_a or err_b:
        return {"error": err_a or err_b}
    base = cluster_state(cluster)
    outcomes = []
    for doc in (doc_a, doc_b):
        policy = load_policy(doc)
        state = whatif.copy_state(base)
        results = run_queue(state, policy, random.Random(cluster.seed), cluster.preemption_enabled, now=cluster.now, explain=False)
        outcomes.append(last_results(results))
    rows = []
    for key in dict.fromkeys(list(outcomes[0]) + list(outcomes[1])):
        ra, rb = outcomes[0].get(key), outcomes[1].get(key)
        rows.append({
            "pod": key,
            "a": ra.node if ra else None, "a_message": (ra.message if ra and ra.node is None else ""),
            "b": rb.node if rb else None, "b_message": (rb.message if rb and rb.node is None else ""),
            "differs": (ra.node if ra else None) != (rb.node if rb else None),
        })
    return {"label_a": label_a, "label_b": label_b, "rows": rows}
