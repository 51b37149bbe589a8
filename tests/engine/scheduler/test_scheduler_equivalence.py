"""The fast path of the scheduler decides exactly like the plain path.

`run_queue(..., fast=False)` is the plain algorithm: every predicate on every node, every
priority over the feasible nodes, node by node in Python. The default fast path uses the
scheduler's cache (engine.cache): static results kept per pod spec, numpy vector forms of
the predicates and priorities, indexes kept in step as pods are bound. Both run here on
seeded random clusters full of what makes scheduling hard (taints of every effect, node
selectors and node affinity with every operator, pod affinity and anti-affinity, host
ports, volumes, extended resources, terminating pods, nominated pods, priorities and
preemption, policies with every predicate and priority) and must agree on everything a
user can see: each attempt's node, tie, filters, scores, message and preemption, the
final pods, and the random generator's state.
"""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.api.objects import Controller, Node, Pod, PodDisruptionBudget, Service, Volume
from scheduling.engine.scheduler.policy import default_policy, load_policy
from scheduling.engine.scheduler.sample_policies import SAMPLE_POLICIES
from scheduling.engine.scheduler.scheduler import feasible_mask, is_pending, pod_fits_on_node, run_queue, schedule

ZONES = ("z1", "z2", "z3")
HOSTNAME = "kubernetes.io/hostname"
ZONE = "failure-domain.beta.kubernetes.io/zone"
REGION = "failure-domain.beta.kubernetes.io/region"
NAMESPACES = ("default", "shop", "infra")
APPS = ("web", "api", "db", "cache", "batch", "")
TOPOLOGY_KEYS = (HOSTNAME, HOSTNAME, ZONE, "zone", "rack")

EVERYTHING_POLICY = {
    "kind": "Policy",
    "apiVersion": "v1",
    "predicates": [
        {"name": "CheckNodeCondition"},
        {"name": "GeneralPredicates"},
        {"name": "HostName"},
        {"name": "PodFitsHostPorts"},
        {"name": "MatchNodeSelector"},
        {"name": "PodFitsResources"},
        {"name": "NoDiskConflict"},
        {"name": "PodToleratesNodeTaints"},
        {"name": "PodToleratesNodeNoExecuteTaints"},
        {"name": "RackPresent", "argument": {"labelsPresence": {"labels": ["rack"], "presence": True}}},
        {"name": "ZoneAffinity", "argument": {"serviceAffinity": {"labels": ["zone"]}}},
        {"name": "MaxEBSVolumeCount"},
        {"name": "MaxGCEPDVolumeCount"},
        {"name": "MaxAzureDiskVolumeCount"},
        {"name": "CheckVolumeBinding"},
        {"name": "NoVolumeZoneConflict"},
        {"name": "CheckNodeMemoryPressure"},
        {"name": "CheckNodeDiskPressure"},
        {"name": "MatchInterPodAffinity"},
    ],
    "priorities": [
        {"name": "SelectorSpreadPriority", "weight": 1},
        {"name": "ServiceSpreadingPriority", "weight": 2},
        {"name": "InterPodAffinityPriority", "weight": 3},
        {"name": "LeastRequestedPriority", "weight": 1},
        {"name": "MostRequestedPriority", "weight": 1},
        {"name": "BalancedResourceAllocation", "weight": 1},
        {"name": "NodePreferAvoidPodsPriority", "weight": 10000},
        {"name": "NodeAffinityPriority", "weight": 2},
        {"name": "TaintTolerationPriority", "weight": 1},
        {"name": "ImageLocalityPriority", "weight": 1},
        {"name": "EqualPriority", "weight": 1},
        {"name": "RackSpread", "weight": 2, "argument": {"serviceAntiAffinity": {"label": "rack"}}},
        {"name": "SSD", "weight": 1, "argument": {"labelPreference": {"label": "disk", "presence": True}}},
    ],
    "hardPodAffinitySymmetricWeight": 5,
}

