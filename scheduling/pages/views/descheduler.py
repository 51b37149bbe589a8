"""The Descheduler page: edit the DeschedulerPolicy (YAML, validated; the documentation's samples
one click away), Preview (the dry run: what would be evicted, by which strategy and why,
and where each pod would land; the nodes' utilisation against the thresholds as bars)
and, for editors, Save and Run (the controller runs once per request, at the cluster's
current time; the evictions reach the board like every other change).

On OpenShift 4 the descheduler is the operator's: the page composes the `KubeDescheduler`
object (a stored kind), previews its dry run and what applying it does (the cluster's loop
on a copy, as every change is previewed), and Apply writes it as the console does, with
`oc apply -f` (oc_cli.run_on_cluster). A KubeDescheduler in the editor is applied the same way."""

from __future__ import annotations

from django import forms
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

import yaml

from scheduling.pages import previews
from scheduling.store import kube, oc_cli, services
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
from scheduling.engine.framework.config import uses_framework
from scheduling.store.state import cluster_documents, cluster_schedulers, cluster_versions
from scheduling.engine.controllers.descheduler_v1alpha2 import is_v1alpha2, load_policy_v2, node_usage as v1alpha2_node_usage
from scheduling.engine.controllers.descheduler_v1alpha2 import operator as kube_operator

DEFAULT_SAMPLE = next(iter(SAMPLES))
RESOURCES = ("cpu", "memory", "pods")


class DeschedulerForm(forms.Form):
    policy = forms.CharField(required=False, label="DeschedulerPolicy (YAML)",
                             widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "code"}))
    interval = forms.FloatField(required=False, min_value=1, label="Run every (simulated seconds; empty: once)")
    max_pods_to_evict_per_node = forms.IntegerField(required=False, min_value=0, label="--max-pods-to-evict-per-node")
    node_selector = forms.CharField(required=False, label="--node-selector")
    dry_run = forms.BooleanField(required=False, label="--dry-run")


OPENSHIFT4_PROFILES = ("AffinityAndTaints", "TopologyAndDuplicates", "SoftTopologyAndDuplicates", "LifecycleAndUtilization",
                      "LongLifecycle", "CompactAndScale", "EvictPodsWithPVC", "EvictPodsWithLocalStorage")


class KubeDeschedulerForm(forms.Form):
    """The KubeDescheduler's spec, field by field (the operator's CRD names)."""

    profiles = forms.MultipleChoiceField(choices=[(p, p) for p in OPENSHIFT4_PROFILES], required=False,
                                         widget=forms.CheckboxSelectMultiple, label="spec.profiles")
    mode = forms.ChoiceField(choices=[(kube_operator.PREDICTIVE, kube_operator.PREDICTIVE), (kube_operator.AUTOMATIC, kube_operator.AUTOMATIC)],
                             initial=kube_operator.PREDICTIVE, label="spec.mode")
    descheduling_interval_seconds = forms.IntegerField(required=False, min_value=1, initial=kube_operator.DEFAULT_INTERVAL,
                                                       label="spec.deschedulingIntervalSeconds")
    pod_lifetime = forms.CharField(required=False, label="profileCustomizations.podLifetime (e.g. 24h, 5m)")
    threshold_priority = forms.IntegerField(required=False, label="profileCustomizations.thresholdPriority")
    threshold_priority_class_name = forms.CharField(required=False, label="profileCustomizations.thresholdPriorityClassName")
    namespaces_included = forms.CharField(required=False, label="profileCustomizations.namespaces.included (comma-separated)")
    namespaces_excluded = forms.CharField(required=False, label="profileCustomizations.namespaces.excluded (comma-separated)")
    low_thresholds = forms.ChoiceField(required=False, choices=[("", "(default: Medium)"), ("Low", "Low"), ("Medium", "Medium"), ("High", "High")],
                                       label="profileCustomizations.devLowNodeUtilizationThresholds")
    high_thresholds = forms.ChoiceField(required=False, choices=[("", "(default: Modest)"), ("Minimal", "Minimal"), ("Modest", "Modest"),
                                                                 ("Moderate", "Moderate")],
                                        label="profileCustomizations.devHighNodeUtilizationThresholds")
    eviction_limit_total = forms.IntegerField(required=False, min_value=0, label="spec.evictionLimits.total")
    eviction_limit_node = forms.IntegerField(required=False, min_value=0, label="spec.evictionLimits.node")


