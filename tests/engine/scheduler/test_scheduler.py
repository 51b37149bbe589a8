"""The generic scheduler: filters, scores, the chosen node, the FailedScheduling message,
and the scheduling queue."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scheduling.engine.scheduler.policy import default_policy, load_policy
from scheduling.engine.scheduler.scheduler import (
    NO_NODES_AVAILABLE,
    fit_error_message,
    is_pending,
    run_queue,
    schedule,
    scheduler_not_running_message,
)
from tests.engine.builders import cluster, node, pod

TAINTS = "node(s) had taints that the pod didn't tolerate"
SELECTOR = "node(s) didn't match node selector"


def policy(predicates=(), priorities=(), **extra):
    return load_policy(
        {
            "apiVersion": "v1",
            "kind": "Policy",
            "predicates": [{"name": p} for p in predicates],
            "priorities": [{"name": n, "weight": w} for n, w in priorities],
            **extra,
        }
    )


def run_one(p, state, pol, seed=0, **kw):
    return schedule(p, state, state.node_infos(), pol, random.Random(seed), **kw)


# --- the FailedScheduling message --------------------------------------------------------


@pytest.mark.parametrize(
    "filters, message",
    [
        pytest.param(
            {"node1": ("Insufficient cpu",), "node2": (TAINTS,), "node3": (TAINTS,)},
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had taints that the pod didn't tolerate.",
            id="reasons are counted over nodes",
        ),
        pytest.param(
            {**{f"n{i}": (SELECTOR,) for i in range(10)}, "a": ("Insufficient cpu",), "b": ("Insufficient cpu",)},
            "0/12 nodes are available: 10 node(s) didn't match node selector, 2 Insufficient cpu.",
            id="the count-reason strings are sorted as strings so 10 comes before 2",
        ),
        pytest.param(
            {"node1": ("Insufficient cpu", "Insufficient memory"), "node2": ("Insufficient memory",)},
            "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.",
            id="a node with two reasons counts in both",
        ),
    ],
)
def test_fit_error_message_is_the_1_11_wording(filters, message):
    assert fit_error_message(len(filters), filters) == message


def test_a_cluster_without_nodes_has_no_nodes_available():
    result = run_one(pod("p"), cluster([]), default_policy())
    assert result.node is None
    assert result.filters == {}
    assert result.message == NO_NODES_AVAILABLE == "no nodes available to schedule pods"


# --- filters --------------------------------------------------------------------------------


def test_every_node_is_listed_in_node_order_with_its_reasons():
    state = cluster([node("b", taints=["k=v:NoSchedule"]), node("a"), node("c", cpu="1")])
    result = run_one(pod("p", cpu="2"), state, default_policy())
    assert list(result.filters) == ["b", "a", "c"]
    assert result.filters == {"b": (TAINTS,), "a": (), "c": ("Insufficient cpu",)}
    assert result.feasible == ["a"]
    assert result.fits("a") and not result.fits("b")


@pytest.mark.parametrize(
    "always, reasons",
    [
        pytest.param(False, ("Insufficient cpu",), id="the first failing predicate ends the check of a node"),
        pytest.param(True, ("Insufficient cpu", TAINTS), id="alwaysCheckAllPredicates reports every failing predicate"),
    ],
)
def test_predicates_stop_at_the_first_failure_unless_always_check_all(always, reasons):
    # GeneralPredicates comes before PodToleratesNodeTaints in the 1.11 order, whatever the
    # order in the policy.
    pol = policy(["PodToleratesNodeTaints", "GeneralPredicates"], alwaysCheckAllPredicates=always)
    state = cluster([node("n", cpu="1", taints=["k=v:NoSchedule"])])
    assert run_one(pod("p", cpu="2"), state, pol).filters == {"n": reasons}


def test_general_predicates_reports_all_its_sub_reasons():
    state = cluster([node("n", cpu="1")])
    result = run_one(pod("p", cpu="2", node_selector={"disk": "ssd"}), state, default_policy())
    assert result.filters == {"n": ("Insufficient cpu", SELECTOR)}
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match node selector."


def test_check_node_condition_runs_even_when_the_policy_lists_no_predicate():
    state = cluster([node("down", conditions={"Ready": "False"}), node("cordoned", unschedulable=True)])
    result = run_one(pod("p"), state, policy())
    assert result.filters == {"down": ("node(s) were not ready",), "cordoned": ("node(s) were unschedulable",)}
    assert result.message == "0/2 nodes are available: 1 node(s) were not ready, 1 node(s) were unschedulable."


def test_nodes_without_conditions_are_ready():
    result = run_one(pod("p"), cluster([node("n")]), policy())
    assert result.node == "n"


# --- scores and the choice -----------------------------------------------------------------------


def test_scores_are_raw_per_priority_with_the_weighted_total_and_the_best_total_wins():
    state = cluster(
        [node("a", cpu="4", memory="8Gi"), node("b", cpu="4", memory="8Gi")],
        [pod("busy", cpu="2", memory="4Gi", node_name="b")],
    )
    pol = policy(["GeneralPredicates"], [("LeastRequestedPriority", 1), ("MostRequestedPriority", 2)])
    result = run_one(pod("p", cpu="1", memory="1Gi"), state, pol)
    # a: cpu 1000/4000, memory 1Gi/8Gi
    #    least ((3000*10)/4000=7 + (7*10)/8=8)/2 = 7; most ((1000*10)/4000=2 + (1*10)/8=1)/2 = 1; 7*1 + 1*2 = 9
    # b: cpu 3000/4000, memory 5Gi/8Gi
    #    least ((1000*10)/4000=2 + (3*10)/8=3)/2 = 2; most ((3000*10)/4000=7 + (5*10)/8=6)/2 = 6; 2*1 + 6*2 = 14
    assert result.scores == {
        "a": {"LeastRequestedPriority": 7, "MostRequestedPriority": 1, "total": 9},
        "b": {"LeastRequestedPriority": 2, "MostRequestedPriority": 6, "total": 14},
    }
    assert result.prioritized is True
    assert result.tied == ("b",)
    assert result.node == "b"


def test_a_policy_without_priorities_scores_every_node_1_as_1_11_does():
    state = cluster([node("a"), node("b")])
    result = run_one(pod("p"), state, policy(["GeneralPredicates"]))
    assert result.scores == {"a": {"EqualPriority": 1, "total": 1}, "b": {"EqualPriority": 1, "total": 1}}


def test_ties_are_broken_by_the_random_generator_passed_in_and_recorded():
    state = cluster([node("a"), node("b"), node("c")])
    pol = policy(["GeneralPredicates"], [("EqualPriority", 1)])
    chosen = set()
    for seed in range(20):
        result = run_one(pod("p"), state, pol, seed=seed)
        assert result.tied == ("a", "b", "c")
        assert result.node == ("a", "b", "c")[random.Random(seed).randrange(3)]
        assert run_one(pod("p"), state, pol, seed=seed).node == result.node  # reproducible
        chosen.add(result.node)
    assert chosen == {"a", "b", "c"}


def test_one_feasible_node_is_taken_without_prioritizing_but_its_scores_are_explained():
    state = cluster([node("a"), node("b", cpu="1")])
    pol = policy(["GeneralPredicates"], [("LeastRequestedPriority", 1)])
    rng = random.Random(7)
    before = rng.getstate()
    result = schedule(pod("p", cpu="2", memory="2Gi"), state, state.node_infos(), pol, rng)
    assert result.node == "a"
    assert result.prioritized is False
    assert result.tied == ("a",)
    # cpu ((4000-2000)*10)/4000 = 5, memory ((8-2)*10)/8 = 7 -> (5+7)/2 = 6
    assert result.scores == {"a": {"LeastRequestedPriority": 6, "total": 6}}
    assert rng.getstate() == before  # no tie, no draw
    quiet = schedule(pod("p", cpu="2", memory="2Gi"), state, state.node_infos(), pol, rng, explain=False)
    assert quiet.node == "a" and quiet.scores == {}


def test_nominated_pods_of_equal_or_higher_priority_count_on_their_node():
    state = cluster([node("a", cpu="4"), node("b", cpu="4")])
    waiting = pod("waiting", cpu="3", priority=100)
    nominated = {"a": [waiting]}
    low = run_one(pod("low", cpu="2", priority=0), state, default_policy(), nominated=nominated)
    assert low.filters == {"a": ("Insufficient cpu",), "b": ()}
    high = run_one(pod("high", cpu="2", priority=200), state, default_policy(), nominated=nominated)
    assert high.filters == {"a": (), "b": ()}


# --- the queue -----------------------------------------------------------------------------------


def test_the_queue_runs_by_priority_then_input_order_and_later_pods_see_earlier_ones():
    state = cluster(
        [node("n", cpu="2")],
        [pod("first", cpu="1500m"), pod("second", cpu="1500m", priority=100), pod("third", cpu="100m")],
    )
    results = run_queue(state, default_policy(), random.Random(0), preemption=False)
    assert [(r.pod.name, r.node) for r in results] == [("second", "n"), ("first", None), ("third", "n")]
    assert results[1].message == "0/1 nodes are available: 1 Insufficient cpu."
    assert [(p.name, p.node_name, p.phase) for p in state.pods] == [
        ("first", "", "Pending"),
        ("second", "n", "Running"),
        ("third", "n", "Running"),
    ]


def test_the_queue_only_takes_pending_pods_of_its_scheduler():
    custom = dataclasses.replace(pod("custom"), scheduler_name="custom-scheduler")
    state = cluster(
        [node("n")],
        [
            custom,
            pod("bound", node_name="n"),
            pod("going", deletion_timestamp=5.0),
            pod("default-one"),
        ],
    )
    assert [p.name for p in state.pods if is_pending(p)] == ["default-one"]
    results = run_queue(state, default_policy(), random.Random(0))
    assert [r.pod.name for r in results] == ["default-one"]
    assert state.pods[0].node_name == ""
    results = run_queue(state, default_policy(), random.Random(0), scheduler_name="custom-scheduler")
    assert [(r.pod.name, r.node) for r in results] == [("custom", "n")]


def test_a_scheduler_that_does_not_run_is_explained():
    assert scheduler_not_running_message("custom-scheduler") == (
        'no scheduler named "custom-scheduler" is running: the pod stays Pending until one picks it up'
    )


def test_a_pod_waiting_for_a_pod_affinity_match_is_retried_when_a_matching_pod_is_bound():
    team4a = pod(
        "team4a",
        affinity={
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchExpressions": [{"key": "team", "operator": "In", "values": ["4"]}]},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
    )
    state = cluster(
        [node("n1", labels={"kubernetes.io/hostname": "n1"}), node("n2", labels={"kubernetes.io/hostname": "n2"})],
        [team4a, pod("team4", labels={"team": "4"})],
    )
    results = run_queue(state, default_policy(), random.Random(0))
    assert [(r.pod.name, r.node is not None) for r in results] == [("team4a", False), ("team4", True), ("team4a", True)]
    assert results[0].message == (
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules, "
        "2 node(s) didn't match pod affinity/anti-affinity."
    )
    assert state.pods[0].node_name == state.pods[1].node_name


def test_events_of_an_attempt():
    state = cluster([node("n", cpu="1")], [pod("fits"), pod("big", cpu="2")])
    results = run_queue(state, default_policy(), random.Random(0))
    assert [e.to_doc() for r in results for e in r.events()] == [
        {
            "time": 0.0,
            "type": "Normal",
            "reason": "Scheduled",
            "object": "Pod/default/fits",
            "message": "Successfully assigned default/fits to n",
        },
        {
            "time": 0.0,
            "type": "Warning",
            "reason": "FailedScheduling",
            "object": "Pod/default/big",
            "message": "0/1 nodes are available: 1 Insufficient cpu.",
        },
    ]


# labels.NewRequirement's refusal, as apimachinery words it.
INVALID_VALUE = (
    'invalid label value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters, '
    "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize("fast", [pytest.param(True, id="fast path"), pytest.param(False, id="plain path")])
def test_a_priority_error_fails_the_attempt_with_its_text_and_does_not_preempt(fast):
    # NodeAffinityPriority cannot build the selector of a preferred term whose value is not
    # a label value: 1.11's PrioritizeNodes returns that error, the attempt fails with it
    # (a FailedScheduling event) and only a FitError would have triggered preemption.
    bad = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["not valid!"]}]}}
            ]
        }
    }
    state = cluster([node("a"), node("b")], [pod("low", cpu="1", node_name="a", priority=0), pod("p", affinity=bad, priority=100)])
    results = run_queue(state, default_policy(), random.Random(0), fast=fast)
    assert [(r.pod.name, r.node, r.message, r.error, r.preemption) for r in results] == [
        ("p", None, INVALID_VALUE, INVALID_VALUE, None)
    ]
    assert [e.reason for e in results[0].events()] == ["FailedScheduling"]
    # With one feasible node 1.11 runs no priority: the pod is placed.
    alone = cluster([node("a")], [pod("p", affinity=bad)])
    assert [r.node for r in run_queue(alone, default_policy(), random.Random(0), fast=fast)] == ["a"]
