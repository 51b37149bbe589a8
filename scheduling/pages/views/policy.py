"""The scheduler policy page: validate, save, compare two policies (previews.py does the
comparison), load a sample; and the admission plugins and preemption switches."""

from __future__ import annotations

import json

import yaml
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from scheduling.engine.api.admission import PLUGIN_NAMES as ADMISSION_PLUGIN_NAMES
from scheduling.engine.api.validation import field
from scheduling.engine.scheduler.policy import DEFAULT_POLICY_DOC

from scheduling.pages import explain, forms, previews
from scheduling.store import kube, services
from scheduling.models import Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.pages.views.common import error_status
from scheduling.pages.views.node_selection import node_selection_context

TEMPLATE = "scheduling/policy.html"


def _policy_text(doc) -> str:
    return json.dumps(doc, indent=2) if doc is not None else ""


def policy_context(request, cluster: Cluster, **extra) -> dict:
    current = cluster.policy
    scheduler = explain.cluster_policy(cluster)
    framework = explain.is_framework(scheduler)
    shown = current if current is not None else (scheduler.to_doc() if framework else DEFAULT_POLICY_DOC)
    samples = previews.samples_for(cluster)
    return {
        "framework": framework,
        "cluster": cluster,
        "can_edit": can_edit(request.user),
        "is_default": current is None,
        "policy_json": json.dumps(shown, indent=2),
        "policy_yaml": yaml.safe_dump(shown, sort_keys=False, default_flow_style=False),
        "form": forms.PolicyForm(initial={"text": _policy_text(current)}),
        "samples": list(samples),
        "admission_plugins": [(n, (cluster.admission or {}).get(n, True)) for n in ADMISSION_PLUGIN_NAMES],
        "compare_choices": [("current", "this cluster's policy"), ("edited", "the text in the editor")]
        + [(f"sample:{n}", f"sample: {n}") for n in samples],
        **node_selection_context(cluster),
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
    return render(request, TEMPLATE, policy_context(request, cluster))


def _load_sample(cluster: Cluster, name: str) -> dict:
    samples = previews.samples_for(cluster)
    if name not in samples:
        raise Http404("no such sample policy")
    form = forms.PolicyForm(initial={"text": json.dumps(samples[name], indent=2)})
    return {"form": form, "notice": f'sample policy "{name}" loaded into the editor: validate, compare or save it'}


def _validate_or_save(cluster: Cluster, action: str, text: str, extra: dict, scheduler_name: str = "") -> None:
    doc, error = previews.parse_policy_text(text)
    bad_name = field.is_dns1123_subdomain(scheduler_name) if scheduler_name else []
    if not error and bad_name:
        error = f'schedulerName: Invalid value: "{scheduler_name}": {bad_name[0]}'
    if error:
        extra["error"] = error
    elif action == "validate":
        extra["notice"] = "the policy is valid" + (" (empty: the default policy)" if doc is None else "")
    else:
        try:
            services.set_policy(cluster, doc, scheduler_name or None)
        except kube.DocumentError as exc:
            extra["error"] = str(exc)
            return
        cluster.refresh_from_db()
        named = (doc or {}).get("schedulerName") or (scheduler_name if doc and doc.get("kind") == "Policy" else "")
        if named and named != "default-scheduler":
            extra["notice"] = f'policy saved for the scheduler "{named}" (pods with schedulerName: {named})'
        else:
            extra["notice"] = "policy saved" if doc is not None else "policy reset to the default"


@require_POST
def policy_action(request, pk: int):
    action = request.POST.get("action", "validate")
    cluster = get_cluster_for_user(request, pk, write=action == "save")
    form = forms.PolicyForm(request.POST)
    form.is_valid()
    text = form.cleaned_data.get("text", "")
    extra: dict = {"form": form}
    if action.startswith("sample:"):
        extra = _load_sample(cluster, action.split(":", 1)[1])
    elif action in ("validate", "save"):
        _validate_or_save(cluster, action, text, extra, (request.POST.get("scheduler_name") or "").strip())
    elif action == "compare":
        a, b = request.POST.get("a", "current"), request.POST.get("b", "edited")
        extra.update(comparison=previews.compare_policies(cluster, a, b, text), compare_a=a, compare_b=b)
    else:
        return HttpResponse("unknown action", status=400)
    context = policy_context(request, cluster, **extra)
    status = 422 if extra.get("error") or (extra.get("comparison") or {}).get("error") else 200
    if request.htmx:
        return render(request, f"{TEMPLATE}#policy-main", context, status=error_status(request, status))
    return render(request, TEMPLATE, context, status=status)
