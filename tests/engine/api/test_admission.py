"""Admission plugins (engine.admission): DefaultTolerationSeconds, PodTolerationRestriction's
memory-pressure toleration, the DaemonSet tolerations and the control-plane taint (the OpenShift 4
taints documentation; OpenShift 3.11's default toleration seconds and DaemonSet tolerations)."""

from __future__ import annotations

import pytest

from scheduling.engine.api import admission as adm
from scheduling.engine.simulate import ADMISSION_PLUGINS, simulate
from tests.engine.builders import node_doc, pod_doc, toleration

NOT_READY_300 = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UNREACHABLE_300 = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
MEMORY_PRESSURE = {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"}


def tolerations_of(doc: dict) -> list[dict]:
    return doc["spec"].get("tolerations") or []


@pytest.mark.parametrize(
    "given, added",
    [
        pytest.param([], [NOT_READY_300, UNREACHABLE_300], id="a pod without tolerations gets both for 300 seconds"),
        pytest.param([toleration("node.kubernetes.io/not-ready", seconds=6000)], [UNREACHABLE_300],
                     id="a pod tolerating not-ready keeps its own and gets unreachable only"),
        pytest.param([toleration("node.kubernetes.io/unreachable")], [NOT_READY_300],
                     id="a pod tolerating unreachable forever gets not-ready only"),
        pytest.param([{"operator": "Exists"}], [], id="a pod tolerating everything gets nothing"),
        pytest.param([{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}], [UNREACHABLE_300],
                     id="a toleration without effect counts as NoExecute"),
        pytest.param([{"operator": "Exists", "effect": "NoExecute"}], [], id="an empty key with NoExecute tolerates both"),
        pytest.param([toleration("node.kubernetes.io/not-ready", "NoSchedule")], [NOT_READY_300, UNREACHABLE_300],
                     id="a NoSchedule toleration of the same key does not count"),
        pytest.param([{"operator": "Exists", "effect": "NoSchedule"}], [NOT_READY_300, UNREACHABLE_300],
                     id="an empty key with NoSchedule does not count"),
    ],
)
def test_default_toleration_seconds(given, added):
    doc = adm.default_toleration_seconds(pod_doc("web", tolerations=given))
    assert tolerations_of(doc) == given + added


def test_default_toleration_seconds_leaves_other_kinds_alone():
    node = node_doc("node1")
    assert adm.default_toleration_seconds(node) == node


@pytest.mark.parametrize(
    "cpu, given, expected",
    [
        pytest.param(None, [], [], id="a BestEffort pod gets no memory-pressure toleration"),
        pytest.param("100m", [], [MEMORY_PRESSURE], id="a Burstable pod tolerates memory pressure"),
        pytest.param("100m", [{"operator": "Exists"}], [{"operator": "Exists"}],
                     id="a pod tolerating everything already covers it (MergeTolerations keeps the superset)"),
        pytest.param("100m", [MEMORY_PRESSURE], [MEMORY_PRESSURE], id="an identical toleration is not added twice"),
    ],
)
def test_memory_pressure_toleration_for_pods_that_are_not_best_effort(cpu, given, expected):
    doc = adm.pod_toleration_restriction(pod_doc("web", tolerations=given, cpu=cpu))
    assert tolerations_of(doc) == expected


DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


def test_daemonset_pods_get_the_daemon_tolerations_without_seconds():
    doc = adm.daemonset_tolerations(pod_doc("agent-x", owner=("DaemonSet", "agent")))
    assert tolerations_of(doc) == DAEMON_TOLERATIONS


def test_host_network_daemonset_pods_also_tolerate_network_unavailable():
    pod = pod_doc("agent-x", owner=("DaemonSet", "agent"))
    pod["spec"]["hostNetwork"] = True
    assert tolerations_of(adm.daemonset_tolerations(pod)) == DAEMON_TOLERATIONS + [
        {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_a_daemonset_toleration_replaces_a_matching_one_in_place():
    # AddOrUpdateTolerationInPodSpec: same key/operator/value/effect -> replaced, keeping its place.
    pod = pod_doc("agent-x", owner=("DaemonSet", "agent"), tolerations=[toleration("a"), dict(NOT_READY_300)])
    assert tolerations_of(adm.daemonset_tolerations(pod)) == [toleration("a")] + DAEMON_TOLERATIONS


def test_pods_of_other_controllers_get_no_daemon_tolerations():
    pod = pod_doc("web-x", owner=("ReplicaSet", "web"))
    assert tolerations_of(adm.daemonset_tolerations(pod)) == []


@pytest.mark.parametrize(
    "labels, taints, expected",
    [
        pytest.param({"node-role.kubernetes.io/master": ""}, [], [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}],
                     id="a control-plane node gets node-role.kubernetes.io/master:NoSchedule"),
        pytest.param({"node-role.kubernetes.io/master": ""}, ["node-role.kubernetes.io/master:NoSchedule"],
                     [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}], id="it is not added twice"),
        pytest.param({"node-role.kubernetes.io/compute": "true"}, [], [], id="a compute node gets nothing"),
    ],
)
def test_control_plane_taint(labels, taints, expected):
    doc = adm.control_plane_taint(node_doc("n", labels=labels, taints=taints))
    assert doc["spec"].get("taints", []) == expected


def test_plugins_can_be_switched_off_by_name():
    docs = [pod_doc("web", cpu="1")]
    assert tolerations_of(adm.admit_documents(docs)[0]) == [MEMORY_PRESSURE, NOT_READY_300, UNREACHABLE_300]
    assert tolerations_of(adm.admit_documents(docs, {"DefaultTolerationSeconds": False})[0]) == [MEMORY_PRESSURE]
    assert tolerations_of(adm.admit_documents(docs, {"PodTolerationRestriction": False})[0]) == [NOT_READY_300, UNREACHABLE_300]
    with pytest.raises(ValueError, match="unknown admission plugin"):
        adm.admit_documents(docs, {"Nope": False})


def test_simulate_uses_the_plugins_in_the_api_server_order():
    assert [fn.__name__ for fn in ADMISSION_PLUGINS] == [
        "pod_toleration_restriction", "priority_admission", "default_toleration_seconds", "daemonset_tolerations",
        "control_plane_taint",
    ]


def test_without_admission_a_pod_on_an_unreachable_node_goes_as_soon_as_the_node_is_tainted():
    # No DefaultTolerationSeconds: nothing tolerates unreachable:NoExecute, added at 50.
    stopped = node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": "0"})
    docs = [stopped, node_doc("node2"), pod_doc("web", "node1")]
    evicted = lambda result: [e["time"] for e in result["events"] if e["reason"] == "TaintManagerEviction"]  # noqa: E731
    assert evicted(simulate(docs, until=400, admission=False)) == [50.0]
    assert evicted(simulate(docs, until=400)) == [350.0]


def test_the_control_plane_taint_keeps_ordinary_pods_off_masters():
    master = node_doc("master-0", labels={"node-role.kubernetes.io/master": ""})
    result = simulate([master, pod_doc("web")])
    assert result["pods"][0]["message"] == "0/1 nodes are available: 1 node(s) had taints that the pod didn't tolerate."
    assert simulate([master, pod_doc("web")], admission=False)["pods"][0]["node"] == "master-0"


def test_memory_pressure_keeps_best_effort_pods_away_but_not_burstable_ones():
    # Taint nodes by condition: the memory-pressure taint (taint by condition) and the toleration
    # the control plane adds to pods that have a QoS class other than BestEffort.
    timeline = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                "steps": [{"at": 10, "apply": pod_doc("best-effort")}, {"at": 10, "apply": pod_doc("burstable", cpu="100m")}]}
    pressured = node_doc("node1", conditions={"Ready": "True", "MemoryPressure": "True"})
    result = simulate([pressured, timeline], until=20)
    best_effort, burstable = result["pods"]
    assert best_effort["node"] is None
    # PodToleratesNodeTaints comes before CheckNodeMemoryPressure in the 1.11 predicate order.
    assert best_effort["filters"] == {"node1": {"fits": False, "reasons": ["node(s) had taints that the pod didn't tolerate"]}}
    assert burstable["node"] == "node1"


