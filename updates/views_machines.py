"""The Machine API pages: MachineSets, Machines and MachineHealthChecks of a cluster with
their phases, conditions and nodes; a machine's deletion drawn as the lifecycle hooks documentation's flow with the
current step lit and the lifecycle hooks holding it; "act as owner" buttons that remove a
hook (how an owner says its work is done) or add one; deleting a machine and scaling a
MachineSet, each previewed first; the etcd quorum (the etcd-quorum-guard's state) while
control-plane machines are replaced; a MachineSet's page, whose template edit form
previews the edit before it is applied.

Every preview (updates/machine_previews.py) is the engine's loop run on a copy of the
cluster from its clock: the change applied as the write would be, then the controllers
until nothing more happens; the page tells what the loop did (machines, nodes, pods,
refused evictions). Previews write nothing, so viewers may preview too.

Writes go through scheduling.store.services (compare-and-swap on the object's resource
version, events, reconcile); the documents they write come from the engine's own helpers
(scheduling.engine.openshift.machine_api), so the dashboard, `oc` and the controllers change machines
the same way. Pages stay live through the cluster's websocket: after a committed change of
the kinds they show (MACHINE_KINDS), the broadcast pushes their live fragments, rendered
once for every viewer by `machine_fragments` (registered as the "machines" fragment in
UpdatesConfig.ready()): the machines board, each MachineSet's board and each Machine's
deletion flow, out of band by a stable id, swapped by the htmx ws extension. A fragment
holds nothing per viewer: its editor buttons post through forms of the page, and the page
shows them to editors only.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from scheduling.pages import forms, previews
from scheduling.store import kube, services
from scheduling.engine.api.objects import TAINT_EFFECTS
from scheduling.engine.store import Store
from scheduling.models import KIND_MODELS, Cluster, Event
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.store.state import controllers_state
from scheduling.pages.views.common import error_status, page_urls

from . import machine_previews
from scheduling.engine.openshift import etcd_quorum
from scheduling.engine.openshift import machine_api as M
from scheduling.engine.openshift import template_rollout
from scheduling.engine.openshift.machine_printers import machine_health_checks, machine_sets, machines

PAGE = "updates/machines.html"
MACHINE_PAGE = "updates/machine.html"
MACHINESET_PAGE = "updates/machineset.html"


def _docs(cluster: Cluster, kind: str) -> list[dict]:
    return [o.document for o in KIND_MODELS[kind].objects.filter(cluster=cluster).order_by("namespace", "name")]


def _condition_cells(doc: dict) -> list[dict]:
    out = []
    for type_ in (M.DRAINABLE, M.DRAINED, M.TERMINABLE):
        c = M.condition(doc, type_)
        if c is not None:
            out.append({"type": type_, "status": c.get("status"), "reason": c.get("reason") or "", "message": c.get("message") or "",
                        "severity": c.get("severity") or ""})
    return out


def _can_edit(request) -> bool:
    return request is not None and can_edit(request.user)


def machines_context(request, cluster: Cluster) -> dict:
    sets = _docs(cluster, "MachineSet")
    machine_docs = _docs(cluster, "Machine")
    nodes = {o.name for o in KIND_MODELS["Node"].objects.filter(cluster=cluster)}
    set_headers, set_rows = machine_sets(sets, cluster.now, False)
    machine_headers, machine_rows = machines(machine_docs, cluster.now, True)
    mhc_headers, mhc_rows = machine_health_checks(_docs(cluster, "MachineHealthCheck"), cluster.now, False)
    quorum = etcd_quorum.quorum(controllers_state(cluster).get(etcd_quorum.CONTROLLER) or {})
    return {
        "cluster": cluster,
        "can_edit": _can_edit(request),
        "machinesets": [
            {"doc": d, "row": row, "name": M.name_of(d), "namespace": M.ns_of(d),
             "taints": ((d.get("spec") or {}).get("template") or {}).get("spec", {}).get("taints") or [],
             "policy": (d.get("spec") or {}).get("deletePolicy") or "Random"}
            for d, row in zip(sets, set_rows)
        ],
        "machineset_headers": set_headers,
        "machines": [
            {"doc": d, "row": row, "name": M.name_of(d), "namespace": M.ns_of(d), "phase": M.phase_of(d),
             "node": M.node_name_of(d), "node_exists": M.node_name_of(d) in nodes, "conditions": _condition_cells(d),
             "hooks": {p: M.hooks_of(d, p) for p in M.HOOK_POINTS}, "step": M.deletion_step(d)}
            for d, row in zip(machine_docs, machine_rows)
        ],
        "machine_headers": machine_headers,
        "mhc_headers": mhc_headers,
        "mhc_rows": mhc_rows,
        "quorum": quorum if quorum["members"] else None,
    }


@require_GET
def machines_page(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    context = machines_context(request, cluster)
    if request.htmx:
        return render(request, f"{PAGE}#machines-board", context)
    return render(request, PAGE, context)


def machine_context(request, cluster: Cluster, namespace: str, name: str) -> dict:
    obj = KIND_MODELS["Machine"].objects.filter(cluster=cluster, namespace=namespace, name=name).first()
    doc = obj.document if obj is not None else None
    step = M.deletion_step(doc)
    drained = M.condition(doc, M.DRAINED) if doc else None
    events = Event.objects.filter(cluster=cluster, involved_kind="Machine", involved_namespace=namespace,
                                  involved_name=name).order_by("first_time", "id")
    quorum = etcd_quorum.quorum(controllers_state(cluster).get(etcd_quorum.CONTROLLER) or {})
    return {
        "cluster": cluster,
        "can_edit": _can_edit(request),
        "namespace": namespace,
        "name": name,
        "doc": doc,
        "version": obj.resource_version if obj is not None else None,
        "phase": M.phase_of(doc) if doc else "",
        "node": M.node_name_of(doc) if doc else "",
        "conditions": (doc.get("status") or {}).get("conditions") or [] if doc else [],
        "hooks": [(p, M.hooks_of(doc, p)) for p in M.HOOK_POINTS] if doc else [],
        "steps": [{"number": i, "text": t, "state": "done" if i < step else "current" if i == step else "todo"}
                  for i, t in enumerate(M.DELETION_STEPS, start=1)],
        "step": step,
        "drain_failed": bool(drained and drained.get("status") == "False"),
        "drain_message": (drained or {}).get("message") or "",
        "events": events,
        "quorum": quorum if quorum["members"] and doc is not None and M.is_control_plane(doc) else None,
        "points": M.HOOK_POINTS,
    }


@require_GET
def machine_page(request, pk: int, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    context = machine_context(request, cluster, namespace, name)
    if request.htmx:
        return render(request, f"{MACHINE_PAGE}#machine-flow", context)
    if context["doc"] is None and not context["events"]:
        return HttpResponse(f'machines.machine.openshift.io "{name}" not found', status=404)
    return render(request, MACHINE_PAGE, context)


def _update(request, cluster: Cluster, kind: str, namespace: str, name: str, change) -> bool:
    """Read the object, `change(doc)` -> the new document (None: nothing to do), write it
    with a compare-and-swap; a write that lost the race (a controller updated the status
    meanwhile) is tried again on the fresh object, as an owner's controller would.
    False: the object is gone."""
    for _ in range(5):
        obj = KIND_MODELS[kind].objects.filter(cluster=cluster, namespace=namespace, name=name).first()
        if obj is None:
            return False
        doc = change(obj.document)
        if doc is None:
            return True
        try:
            services.replace_object(cluster, doc, expected_version=obj.resource_version)
            return True
        except services.Conflict:
            continue
    messages.error(request, f"{kind} {name} kept changing: look again and retry.")
    return True


def _machine_response(request, cluster: Cluster, namespace: str, name: str):
    if request.htmx:
        return render(request, f"{MACHINE_PAGE}#machine-flow", machine_context(request, cluster, namespace, name))
    return redirect("machine-detail", pk=cluster.pk, namespace=namespace, name=name)


@require_POST
def hook_action(request, pk: int, namespace: str, name: str):
    """Act as a hook's owner: remove the hook (its work is done) or add one."""
    cluster = get_cluster_for_user(request, pk, write=True)
    point = request.POST.get("point", "")
    hook = request.POST.get("hook", "").strip()
    owner = request.POST.get("owner", "").strip()
    adding = request.POST.get("op") == "add"
    if point not in M.HOOK_POINTS or not hook:
        return HttpResponse("choose preDrain or preTerminate and name the hook", status=400)
    if adding and not owner:
        return HttpResponse("a hook needs an owner", status=400)

    def change(doc: dict) -> dict | None:
        action = M.add_hook(doc, point, hook, owner) if adding else M.remove_hook(doc, point, hook)
        return None if action is None else dict(action.doc)

    if not _update(request, cluster, "Machine", namespace, name, change):
        return HttpResponse(f'machines.machine.openshift.io "{name}" not found', status=404)
    return _machine_response(request, cluster, namespace, name)