POLICIES = {
    "default": lambda: default_policy(),
    "huge weights": lambda: load_policy(
        {"kind": "Policy", "apiVersion": "v1", "priorities": [
            {"name": "LeastRequestedPriority", "weight": 2**59},
            {"name": "SelectorSpreadPriority", "weight": 2**59 + 1},
            {"name": "TaintTolerationPriority", "weight": 3},
        ]}
    ),
    "everything": lambda: load_policy(EVERYTHING_POLICY),
    "everything, all predicates checked": lambda: load_policy(dict(EVERYTHING_POLICY, alwaysCheckAllPredicates=True)),
    "no priorities": lambda: load_policy({"kind": "Policy", "apiVersion": "v1", "priorities": []}),
    "combined sample": lambda: load_policy(SAMPLE_POLICIES["combined"]),
    "modified sample": lambda: load_policy(SAMPLE_POLICIES["modified"]),
}


# --- random clusters ------------------------------------------------------------------------------


def _node(rng: random.Random, i: int) -> Node:
    name = f"n{i:02d}"
    labels = {HOSTNAME: name, "beta.kubernetes.io/instance-type": rng.choice(("small", "large"))}
    if rng.random() < 0.9:
        zone = ZONES[i % 3] if rng.random() < 0.8 else rng.choice(ZONES)
        labels.update({ZONE: zone, REGION: "r1", "zone": zone, "region": "r1"})
    if rng.random() < 0.7:
        labels["rack"] = f"rack{rng.randrange(4)}"
    if rng.random() < 0.3:
        labels["disk"] = "ssd"
    if rng.random() < 0.3:
        labels["cores"] = str(rng.choice((2, 4, 8)))
    taints = []
    for _ in range(rng.choice((0, 0, 0, 0, 1, 1, 2))):
        taints.append(
            {
                "key": rng.choice(("dedicated", "gpu", "maintenance")),
                "value": rng.choice(("", "infra", "yes")),
                "effect": rng.choice(("NoSchedule", "PreferNoSchedule", "PreferNoSchedule", "NoExecute")),
            }
        )
    capacity = {"cpu": rng.choice(("4", "8", "8", "16", "1500m")), "memory": rng.choice(("8Gi", "16Gi", "32Gi")), "pods": str(rng.choice((110, 110, 110, 8)))}
    if rng.random() < 0.2:
        capacity["example.com/gpu"] = str(rng.choice((1, 2)))
    if rng.random() < 0.6:
        capacity["ephemeral-storage"] = "20Gi"
    if rng.random() < 0.05:
        capacity = {k: v for k, v in capacity.items() if k != "memory"}
    conditions = [{"type": "Ready", "status": "False" if rng.random() < 0.05 else "True"}]
    if rng.random() < 0.1:
        conditions.append({"type": "MemoryPressure", "status": "True"})
    if rng.random() < 0.05:
        conditions.append({"type": "DiskPressure", "status": "True"})
    annotations = {}
    if rng.random() < 0.1:
        annotations["scheduler.alpha.kubernetes.io/preferAvoidPods"] = json.dumps(
            {"preferAvoidPods": [{"podSignature": {"podController": {"kind": "ReplicaSet", "name": "web", "uid": "rs-web", "controller": True}}}]}
        )
    images = []
    if rng.random() < 0.3:
        images.append({"names": ["nginx:1.15"], "sizeBytes": rng.choice((50, 500, 2000)) * 1024 * 1024})
    return Node.from_doc(
        {
            "kind": "Node",
            "metadata": {"name": name, "labels": labels, "annotations": annotations},
            "spec": {"taints": taints, "unschedulable": rng.random() < 0.03},
            "status": {"capacity": capacity, "allocatable": capacity, "conditions": conditions, "images": images},
        }
    )


def _selector(rng: random.Random, app: str, invalid: bool = False) -> dict:
    roll = 0.99 if invalid else rng.random() * 0.98
    if roll < 0.6:
        return {"matchLabels": {"app": app}}
    if roll < 0.8:
        return {"matchExpressions": [{"key": "app", "operator": rng.choice(("In", "NotIn")), "values": [app, rng.choice(APPS[:-1])]}]}
    if roll < 0.9:
        return {"matchExpressions": [{"key": "tier", "operator": rng.choice(("Exists", "DoesNotExist"))}]}
    if roll < 0.98:
        return {}
    return {"matchLabels": {"app": "not a valid value!"}}  # apimachinery refuses it


