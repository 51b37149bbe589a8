"""The cluster list: create, import, load a built-in scenario, fork, delete, export."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from scheduling.engine.scenarios import SCENARIOS

from scheduling.pages import forms
from scheduling.store import imports, kube, services
from scheduling.models import Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user, require_editor
from scheduling.pages.views import imports as import_views
from scheduling.pages.views.common import form_errors


def _list_context(request, **extra) -> dict:
    return {
        "clusters": Cluster.objects.all(),
        "can_edit": can_edit(request.user),
        "create_form": forms.ClusterForm(),
        "import_form": forms.ImportForm(),
        "scenarios": SCENARIOS,
        "scripted": services.scripted_scenarios(),
        **extra,
    }


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


@require_GET
def cluster_list(request):
    return render(request, "scheduling/cluster_list.html", _list_context(request))


@require_POST
def scenario_load(request, name: str):
    require_editor(request)
    try:
        cluster = services.load_scenario(name, script=request.POST.get("script") != "off")
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
    if not form.is_valid():
        return _form_error(request, "import-form", import_form=form)
    data, replace = form.cleaned_data, form.replaces()
    if not replace and Cluster.objects.filter(name=data["name"]).exists():
        return _offer_replace(request, form)
    if imports.runs_in_background(data["text"]):
        job = imports.start(data["name"], data["text"], data["source"], data["description"], request.user.pk, replace=replace)
        return import_views.started(request, job)
    try:
        cluster = services.import_new_cluster(data["name"], data["text"], data["source"], description=data["description"],
                                              replace=replace)
    except (kube.DocumentError, services.StoreError) as exc:
        form.add_error(None, str(exc))
        return _form_error(request, "import-form", import_form=form)
    return _to_cluster(request, cluster)


def _offer_replace(request, form: forms.ImportForm):
    """The name is taken: nothing is imported, and the form comes back with the text (an
    uploaded file's too, so it need not be chosen again) and a "Replace cluster <name>" button,
    the explicit confirmation."""
    name = form.cleaned_data["name"]
    data = request.POST.copy()
    data["text"] = form.cleaned_data["text"]
    again = forms.ImportForm(data)
    again.is_valid()
    again.add_error(None, f'a cluster named "{name}" already exists. To replace its contents with this import, press '
                          f'"Replace cluster {name}": its objects, events, history and training sessions are deleted.')
    return _form_error(request, "import-form", import_form=again, replace_offer=name)


@require_POST
def cluster_fork(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    name = (request.POST.get("name") or "").strip() or f"{cluster.name}-fork"
    form = forms.ClusterForm({"name": name, "description": cluster.description, "seed": cluster.seed})
    if not form.is_valid():
        messages.error(request, form_errors(form))
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