@require_POST
def machine_delete(request, pk: int, namespace: str, name: str):
    """`oc delete machine`: with its finalizer the machine is only marked (Deleting)."""
    cluster = get_cluster_for_user(request, pk, write=True)
    obj = KIND_MODELS["Machine"].objects.filter(cluster=cluster, namespace=namespace, name=name).first()
    if obj is None:
        return HttpResponse(f'machines.machine.openshift.io "{name}" not found', status=404)
    if not (obj.document.get("metadata") or {}).get("finalizers"):
        services.delete_object(cluster, "Machine", name, namespace)
        return _machine_response(request, cluster, namespace, name)

    def change(doc: dict) -> dict | None:
        marked = [a for a in M.request_deletion(Store([doc]), namespace, name, cluster.now) if getattr(a, "doc", None) is not None]
        return dict(marked[0].doc) if marked else None

    _update(request, cluster, "Machine", namespace, name, change)
    if request.htmx and request.POST.get("page") == "preview":
        return render(request, f"{MACHINE_PAGE}#delete-preview", {"cluster": cluster, "namespace": namespace, "name": name,
                                                                 "applied": f'machine.machine.openshift.io "{name}" deleted'})
    return _machine_response(request, cluster, namespace, name)


@require_POST
def machine_delete_preview(request, pk: int, namespace: str, name: str):
    """What deleting the machine does: the loop on a copy, from the clock on."""
    cluster = get_cluster_for_user(request, pk)
    context = {"cluster": cluster, "can_edit": can_edit(request.user), "namespace": namespace, "name": name,
               **page_urls(cluster)}
    try:
        step = machine_previews.preview_machine_delete(cluster, namespace, name)
    except machine_previews.PreviewRefused as exc:
        return render(request, f"{MACHINE_PAGE}#delete-preview", {**context, "error": str(exc)},
                      status=error_status(request, 422))
    return render(request, f"{MACHINE_PAGE}#delete-preview", {**context, "step": step})