def _names(text: str) -> list[str]:
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def kube_descheduler_doc(data: dict) -> dict:
    """The KubeDescheduler the composer's fields describe (only the fields set)."""
    custom: dict = {}
    if data.get("pod_lifetime"):
        custom["podLifetime"] = data["pod_lifetime"].strip()
    if data.get("threshold_priority") is not None:
        custom["thresholdPriority"] = data["threshold_priority"]
    if data.get("threshold_priority_class_name"):
        custom["thresholdPriorityClassName"] = data["threshold_priority_class_name"].strip()
    namespaces = {k: _names(data.get(f"namespaces_{k}") or "") for k in ("included", "excluded")}
    if any(namespaces.values()):
        custom["namespaces"] = {k: v for k, v in namespaces.items() if v}
    if data.get("low_thresholds"):
        custom["devLowNodeUtilizationThresholds"] = data["low_thresholds"]
    if data.get("high_thresholds"):
        custom["devHighNodeUtilizationThresholds"] = data["high_thresholds"]
    spec: dict = {"mode": data.get("mode") or kube_operator.PREDICTIVE, "profiles": list(data.get("profiles") or ())}
    if data.get("descheduling_interval_seconds"):
        spec["deschedulingIntervalSeconds"] = data["descheduling_interval_seconds"]
    limits = {k: data.get(f"eviction_limit_{k}") for k in ("total", "node") if data.get(f"eviction_limit_{k}") is not None}
    if limits:
        spec["evictionLimits"] = limits
    if custom:
        spec["profileCustomizations"] = custom
    return {"apiVersion": kube_operator.API_VERSION, "kind": kube_operator.KIND,
            "metadata": {"name": kube_operator.NAME, "namespace": kube_operator.NAMESPACE}, "spec": spec}


APPLY_FILE = "kubedescheduler.yaml"  # the file `oc apply -f` reads the composed object from


def stored_kube_descheduler(cluster: Cluster) -> dict | None:
    """The operator's KubeDescheduler (`cluster` in its namespace) as stored, or None."""
    try:
        return services.get_object(cluster, kube_operator.KIND, kube_operator.NAME, kube_operator.NAMESPACE).document
    except services.NotFound:
        return None


def apply_argv() -> list[str]:
    return ["oc", "apply", "-f", APPLY_FILE]


def apply_preview(cluster: Cluster, doc: dict) -> dict:
    """What applying the KubeDescheduler does: `oc apply -f` previewed by the cluster's loop
    on a copy (previews.summarised_command, as the console previews a change)."""
    argv = apply_argv()
    try:
        return {"loop": previews.summarised_command(cluster, argv, {APPLY_FILE: [doc]}), "command": " ".join(argv)}
    except previews.PreviewRefused as exc:
        return {"refused": str(exc), "command": " ".join(argv)}


def apply_kube_descheduler(request, cluster: Cluster, doc: dict) -> tuple[int, str]:
    """`oc apply -f kubedescheduler.yaml` on the stored cluster as the web user: (exit
    status, what oc printed)."""
    out: list[str] = []
    result = oc_cli.run_on_cluster(cluster, apply_argv(), lambda stream, text: out.append(text),
                                   user=request.user, files={APPLY_FILE: [doc]}, wait=False)
    return result.exit_code, "".join(out).strip()


