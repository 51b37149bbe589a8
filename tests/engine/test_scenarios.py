"""The built-in scenarios (engine/scenarios): each loads with scheduling.store.kube.load_documents,
plays with simulate(..., until=...), and shows its seed example with exact simulated times."""

from __future__ import annotations

import os
import re

import pytest

from scheduling.engine import scenarios
from scheduling.engine.simulate import simulate
from scheduling.store.kube import load_documents


def play(name: str, until: float | None = None) -> dict:
    scenario = scenarios.BY_NAME[name]
    with open(scenarios.path(scenario), encoding="utf-8") as f:
        docs = load_documents(f.read(), scenario.file)
    return simulate(docs, until=scenario.until if until is None else until)


def final(result: dict) -> dict[str, tuple[str | None, str]]:
    return {p["pod"]: (p["node"], p["phase"]) for p in result["pods"]}


def timed(result: dict, *reasons: str) -> list[tuple[float, str, str]]:
    return [(e["time"], e["reason"], e["object"]) for e in result["events"] if e["reason"] in reasons]


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: f"the {s.name} scenario loads and plays")
def test_every_scenario_loads_and_plays(scenario):
    assert os.path.exists(scenarios.path(scenario))
    assert scenario.title and scenario.description and scenario.source
    result = play(scenario.name)
    assert result["pods"]
    assert [e["time"] for e in result["events"]] == sorted(e["time"] for e in result["events"])


def test_the_scenario_list_names_every_file():
    files = {f for f in os.listdir(os.path.dirname(scenarios.path(scenarios.SCENARIOS[0]))) if f.endswith(".yaml")}
    assert files == {s.file for s in scenarios.SCENARIOS}


def test_multiple_taints():
    result = play("multiple-taints")
    assert final(result) == {"default/running": ("node1", "Running"), "default/new": (None, "Pending")}
    assert result["pods"][1]["message"] == "0/1 nodes are available: 1 node(s) had taints that the pod didn't tolerate."
    assert timed(result, "TaintManagerEviction") == []


def test_toleration_seconds():
    result = play("toleration-seconds")
    assert timed(result, "TaintManagerEviction") == [
        (1800.0, "TaintManagerEviction", "Pod/default/stays"),  # Cancelling deletion: the taint is gone
        (3600.0, "TaintManagerEviction", "Pod/default/leaves"),  # Marking for deletion: 0 + 3600
    ]
    assert final(result) == {"default/stays": ("node1", "Running"), "default/leaves": ("node2", "Deleted")}
    assert final(play("toleration-seconds", until=3629))["default/leaves"] == ("node2", "Terminating")


def test_default_toleration_seconds():
    result = play("default-toleration-seconds")
    # stop at 60; checks every 5 s; the first one after 60 + 40 is at 105 (Unknown); the
    # unreachable:NoExecute taint at the next check, 110; 110 + 300 = 410.
    assert timed(result, "NodeNotReady") == [(105.0, "NodeNotReady", "Node/node1")]
    evicted = timed(result, "TaintManagerEviction")
    assert len(evicted) == 1 and evicted[0][0] == 410.0
    victim = evicted[0][2].split("/", 1)[1]
    pods = final(result)
    assert pods[victim] == ("node1", "Terminating")  # node1 cannot stop it
    assert pods["default/patient"] == ("node1", "Running")  # tolerates 6000 s: until 6110
    web_running = sorted(node for key, (node, phase) in pods.items() if key.startswith("default/web-") and phase == "Running")
    # the replacement went to a healthy node at 410 (node2 and node3 tie; the tie-break is
    # drawn from the replacement pod's own generator: cluster seed, pod, attempt)
    assert web_running == ["node2", "node3", "node3"]
    assert [t for t, _, _ in timed(result, "SuccessfulCreate")] == [0.0, 0.0, 0.0, 410.0]
    assert [e[0] for e in timed(play("default-toleration-seconds", until=6200), "TaintManagerEviction")] == [410.0, 6110.0]


def test_daemonset_tolerations():
    result = play("daemonset-tolerations")
    assert timed(result, "TaintManagerEviction") == [(350.0, "TaintManagerEviction", "Pod/default/ordinary")]
    pods = final(result)
    assert pods["default/ordinary"] == ("node1", "Deleted")  # removed when node1 reports again at 3600
    agents = sorted(v for k, v in pods.items() if k.startswith("default/node-agent-"))
    assert agents == [("node1", "Running"), ("node2", "Running")]
    assert timed(result, "NodeReady") == [(3600.0, "NodeReady", "Node/node1")]


def test_dedicated_nodes():
    result = play("dedicated-nodes")
    assert final(result) == {
        "default/group-member": ("node1", "Running"),
        "default/outsider": (None, "Pending"),
        "default/anyone": ("node2", "Running"),
    }
    assert result["pods"][1]["filters"] == {
        "node1": {"fits": False, "reasons": ["node(s) had taints that the pod didn't tolerate"]},
        "node2": {"fits": False, "reasons": ["node(s) didn't match node selector"]},
    }


def test_special_hardware():
    result = play("special-hardware")
    assert final(result) == {"default/needs-ssd": ("ssd-1", "Running"), "default/ordinary": ("plain", "Running")}
    needs_ssd, ordinary = result["pods"]
    # TaintTolerationPriority: ssd-2's PreferNoSchedule taint is not tolerated by a NoSchedule toleration.
    assert {n: s["TaintTolerationPriority"] for n, s in needs_ssd["scores"].items()} == {"ssd-1": 10, "ssd-2": 0}
    assert ordinary["filters"]["ssd-1"] == {"fits": False, "reasons": ["node(s) had taints that the pod didn't tolerate"]}
    assert {n: s["TaintTolerationPriority"] for n, s in ordinary["scores"].items()} == {"ssd-2": 0, "plain": 10}


def test_tolerate_all():
    result = play("tolerate-all")
    assert final(result) == {"default/tolerates-everything": ("node1", "Running"), "default/ordinary": ("node1", "Deleted")}
    assert timed(result, "TaintManagerEviction", "Killing") == [
        (10.0, "TaintManagerEviction", "Pod/default/ordinary"),
        (10.0, "Killing", "Pod/default/ordinary"),
    ]


def test_control_plane_taint():
    result = play("control-plane-taint")
    assert final(result) == {"default/web": ("worker-0", "Running"), "default/etcd-backup": ("master-0", "Running")}
    assert [e["message"] for e in result["events"] if e["reason"] == "CommandFailed"] == [
        "error: node master-0 already has node-role.kubernetes.io/master taint(s) with same effect(s) and --overwrite is false\n"
    ]


def test_a_scenario_replays_identically_and_the_seed_changes_the_names():
    first, again = play("default-toleration-seconds"), play("default-toleration-seconds")
    assert first == again
    scenario = scenarios.BY_NAME["default-toleration-seconds"]
    with open(scenarios.path(scenario), encoding="utf-8") as f:
        docs = load_documents(f.read(), scenario.file)
    other = simulate(docs, until=scenario.until, seed=1)
    assert [p["pod"] for p in other["pods"]] != [p["pod"] for p in first["pods"]]


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_scenario_texts_are_plain_words_without_internal_references(scenario):
    """What a user reads of a scenario (its title, description, sources, its file and the
    Timeline steps' descriptions in it) names no internal document or section number."""
    with open(scenarios.path(scenario), encoding="utf-8") as f:
        text = f.read()
    internal = re.compile(r"(?i)\bseeds?\b|§")
    for words in (scenario.title, scenario.description, scenario.source, text):
        assert not internal.search(words), internal.search(words).group(0)