@require_POST
def machineset_scale(request, pk: int, namespace: str, name: str):
    """`oc scale --replicas=N machineset X`."""
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        replicas = int(request.POST.get("replicas", ""))
    except ValueError:
        replicas = -1
    if replicas < 0:
        return HttpResponse("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0", status=400)

    def change(doc: dict) -> dict:
        return {**doc, "spec": {**(doc.get("spec") or {}), "replicas": replicas}}

    if not _update(request, cluster, "MachineSet", namespace, name, change):
        return HttpResponse(f'machinesets.machine.openshift.io "{name}" not found', status=404)
    if request.htmx and request.POST.get("page") == "preview":
        return render(request, f"{PAGE}#scale-preview", {"cluster": cluster, "namespace": namespace, "name": name,
                                                         "applied": f"machineset.machine.openshift.io/{name} scaled"})
    if request.POST.get("page") == "machineset":
        if request.htmx:
            return render(request, f"{MACHINESET_PAGE}#machineset-board", machineset_context(request, cluster, namespace, name))
        return redirect("machineset-detail", pk=cluster.pk, namespace=namespace, name=name)
    if request.htmx:
        return render(request, f"{PAGE}#machines-board", machines_context(request, cluster))
    return redirect(reverse("machines", args=[cluster.pk]))


