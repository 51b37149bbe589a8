"""The Descheduler page: edit the DeschedulerPolicy (YAML, validated; the documentation's samples
one click away), Preview (the dry run: what would be evicted, by which strategy and why,
and where each pod would land; the nodes' utilisation against the thresholds as bars)
and, for editors, Save and Run (the controller runs once per request, at the cluster's
current time; the evictions reach the board like every other change)."""

from __future__ import annotations

from django import forms
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

import yaml

from scheduling.store import kube, services
from scheduling.engine.controllers.descheduler import (
    NAME,
    DeschedulerPolicyError,
    Flags,
    check_flags,
    load_policy,
    node_usages,
    preview,
)
from scheduling.engine.controllers.descheduler_strategies.common import (
    CRITICAL_POD_ANNOTATION,
    LOW_NODE_UTILIZATION,
    NAMESPACE_SYSTEM,
    STRATEGY_NAMES,
)
from scheduling.engine.controllers.descheduler_strategies.samples import SAMPLES
from scheduling.engine.scheduler.policy import schedulers_for
from scheduling.engine.store import Store
from scheduling.models import Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.store.state import cluster_documents

DEFAULT_SAMPLE = next(iter(SAMPLES))
RESOURCES = ("cpu", "memory", "pods")


class DeschedulerForm(forms.Form):
    policy = forms.CharField(required=False, label="DeschedulerPolicy (YAML)",
                             widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "code"}))
    interval = forms.FloatField(required=False, min_value=1, label="Run every (simulated seconds; empty: once)")
    max_pods_to_evict_per_node = forms.IntegerField(required=False, min_value=0, label="--max-pods-to-evict-per-node")
    node_selector = forms.CharField(required=False, label="--node-selector")
    dry_run = forms.BooleanField(required=False, label="--dry-run")


def _initial(cluster: Cluster) -> dict:
    config = cluster.descheduler or {}
    flags = Flags.from_doc(config.get("flags"))
    policy = config.get("policy")
    return {
        "policy": yaml.safe_dump(policy, sort_keys=False, default_flow_style=False) if policy else SAMPLES[DEFAULT_SAMPLE],
        "interval": config.get("interval"),
        "max_pods_to_evict_per_node": flags.max_pods_to_evict_per_node,
        "node_selector": flags.node_selector,
        "dry_run": flags.dry_run,
    }


def parse_policy(text: str) -> dict:
    """The editor's YAML as a checked DeschedulerPolicy document; raises DeschedulerPolicyError."""
    try:
        doc = kube.parse_value(text or "", source="", what="the DeschedulerPolicy")  # the one YAML error message
    except kube.DocumentError as exc:
        raise DeschedulerPolicyError(str(exc)) from None
    policy = load_policy(doc)
    unknown = [name for name in policy.strategies if name not in STRATEGY_NAMES]
    if unknown:
        # The 3.11 binary runs its four strategies by name and never looks at any other
        # entry, so a misspelt one is silently off; later descheduler releases skip it
        # with "unknown strategy name". The page refuses it instead of saving a policy
        # that does nothing.
        raise DeschedulerPolicyError("\n".join(
            f'strategies.{name}: unknown strategy name "{name}": the descheduler skips it; '
            f"the strategies are {', '.join(STRATEGY_NAMES)}" for name in unknown
        ))
    return doc


def _flags(form: DeschedulerForm) -> Flags:
    data = form.cleaned_data
    return Flags(int(data.get("max_pods_to_evict_per_node") or 0), data.get("node_selector") or "", bool(data.get("dry_run")))


def _bars(usage, thresholds, targets) -> list[dict]:
    rows = []
    for u in usage:
        bars = []
        for r in RESOURCES:
            value = u.usage.get(r)
            finite = value is not None and value == value and value not in (float("inf"), float("-inf"))
            bars.append({
                "label": r,
                "percent": round(value, 1) if finite else None,
                "width": max(0.0, min(100.0, value)) if finite else 0,
                "low": (thresholds or {}).get(r),
                "target": (targets or {}).get(r),
                "over": finite and r in (targets or {}) and value > targets[r],
            })
        rows.append({"node": u.node.name, "classification": u.classification if thresholds is not None else "", "bars": bars})
    return rows


