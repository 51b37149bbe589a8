"""The framework's two cycles make the same decisions: node by node (the definition) and a
node vector at a time with the scheduler's cache (engine.framework.fast). Generated
clusters (Hypothesis): nodes in zones with taints, labels, sizes and images; pods with
requests, tolerations, node selectors, preferred node affinity, topology spread
constraints, pod (anti-)affinity, priorities and host ports; both paths must place every
pod on the same node with the same message, nomination and victims."""

from __future__ import annotations

import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine.api.objects import Node, Pod, Service
from scheduling.engine.framework.config import schedulers_for
from scheduling.engine.framework.runtime import run_queue
from scheduling.engine.scheduler.cluster import ClusterState

EXAMPLES = int(os.environ.get("CLUSTERUI_FUZZ_EXAMPLES", "60"))
ZONES = ("a", "b", "c")


def make_node(i: int, zone: str, cpu: int, taint: str | None, disk: str, images: bool) -> Node:
    taints = []
    if taint == "NoSchedule":
        taints.append({"key": "dedicated", "value": "infra", "effect": "NoSchedule"})
    elif taint == "PreferNoSchedule":
        taints.append({"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"})
    return Node.from_doc({
        "kind": "Node",
        "metadata": {"name": f"n{i:02d}", "labels": {"kubernetes.io/hostname": f"n{i:02d}",
                                                   "topology.kubernetes.io/zone": zone, "disk": disk}},
        "spec": {"taints": taints},
        "status": {"capacity": {"cpu": str(cpu), "memory": f"{cpu * 2}Gi", "pods": "20"},
                   "allocatable": {"cpu": str(cpu), "memory": f"{cpu * 2}Gi", "pods": "20"},
                   "images": [{"names": ["registry.example.com/app:1"], "sizeBytes": 300 * 1024 * 1024}] if images else []},
    })


@st.composite
def clusters(draw):
    n_nodes = draw(st.integers(1, 14))
    nodes = [make_node(i, ZONES[i % 3], draw(st.sampled_from((1, 2, 4))),
                       draw(st.sampled_from((None, None, "NoSchedule", "PreferNoSchedule"))),
                       draw(st.sampled_from(("ssd", "hdd"))), draw(st.booleans()))
             for i in range(n_nodes)]
    pods = []
    for j in range(draw(st.integers(1, 24))):
        app = draw(st.sampled_from(("web", "db", "cache")))
        spec: dict = {"containers": [{"name": "c", "image": "registry.example.com/app:1",
                                      "resources": {"requests": {"cpu": draw(st.sampled_from(("100m", "500m", "1", "1500m"))),
                                                                 "memory": draw(st.sampled_from(("128Mi", "1Gi")))}}}],
                      "priority": draw(st.sampled_from((0, 0, 100, 1000)))}
        if draw(st.booleans()):
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        if draw(st.integers(0, 5)) == 0:  # init containers and overhead count on the node too
            spec["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"requests": {"cpu": "1200m"}}}]
        if draw(st.integers(0, 7)) == 0:
            spec["overhead"] = {"cpu": "250m", "memory": "120Mi"}
        if draw(st.integers(0, 4)) == 0:
            spec["nodeSelector"] = {"disk": "ssd"}
        if draw(st.integers(0, 3)) == 0:
            spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["hdd"]}]}}]}}
        roll = draw(st.integers(0, 5))
        if roll == 0:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway"))),
                                                  "labelSelector": {"matchLabels": {"app": app}}}]
        elif roll == 1:
            kind = draw(st.sampled_from(("podAffinity", "podAntiAffinity")))
            term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}
            spec.setdefault("affinity", {})[kind] = (
                {"requiredDuringSchedulingIgnoredDuringExecution": [term]} if draw(st.booleans())
                else {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": term}]})
        elif roll == 2:
            spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        bound = draw(st.integers(0, 3)) == 0 and nodes
        if bound:
            spec["nodeName"] = nodes[draw(st.integers(0, len(nodes) - 1))].name
        pods.append(Pod.from_doc({"kind": "Pod", "metadata": {"name": f"p{j:02d}", "namespace": "default",
                                                             "uid": f"u{j}", "labels": {"app": app}}, "spec": spec}))
    profile = draw(st.sampled_from(("LowNodeUtilization", "HighNodeUtilization", "NoScoring")))
    percentage = draw(st.sampled_from((None, 10, 50)))
    return nodes, pods, profile, percentage


def outcome(nodes, pods, profile_name, percentage, fast: bool):
    doc = {"apiVersion": "config.openshift.io/v1", "kind": "Scheduler", "spec": {"profile": profile_name}}
    profile = dict(schedulers_for([doc]))["default-scheduler"]
    # Services select two of the apps: the system default spreading applies to their pods
    services = [Service.from_doc({"kind": "Service", "metadata": {"name": app, "namespace": "default"},
                                  "spec": {"selector": {"app": app}}}) for app in ("web", "db")]
    state = ClusterState(nodes=list(nodes), pods=list(pods), services=services)
    results, start = run_queue(state, profile, None, True, explain=False, fast_path=fast,
                               rng_for_attempt=lambda pod, n: random.Random(f"{pod.key}/{n}"),
                               percentage_of_nodes_to_score=percentage or 0)
    return [(r.pod.key, r.node, r.message, r.preemption.to_doc() if r.preemption else None) for r in results], start, \
        [(p.key, p.node_name, p.nominated_node_name, p.deletion_timestamp) for p in state.pods]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_the_vector_cycle_decides_as_the_node_by_node_cycle(cluster):
    nodes, pods, profile, percentage = cluster
    assert outcome(nodes, pods, profile, percentage, True) == outcome(nodes, pods, profile, percentage, False)
