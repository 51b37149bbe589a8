"""Preemption as Kubernetes 1.11 does it: candidates, victims, the chosen node, and what the
queue does with the result."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.policy import default_policy, load_policy
from scheduling.engine.scheduler.preemption import (
    pick_one_node_for_preemption,
    pod_eligible_to_preempt_others,
    preempt,
    select_victims_on_node,
)
from scheduling.engine.scheduler.context import CycleContext
from scheduling.engine.scheduler.scheduler import run_queue, schedule
from tests.engine.builders import cluster, node, pdb, pod

TAINTS = "node(s) had taints that the pod didn't tolerate"


def preempt_for(preemptor, state: ClusterState, policy=None, nominated=None):
    """Schedule `preemptor` once, then preempt for it with that cycle's filters."""
    policy = policy or default_policy()
    infos = state.node_infos()
    result = schedule(preemptor, state, infos, policy, random.Random(0), nominated=nominated)
    assert result.node is None, "the preemptor must not fit"
    return preempt(preemptor, state, infos, policy, result.filters, nominated=nominated)


def victims_doc(outcome):
    return outcome.to_doc() if outcome is not None else None


# --- victims on one node -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "pods, pdbs, victims, violations",
    [
        pytest.param(
            [pod("low", cpu="1", priority=0, node_name="n"), pod("mid", cpu="1", priority=10, node_name="n")],
            [],
            ["low"],
            0,
            id="the highest-priority removed pods are put back first so the lowest one goes",
        ),
        pytest.param(
            [pod("a", cpu="1", priority=5, node_name="n"), pod("b", cpu="1", priority=5, node_name="n")],
            [],
            ["b"],
            0,
            id="among equal priorities the node's earlier pod is put back first",
        ),
        pytest.param(
            [pod("keep", cpu="1", priority=100, node_name="n"), pod("low", cpu="1", priority=0, node_name="n")],
            [],
            ["low"],
            0,
            id="pods of equal priority are never victims",
        ),
        pytest.param(
            [
                pod("guarded", cpu="1", priority=5, labels={"app": "db"}, node_name="n"),
                pod("plain", cpu="1", priority=10, node_name="n"),
            ],
            [pdb("db", {"app": "db"}, disruptions_allowed=0)],
            ["plain"],
            0,
            id="pods whose budget allows no disruption are put back first",
        ),
        pytest.param(
            [
                pod("guarded", cpu="1", priority=5, labels={"app": "db"}, node_name="n"),
                pod("plain", cpu="1", priority=10, node_name="n"),
            ],
            [pdb("db", {"app": "db"}, disruptions_allowed=1)],
            ["guarded"],
            0,
            id="a budget that still allows a disruption does not protect",
        ),
        pytest.param(
            [
                pod("g1", cpu="1", priority=5, labels={"app": "db"}, node_name="n"),
                pod("g2", cpu="1", priority=1, labels={"app": "db"}, node_name="n"),
            ],
            [pdb("db", {"app": "db"}, disruptions_allowed=0)],
            ["g2"],
            1,
            id="a victim that violates its budget is counted",
        ),
        pytest.param(
            [
                pod("g1", cpu="1", priority=5, labels={"app": "db"}, namespace="other", node_name="n"),
                pod("g2", cpu="1", priority=1, labels={"app": "db"}, namespace="other", node_name="n"),
            ],
            [pdb("db", {"app": "db"}, disruptions_allowed=0)],
            ["g2"],
            0,
            id="a budget in another namespace does not apply",
        ),
    ],
)
def test_select_victims_on_node(pods, pdbs, victims, violations):
    state = cluster([node("n", cpu="2")], pods, pdbs=pdbs)
    preemptor = pod("high", cpu="1", priority=100)
    infos = state.node_infos()
    ctx = CycleContext(preemptor, state, infos)
    found, num_violations, fits = select_victims_on_node(preemptor, ctx, infos["n"], default_policy(), state.pdbs)
    assert fits is True
    assert [p.name for p in found] == victims
    assert num_violations == violations


def test_a_node_where_removing_every_lower_pod_is_not_enough_is_not_a_candidate():
    state = cluster([node("n", cpu="2")], [pod("equal", cpu="2", priority=100, node_name="n")])
    preemptor = pod("high", cpu="1", priority=100)
    infos = state.node_infos()
    ctx = CycleContext(preemptor, state, infos)
    assert select_victims_on_node(preemptor, ctx, infos["n"], default_policy(), []) == ((), 0, False)


# --- choosing the node ----------------------------------------------------------------------------


def victims(*priorities):
    return tuple(pod(f"v{i}", priority=p) for i, p in enumerate(priorities))


