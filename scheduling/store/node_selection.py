"""The node-selection admission plugins on the Django side (engine.api.node_selection_admission):
their configuration per cluster, the context the API path admits objects with, and what
the pods of each namespace inherit.

`Cluster.admission_config` holds `{"documents": [PodNodeConstraintsConfig,
PodNodeSelectorConfig, MasterConfig documents], "userCanBind": bool}`: the configuration
documents as `simulate` reads them, and whether the people who create objects from the
web pages may create pods/binding (PodNodeConstraints asks). The switches themselves are
Cluster.admission (engine.api.admission.PLUGIN_NAMES), like every other plugin.
"""

from __future__ import annotations

from typing import Iterable

import yaml

from scheduling.engine.api.node_selection_admission import (
    CONFIG_KINDS,
    NodeSelectionConfig,
    NodeSelectionContext,
    NodeSelectorError,
    UserInfo,
    inherited_node_selector,
)
from scheduling.store import kube
from scheduling.models import Cluster, Namespace, Pod

WEB_USER = "clusterui"


class AdmissionConfigError(ValueError):
    """The configuration text cannot be used; str() says why."""


def config_documents(cluster: Cluster) -> list[dict]:
    return list((cluster.admission_config or {}).get("documents") or [])


def user_can_bind(cluster: Cluster) -> bool:
    return bool((cluster.admission_config or {}).get("userCanBind"))


def config_of(cluster: Cluster) -> NodeSelectionConfig:
    """The admission configuration documents, then the OpenShift 4 Scheduler the cluster's
    scheduler configuration may be (its spec.defaultNodeSelector)."""
    scheduler = [cluster.policy] if isinstance(cluster.policy, dict) and cluster.policy.get("kind") == "Scheduler" else []
    try:
        return NodeSelectionConfig.from_documents(config_documents(cluster) + scheduler)
    except NodeSelectorError:
        return NodeSelectionConfig()


def web_user(cluster: Cluster) -> UserInfo:
    return UserInfo(WEB_USER, ("system:authenticated",), user_can_bind(cluster))


def context_for(cluster: Cluster, docs: Iterable[dict] = (), user: UserInfo | None = None) -> NodeSelectionContext:
    """The context to admit `docs` with: the cluster's configuration, its namespaces (and
    those among `docs`, created in the same request), and the web user."""
    stored = [ns.document for ns in Namespace.objects.filter(cluster=cluster)]
    context = NodeSelectionContext.build(config_of(cluster), stored, user or web_user(cluster))
    return context.with_namespaces(list(docs))


def parse_config_text(text: str) -> list[dict]:
    """YAML or JSON documents, each one of CONFIG_KINDS; raises AdmissionConfigError."""
    try:
        docs = kube.parse_values(text or "", source="", what="the admission configuration")  # the one YAML error message
    except kube.DocumentError as exc:
        raise AdmissionConfigError(str(exc)) from None
    for i, doc in enumerate(docs, start=1):
        if not isinstance(doc, dict) or doc.get("kind") not in CONFIG_KINDS:
            kind = doc.get("kind") if isinstance(doc, dict) else None
            raise AdmissionConfigError(f"document {i}: kind {kind!r} is not one of {', '.join(CONFIG_KINDS)}")
    try:
        NodeSelectionConfig.from_documents(docs)
    except NodeSelectorError as exc:
        raise AdmissionConfigError(str(exc)) from exc
    return docs


def config_text(cluster: Cluster) -> str:
    docs = config_documents(cluster)
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False) if docs else ""


def namespace_selectors(cluster: Cluster) -> list[dict]:
    """Each namespace (stored, or used by a pod) and the node selector its pods inherit."""
    context = context_for(cluster)
    names = set(context.namespaces)
    names.update(Pod.objects.filter(cluster=cluster).values_list("namespace", flat=True).distinct())
    rows = []
    for name in sorted(names):
        try:
            selector, source = inherited_node_selector(context, name)
            text, error = ",".join(f"{k}={v}" for k, v in selector.items()), ""
        except NodeSelectorError as exc:
            text, source, error = "", "", str(exc)
        rows.append({"namespace": name, "selector": text, "source": source, "error": error})
    return rows


__all__ = [
    "AdmissionConfigError",
    "config_of",
    "config_text",
    "context_for",
    "namespace_selectors",
    "parse_config_text",
]