def _composer_initial(cluster: Cluster) -> dict:
    doc = stored_kube_descheduler(cluster) or {}
    if doc.get("kind") != kube_operator.KIND:
        return {"profiles": ["AffinityAndTaints", "LifecycleAndUtilization"], "mode": kube_operator.PREDICTIVE,
                "descheduling_interval_seconds": kube_operator.DEFAULT_INTERVAL}
    spec = doc.get("spec") or {}
    custom = spec.get("profileCustomizations") or {}
    ns = custom.get("namespaces") or {}
    limits = spec.get("evictionLimits") or {}
    return {"profiles": spec.get("profiles") or [], "mode": spec.get("mode") or kube_operator.PREDICTIVE,
            "descheduling_interval_seconds": spec.get("deschedulingIntervalSeconds") or kube_operator.DEFAULT_INTERVAL,
            "pod_lifetime": custom.get("podLifetime") or "", "threshold_priority": custom.get("thresholdPriority"),
            "threshold_priority_class_name": custom.get("thresholdPriorityClassName") or "",
            "namespaces_included": ", ".join(ns.get("included") or ()), "namespaces_excluded": ", ".join(ns.get("excluded") or ()),
            "low_thresholds": custom.get("devLowNodeUtilizationThresholds") or "",
            "high_thresholds": custom.get("devHighNodeUtilizationThresholds") or "",
            "eviction_limit_total": limits.get("total"), "eviction_limit_node": limits.get("node")}


def runs_openshift4(cluster: Cluster) -> bool:
    """The cluster runs the OpenShift 4 scheduler (a ClusterVersion of 4.10 or later, or a
    framework configuration): the page opens its KubeDescheduler section."""
    configs = [c for c in [cluster.policy, *(cluster.scheduler_policies or {}).values()] if c]
    return uses_framework([*configs, *cluster_versions(cluster)])


def _initial(cluster: Cluster) -> dict:
    config = cluster.descheduler or {}
    flags = Flags.from_doc(config.get("flags"))
    policy = config.get("policy") or _editable(stored_kube_descheduler(cluster))
    return {
        "policy": yaml.safe_dump(policy, sort_keys=False, default_flow_style=False) if policy else SAMPLES[DEFAULT_SAMPLE],
        "interval": config.get("interval"),
        "max_pods_to_evict_per_node": flags.max_pods_to_evict_per_node,
        "node_selector": flags.node_selector,
        "dry_run": flags.dry_run,
    }


def _editable(doc: dict | None) -> dict | None:
    """The stored KubeDescheduler as the editor shows it: spec only (no status, no uid)."""
    if doc is None:
        return None
    meta = doc.get("metadata") or {}
    return {"apiVersion": doc.get("apiVersion"), "kind": doc.get("kind"),
            "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")}, "spec": doc.get("spec") or {}}


def parse_policy(text: str, scheduler_profile: str = kube_operator.DEFAULT_SCHEDULER_PROFILE) -> dict:
    """The editor's YAML as a checked DeschedulerPolicy document (a KubeDescheduler rendered
    against the cluster Scheduler's profile); raises DeschedulerPolicyError."""
    try:
        doc = kube.parse_value(text or "", source="", what="the DeschedulerPolicy")  # the one YAML error message
    except kube.DocumentError as exc:
        raise DeschedulerPolicyError(str(exc)) from None
    if doc.get("kind") == kube_operator.KIND:  # OpenShift 4: the operator's object, rendered as the operator does
        try:
            kube_operator.check(doc)
            kube_operator.render_policy(doc, (), scheduler_profile)
        except kube_operator.OperatorError as exc:
            raise DeschedulerPolicyError(str(exc)) from None
    elif is_v1alpha2(doc):
        load_policy_v2(doc)
    else:
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


def _scheduler_profile(cluster: Cluster) -> str:
    return kube_operator.scheduler_profile([cluster.policy, *(cluster.scheduler_policies or {}).values()])