@require_POST
def machineset_scale_preview(request, pk: int, namespace: str, name: str):
    """What `oc scale --replicas=N machineset X` does: the loop on a copy, from the clock on,
    until nothing more happens (the new machines provisioned and their nodes joined)."""
    cluster = get_cluster_for_user(request, pk)
    _machineset_or_404(cluster, namespace, name)
    context = {"cluster": cluster, "can_edit": can_edit(request.user), "namespace": namespace, "name": name,
               "board": "#machineset-board" if request.POST.get("page") == "machineset" else "#machines-board",
               **page_urls(cluster)}
    try:
        replicas = int(request.POST.get("replicas", ""))
    except ValueError:
        replicas = -1
    if replicas < 0:
        return render(request, f"{PAGE}#scale-preview", {**context, "error": "The --replicas=COUNT flag is required, and COUNT "
                                                         "must be greater than or equal to 0"}, status=error_status(request, 400))
    try:
        step = machine_previews.preview_scale(cluster, namespace, name, replicas)
    except machine_previews.PreviewRefused as exc:
        return render(request, f"{PAGE}#scale-preview", {**context, "error": str(exc)}, status=error_status(request, 422))
    return render(request, f"{PAGE}#scale-preview", {**context, "step": step, "replicas": replicas})


# --- a MachineSet and its template ---------------------------------------------------------------------


def _machineset_or_404(cluster: Cluster, namespace: str, name: str):
    obj = KIND_MODELS["MachineSet"].objects.filter(cluster=cluster, namespace=namespace, name=name).first()
    if obj is None:
        raise Http404(f'machinesets.machine.openshift.io "{name}" not found')
    return obj


def machineset_context(request, cluster: Cluster, namespace: str, name: str, obj=None) -> dict:
    obj = obj or _machineset_or_404(cluster, namespace, name)
    doc = obj.document
    store = Store([doc, *_docs(cluster, "Machine"), *_docs(cluster, "Node")])
    headers, (row,) = machine_sets([doc], cluster.now, False)
    return {
        "cluster": cluster, "can_edit": _can_edit(request), "namespace": namespace, "name": name, "doc": doc,
        "headers": headers, "row": row, "template_taints": template_rollout.taint_texts(template_rollout.template_taints(doc)),
        "machines": template_rollout.existing_machines(store, doc),
        "instance_type": template_rollout.template_instance_type(doc),
        "policy": (doc.get("spec") or {}).get("deletePolicy") or "Random",
        "replicas": (doc.get("spec") or {}).get("replicas", 1),
        "yaml": kube.dump_documents([previews.editable(doc)]),
        "effects": TAINT_EFFECTS,
    }


