"""The namespaces of an OpenShift 4 cluster's release payload (engine.openshift.data.namespace_data):
those its manifests create and those its operators create for their operands. A cluster with a
ClusterVersion has the namespaces of the release it completed; during an update the new
release's namespaces appear as the Cluster Version Operator reaches them (a namespace of a
ClusterOperator's component once the CVO has created that ClusterOperator, at its runlevel;
one of a component without a ClusterOperator when the update starts), and those the new
release no longer has go away when the update completes. Read by engine.oc.namespaces, which
adds them to the namespaces `oc` lists on a running cluster; nothing is stored."""

from __future__ import annotations

from typing import Any

from scheduling.engine.openshift.data.namespace_data import MANIFEST_NAMESPACES, OPERAND_NAMESPACES, REQUIRES
from scheduling.engine.store import Store

from .payload import payload


def release_namespaces(version: str) -> dict[str, str | None]:
    """The payload's namespaces, each with the ClusterOperator of the component that makes it
    (None for a component without one)."""
    p = payload(version)
    operators = set(p.cluster_operators)
    out: dict[str, str | None] = {}
    for rl in p.runlevels:
        for component in rl.components:
            owner = component.cluster_operators[0] if component.cluster_operators else None
            for manifest in component.manifests:
                required = REQUIRES.get(manifest)
                if required is not None and required not in operators:
                    continue
                for name in MANIFEST_NAMESPACES.get(manifest, ()):
                    out.setdefault(name, owner)
    for operator in p.cluster_operators:
        for name in OPERAND_NAMESPACES.get(operator, ()):
            out.setdefault(name, operator)
    return out


def cluster_namespaces(store: Store) -> dict[str, Any]:
    """The release payload's namespaces the cluster has, each with its creation time (None:
    since the cluster was installed); empty without a ClusterVersion."""
    cv = store.get("ClusterVersion", "", "version")
    if cv is None:
        return {}
    status = cv.get("status") or {}
    history = list(status.get("history") or ())
    completed = next((h.get("version") for h in history if h.get("state") == "Completed" and h.get("version")), None)
    completed = completed or (status.get("desired") or {}).get("version")
    if not completed:
        return {}
    out: dict[str, Any] = {name: None for name in release_namespaces(completed)}
    update = history[0] if history and history[0].get("state") == "Partial" else None
    if update and update.get("version") and update["version"] != completed:
        for name, owner in release_namespaces(update["version"]).items():
            if name in out:
                continue
            if owner is None:
                out[name] = update.get("startedTime")
                continue
            co = store.get("ClusterOperator", "", owner)
            if co is not None:
                out[name] = (co.get("metadata") or {}).get("creationTimestamp")
    return out