def _preview_v1alpha2(cluster: Cluster, doc: dict, flags: Flags) -> dict:
    """The dry run of a KubeDescheduler or v1alpha2 policy: evictions by plugin and rule, and
    where the cluster's own scheduler (3.11 Policy or OpenShift 4 framework) would put them."""
    store = Store(cluster_documents(cluster))
    result = preview(store, cluster.now, doc, flags, schedulers=cluster_schedulers(cluster), seed=cluster.seed,
                     preemption=cluster.preemption_enabled, scheduler_profile=_scheduler_profile(cluster))
    out = result.to_doc()
    if doc.get("kind") == kube_operator.KIND:
        try:
            namespaces = [(d.get("metadata") or {}).get("name") or "" for d in store.list("Namespace")]
            out["policyYaml"] = kube_operator.policy_yaml(kube_operator.render_policy(doc, namespaces, _scheduler_profile(cluster)))
        except kube_operator.OperatorError as exc:
            out["policyYaml"] = str(exc)
    report = result.report
    rows = next(iter(report.utilization.values()), None) if getattr(report, "utilization", None) else None
    if rows is None:
        rows = v1alpha2_node_usage(store, getattr(report.policy, "node_selector", ""))
    out["bars"] = [{"node": r["node"], "classification": r.get("classification", ""),
                    "bars": [{"label": k, "percent": r.get(k), "width": max(0.0, min(100.0, r.get(k) or 0)), "low": None,
                              "target": None, "over": False} for k in RESOURCES]} for r in rows]
    out["v2"] = True
    return out


def _preview(cluster: Cluster, doc: dict, flags: Flags) -> dict:
    if doc.get("kind") == kube_operator.KIND or is_v1alpha2(doc):
        return _preview_v1alpha2(cluster, doc, flags)
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


def page_context(request, cluster: Cluster, form: DeschedulerForm | None = None,
                 composer: KubeDeschedulerForm | None = None, **extra) -> dict:
    state = ((cluster.controller_state or {}).get("controllers") or {}).get(NAME) or {}
    return {
        "cluster": cluster,
        "can_edit": can_edit(request.user),
        "form": form or DeschedulerForm(initial=_initial(cluster)),
        "composer": composer or KubeDeschedulerForm(initial=_composer_initial(cluster)),
        "openshift4": runs_openshift4(cluster),
        "samples": list(SAMPLES),
        "configured": bool((cluster.descheduler or {}).get("policy")) or stored_kube_descheduler(cluster) is not None,
        "last_report": state.get("lastReport"),
        "strategy_names": STRATEGY_NAMES,
        "openshift4_profiles": OPENSHIFT4_PROFILES,
        "critical_annotation": CRITICAL_POD_ANNOTATION,
        "system_namespace": NAMESPACE_SYSTEM,
        **extra,
    }


def _operator_notice(doc: dict) -> str:
    interval = kube_operator.interval_of(doc)
    if interval is None:
        return f"the operator runs no descheduler: {kube_operator.NO_INTERVAL}"
    return (f"the operator's policy runs now and every {interval:g} s"
            + (" and evicts" if kube_operator.mode_of(doc) == kube_operator.AUTOMATIC else ", Predictive: it evicts nothing"))


def _render(request, cluster: Cluster, **ctx) -> HttpResponse:
    template = "scheduling/descheduler.html#descheduler-main" if request.htmx else "scheduling/descheduler.html"
    return render(request, template, page_context(request, cluster, **ctx))


def _compose(request, cluster: Cluster) -> HttpResponse:
    """The KubeDescheduler the OpenShift 4 section's fields describe: into the editor, its dry
    run, and (for editors) what applying it does, with the Apply form."""
    composer = KubeDeschedulerForm(request.POST)
    if not composer.is_valid():
        return _render(request, cluster, composer=composer, error="; ".join(f"{k}: {' '.join(v)}" for k, v in composer.errors.items()))
    doc = kube_descheduler_doc(composer.cleaned_data)
    data = request.POST.copy()
    data["policy"] = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    form = DeschedulerForm(data)
    form.is_valid()
    try:
        parse_policy(data["policy"], _scheduler_profile(cluster))
    except DeschedulerPolicyError as exc:
        return _render(request, cluster, form=form, composer=composer, error=str(exc))
    return _render(request, cluster, form=form, composer=composer, preview=_preview(cluster, doc, _flags(form)),
                   apply=apply_preview(cluster, doc) if can_edit(request.user) else None, apply_document=data["policy"],
                   notice="the KubeDescheduler is in the editor: apply it, or edit it there")