MIN_INT32 = -(2**31)


@pytest.mark.parametrize(
    "candidates, chosen",
    [
        pytest.param({}, None, id="no candidate no node"),
        pytest.param({"a": (victims(1), 0), "b": ((), 0)}, "b", id="a node that needs no victim wins"),
        pytest.param({"a": (victims(1), 1), "b": (victims(9, 9), 0)}, "b", id="then the fewest budget violations"),
        pytest.param({"a": (victims(9), 0), "b": (victims(5, 5, 5), 0)}, "b", id="then the lowest first victim priority"),
        pytest.param({"a": (victims(5, 4), 0), "b": (victims(5, 1), 0)}, "b", id="then the lowest sum of priorities"),
        pytest.param(
            {"a": (victims(-10, -10), 0), "b": (victims(-10), 0)},
            "b",
            id="the sum shifts every priority by 2^31 so more negative victims cost more",
        ),
        pytest.param(
            {"a": (victims(7, MIN_INT32), 0), "b": (victims(7), 0)},
            "b",
            id="then the fewest victims",
        ),
        pytest.param({"a": (victims(3), 0), "b": (victims(3), 0)}, "a", id="then the first node in node order"),
    ],
)
def test_pick_one_node_for_preemption(candidates, chosen):
    assert pick_one_node_for_preemption(candidates) == chosen


# --- preempt() --------------------------------------------------------------------------------------


def test_preemption_lists_every_candidate_node_and_nominates_one():
    state = cluster(
        [node("n1", cpu="2"), node("n2", cpu="2"), node("tainted", cpu="2", taints=["k=v:NoSchedule"])],
        [
            pod("a", cpu="2", priority=10, node_name="n1"),
            pod("b", cpu="1", priority=1, node_name="n2"),
            pod("c", cpu="1", priority=1, node_name="n2"),
            pod("d", cpu="2", priority=0, node_name="tainted"),
        ],
    )
    outcome = preempt_for(pod("high", cpu="2", priority=100), state)
    # n1: one victim of priority 10; n2: two victims of priority 1 -> lower highest victim wins.
    assert victims_doc(outcome) == {
        "victims": {"n1": ["default/a"], "n2": ["default/b", "default/c"]},
        "nominatedNode": "n2",
    }
    assert [p.name for p in outcome.victims] == ["b", "c"]


def test_preemption_considered_but_nothing_to_free():
    state = cluster([node("n", cpu="1")], [pod("same", cpu="1", priority=100, node_name="n")])
    outcome = preempt_for(pod("high", cpu="1", priority=100), state)
    assert victims_doc(outcome) == {"victims": {}, "nominatedNode": None}


def test_nodes_failing_for_reasons_preemption_cannot_fix_are_skipped():
    state = cluster(
        [node("tainted", cpu="1", taints=["k=v:NoSchedule"]), node("other", cpu="1", labels={"disk": "hdd"})],
        [pod("low1", cpu="1", node_name="tainted"), pod("low2", cpu="1", node_name="other")],
    )
    outcome = preempt_for(pod("high", cpu="1", priority=100, node_selector={"disk": "ssd"}), state)
    assert victims_doc(outcome) == {"victims": {}, "nominatedNode": None}


def test_a_pod_already_nominated_does_not_preempt_again_while_its_victims_terminate():
    state = cluster([node("n", cpu="1")], [pod("victim", cpu="1", node_name="n", deletion_timestamp=0.0)])
    preemptor = dataclasses.replace(pod("high", cpu="1", priority=100), nominated_node_name="n")
    assert pod_eligible_to_preempt_others(preemptor, state.node_infos()) is False
    assert preempt_for(preemptor, state) is None
    fresh = pod("other-high", cpu="1", priority=100)
    assert pod_eligible_to_preempt_others(fresh, state.node_infos()) is True


def test_lower_priority_pods_nominated_to_the_chosen_node_lose_their_nomination():
    state = cluster([node("n", cpu="2")], [pod("low", cpu="2", node_name="n")])
    mid = dataclasses.replace(pod("mid", cpu="1", priority=50), nominated_node_name="n")
    top = dataclasses.replace(pod("top", cpu="1", priority=500), nominated_node_name="n")
    outcome = preempt_for(pod("high", cpu="1", priority=100), state, nominated={"n": [mid, top]})
    assert outcome.nominated_node == "n"
    assert [p.name for p in outcome.lower_priority_nominated] == ["mid"]


# --- in the queue -------------------------------------------------------------------------------------


