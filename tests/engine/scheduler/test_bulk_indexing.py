"""The NodeInfos and the scheduler's cache of a whole cluster are built in one pass per
node (cluster.infos_with, NodeInfo.add_pods, SchedulerCache's first indexing); they must
hold exactly what adding the pods one at a time gives."""

from __future__ import annotations

import dataclasses

import pytest

from scheduling.engine.scheduler.cache import SchedulerCache
from scheduling.engine.scheduler.cluster import NodeInfo, infos_with
from tests.engine.scheduler.test_scheduler_equivalence import _cache_contents, random_cluster


def one_at_a_time(state, without=frozenset()):
    infos = {n.name: NodeInfo(n) for n in state.nodes}
    for pod in state.pods:
        if pod.node_name in infos and pod.key not in without:
            infos[pod.node_name].add_pod(pod)
    return infos


def contents(info: NodeInfo) -> dict:
    return {
        "pods": [p.key for p in info.pods],
        "requested": dataclasses.asdict(info.requested),
        "non_zero": (info.non_zero_cpu, info.non_zero_memory),
        "ports": info.used_ports,
        "generation": info.generation,
    }


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_node_infos_built_in_one_pass_hold_what_adding_pod_by_pod_gives(seed):
    state = random_cluster(seed, 15, 300)
    state.pods = [dataclasses.replace(p, node_name=state.nodes[i % len(state.nodes)].name) if i % 3 else p
                  for i, p in enumerate(state.pods)]
    without = {p.key for p in state.pods[::7]}
    for built, expected in ((state.node_infos(), one_at_a_time(state)), (infos_with(state.nodes, state.pods, without),
                                                                        one_at_a_time(state, without))):
        assert list(built) == list(expected)
        assert [contents(i) for i in built.values()] == [contents(i) for i in expected.values()]


@pytest.mark.parametrize("seed", [44, 45])
def test_the_cache_of_a_whole_cluster_holds_what_pods_bound_one_by_one_give(seed):
    state = random_cluster(seed, 15, 300)
    state.pods = [dataclasses.replace(p, node_name=state.nodes[i % len(state.nodes)].name) if i % 4 else p
                  for i, p in enumerate(state.pods)]
    probes = [
        (("app web", ns), (ns,), lambda _, labels: labels.get("app") == "web", True) for ns in ("default", "shop")
    ] + [(("everything",), None, lambda _, labels: True, False), (("api, any", "x"), None, lambda _, labels: labels.get("app") == "api", False)]
    whole = SchedulerCache(state.node_infos(), state)
    empty = {n.name: NodeInfo(n) for n in state.nodes}
    grown = SchedulerCache(empty, state)
    grown.attach()
    for pod in state.pods:
        if pod.node_name:
            empty[pod.node_name].add_pod(pod)
    grown.detach()
    assert _cache_contents(whole, probes) == _cache_contents(grown, probes)
    assert whole.consistent and grown.consistent