def _pod_affinity_terms(rng: random.Random, app: str, required: bool) -> list:
    terms = []
    for _ in range(rng.choice((1, 1, 2))):
        term: dict = {"labelSelector": _selector(rng, rng.choice((app, app, rng.choice(APPS[:-1]))))}
        term["topologyKey"] = rng.choice(TOPOLOGY_KEYS) if rng.random() > 0.03 else ""
        if rng.random() < 0.2:
            term["namespaces"] = rng.sample(NAMESPACES, rng.choice((1, 2)))
        terms.append(term if required else {"weight": rng.choice((1, 10, 100)), "podAffinityTerm": term})
    return terms


def _affinity(rng: random.Random, app: str) -> dict | None:
    affinity: dict = {}
    if rng.random() < 0.3:
        node_affinity: dict = {}
        if rng.random() < 0.5:
            expressions = [
                rng.choice(
                    (
                        {"key": ZONE, "operator": "In", "values": rng.sample(ZONES, 2)},
                        {"key": "disk", "operator": "Exists"},
                        {"key": "rack", "operator": "DoesNotExist"},
                        {"key": "cores", "operator": "Gt", "values": ["3"]},
                        {"key": "cores", "operator": "Lt", "values": ["5"]},
                        {"key": "zone", "operator": "NotIn", "values": ["z1"]},
                        {"key": "zone", "operator": "In", "values": ["bad value!"]},
                    )
                )
            ]
            term: dict = {"matchExpressions": expressions}
            if rng.random() < 0.15:
                term = {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n01"]}]}
            node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
        if rng.random() < 0.6:
            node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.choice((1, 5, 50)), "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": [rng.choice(ZONES)]}]}},
                {"weight": rng.choice((0, 3)), "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}},
            ][: rng.choice((1, 2))]
        affinity["nodeAffinity"] = node_affinity
    for kind, p in (("podAffinity", 0.15), ("podAntiAffinity", 0.2)):
        if rng.random() < p:
            spec: dict = {}
            if rng.random() < 0.5:
                spec["requiredDuringSchedulingIgnoredDuringExecution"] = _pod_affinity_terms(rng, app, True)
            if rng.random() < 0.7:
                spec["preferredDuringSchedulingIgnoredDuringExecution"] = _pod_affinity_terms(rng, app, False)
            affinity[kind] = spec
    return affinity or None


