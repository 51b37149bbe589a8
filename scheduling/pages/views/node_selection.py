"""The policy page's node-selection section: the configuration of PodNodeConstraints,
PodNodeSelector and the project node selector (their switches are the page's admission
switches), and the node selector each namespace's pods inherit."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from scheduling.store import node_selection, services
from scheduling.models import Cluster
from scheduling.store.permissions import get_cluster_for_user

SAMPLE_CONFIG = """\
apiVersion: v1
kind: PodNodeConstraintsConfig
nodeSelectorLabelBlacklist:
- kubernetes.io/hostname
---
apiVersion: v1
kind: PodNodeSelectorConfig
podNodeSelectorPluginConfig:
  clusterDefaultNodeSelector: ""
---
apiVersion: v1
kind: MasterConfig
projectConfig:
  defaultNodeSelector: ""
"""


def node_selection_context(cluster: Cluster) -> dict:
    """What the policy page's node-selection section shows."""
    return {
        "node_selection_text": node_selection.config_text(cluster),
        "node_selection_sample": SAMPLE_CONFIG,
        "node_selection_can_bind": node_selection.user_can_bind(cluster),
        "namespace_selectors": node_selection.namespace_selectors(cluster),
    }


@require_POST
def admission_config_save(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        docs = node_selection.parse_config_text(request.POST.get("config", ""))
    except node_selection.AdmissionConfigError as exc:
        messages.error(request, f"the admission configuration was not saved: {exc}")
        return redirect("policy", pk=cluster.pk)
    services.set_admission_config(cluster, docs, request.POST.get("user_can_bind") == "on")
    messages.success(request, "admission configuration saved")
    return redirect("policy", pk=cluster.pk)
