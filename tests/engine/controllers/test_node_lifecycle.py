"""The node lifecycle controller (engine.node_lifecycle) and the kubelet's node reporting:
taint nodes by condition, Unknown after the grace period, taint-based evictions and the
per-zone rate limits (taint nodes by condition and taint-based evictions, with kube-controller-manager's default flags)."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine.controllers import node_lifecycle as nl
from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulation import Simulation
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

STOPPED = {"clusterui.io/heartbeat-stopped-at": "0"}


def simulation(*docs, timelines=()) -> Simulation:
    return Simulation(list(docs), schedulers=[(DEFAULT_SCHEDULER, default_policy())], timelines=timelines)


def taints(store: Store, node: str) -> list[tuple[str, str, object]]:
    doc = store.get("Node", "", node)
    return [(t["key"], t["effect"], t.get("timeAdded")) for t in (doc.get("spec") or {}).get("taints") or []]


def noexecute_taint_times(store: Store) -> dict[str, object]:
    out = {}
    for node in store.list("Node"):
        for t in (node.get("spec") or {}).get("taints") or []:
            if t["effect"] == "NoExecute":
                out[node["metadata"]["name"]] = t.get("timeAdded")
    return out


# --- zone states -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statuses, expected",
    [
        pytest.param(["True"] * 3, (0, "Normal"), id="all ready is Normal"),
        pytest.param(["Unknown", "False"], (2, "FullDisruption"), id="no ready node is FullDisruption"),
        pytest.param(["True", "False", "False"], (2, "Normal"), id="two not ready of three is Normal: more than 2 are needed"),
        pytest.param(["True"] * 2 + ["False"] * 3, (3, "PartialDisruption"), id="three of five not ready (60 %) is PartialDisruption"),
        pytest.param(["True"] * 3 + ["False"] * 3, (3, "Normal"), id="three of six not ready (50 %) is below 55 %: Normal"),
        pytest.param(["True"] * 9 + ["False"] * 11, (11, "PartialDisruption"), id="eleven of twenty (55 %) is PartialDisruption"),
    ],
)
def test_compute_zone_state(statuses, expected):
    assert nl.compute_zone_state(statuses) == expected


@pytest.mark.parametrize(
    "state, size, rate",
    [
        pytest.param("Normal", 10, 0.1, id="a healthy zone taints 0.1 nodes per second"),
        pytest.param("PartialDisruption", 50, 0.0, id="a partially disrupted zone of 50 nodes or fewer stops"),
        pytest.param("PartialDisruption", 51, 0.01, id="a partially disrupted zone of more than 50 nodes slows to 0.01/s"),
        pytest.param("FullDisruption", 10, 0.1, id="a fully disrupted zone evicts at the normal rate"),
    ],
)
def test_zone_rate(state, size, rate):
    assert nl.zone_rate(state, size) == rate


@pytest.mark.parametrize(
    "labels, zone",
    [
        pytest.param({}, "cluster", id="a node without zone labels is in the cluster zone"),
        pytest.param({"failure-domain.beta.kubernetes.io/region": "eu", "failure-domain.beta.kubernetes.io/zone": "eu-1a"},
                     "eu:eu-1a", id="region and zone labels name the zone"),
        pytest.param({"topology.kubernetes.io/zone": "us-1b"}, ":us-1b", id="the topology labels are read too"),
    ],
)
def test_zone_of(labels, zone):
    assert nl.zone_of(node_doc("n", labels)) == zone


@pytest.mark.parametrize(
    "name, master",
    [("master", True), ("ocp-master", True), ("ocp-master-abc", True), ("ocp-master-0", False), ("master-0", False),
     ("worker-0", False)],
)
def test_is_master_node_follows_the_1_11_name_rule(name, master):
    assert nl.is_master_node(name) is master


# --- taint nodes by condition -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "conditions, unschedulable, expected",
    [
        pytest.param({"Ready": "False"}, False, ["node.kubernetes.io/not-ready"], id="Ready False gives not-ready"),
        pytest.param({"Ready": "Unknown"}, False, ["node.kubernetes.io/unreachable"], id="Ready Unknown gives unreachable"),
        pytest.param({"MemoryPressure": "True"}, False, ["node.kubernetes.io/memory-pressure"], id="memory pressure"),
        pytest.param({"DiskPressure": "True"}, False, ["node.kubernetes.io/disk-pressure"], id="disk pressure"),
        pytest.param({"PIDPressure": "True"}, False, ["node.kubernetes.io/pid-pressure"], id="pid pressure"),
        pytest.param({"NetworkUnavailable": "True"}, False, ["node.kubernetes.io/network-unavailable"], id="network unavailable"),
        pytest.param({"Ready": "True", "MemoryPressure": "False"}, True, ["node.kubernetes.io/unschedulable"],
                     id="a cordoned node gets unschedulable"),
        pytest.param({"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False"}, False, [],
                     id="a healthy node gets none"),
    ],
)
def test_taint_nodes_by_condition(conditions, unschedulable, expected):
    store = Store([node_doc("node1", conditions=conditions, unschedulable=unschedulable)])
    result = nl.reconcile(store, 12.5, nl.NodeLifecycleConfig(taint_based_evictions=False))
    store.apply_all(result.actions)
    assert taints(store, "node1") == [(key, "NoSchedule", 12.5) for key in expected]


def test_a_condition_taint_goes_when_the_condition_does():
    store = Store([node_doc("node1", conditions={"MemoryPressure": "True"},
                            taints=[{"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}, "dedicated=a:NoSchedule"])])
    store.get("Node", "", "node1")["status"]["conditions"][0]["status"] = "False"
    store.apply_all(nl.reconcile(store, 1).actions)
    assert taints(store, "node1") == [("dedicated", "NoSchedule", None)]


# --- a node that stops reporting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stopped_at, unknown_at",
    [
        pytest.param(0, 45, id="stopped at 0: the first pass strictly after 0 + 40 is at 45"),
        pytest.param(3, 45, id="stopped at 3: after 43, the pass at 45"),
        pytest.param(5, 50, id="stopped at 5: 45 is not after 45, so the pass at 50"),
    ],
)
def test_ready_turns_unknown_after_the_grace_period(stopped_at, unknown_at):
    sim = simulation(node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": str(stopped_at)}), node_doc("node2"))
    sim.run_until(unknown_at - 0.001)
    assert nl.ready_status(sim.store.get("Node", "", "node1")) == "True"
    sim.run_until(unknown_at)
    node = sim.store.get("Node", "", "node1")
    ready = nl.conditions_of(node)["Ready"]
    assert (ready["status"], ready["reason"], ready["message"], ready["lastTransitionTime"], ready["lastHeartbeatTime"]) == (
        "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", unknown_at, stopped_at
    )
    assert {t: c["status"] for t, c in nl.conditions_of(node).items()} == {
        "Ready": "Unknown", "MemoryPressure": "Unknown", "DiskPressure": "Unknown", "PIDPressure": "Unknown"
    }
    assert [(e.time, e.reason, e.object, e.message, e.source) for e in sim.events] == [
        (unknown_at, "NodeNotReady", "Node/node1", "Node node1 status is now: NodeNotReady", "node-controller")
    ]
    # unreachable:NoSchedule at once (taint by condition), unreachable:NoExecute at the next pass.
    assert taints(sim.store, "node1") == [("node.kubernetes.io/unreachable", "NoSchedule", unknown_at)]
    sim.run_until(unknown_at + 5)
    assert taints(sim.store, "node1")[-1] == ("node.kubernetes.io/unreachable", "NoExecute", unknown_at + 5)


def test_a_non_numeric_stop_annotation_is_stamped_with_the_time():
    store = Store([node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": "true"})])
    result = nl.reconcile(store, 12)
    assert A.SetAnnotation("Node", "", "node1", "clusterui.io/heartbeat-stopped-at", "12") in result.actions


@pytest.mark.parametrize(
    "changed_at, tainted_at",
    [
        pytest.param(100, 100, id="Ready False at a pass time is seen by that pass"),
        pytest.param(101, 105, id="Ready False between passes waits for the next pass"),
    ],
)
def test_a_not_ready_node_gets_the_not_ready_noexecute_taint(changed_at, tainted_at):
    ready_false = node_doc("node1", conditions={"Ready": "False"})
    ready_false["status"]["conditions"][0].pop("lastTransitionTime")
    tl = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
          "steps": [{"at": changed_at, "apply": ready_false}]}
    from scheduling.engine.timeline import load_timeline

    sim = simulation(node_doc("node1"), node_doc("node2"), timelines=[load_timeline(tl)])
    sim.run_until(200)
    assert ("node.kubernetes.io/not-ready", "NoExecute", tainted_at) in taints(sim.store, "node1")
    assert ("node.kubernetes.io/not-ready", "NoSchedule", changed_at) in taints(sim.store, "node1")
    assert [(e.time, e.reason, e.source) for e in sim.events] == [(changed_at, "NodeNotReady", "kubelet")]


def test_a_not_ready_node_that_becomes_unreachable_swaps_its_taint_at_once():
    node = node_doc("node1", conditions={"Ready": "False"}, taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}],
                    annotations={"clusterui.io/heartbeat-stopped-at": "0"})
    sim = simulation(node, node_doc("node2"), node_doc("node3"))
    sim.run_until(45)  # Unknown at 45 (observed False in that pass: no swap yet)
    assert [k for k, e, _ in taints(sim.store, "node1") if e == "NoExecute"] == ["node.kubernetes.io/not-ready"]
    sim.run_until(50)  # observed Unknown with the opposite taint: swapped, not rate limited
    assert [(k, t) for k, e, t in taints(sim.store, "node1") if e == "NoExecute"] == [("node.kubernetes.io/unreachable", 50)]


def test_a_node_reporting_again_loses_its_taints_and_is_ready():
    sim = simulation(node_doc("node1", annotations=STOPPED), node_doc("node2"))
    sim.run_until(100)
    assert noexecute_taint_times(sim.store) == {"node1": 50}
    sim.apply([A.SetAnnotation("Node", "", "node1", "clusterui.io/heartbeat-stopped-at", None)])
    sim.run_until(101)
    node = sim.store.get("Node", "", "node1")
    assert {t: c["status"] for t, c in nl.conditions_of(node).items()} == {
        "Ready": "True", "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False"
    }
    # The kubelet posts Ready at 100; the monitor pass at 100 observes it: both taints go.
    assert taints(sim.store, "node1") == []
    assert [(e.time, e.reason, e.source) for e in sim.events if e.time >= 100] == [
        (100.0, "NodeReady", "kubelet"),
        (100.0, "NodeHasSufficientMemory", "kubelet"),
        (100.0, "NodeHasNoDiskPressure", "kubelet"),
        (100.0, "NodeHasSufficientPID", "kubelet"),
    ]


# --- rate limits per zone ------------------------------------------------------------------------------------------


def cluster(total: int, down: int, zone_labels=None) -> list[dict]:
    docs = []
    for i in range(total):
        annotations = STOPPED if i < down else None
        docs.append(node_doc(f"node{i:02d}", labels=zone_labels, annotations=annotations))
    return docs


def test_a_healthy_zone_taints_one_node_every_10_seconds():
    # 3 of 10 down (30 %): Normal, 0.1 nodes/s. All queued by the pass at 50: the bucket is
    # full (one token), so 50, then one token every 10 s: 60, 70.
    sim = simulation(*cluster(10, 3))
    sim.run_until(100)
    assert noexecute_taint_times(sim.store) == {"node00": 50, "node01": 60, "node02": 70}
    assert nl.zone_states(sim.store) == {"cluster": "Normal"}


def test_a_small_partially_disrupted_zone_stops_tainting():
    # 6 of 10 down (60 % >= 55 %, more than 2): PartialDisruption; 10 nodes <= 50: rate 0.
    sim = simulation(*cluster(10, 6), pod_doc("web", "node00"))
    sim.run_until(3600)
    assert noexecute_taint_times(sim.store) == {}
    assert nl.zone_states(sim.store) == {"cluster": "PartialDisruption"}
    assert [(e.time, e.reason, e.object, e.message) for e in sim.events] == [
        (45.0, "NodeNotReady", f"Node/node{i:02d}", f"Node node{i:02d} status is now: NodeNotReady") for i in range(6)
    ] + [(45.0, "ZoneStateChanged", "Zone/cluster", "Controller detected that zone cluster is now in state PartialDisruption.")]
    assert sim.store.get("Pod", "default", "web")["metadata"].get("deletionTimestamp") is None


def test_a_large_partially_disrupted_zone_taints_at_the_secondary_rate():
    # 40 of 60 down (66 %): PartialDisruption; 60 nodes > 50: 0.01 nodes/s. The zone turns
    # PartialDisruption at the pass at 45 while its 0.1/s bucket still holds its token, so
    # the new 0.01/s bucket starts full: first taint at 50 (queued then), then every 100 s.
    sim = simulation(*cluster(60, 40))
    sim.run_until(260)
    assert sorted(noexecute_taint_times(sim.store).values()) == [50, 150, 250]
    zone = nl.recorded_zones(sim.store.state_of(nl.NAME))["cluster"]
    assert (zone["state"], zone["nodes"], zone["notReady"], zone["evictionRate"], zone["tokenAvailableAt"]) == (
        "PartialDisruption", 60, 40, 0.01, 350
    )


def test_when_every_node_is_down_nothing_is_tainted_master_disruption():
    sim = simulation(*cluster(4, 4), pod_doc("web", "node00"))
    sim.run_until(3600)
    assert noexecute_taint_times(sim.store) == {}
    assert nl.zone_states(sim.store) == {"cluster": "FullDisruption"}
    assert [(e.reason, e.message) for e in sim.events if e.reason.endswith("Mode")] == [
        ("EnteringMasterDisruptionMode", "Controller detected that all Nodes are not-Ready. Entering master disruption mode.")
    ]
    assert sim.store.get("Pod", "default", "web")["metadata"].get("deletionTimestamp") is None


def test_a_fully_disrupted_zone_beside_a_healthy_one_is_tainted_at_the_normal_rate():
    zone_a = {"failure-domain.beta.kubernetes.io/region": "r", "failure-domain.beta.kubernetes.io/zone": "a"}
    zone_b = {"failure-domain.beta.kubernetes.io/region": "r", "failure-domain.beta.kubernetes.io/zone": "b"}
    docs = [node_doc(f"a{i}", zone_a, annotations=STOPPED) for i in range(3)] + [node_doc("b0", zone_b)]
    sim = simulation(*docs)
    sim.run_until(100)
    assert nl.zone_states(sim.store) == {"r:a": "FullDisruption", "r:b": "Normal"}
    assert noexecute_taint_times(sim.store) == {"a0": 50, "a1": 60, "a2": 70}


def test_master_nodes_do_not_count_in_zones():
    sim = simulation(node_doc("ocp-master", annotations=STOPPED), node_doc("worker-1"))
    sim.run_until(60)
    zone = nl.recorded_zones(sim.store.state_of(nl.NAME))["cluster"]
    assert (zone["state"], zone["nodes"]) == ("Normal", 1)
    assert noexecute_taint_times(sim.store) == {"ocp-master": 50}


def test_leaving_master_disruption_taints_again():
    sim = simulation(*cluster(3, 3))
    sim.run_until(100)
    assert nl.zone_states(sim.store) == {"cluster": "FullDisruption"}
    sim.apply([A.SetAnnotation("Node", "", "node02", "clusterui.io/heartbeat-stopped-at", None)])
    sim.run_until(200)
    # node02 reports at 100, is Ready; the pass at 100 sees 1 ready of 3: Normal again, the
    # limiter (0 until now, so drained) restarts at 0.1/s with its first token at 110.
    assert nl.zone_states(sim.store) == {"cluster": "Normal"}
    assert noexecute_taint_times(sim.store) == {"node00": 110, "node01": 120}
    assert [e.reason for e in sim.events if e.reason.endswith("Mode")] == [
        "EnteringMasterDisruptionMode", "ExitingMasterDisruptionMode"
    ]


# --- idempotency ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("now", [45, 50, 60, 61.5])
def test_running_the_controller_twice_at_the_same_time_gives_nothing_new(now):
    sim = simulation(*cluster(10, 3))
    sim.run_until(now)
    assert nl.reconcile(sim.store, now).actions == []


def test_a_steady_cluster_asks_for_no_pass():
    store = Store([node_doc("node1"), node_doc("node2")])
    first = nl.reconcile(store, 0)
    store.apply_all(first.actions)
    assert nl.reconcile(store, 0) == A.Result([], None)


# --- the kubelets ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ctype, status, reason, event",
    [
        pytest.param("Ready", "False", "KubeletNotReady", "NodeNotReady", id="Ready False is the kubelet's NodeNotReady"),
        pytest.param("MemoryPressure", "True", "KubeletHasInsufficientMemory", "NodeHasInsufficientMemory", id="memory pressure"),
        pytest.param("DiskPressure", "True", "KubeletHasDiskPressure", "NodeHasDiskPressure", id="disk pressure"),
        pytest.param("PIDPressure", "True", "KubeletHasInsufficientPID", "NodeHasInsufficientPID", id="pid pressure"),
        pytest.param("NetworkUnavailable", "True", "NoRouteCreated", None, id="the route controller's condition has no kubelet event"),
    ],
)
def test_the_kubelet_reports_a_condition(ctype, status, reason, event):
    from scheduling.engine.controllers import kubelet

    store = Store([node_doc("node1")])
    actions = kubelet.set_condition(store.get("Node", "", "node1"), ctype, status, 30)
    store.apply_all(actions)
    cond = nl.conditions_of(store.get("Node", "", "node1"))[ctype]
    assert (cond["status"], cond["reason"], cond["lastTransitionTime"]) == (status, reason, 30)
    assert [(e.reason, e.message, e.source) for e in store.events] == (
        [(event, f"Node node1 status is now: {event}", "kubelet")] if event else []
    )
    assert kubelet.set_condition(store.get("Node", "", "node1"), ctype, status, 31)[1:] == []  # no change, no event


def test_the_kubelet_runs_bound_pods_and_removes_terminating_ones_after_their_grace_period():
    from scheduling.engine.controllers import kubelet

    store = Store([node_doc("node1"), pod_doc("web", "node1", phase="Pending"), pod_doc("old", "node1", containers=("a", "b")),
                   pod_doc("lost", "node9"), pod_doc("never-scheduled")])
    store.apply(A.SetPodDeletion("default", "old", 10, 30))
    store.apply(A.SetPodDeletion("default", "never-scheduled", 10, 30))
    result = kubelet.reconcile(store, 10)
    store.apply_all(result.actions)
    assert [(e.reason, e.message) for e in store.events] == [
        ("Killing", "Killing container with id docker://a:Need to kill Pod"),
        ("Killing", "Killing container with id docker://b:Need to kill Pod"),
    ]
    assert store.get("Pod", "default", "web")["status"]["phase"] == "Running"
    assert store.get("Pod", "default", "lost") is None and store.get("Pod", "default", "never-scheduled") is None
    assert result.next_due == 40
    assert kubelet.reconcile(store, 10).actions == []  # idempotent
    store.apply_all(kubelet.reconcile(store, 40).actions)
    assert store.get("Pod", "default", "old") is None


def test_a_stop_annotation_without_time_counts_from_when_it_is_seen():
    sim = simulation(node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": "yes"}), node_doc("node2"))
    sim.schedule()
    sim.run_until(100)
    assert sim.store.get("Node", "", "node1")["metadata"]["annotations"] == {"clusterui.io/heartbeat-stopped-at": "0"}
    assert [(e.time, e.reason) for e in sim.events] == [(45.0, "NodeNotReady")]