def _template(rng: random.Random, namespace: str, app: str, i: int) -> dict:
    """A pod spec and labels shared by the pods of one controller."""
    requests: dict = {}
    if rng.random() < 0.85:
        requests["cpu"] = rng.choice(("100m", "250m", "250m", "500m", "1", "3"))
    if rng.random() < 0.8:
        requests["memory"] = rng.choice(("128Mi", "512Mi", "1Gi", "2Gi", "6Gi"))
    if rng.random() < 0.04:
        requests["example.com/gpu"] = "1"
    if rng.random() < 0.04:
        requests["ephemeral-storage"] = "5Gi"
    container: dict = {"name": "c", "image": rng.choice(("nginx:1.15", "nginx", "busybox")), "resources": {"requests": requests}}
    if rng.random() < 0.06:
        container["ports"] = [{"containerPort": 80, "hostPort": rng.choice((8080, 9090)), "hostIP": rng.choice(("", "10.0.0.1"))}]
    spec: dict = {"containers": [container]}
    if rng.random() < 0.1:
        spec["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"requests": {"cpu": "2"}}}]
    if rng.random() < 0.15:
        spec["nodeSelector"] = rng.choice(({"disk": "ssd"}, {"zone": rng.choice(ZONES)}, {"region": "r1"}, {"beta.kubernetes.io/instance-type": "large"}))
    if rng.random() < 0.3:
        spec["tolerations"] = [
            rng.choice(
                (
                    {"key": "dedicated", "operator": "Exists"},
                    {"key": "maintenance", "operator": "Equal", "value": "yes", "effect": "PreferNoSchedule"},
                    {"operator": "Exists", "effect": "NoSchedule"},
                    {"key": "gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
                )
            )
            for _ in range(rng.choice((1, 2)))
        ]
    affinity = _affinity(rng, app)
    if affinity:
        spec["affinity"] = affinity
    if rng.random() < 0.08:
        spec["volumes"] = [rng.choice((
            {"name": "pd", "gcePersistentDisk": {"pdName": f"disk-{rng.randrange(3)}", "readOnly": rng.random() < 0.5}},
            {"name": "ebs", "awsElasticBlockStore": {"volumeID": f"vol-{rng.randrange(3)}"}},
            {"name": "claim", "persistentVolumeClaim": {"claimName": rng.choice(("bound-claim", "late-claim", "missing-claim"))}},
        ))]
    labels = {"app": app, "tier": rng.choice(("front", "back"))} if app else {}
    if rng.random() < 0.1 and labels:
        del labels["tier"]
    return {"spec": spec, "labels": labels}


def random_cluster(seed: int, nodes: int, pods: int, invalid_selectors: bool = False, huge_node: bool = False) -> ClusterState:
    """`invalid_selectors`: one controller's pods carry a preferred anti-affinity term with
    a selector apimachinery refuses (InterPodAffinityPriority then fails for every pod
    once one of them runs), another's a required affinity term with one, a third's a
    required anti-affinity term without topologyKey (1.11's error paths). `huge_node`: the
    last node has 1E of memory, beyond what int64 arithmetic on its amounts keeps exact."""
    rng = random.Random(seed)
    node_list = [_node(rng, i) for i in range(nodes)]
    if huge_node:
        big = node_list[-1]
        allocatable = dict(big.allocatable, memory="1E")
        node_list[-1] = dataclasses.replace(big, allocatable=allocatable, capacity=allocatable)
    services, controllers, pod_docs = [], [], []
    templates = []
    for c in range(max(4, pods // 25)):
        namespace = rng.choice(NAMESPACES)
        app = rng.choice(APPS)
        kind = rng.choice(("ReplicaSet", "ReplicaSet", "ReplicationController", "StatefulSet", None))
        uid = "rs-web" if (app == "web" and kind == "ReplicaSet" and rng.random() < 0.5) else f"uid-{c}"
        templates.append((namespace, app, kind, f"ctl{c}", uid, _template(rng, namespace, app, c)))
        if kind and app:
            selector = {"app": app} if kind == "ReplicationController" else {"matchLabels": {"app": app}}
            controllers.append(Controller.from_doc({"kind": kind, "metadata": {"name": f"ctl{c}", "namespace": namespace, "uid": uid}, "spec": {"selector": selector}}))
    if invalid_selectors:
        bad = {"labelSelector": _selector(rng, "", invalid=True), "topologyKey": HOSTNAME}
        templates[0][5]["spec"]["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": bad}]}}
        templates[1][5]["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [bad]}}
        keyless = {"labelSelector": {"matchLabels": {"app": templates[2][1] or "web"}}, "topologyKey": ""}
        templates[2][5]["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [keyless]}}
    for namespace in NAMESPACES:
        for app in APPS[:-1]:
            if rng.random() < 0.5:
                services.append(Service.from_doc({"metadata": {"name": f"svc-{app}", "namespace": namespace}, "spec": {"selector": {"app": app}}}))
    services.append(Service.from_doc({"metadata": {"name": "everything", "namespace": "shop"}, "spec": {"selector": {}}}))
    for p in range(pods):
        namespace, app, kind, ctl, uid, template = rng.choice(templates)
        spec = json.loads(json.dumps(template["spec"]))
        meta: dict = {"name": f"p{p:03d}", "namespace": namespace, "labels": dict(template["labels"])}
        if kind:
            meta["ownerReferences"] = [{"kind": kind, "name": ctl, "uid": uid, "controller": True}]
        spec["priority"] = rng.choice((0, 0, 0, 100, 1000))
        status: dict = {}
        roll = rng.random()
        if roll < 0.15:  # already running
            spec["nodeName"] = rng.choice(node_list).name
            if rng.random() < 0.15:
                meta["deletionTimestamp"] = 1.0
        elif roll < 0.17:
            status["nominatedNodeName"] = rng.choice(node_list).name
        pod_docs.append({"kind": "Pod", "metadata": meta, "spec": spec, "status": status})
    pvs = [
        Volume.from_doc({"kind": "PersistentVolume", "metadata": {"name": "pv1", "labels": {ZONE: "z1"}},
                         "spec": {"capacity": {"storage": "10Gi"}, "gcePersistentDisk": {"pdName": "disk-1"}}}),
        Volume.from_doc({"kind": "PersistentVolume", "metadata": {"name": "pv2"},
                         "spec": {"capacity": {"storage": "10Gi"}, "storageClassName": "late",
                                  "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "disk", "operator": "Exists"}]}]}}}}),
    ]
    pvcs = [
        Volume.from_doc({"kind": "PersistentVolumeClaim", "metadata": {"name": "bound-claim", "namespace": ns},
                         "spec": {"volumeName": "pv1", "resources": {"requests": {"storage": "1Gi"}}}})
        for ns in NAMESPACES
    ] + [
        Volume.from_doc({"kind": "PersistentVolumeClaim", "metadata": {"name": "late-claim", "namespace": ns},
                         "spec": {"storageClassName": "late", "resources": {"requests": {"storage": "1Gi"}}}})
        for ns in NAMESPACES
    ]
    classes = [Volume.from_doc({"kind": "StorageClass", "metadata": {"name": "late"}, "volumeBindingMode": "WaitForFirstConsumer"})]
    pdbs = [PodDisruptionBudget.from_doc({"metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}})]
    return ClusterState(
        nodes=node_list,
        pods=[Pod.from_doc(d) for d in pod_docs],
        services=services,
        controllers=controllers,
        pdbs=pdbs,
        persistent_volumes=pvs,
        persistent_volume_claims=pvcs,
        storage_classes=classes,
        namespaces=list(NAMESPACES),
    )


# --- comparing ---------------------------------------------------------------------------------------


def outcome(results) -> list[dict]:
    """Everything a user can see of each attempt."""
    return [
        {
            "pod": r.pod.key,
            "node": r.node,
            "tied": r.tied,
            "prioritized": r.prioritized,
            "filters": r.filters,
            "scores": r.scores,
            "message": r.message,
            "preemption": r.preemption.to_doc() if r.preemption is not None else None,
        }
        for r in results
    ]


def run_both(seed: int, nodes: int, pods: int, policy_name: str, preemption: bool, explain: bool, **options):
    runs = []
    for fast in (True, False):
        state = random_cluster(seed, nodes, pods, **options)
        rng = random.Random(seed)
        results = run_queue(state, POLICIES[policy_name](), rng, preemption, explain=explain, fast=fast)
        runs.append((outcome(results), state.pods, rng.getstate()))
    return runs


CASES = [
    pytest.param(1, 30, 250, "default", True, False, {}, id="default policy, preemption on, compact results"),
    pytest.param(2, 24, 220, "default", False, True, {}, id="default policy, preemption off, explained"),
    pytest.param(3, 40, 300, "everything", True, True, {}, id="every predicate and priority, preemption on, explained"),
    pytest.param(4, 20, 200, "everything, all predicates checked", True, False, {}, id="alwaysCheckAllPredicates, preemption on"),
    pytest.param(5, 25, 200, "no priorities", True, True, {}, id="a policy without priorities"),
    pytest.param(6, 30, 220, "combined sample", False, True, {}, id="the documentation's combined sample policy"),
    pytest.param(7, 30, 220, "modified sample", True, False, {}, id="the documentation's modified sample policy"),
    pytest.param(8, 60, 500, "default", True, False, {}, id="a bigger cluster under the default policy"),
    pytest.param(9, 30, 300, "everything", False, False, {}, id="every predicate and priority, compact results"),
    pytest.param(10, 25, 200, "everything", True, True, {"invalid_selectors": True},
                 id="selectors apimachinery refuses: priority errors and failing terms"),
    pytest.param(16, 25, 200, "default", True, False, {"invalid_selectors": True},
                 id="selectors apimachinery refuses, compact results"),
    pytest.param(14, 25, 200, "huge weights", True, False, {}, id="weights too big for int64 totals"),
    pytest.param(15, 25, 200, "default", True, False, {"huge_node": True}, id="a node too big for int64 resource arithmetic"),
]


@pytest.mark.parametrize("seed, nodes, pods, policy_name, preemption, explain, options", CASES)
def test_the_fast_path_decides_like_the_plain_path(seed, nodes, pods, policy_name, preemption, explain, options):
    (fast, fast_pods, fast_rng), (plain, plain_pods, plain_rng) = run_both(
        seed, nodes, pods, policy_name, preemption, explain, **options
    )
    assert len(fast) == len(plain)
    for f, p in zip(fast, plain):
        assert f == p, f"attempt of {p['pod']} differs"
    assert fast_pods == plain_pods
    assert fast_rng == plain_rng
    if not options.get("invalid_selectors"):
        assert sum(1 for r in plain if r["node"]) > len(plain) // 3  # the cluster is not hopeless
    else:
        assert any(r["message"].startswith('invalid label value: "not a valid value!": ') for r in plain)


@pytest.mark.parametrize("seed, policy_name", [(11, "default"), (12, "everything"), (13, "combined sample")])
def test_the_feasible_nodes_of_every_cycle_are_the_ones_the_predicates_accept(seed, policy_name):
    """feasible_mask against pod_fits_on_node for every pending pod, binding each pod where
    it fits so that the cache follows a changing cluster."""
    state = random_cluster(seed, 30, 250)
    policy = POLICIES[policy_name]()
    infos = state.node_infos()
    cache = SchedulerCache(infos, state)
    cache.attach()
    rng = random.Random(seed)
    checked = 0
    try:
        for i, pod in enumerate(state.pods):
            if not is_pending(pod):
                continue
            ctx = CycleContext(pod, state, infos)
            mask = feasible_mask(pod, ctx, cache, policy, None)
            expected = [not pod_fits_on_node(pod, ctx, info, policy) for info in infos.values()]
            assert mask.tolist() == expected, f"{pod.key}"
            checked += 1
            fits = [name for name, ok in zip(infos, expected) if ok]
            if fits:
                bound = dataclasses.replace(pod, node_name=rng.choice(fits))
                infos[bound.node_name].add_pod(bound)
                state.pods[i] = bound
    finally:
        cache.detach()
    assert checked > 150


def test_one_cycle_alone_takes_the_fast_path_by_default_and_decides_like_the_plain_one():
    state = random_cluster(21, 20, 120)
    infos = state.node_infos()
    for pod in [p for p in state.pods if is_pending(p)][:40]:
        fast = schedule(pod, state, infos, default_policy(), random.Random(3), explain=False)
        plain = schedule(pod, state, infos, default_policy(), random.Random(3), explain=False, fast=False)
        assert outcome([fast]) == outcome([plain])


def test_a_pod_on_a_node_info_its_node_name_does_not_name_is_judged_alike():
    """The vector forms that locate pods by NodeInfo decline; the plain functions decide."""
    state = random_cluster(22, 20, 150)
    stray = next(p for p in state.pods if is_pending(p) and p.labels)

    def infos_with_a_stray_pod():
        infos = state.node_infos()
        next(iter(infos.values())).add_pod(dataclasses.replace(stray, name="stray", node_name="elsewhere"))
        return infos

    assert not SchedulerCache(infos_with_a_stray_pod(), state).consistent
    for pod in [p for p in state.pods if is_pending(p)][:40]:
        for explain in (False, True):
            runs = [
                run_queue(dataclasses.replace(state, pods=[pod]), POLICIES["everything"](), random.Random(3), False,
                          explain=explain, node_infos=infos_with_a_stray_pod(), fast=fast)
                for fast in (True, False)
            ]
            assert outcome(runs[0]) == outcome(runs[1])


def _cache_contents(cache: SchedulerCache, probes) -> dict:
    arrays = {name: getattr(cache, name).tolist() for name in ("pod_count", "req_cpu", "req_mem", "req_eph", "nz_cpu", "nz_mem")}
    return {
        **arrays,
        "ports": sorted(cache.nodes_with_ports),
        "total": cache.total_pods,
        "affinity": {key: dict(g.nodes) for key, g in cache.affinity_groups.items()},
        "counts": [cache.pod_counts.counts(*probe).tolist() for probe in probes],
    }


def test_the_cache_follows_every_change_of_the_pods_while_attached():
    state = random_cluster(31, 20, 200)
    infos = state.node_infos()
    probes = [
        (("app web, live", ns), (ns,), lambda _, labels: labels.get("app") == "web", True) for ns in ("default", "shop")
    ] + [(("everything",), None, lambda _, labels: True, False)]
    cache = SchedulerCache(infos, state)
    for probe in probes:  # views made before the changes are kept up to date
        cache.pod_counts.counts(*probe)
    cache.attach()
    rng = random.Random(31)
    names = list(infos)
    for i, pod in enumerate(p for p in state.pods if is_pending(p)):
        info = infos[rng.choice(names)]
        bound = dataclasses.replace(pod, node_name=info.name)
        info.add_pod(bound)
        if i % 5 == 0:  # a preemption victim: terminating in place
            info.replace_pod(bound, dataclasses.replace(bound, deletion_timestamp=1.0))
        elif i % 7 == 0:
            info.remove_pod(bound)
    cache.detach()
    assert all(info.observer is None for info in infos.values())
    assert _cache_contents(cache, probes) == _cache_contents(SchedulerCache(infos, state), probes)


def test_run_queue_lets_go_of_the_node_infos_after_the_run():
    state = random_cluster(32, 20, 100)
    infos = state.node_infos()
    run_queue(state, default_policy(), random.Random(0), node_infos=infos)
    assert all(info.observer is None for info in infos.values())


@pytest.mark.parametrize(
    "scores, reverse",
    [
        pytest.param([0, 3, 7, 10], False, id="counts scaled to the highest"),
        pytest.param([0, 3, 7, 10], True, id="counts scaled and reversed"),
        pytest.param([0, 0, 0], True, id="all zero, reversed: every node 10"),
        pytest.param([-3, 0, -7], False, id="no positive count: the counts as they are"),
        pytest.param([-7, 2, 5], False, id="negative counts truncate toward zero as Go does"),
        pytest.param([-7, 2, 5], True, id="negative counts, reversed"),
    ],
)
def test_the_array_normalize_reduce_is_the_plain_one(scores, reverse):
    from scheduling.engine.scheduler.priorities.normalize import normalize_reduce, normalize_reduce_array

    assert normalize_reduce_array(np.array(scores, dtype=np.int64), 10, reverse).tolist() == normalize_reduce(scores, 10, reverse)


def test_node_local_results_follow_binds_one_by_one_in_batches_and_wholesale():
    """The resource forms keep their arrays per request and refresh the changed nodes: one
    by one after a few changes, as a vector after more, all at once after many."""
    from scheduling.engine.scheduler.predicates.resources import pod_fits_resources
    from scheduling.engine.scheduler.priorities.balanced_resource_allocation import balanced_resource_allocation
    from scheduling.engine.scheduler.priorities.least_requested import least_requested_priority
    from scheduling.engine.scheduler.priorities.most_requested import most_requested_priority

    state = random_cluster(41, 120, 600)
    infos = state.node_infos()
    cache = SchedulerCache(infos, state)
    cache.attach()
    rng = random.Random(41)
    pending = [p for p in state.pods if is_pending(p)]
    everywhere = np.arange(cache.n)
    names = list(infos)
    try:
        for batch in (1, 3, 8, 9, 14, 40, 2, 20, 1, 60):  # <= 8: one by one; <= n/8: a vector; else all
            for _ in range(batch):
                name = rng.choice(names)
                infos[name].add_pod(dataclasses.replace(pending.pop(), node_name=name))
            for pod in pending[:25]:
                ctx = CycleContext(pod, state, infos)
                every = list(infos.values())
                for priority in (least_requested_priority, most_requested_priority, balanced_resource_allocation):
                    assert priority.vector(pod, ctx, cache, everywhere).tolist() == priority(pod, ctx, every), priority.__name__
                mask = pod_fits_resources.mask(pod, ctx, cache)
                if mask is not None:
                    assert mask.tolist() == [not pod_fits_resources(pod, ctx, info) for info in every]
    finally:
        cache.detach()


@pytest.mark.parametrize("scenario", ["a", "b"])
def test_the_benchmark_clusters_are_scheduled_alike_on_both_paths(scenario):
    from scheduling.bench.scheduler import QUICK, make_state

    runs = []
    for fast in (True, False):
        state = make_state(QUICK[scenario], 7)
        rng = random.Random(7)
        results = run_queue(state, default_policy(), rng, explain=False, fast=fast)
        runs.append((outcome(results), state.pods, rng.getstate()))
    assert runs[0] == runs[1]
