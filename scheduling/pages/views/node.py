"""A node: its card, why each of its pods is there, and the what-if editor's node forms."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from scheduling.pages import board, explain, forms, whatif
from scheduling.store import kube
from scheduling.models import Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.pages.previews import editable
from scheduling.store.state import cluster_state
from scheduling.engine.api.validation import engine_problem
from scheduling.pages.views.common import applied, object_or_404, page_urls, panel


def _conditions(doc: dict) -> list[tuple[str, str]]:
    conditions = (doc.get("status") or {}).get("conditions")
    have = {c.get("type"): c.get("status") for c in conditions if isinstance(c, dict) and isinstance(c.get("type"), str)} \
        if isinstance(conditions, list) else {}
    return [(t, have.get(t, "")) for t in whatif.NODE_CONDITIONS]


def why_context(cluster: Cluster, name: str, *, inline_only: bool) -> dict:
    """Why each of the node's pods is there (explain.explain_node), or, when `inline_only` and
    that is more work than a page shows at once, nothing yet: the page fetches it (node_why)."""
    state = cluster_state(cluster)
    usable = any(n.name == name for n in state.nodes)  # not: stored with a status the engine cannot read
    if not usable:
        return {"why": None, "why_deferred": False}
    if inline_only and not explain.node_explained_inline(sum(1 for p in state.pods if p.node_name == name), len(state.nodes)):
        return {"why": None, "why_deferred": True}
    return {"why": explain.explain_node(state, explain.cluster_policy(cluster), name, seed=cluster.seed), "why_deferred": False}


def node_context(request, cluster: Cluster, name: str, **extra) -> dict:
    obj = object_or_404(cluster, "Node", name)
    why = why_context(cluster, name, inline_only=True)
    usable = why["why"] is not None or why["why_deferred"]
    return {
        "cluster": cluster,
        "obj": obj,
        "doc": obj.document,
        "card": board.node_cards(cluster, [name])[name],
        **why,
        "engine_problem": None if usable else engine_problem(obj.document),
        "yaml_text": kube.dump_documents([editable(obj.document)]),
        "can_edit": can_edit(request.user),
        "taint_form": forms.TaintForm(),
        "label_form": forms.LabelForm(),
        "condition_form": forms.ConditionForm(),
        "conditions": _conditions(obj.document),
        "effect_meaning": explain.EFFECT_MEANING,
        **page_urls(cluster),
        **extra,
    }


@require_GET
def node_detail(request, pk: int, name: str):
    cluster = get_cluster_for_user(request, pk)
    return panel(request, "scheduling/node.html", "node-panel", node_context(request, cluster, name, applied=applied(request)))


@require_GET
def node_why(request, pk: int, name: str):
    """The node page's "why each of its pods is here" table, on its own (a large cluster's
    node page loads it after the node is shown)."""
    cluster = get_cluster_for_user(request, pk)
    obj = object_or_404(cluster, "Node", name)
    return render(request, "scheduling/node.html#node-why", {
        "cluster": cluster, "obj": obj, **why_context(cluster, name, inline_only=False), **page_urls(cluster),
    })
