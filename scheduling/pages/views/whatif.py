"""Previews of an edit (computed by previews.py on copies) and apply, a compare-and-swap on
the version the preview was made from."""

from __future__ import annotations


from django.db import transaction
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from scheduling.pages import forms, previews
from scheduling.store import kube, services
from scheduling.store.merge import three_way
from scheduling.models import Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.pages.views.common import error_status, object_or_404, page_urls
from scheduling.pages.views.pod import workload_or_404

TEMPLATE = "scheduling/whatif.html"


def _preview(request, cluster: Cluster, obj):
    context = {"cluster": cluster, "obj": obj, "can_edit": can_edit(request.user), **page_urls(cluster)}
    try:
        result = previews.preview_edit(cluster, obj, request.POST.get("op", ""), request.POST)
    except (previews.EditError, kube.DocumentError) as exc:
        return render(request, f"{TEMPLATE}#preview", {**context, "error": str(exc)}, status=error_status(request, 422))
    apply_form = forms.ApplyForm(initial={
        "document": result.document_json, "resource_version": result.targets[0].resource_version, "verb": result.verb,
        "versions": result.versions if len(result.targets) > 1 else "",
        "verbs": result.verbs if len(result.targets) > 1 else "",
        "base": result.base_json,
    })
    return render(request, f"{TEMPLATE}#preview", {
        **context, "preview": result.preview, "summary": result.summary, "apply_form": apply_form, "diff": result.diff,
        "targets": result.targets,
    })


@require_POST
def node_preview(request, pk: int, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _preview(request, cluster, object_or_404(cluster, "Node", name))


@require_POST
def pod_preview(request, pk: int, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _preview(request, cluster, object_or_404(cluster, "Pod", name, namespace))


@require_POST
def controller_preview(request, pk: int, kind: str, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    return _preview(request, cluster, workload_or_404(cluster, kind, namespace, name))


CONFLICT_RETRIES = 10


def _bases(text: str, count: int) -> list[dict] | None:
    """The documents the previewed edit was made from (the apply form's `base`), or None."""
    if not text:
        return None
    try:
        value = kube.parse_value(text, "", "the previewed document")
    except kube.DocumentError:
        return None
    bases = [value] if isinstance(value, dict) else value
    if not isinstance(bases, list) or len(bases) != count or not all(isinstance(b, dict) for b in bases):
        return None
    return bases


def _reapplied(cluster: Cluster, bases: list[dict], edited: list[dict]) -> tuple[list[dict], list[int]]:
    """The edit (each base to its edited document) applied to each object's latest version:
    the documents to write and the versions they were made from."""
    docs, versions = [], []
    for base, doc in zip(bases, edited):
        meta = doc["metadata"]
        latest = services.get_object(cluster, doc["kind"], meta["name"], meta.get("namespace", ""))
        merged = previews.check(three_way(base, doc, latest.document))
        services.check_update_admission(cluster, merged)
        docs.append(merged)
        versions.append(latest.resource_version)
    return docs, versions


def _panel_url(cluster: Cluster, obj) -> str:
    if obj.KIND == "Node":
        return reverse("node-detail", args=[cluster.pk, obj.name])
    if obj.KIND == "Pod":
        return reverse("pod-detail", args=[cluster.pk, obj.namespace, obj.name])
    return reverse("controller-detail", args=[cluster.pk, obj.KIND, obj.namespace, obj.name])


@require_POST
def apply_edit(request, pk: int):
    """Commit a previewed edit: compare-and-swap on the version the preview was made from;
    when the object moved on meanwhile, the edit is applied again to its latest version
    (from the document it was made from: the form's `base`), as kubectl retries a conflict
    on a fresh read, so editors of different fields never refuse each other."""
    cluster = get_cluster_for_user(request, pk, write=True)
    form = forms.ApplyForm(request.POST)
    context = {"cluster": cluster, "can_edit": True, **page_urls(cluster)}

    def refused(error: str, status: int, **extra):
        return render(request, f"{TEMPLATE}#applied", {**context, "error": error, **extra}, status=error_status(request, status))

    if not form.is_valid():
        return refused("the preview was incomplete; preview the change again", 400)
    data = form.cleaned_data
    try:
        loaded = kube.parse_value(data["document"], "", "the previewed document")
        if isinstance(loaded, dict):
            docs, versions, verbs = [loaded], [data["resource_version"]], [data["verb"]]
        elif isinstance(loaded, list) and loaded and all(isinstance(d, dict) for d in loaded):
            docs = loaded
            versions = [int(v) for v in (data["versions"] or "").split(",") if v]
            verbs = (data["verbs"] or "").split(",")
            if len(versions) != len(docs) or len(verbs) != len(docs):
                raise ValueError("the preview was incomplete; preview the change again")
        else:
            raise ValueError
        docs = [previews.check(d) for d in docs]
        for d in docs:
            services.check_update_admission(cluster, d)
    except (ValueError, kube.DocumentError) as exc:
        return refused(str(exc) or "not a document", 422)
    bases = _bases(data.get("base") or "", len(docs))
    edited = docs
    for attempt in range(CONFLICT_RETRIES + 1):
        try:
            with transaction.atomic():  # all the previewed objects or none
                objs = [services.update_object(cluster, d, expected_version=v) for d, v in zip(docs, versions)]
            break
        except services.Invalid as exc:
            return refused(str(exc), 422)
        except services.Conflict as exc:
            if bases is None or attempt == CONFLICT_RETRIES:
                return refused(str(exc), 409, conflict=True)
            # someone wrote since the preview: the edit again on the latest versions, as the
            # API server applies kubectl's patch to the latest object
            try:
                docs, versions = _reapplied(cluster, bases, edited)
            except (services.StoreError, kube.DocumentError) as again:
                return refused(str(again), 409, conflict=True)
        except services.StoreError as exc:
            return refused(str(exc), 409)
    message = "\n".join(f"{d['kind'].lower()}/{d['metadata']['name']} {verb or 'replaced'}" for d, verb in zip(docs, verbs))
    return render(request, f"{TEMPLATE}#applied", {
        **context, "obj": objs[0], "message": message, "panel_url": _panel_url(cluster, objs[0]),
    })