def _preview(cluster: Cluster, doc: dict, flags: Flags) -> dict:
    store = Store(cluster_documents(cluster))
    policy = load_policy(doc)
    schedulers = schedulers_for([cluster.policy, *(cluster.scheduler_policies or {}).values()])
    result = preview(store, cluster.now, policy, flags, schedulers=schedulers, seed=cluster.seed,
                     preemption=cluster.preemption_enabled)
    t = policy.strategy(LOW_NODE_UTILIZATION).thresholds
    valid = policy.strategy(LOW_NODE_UTILIZATION).enabled and t.thresholds and t.target_thresholds is not None
    return {
        **result.to_doc(),
        "bars": _bars(node_usages(store, policy, flags), t.thresholds if valid else None, t.target_thresholds if valid else None),
    }


def page_context(request, cluster: Cluster, form: DeschedulerForm | None = None, **extra) -> dict:
    state = ((cluster.controller_state or {}).get("controllers") or {}).get(NAME) or {}
    return {
        "cluster": cluster,
        "can_edit": can_edit(request.user),
        "form": form or DeschedulerForm(initial=_initial(cluster)),
        "samples": list(SAMPLES),
        "configured": bool((cluster.descheduler or {}).get("policy")),
        "last_report": state.get("lastReport"),
        "strategy_names": STRATEGY_NAMES,
        "critical_annotation": CRITICAL_POD_ANNOTATION,
        "system_namespace": NAMESPACE_SYSTEM,
        **extra,
    }


def _render(request, cluster: Cluster, **ctx) -> HttpResponse:
    template = "scheduling/descheduler.html#descheduler-main" if request.htmx else "scheduling/descheduler.html"
    return render(request, template, page_context(request, cluster, **ctx))


@require_GET
def descheduler_page(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    return render(request, "scheduling/descheduler.html", page_context(request, cluster))


@require_POST
def descheduler_action(request, pk: int):
    action = request.POST.get("action", "validate")
    cluster = get_cluster_for_user(request, pk, write=action in ("save", "run", "remove"))
    if action.startswith("sample:"):
        name = action.split(":", 1)[1]
        if name not in SAMPLES:
            raise Http404("no such sample")
        data = request.POST.copy()
        data["policy"] = SAMPLES[name]
        form = DeschedulerForm(data)
        form.is_valid()
        return _render(request, cluster, form=form, notice=f'sample "{name}" loaded into the editor: preview it, save it or run it')
    if action == "remove":
        services.set_descheduler(cluster, None, None, {})
        return _render(request, cluster, form=DeschedulerForm(initial=_initial(cluster)), notice="the descheduler is removed")
    form = DeschedulerForm(request.POST)
    if not form.is_valid():
        return _render(request, cluster, form=form, error="; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    flags = _flags(form)
    try:
        doc = parse_policy(form.cleaned_data.get("policy") or "")
        check_flags(flags)
    except DeschedulerPolicyError as exc:
        return _render(request, cluster, form=form, error=str(exc))
    if action == "validate":
        return _render(request, cluster, form=form, notice="the DeschedulerPolicy is valid")
    if action == "preview":
        return _render(request, cluster, form=form, preview=_preview(cluster, doc, flags))
    if action in ("save", "run"):
        services.set_descheduler(cluster, doc, form.cleaned_data.get("interval"), flags.to_doc(), run=action == "run")
        cluster.refresh_from_db()
        notice = ("run requested: the descheduler runs at the cluster's current time; the evictions appear on the board"
                  if action == "run" else "descheduler saved" + ("" if (cluster.descheduler or {}).get("interval") else ": it runs once"))
        return _render(request, cluster, form=form, notice=notice)
    return HttpResponse("unknown action", status=400)