@require_GET
def machineset_page(request, pk: int, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    context = machineset_context(request, cluster, namespace, name)
    if request.htmx:
        return render(request, f"{MACHINESET_PAGE}#machineset-board", context)
    return render(request, MACHINESET_PAGE, context)


@require_POST
def machineset_preview(request, pk: int, namespace: str, name: str):
    """What a template edit does: nothing to the existing nodes; then, scaled to 0 and back
    on the same copy of the loop, where each pod goes. Nothing is written (viewers may
    preview too)."""
    cluster = get_cluster_for_user(request, pk)
    obj = _machineset_or_404(cluster, namespace, name)
    context = {"cluster": cluster, "can_edit": can_edit(request.user), "namespace": namespace, "name": name, **page_urls(cluster)}
    try:
        result = machine_previews.preview_template(cluster, obj, request.POST.get("op", ""), request.POST)
    except (machine_previews.EditError, machine_previews.PreviewRefused, kube.DocumentError) as exc:
        return render(request, f"{MACHINESET_PAGE}#template-preview", {**context, "error": str(exc)},
                      status=error_status(request, 422))
    apply_form = forms.ApplyForm(initial={"document": json.dumps(result.doc, sort_keys=True),
                                          "resource_version": result.resource_version, "verb": "edited"})
    return render(request, f"{MACHINESET_PAGE}#template-preview", {**context, "p": result, "apply_form": apply_form})


@require_POST
def machineset_apply(request, pk: int, namespace: str, name: str):
    """Write the previewed MachineSet: a compare-and-swap on the version previewed."""
    cluster = get_cluster_for_user(request, pk, write=True)
    context = {"cluster": cluster, "namespace": namespace, "name": name}

    def refused(error: str, status: int, conflict: bool = False):
        return render(request, f"{MACHINESET_PAGE}#template-applied", {**context, "error": error, "conflict": conflict},
                      status=error_status(request, status))

    form = forms.ApplyForm(request.POST)
    if not form.is_valid():
        return refused("the preview was incomplete; preview the change again", 400)
    try:
        doc = machine_previews.previewed_document(form.cleaned_data["document"], namespace, name)
    except (machine_previews.EditError, kube.DocumentError) as exc:
        return refused(str(exc), 422)
    try:
        services.replace_object(cluster, doc, expected_version=form.cleaned_data["resource_version"])
    except services.StoreError as exc:
        return refused(str(exc), 409, conflict=isinstance(exc, services.Conflict))
    return render(request, f"{MACHINESET_PAGE}#template-applied", {
        **context, "message": f"machineset.machine.openshift.io/{name} edited",
        "template_taints": template_rollout.taint_texts(template_rollout.template_taints(doc)),
        "replicas": (doc.get("spec") or {}).get("replicas", 1),
    })


# --- the live fragments, pushed by the broadcast --------------------------------------------------------

# The kinds the machine pages show: a change of one of them re-renders their fragments
# ("Cluster": the clock, the ages and the etcd quorum; "Event": a machine's events).
MACHINE_KINDS = frozenset({"Machine", "MachineSet", "MachineHealthCheck", "Node", "Pod", "Event", "Cluster"})


def machine_fragments(cluster: Cluster, kinds=frozenset(), deleted: tuple[tuple[str, str], ...] = ()) -> str:
    """The machine pages' live fragments, out of band, rendered once for every viewer: the
    machines board, every MachineSet's board (id machineset-board-<ns>-<name>) and every
    Machine's deletion flow (id machine-flow-<ns>-<name>; `deleted`: (namespace, name) of
    machines gone in this batch, whose pages now show "Deleted"). Empty for a cluster
    without Machine API objects, or when none of MACHINE_KINDS changed."""
    if kinds and not set(kinds) & MACHINE_KINDS:
        return ""
    sets = list(KIND_MODELS["MachineSet"].objects.filter(cluster=cluster).order_by("namespace", "name"))
    machine_names = list(KIND_MODELS["Machine"].objects.filter(cluster=cluster).order_by("namespace", "name")
                         .values_list("namespace", "name"))
    if not sets and not machine_names and not deleted \
            and not KIND_MODELS["MachineHealthCheck"].objects.filter(cluster=cluster).exists():
        return ""
    parts = [render_to_string(f"{PAGE}#machines-board", {**machines_context(None, cluster), "oob": True})]
    for obj in sets:
        parts.append(render_to_string(f"{MACHINESET_PAGE}#machineset-board",
                                      {**machineset_context(None, cluster, obj.namespace, obj.name, obj=obj), "oob": True}))
    for namespace, name in dict.fromkeys([*machine_names, *deleted]):
        parts.append(render_to_string(f"{MACHINE_PAGE}#machine-flow",
                                      {**machine_context(None, cluster, namespace, name), "oob": True}))
    return "".join(parts)
