"""A pod (the explainer: why it is where it is, or Pending) and a workload controller's pod
template, each with the what-if editor's pod forms."""

from __future__ import annotations

from django.http import Http404
from django.views.decorators.http import require_GET

from scheduling.engine.api.defaults import WORKLOAD_KINDS
from scheduling.engine.api.objects import Toleration

from scheduling.pages import board, explain, explain_framework, forms, whatif
from scheduling.store import kube
from scheduling.models import KIND_MODELS, Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.pages.previews import editable
from scheduling.store.state import cluster_schedulers, cluster_state, eviction_time
from scheduling.pages.views.common import applied, object_or_404, page_urls, panel


# Owners a pod's chain may pass through besides the workloads (shown, without a template editor).
RUN_TO_COMPLETION_KINDS = ("Job", "CronJob")


def _controllers_of(cluster: Cluster, doc: dict) -> list[tuple[str, str, str, bool]]:
    """(kind, namespace, name, whether its template has an editor) of the pod's controller
    chain, nearest first, that exist."""
    out = []
    current = doc
    for _ in range(3):
        refs = [r for r in (current.get("metadata") or {}).get("ownerReferences") or () if r.get("controller")]
        if not refs or refs[0].get("kind") not in WORKLOAD_KINDS + RUN_TO_COMPLETION_KINDS:
            break
        ref = refs[0]
        namespace = (current.get("metadata") or {}).get("namespace") or "default"
        owner = KIND_MODELS[ref["kind"]].objects.filter(cluster=cluster, namespace=namespace, name=ref.get("name")).first()
        if owner is None:
            break
        out.append((ref["kind"], namespace, owner.name, ref["kind"] in WORKLOAD_KINDS))
        current = owner.document
    return out


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
        "yaml_text": kube.dump_documents([editable(doc)]),
        "affinity_text": kube.dump_documents([spec["affinity"]]) if spec.get("affinity") else "",
        "toleration_form": forms.TolerationForm(),
        "label_form": forms.LabelForm(),
        "node_affinity_form": forms.NodeAffinityForm(),
        "pod_affinity_form": forms.PodAffinityForm(),
        "scheduler_name": spec.get("schedulerName") or "default-scheduler",
        "scheduler_names": [name for name, _ in cluster_schedulers(cluster)],
        "can_edit": can_edit(request.user),
        **page_urls(cluster),
    }


def pod_context(request, cluster: Cluster, namespace: str, name: str, **extra) -> dict:
    obj = object_or_404(cluster, "Pod", name, namespace)
    scheduler = explain.cluster_policy(cluster)
    explainer = explain_framework if explain.is_framework(scheduler) else explain
    explanation = explainer.explain_pod(
        cluster_state(cluster), scheduler, f"{namespace}/{name}", seed=cluster.seed, preemption=cluster.preemption_enabled,
    )
    return {
        **_object_editor_context(request, cluster, obj),
        "explanation": explanation,
        "pod_events": board.object_events(cluster, "Pod", name, namespace),
        "condition_message": board.condition_message(obj.document.get("status") or {}),
        "controllers": _controllers_of(cluster, obj.document),
        "eviction_at": eviction_time(cluster, namespace, name),
        **extra,
    }


def workload_or_404(cluster: Cluster, kind: str, namespace: str, name: str):
    if kind not in WORKLOAD_KINDS:
        raise Http404(f"no editor for {kind}")
    return object_or_404(cluster, kind, name, namespace)


@require_GET
def pod_detail(request, pk: int, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    return panel(request, "scheduling/pod.html", "pod-panel", pod_context(request, cluster, namespace, name, applied=applied(request)))


@require_GET
def controller_detail(request, pk: int, kind: str, namespace: str, name: str):
    cluster = get_cluster_for_user(request, pk)
    obj = workload_or_404(cluster, kind, namespace, name)
    context = {**_object_editor_context(request, cluster, obj), "applied": applied(request)}
    return panel(request, "scheduling/pod.html", "pod-panel", context)
