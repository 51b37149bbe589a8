"""Pages. A view parses, calls services, renders; access checks raise PermissionDenied."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from . import forms, kube, services
from .models import KIND_MODELS, Cluster
from .permissions import can_edit, get_cluster_for_user, require_editor


def _list_context(request, **extra) -> dict:
    return {
        "clusters": Cluster.objects.all(),
        "can_edit": can_edit(request.user),
        "create_form": forms.ClusterForm(),
        "import_form": forms.ImportForm(),
        **extra,
    }


@require_GET
def cluster_list(request):
    return render(request, "scheduling/cluster_list.html", _list_context(request))


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
    return {"cluster": cluster, "counts": counts, "pod_phases": sorted(pods.items())}


@require_GET
def cluster_detail(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    return render(
        request,
        "scheduling/cluster_detail.html",
        {**cluster_summary_context(cluster), "can_edit": can_edit(request.user)},
    )


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