def _apply(request, cluster: Cluster, doc: dict, form: DeschedulerForm | None = None, run: bool = False) -> HttpResponse:
    """`oc apply -f` of the KubeDescheduler (the section's Apply, or the editor's Save/Run: Run
    also asks for a cycle now); the notice is what oc printed and what the operator will do."""
    code, printed = apply_kube_descheduler(request, cluster, doc)
    if code != 0:
        return _render(request, cluster, form=form, error=printed)
    if run:
        services.request_descheduler_run(cluster)
    cluster.refresh_from_db()
    notice = _operator_notice(doc)
    if run and kube_operator.interval_of(doc) is not None:
        notice = f"run requested: the descheduler runs at the cluster's current time, then every {kube_operator.interval_of(doc):g} s"
    return _render(request, cluster, form=form, notice=f"{printed}: {notice}")


@require_GET
def descheduler_page(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    return render(request, "scheduling/descheduler.html", page_context(request, cluster))


@require_POST
def descheduler_action(request, pk: int):
    action = request.POST.get("action", "validate")
    cluster = get_cluster_for_user(request, pk, write=action in ("save", "run", "remove", "apply"))
    if action.startswith("sample:"):
        name = action.split(":", 1)[1]
        if name not in SAMPLES:
            raise Http404("no such sample")
        data = request.POST.copy()
        data["policy"] = SAMPLES[name]
        form = DeschedulerForm(data)
        form.is_valid()
        return _render(request, cluster, form=form, notice=f'sample "{name}" loaded into the editor: preview it, save it or run it')
    if action == "compose":  # the KubeDescheduler of the OpenShift 4 section: into the editor, then previewed
        return _compose(request, cluster)
    if action == "apply":  # the previewed KubeDescheduler, written as `oc apply -f` writes it
        try:
            doc = kube.parse_value(request.POST.get("document") or "", source="", what="the KubeDescheduler")
        except kube.DocumentError as exc:
            return _render(request, cluster, error=str(exc))
        return _apply(request, cluster, doc)
    if action == "remove":
        if stored_kube_descheduler(cluster) is not None and not (cluster.descheduler or {}).get("policy"):
            services.delete_object(cluster, kube_operator.KIND, kube_operator.NAME, kube_operator.NAMESPACE)
            return _render(request, cluster, notice=f"kubedescheduler.operator.openshift.io/{kube_operator.NAME} deleted")
        services.set_descheduler(cluster, None, None, {})
        return _render(request, cluster, form=DeschedulerForm(initial=_initial(cluster)), notice="the descheduler is removed")
    form = DeschedulerForm(request.POST)
    if not form.is_valid():
        return _render(request, cluster, form=form, error="; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    flags = _flags(form)
    try:
        doc = parse_policy(form.cleaned_data.get("policy") or "", _scheduler_profile(cluster))
        check_flags(flags)
    except DeschedulerPolicyError as exc:
        return _render(request, cluster, form=form, error=str(exc))
    if action == "validate":
        return _render(request, cluster, form=form, notice="the DeschedulerPolicy is valid")
    if action == "preview":
        return _render(request, cluster, form=form, preview=_preview(cluster, doc, flags))
    if action in ("save", "run") and doc.get("kind") == kube_operator.KIND:  # the operator's object: applied
        return _apply(request, cluster, doc, form, run=action == "run")
    if action in ("save", "run"):
        services.set_descheduler(cluster, doc, form.cleaned_data.get("interval"), flags.to_doc(), run=action == "run")
        cluster.refresh_from_db()
        notice = ("run requested: the descheduler runs at the cluster's current time; the evictions appear on the board"
                  if action == "run" else "descheduler saved" + ("" if (cluster.descheduler or {}).get("interval") else ": it runs once"))
        return _render(request, cluster, form=form, notice=notice)
    return HttpResponse("unknown action", status=400)