# --- merge_tolerations: the indexed merge gives upstream's pairwise answer --------------------------


def _pairwise_merge(first, second):
    """MergeTolerations as upstream writes it (every pair compared): the oracle."""
    from scheduling.engine.api.admission import _is_superset, _semantic

    everything = list(first) + list(second)
    merged = []
    for i, t in enumerate(everything):
        if any(_is_superset(m, t) for m in merged):
            continue
        if any(_semantic(t) != _semantic(t2) and _is_superset(t2, t) for t2 in everything[i + 1:]):
            continue
        merged.append(dict(t))
    return merged


def _random_tolerations(rng, n):
    out = []
    for _ in range(n):
        t = {}
        for field, choices in (
            ("key", [None, "", "a", "b"]),
            ("operator", [None, "", "Equal", "Exists", "Lt"]),
            ("value", [None, "", "x", "y"]),
            ("effect", [None, "", "NoSchedule", "NoExecute", "PreferNoSchedule"]),
            ("tolerationSeconds", [None, None, 0, 5, 10, 5.0]),
        ):
            v = rng.choice(choices)
            if v is not None:
                t[field] = v
        out.append(t)
    return out


def test_the_indexed_merge_agrees_with_the_pairwise_one_on_random_lists():
    import random

    from scheduling.engine.api.admission import merge_tolerations

    rng = random.Random(13)
    for _ in range(3000):
        first, second = _random_tolerations(rng, rng.randint(0, 8)), _random_tolerations(rng, rng.randint(0, 3))
        assert merge_tolerations(first, second) == _pairwise_merge(first, second), (first, second)


def test_twenty_thousand_tolerations_merge_in_well_under_a_second():
    import time

    from scheduling.engine.api.admission import merge_tolerations

    tolerations = [{"key": f"k{i}", "operator": "Equal", "value": f"v{i}", "effect": "NoSchedule"} for i in range(20000)]
    started = time.monotonic()
    merged = merge_tolerations(tolerations, [{"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"}])
    assert time.monotonic() - started < 3.0  # generous: about 0.25 s on a loaded 2-core machine (was 7 minutes)
    assert len(merged) == 20001
