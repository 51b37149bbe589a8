"""Builders for the framework plugin tests: nodes and pods from documents (Node.from_doc /
Pod.from_doc, the parsing the app uses), NodeInfos, a Handle, and the score pipeline
(PreScore, Score per node, NormalizeScore) the runtime runs."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scheduling.engine.api.objects import Node, Pod, Volume
from scheduling.engine.framework.interface import CycleState, Handle
from scheduling.engine.scheduler.cluster import ClusterState, NodeInfo


def node(name: str = "node", labels: Mapping[str, str] | None = None, taints: Iterable[Mapping] = (),
         allocatable: Mapping[str, Any] | None = None, images: Iterable[tuple[Iterable[str], int]] = (),
         unschedulable: bool = False) -> Node:
    return Node.from_doc({
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": {"taints": [dict(t) for t in taints], "unschedulable": unschedulable},
        "status": {"allocatable": dict(allocatable or {}),
                   "images": [{"names": list(n), "sizeBytes": s} for n, s in images]},
    })


def pod(name: str = "pod", namespace: str = "default", node_name: str = "", labels=None, uid: str = "",
        **spec: Any) -> Pod:
    doc_spec = dict(spec)
    if node_name:
        doc_spec["nodeName"] = node_name
    return Pod.from_doc({"kind": "Pod",
                         "metadata": {"name": name, "namespace": namespace, "uid": uid, "labels": dict(labels or {})},
                         "spec": doc_spec})


def containers(*requests: Mapping[str, Any], image: str = "") -> list[dict]:
    """One container per request map ({"cpu": "1m", "memory": 20, ...})."""
    return [{"name": f"c{i}", "image": image, "resources": {"requests": {k: str(v) for k, v in r.items()}}}
            for i, r in enumerate(requests)]


def info(n: Node, pods: Iterable[Pod] = ()) -> NodeInfo:
    i = NodeInfo(n)
    for p in pods:
        i.add_pod(p)
    return i


def handle(infos: Iterable[NodeInfo] = (), pvs=(), pvcs=(), classes=(), pods=()) -> Handle:
    infos = list(infos)
    state = ClusterState(
        nodes=[i.node for i in infos], pods=list(pods),
        persistent_volumes=[Volume.from_doc(d) for d in pvs],
        persistent_volume_claims=[Volume.from_doc(d) for d in pvcs],
        storage_classes=[Volume.from_doc(d) for d in classes],
    )
    return Handle(state, {i.name: i for i in infos})


def scores(plugin, p: Pod, infos: list[NodeInfo], pre_score: bool = True) -> dict[str, int]:
    """PreScore (unless told not to), Score on every node, then NormalizeScore if any."""
    cs = CycleState()
    if pre_score:
        status = plugin.pre_score(cs, p, infos)
        assert status.is_success, status
    out = {i.name: plugin.score(cs, p, i) for i in infos}
    if hasattr(plugin, "normalize_score"):
        plugin.normalize_score(cs, p, out)
    return out
