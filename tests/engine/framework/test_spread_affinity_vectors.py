"""InterPodAffinity's node-vector forms (`filter_mask`, `score_vector`, `normalize_vector`,
read by the framework's fast path) decide as the plain Filter, Score and NormalizeScore do,
node by node, on generated clusters; and both plugins' counts follow the binds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scheduling.engine.framework.interface import CycleState, Handle
from scheduling.engine.framework.plugins.inter_pod_affinity import InterPodAffinity
from scheduling.engine.framework.plugins.pod_topology_spread import PodTopologySpread
from scheduling.engine.api.objects import Controller
from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import ClusterState
from tests.engine.framework.st import MakeLabelSelector, MakeNode, MakePod

HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
APPS = ["a", "b", "c"]


def _node(rng, i):
    b = MakeNode().Name(f"n{i}").Label(HOST, f"n{i}")
    if rng.random() < 0.85:
        b.Label(ZONE, f"z{rng.randrange(3)}")
    if rng.random() < 0.7:
        b.Label("region", f"r{rng.randrange(2)}")
    if rng.random() < 0.2:
        b.Taints([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])
    return b.Obj()


def _pod(rng, i, node=""):
    app = rng.choice(APPS)
    b = MakePod().Name(f"p{i}").Namespace(rng.choice(["default", "other"])).Label("app", app)
    if rng.random() < 0.5:
        b.Label("tier", rng.choice(["fe", "be"]))
    if rng.random() < 0.6:
        b.OwnerReference(f"rs-{app}", "ReplicaSet")
    if node:
        b.Node(node)
        if rng.random() < 0.1:
            b.Terminating()
    r = rng.random()
    key = rng.choice([HOST, ZONE, "region"])
    sel = MakeLabelSelector().Label("app", rng.choice(APPS)).Obj()
    if r < 0.2:
        b.SpreadConstraint(rng.randint(1, 2), key, rng.choice(["DoNotSchedule", "ScheduleAnyway"]), sel,
                           rng.choice([None, 2, 4]), rng.choice([None, "Ignore"]), rng.choice([None, "Honor"]))
    elif r < 0.3:
        b.PodAntiAffinityIn("app", key, [rng.choice(APPS)], "required")
    elif r < 0.4:
        b.PodAffinityIn("app", key, [rng.choice(APPS)], "required")
    elif r < 0.5:
        b.PodAffinityIn("app", key, [rng.choice(APPS)], "preferred")
    elif r < 0.6:
        b.PodAntiAffinityIn("tier", key, ["fe"], "preferred")
    return b.Obj()


@pytest.mark.parametrize("seed", range(12))
def test_vector_forms_match_the_plain_methods(seed):
    rng = random.Random(seed)
    nodes = [_node(rng, i) for i in range(rng.randint(5, 30))]
    pods = [_pod(rng, i, rng.choice(nodes).name) for i in range(rng.randint(0, 60))]
    controllers = [Controller.from_doc({"kind": "ReplicaSet", "metadata": {"name": f"rs-{a}", "namespace": ns},
                                        "spec": {"selector": {"matchLabels": {"app": a}}}})
                   for a in APPS for ns in ("default", "other")]
    state = ClusterState(nodes=nodes, pods=pods, controllers=controllers)
    infos = state.node_infos()
    handle = Handle(state=state, node_infos=infos)
    plugins = [InterPodAffinity({"hardPodAffinityWeight": rng.choice([0, 1, 5])}, handle)]
    cache = SchedulerCache(infos, state)
    all_infos = list(infos.values())
    checked = 0
    for j in range(15):
        pod = _pod(rng, 1000 + j)
        for plugin in plugins:
            cs = CycleState()
            status = plugin.pre_filter(cs, pod, all_infos)
            if status.is_success:
                plain = np.array([plugin.filter(cs, pod, info).is_success for info in all_infos])
                assert (plugin.filter_mask(cs, pod, cache) == plain).all(), (seed, j, plugin.name)
                checked += 1
            feasible = sorted(rng.sample(range(len(all_infos)), rng.randint(1, len(all_infos))))
            cs = CycleState()
            if not plugin.pre_score(cs, pod, [all_infos[i] for i in feasible]).is_success:
                continue
            scores = {all_infos[i].name: plugin.score(cs, pod, all_infos[i]) for i in feasible}
            raw = [scores[all_infos[i].name] for i in feasible]
            plugin.normalize_score(cs, pod, scores)
            idx = np.array(feasible, dtype=np.int64)
            vraw = plugin.score_vector(cs, pod, cache, idx)
            assert vraw.tolist() == raw, (seed, j, plugin.name)
            normalized = plugin.normalize_vector(cs, pod, vraw.copy())
            normalized = vraw if normalized is None else normalized
            assert normalized.tolist() == [scores[all_infos[i].name] for i in feasible], (seed, j, plugin.name)
            checked += 1
        node = rng.choice(all_infos)
        node.add_pod(pod)
    assert checked >= 3, checked


@pytest.mark.parametrize("attach", [False, True])
def test_counts_follow_binds_with_or_without_the_schedulers_cache(attach):
    """The bound pods are read again after each bind: through the index's own observer, or
    (when the scheduler's cache observes the NodeInfos, as the fast path attaches it) through
    the cache's change log. The counts equal those of a plugin made afresh."""
    rng = random.Random(7)
    nodes = [_node(rng, i) for i in range(12)]
    pods = [_pod(rng, i, rng.choice(nodes).name) for i in range(20)]
    state = ClusterState(nodes=nodes, pods=pods)
    infos = state.node_infos()
    handle = Handle(state=state, node_infos=infos)
    cache = SchedulerCache(infos, state)
    if attach:
        cache.attach()
    pts, ipa = PodTopologySpread({"defaultingType": "List"}, handle), InterPodAffinity({}, handle)
    incoming = MakePod().Name("in").Label("app", "a").SpreadConstraint(1, ZONE, "DoNotSchedule", MakeLabelSelector().Label("app", "a").Obj()) \
        .PodAntiAffinityIn("app", HOST, ["a"], "required").Obj()
    for k in range(15):
        all_infos = list(infos.values())
        cs = CycleState()
        assert pts.pre_filter(cs, incoming, all_infos).is_success
        ipa_status = ipa.pre_filter(cs, incoming, all_infos)
        copies = {name: info.clone() for name, info in infos.items()}  # no observer: indexed afresh
        fresh_handle = Handle(state=state, node_infos=copies)
        fresh_pts, fresh_ipa = PodTopologySpread({"defaultingType": "List"}, fresh_handle), InterPodAffinity({}, fresh_handle)
        cs2 = CycleState()
        fresh_pts.pre_filter(cs2, incoming, list(copies.values()))
        fresh_ipa.pre_filter(cs2, incoming, list(copies.values()))
        assert getattr(fresh_handle, "_pod_index") is not getattr(handle, "_pod_index")
        assert pts.domain_counts(cs) == fresh_pts.domain_counts(cs2)
        assert [ipa.filter(cs, incoming, i).code for i in all_infos] == [fresh_ipa.filter(cs2, incoming, i).code for i in copies.values()]
        assert ipa_status.is_success
        rng.choice(all_infos).add_pod(_pod(rng, 500 + k, "x"))
    if attach:
        cache.detach()