def test_the_queue_marks_victims_terminating_and_nominates_the_preemptor():
    state = cluster(
        [node("n", cpu="2")],
        [
            pod("low", cpu="1", priority=0, node_name="n"),
            pod("mid", cpu="1", priority=10, node_name="n"),
            pod("high", cpu="1", priority=100),
        ],
    )
    results = run_queue(state, default_policy(), random.Random(0), now=0.0)
    assert len(results) == 1
    result = results[0]
    assert result.node is None
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert result.preemption.to_doc() == {"victims": {"n": ["default/low"]}, "nominatedNode": "n"}
    low, mid, high = state.pods
    assert low.deletion_timestamp == 0.0 and low.node_name == "n"  # terminating, still on its node
    assert mid.deletion_timestamp is None
    assert high.nominated_node_name == "n" and high.node_name == ""
    assert [e.to_doc() for e in result.events()] == [
        {
            "time": 0.0,
            "type": "Warning",
            "reason": "FailedScheduling",
            "object": "Pod/default/high",
            "message": "0/1 nodes are available: 1 Insufficient cpu.",
        },
        {
            "time": 0.0,
            "type": "Normal",
            "reason": "Preempted",
            "object": "Pod/default/low",
            "message": "by default/high on node n",
        },
    ]


def test_a_later_lower_priority_pod_yields_to_the_nominated_preemptor():
    state = cluster(
        [node("n", cpu="4"), node("full", cpu="1")],
        [
            pod("low", cpu="2", priority=0, node_name="n"),
            pod("filler", cpu="1", priority=1000, node_name="full"),
            pod("high", cpu="3", priority=100),
            pod("later", cpu="1", priority=50),
        ],
    )
    results = run_queue(state, default_policy(), random.Random(0))
    assert [(r.pod.name, r.node) for r in results] == [("high", None), ("later", None)]
    assert results[0].preemption.to_doc() == {"victims": {"n": ["default/low"]}, "nominatedNode": "n"}
    # Without the nominated "high" (3 cpu), "later" would fit beside the terminating "low":
    # 2 + 1 <= 4. With it (equal or higher priority: first pass), 2 + 3 + 1 > 4.
    assert results[1].filters == {"n": ("Insufficient cpu",), "full": ("Insufficient cpu",)}
    # 1.11 does not skip victims that are already terminating: "later" preempts "low" too.
    assert results[1].preemption.to_doc() == {"victims": {"n": ["default/low"]}, "nominatedNode": "n"}
    assert [p.nominated_node_name for p in state.pods] == ["", "", "n", "n"]


@pytest.mark.parametrize(
    "switch",
    [
        pytest.param({"preemption": False}, id="disabled for the call"),
        pytest.param({"policy": {"disablePreemption": True}}, id="disabled by the policy"),
    ],
)
def test_preemption_can_be_disabled(switch):
    state = cluster([node("n", cpu="1")], [pod("low", cpu="1", node_name="n"), pod("high", cpu="1", priority=100)])
    policy = load_policy({"apiVersion": "v1", "kind": "Policy", **switch.get("policy", {})})
    results = run_queue(state, policy, random.Random(0), preemption=switch.get("preemption", True))
    assert results[0].preemption is None
    assert state.pods[0].deletion_timestamp is None
    assert state.pods[1].nominated_node_name == ""


@pytest.mark.parametrize(
    "nodes, cleared",
    [
        pytest.param(
            [node("n", cpu="2", taints=["k=v:NoSchedule"])],  # resources fit, the taint does not
            True,
            id="no node where preemption might help clears the pod's nomination",
        ),
        pytest.param([node("n", cpu="1")], False, id="nodes that only fail to fit after removals keep it"),
    ],
)
def test_a_stale_nomination_is_cleared_only_when_preemption_cannot_help_anywhere(nodes, cleared):
    waiting = dataclasses.replace(pod("high", cpu="1", priority=100), nominated_node_name="gone")
    state = cluster(nodes, [pod("equal", cpu="1", priority=100, node_name="n"), waiting])
    results = run_queue(state, default_policy(), random.Random(0))
    assert results[0].preemption.to_doc() == {"victims": {}, "nominatedNode": None}
    assert state.pods[1].nominated_node_name == ("" if cleared else "gone")


def test_a_victim_already_terminating_keeps_its_deletion_time():
    state = cluster(
        [node("n", cpu="1")],
        [pod("going", cpu="1", node_name="n", deletion_timestamp=3.0), pod("high", cpu="1", priority=100)],
    )
    results = run_queue(state, default_policy(), random.Random(0), now=10.0)
    assert results[0].preemption.to_doc() == {"victims": {"n": ["default/going"]}, "nominatedNode": "n"}
    assert state.pods[0].deletion_timestamp == 3.0
    assert [e.reason for e in results[0].events()] == ["FailedScheduling", "Preempted"]
