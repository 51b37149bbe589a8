"""sigs.k8s.io/descheduler's test builders (test/test_utils.go) as store documents, and a
runner that calls one plugin as upstream's unit tests do (frameworktesting.InitFrameworkHandle:
a DefaultEvictor with the given args, the PodEvictor's limits, the plugin's Deschedule or
Balance on the given nodes)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from scheduling.engine.api.objects import Node
from scheduling.engine.controllers.descheduler_v1alpha2.evictor import Cycle
from scheduling.engine.controllers.descheduler_v1alpha2.plugins import PLUGINS
from scheduling.engine.controllers.descheduler_v1alpha2.policy import Profile
from scheduling.engine.store import Store

SYSTEM_CRITICAL_PRIORITY = 2000000000


def build_test_node(name: str, millicpu: int, mem: int, pods: int, apply: Callable[[dict], None] | None = None) -> dict:
    """test.BuildTestNode."""
    cap = {"pods": str(pods), "cpu": f"{millicpu}m", "memory": str(mem)}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {}}, "spec": {},
            "status": {"capacity": dict(cap), "allocatable": dict(cap), "phase": "Running",
                       "conditions": [{"type": "Ready", "status": "True"}]}}
    if apply is not None:
        apply(node)
    return node


def build_test_pod(name: str, cpu: int, memory: int, node_name: str, apply: Callable[[dict], None] | None = None) -> dict:
    """test.BuildTestPod (namespace default, one container with the requests; no status)."""
    requests: dict = {}
    if cpu >= 0:
        requests["cpu"] = f"{cpu}m"
    if memory >= 0:
        requests["memory"] = str(memory)
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"namespace": "default", "name": name, "uid": f"uid-{name}"},
           "spec": {"containers": [{"name": "", "resources": {"requests": requests, "limits": {}}}], "nodeName": node_name},
           "status": {}}
    if apply is not None:
        apply(pod)
    return pod


def set_normal_owner_ref(pod: dict) -> None:
    """test.SetNormalOwnerRef: an owner reference of kind Pod."""
    pod["metadata"]["ownerReferences"] = [{"kind": "Pod", "apiVersion": "v1"}]


def set_rs_owner_ref(pod: dict) -> None:
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "apiVersion": "v1", "name": "replicaset-1"}]


def set_ds_owner_ref(pod: dict) -> None:
    pod["metadata"]["ownerReferences"] = [{"kind": "DaemonSet", "apiVersion": "v1"}]


def set_host_path_empty_dir_volume_source(pod: dict) -> None:
    pod["spec"]["volumes"] = [{"name": "sample", "hostPath": {"path": "somePath"}},
                              {"name": "sample", "emptyDir": {"medium": ""}}]


def set_mirror_pod_annotation(pod: dict) -> None:
    pod["metadata"]["annotations"] = {"kubernetes.io/config.source": "api", "kubernetes.io/config.mirror": "mirror"}


def set_pod_priority(pod: dict, priority: int) -> None:
    pod["spec"]["priority"] = priority


def chain(*fns: Callable[[dict], None] | None) -> Callable[[dict], None]:
    def apply(doc: dict) -> None:
        for fn in fns:
            if fn is not None:
                fn(doc)
    return apply


def run_plugin(plugin: str, nodes: list[dict], pods: list[dict], args: Mapping[str, Any] | None = None, *,
               evictor: Mapping[str, Any] | None = None, now: float = 0.0, max_per_node: int | None = None,
               max_per_namespace: int | None = None, max_total: int | None = None, extra: list[dict] = ()) -> list[str]:
    """The names of the pods the plugin evicted."""
    store = Store([*nodes, *pods, *extra])
    node_objs = [Node.from_doc(d) for d in nodes]
    cycle = Cycle(store, now, node_objs, False, max_per_node, max_per_namespace, max_total)
    cycle.use_profile(Profile("test", {"DefaultEvictor": dict(evictor or {}), plugin: dict(args or {})}, {}))
    PLUGINS[plugin](cycle, node_objs, dict(args or {}))
    return [p.name for p in cycle.planned if p.evicted]
