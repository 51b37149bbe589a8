"""Read a stored cluster into the engine's shapes: documents, or a ClusterState."""

from __future__ import annotations

from .engine.cluster import ClusterState
from .engine.simulate import build_state
from .models import KIND_MODELS, Cluster


def cluster_documents(cluster: Cluster, kinds: tuple[str, ...] | None = None) -> list[dict]:
    """Every stored object as the API would return it, kinds in KIND_MODELS order, each kind
    in creation order (pods keep their queue order)."""
    docs: list[dict] = []
    for kind, model in KIND_MODELS.items():
        if kinds is not None and kind not in kinds:
            continue
        docs.extend(obj.document for obj in model.objects.filter(cluster=cluster).order_by("pk"))
    return docs


def cluster_state(cluster: Cluster) -> ClusterState:
    """The engine's snapshot of a stored cluster (the scheduler, previews and the explainer)."""
    return build_state(cluster_documents(cluster))
