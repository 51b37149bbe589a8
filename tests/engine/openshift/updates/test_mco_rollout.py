"""The Machine Config Operator rolls a pool node by node, as OpenShift 4's "How cluster updates work" describes."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine.openshift.mco import CURRENT, DESIRED, STATE, max_unavailable, sort_candidates

from .builders import machine_config, node, pdb, replica_set
from .driver import MCO, Driver

MCO_NS = "openshift-machine-config-operator"


def settle(docs, **kw) -> Driver:
    d = Driver(docs, controllers=MCO, **kw)
    d.run_until(0)
    return d


def add(d: Driver, doc: dict) -> None:
    d.apply([A.ReplaceObject(doc)])


def events(d: Driver, *reasons: str) -> list[tuple[float, str, str]]:
    return [(e.time, e.reason, e.message) for e in d.events if e.reason in reasons]


def test_the_seed_five_node_pool_with_max_unavailable_3_updates_as_the_seed_tells():
    # node i's OS update takes these seconds (reboot 60 s each): the order of the documentation's example
    update_seconds = {"node1": 200, "node2": 100, "node3": 300, "node4": 400, "node5": 150}
    nodes = [node(n, created=i, annotations={"clusterui.io/update-seconds": str(s), "clusterui.io/reboot-seconds": "60"})
             for i, (n, s) in enumerate(update_seconds.items())]
    d = settle(nodes)
    worker = d.store.get("MachineConfigPool", "", "worker")
    old = worker["spec"]["configuration"]["name"]
    assert {d.store.get("Node", "", n)["metadata"]["annotations"][CURRENT] for n in update_seconds} == {old}
    add(d, {**worker, "spec": {**worker["spec"], "maxUnavailable": 3}})
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(1)
    new = d.store.get("MachineConfigPool", "", "worker")["spec"]["configuration"]["name"]
    assert new != old and new.startswith("rendered-worker-") and len(new) == len("rendered-worker-") + 32
    # 1. the MCO takes nodes 1, 2 and 3 and starts draining them
    assert events(d, "SetDesiredConfig") == [(0.0, "SetDesiredConfig", f"Set target for 3 nodes to MachineConfig: {new}")]
    assert [m for _, r, m in events(d, "Cordon")] == ["Cordoned node to apply update"] * 3
    assert sorted(e.object for e in d.events if e.reason == "Cordon") == [f"Node/{MCO_NS}/node{i}" for i in (1, 2, 3)]
    d.run_until(2000)
    done = [(e.time, e.name) for e in d.events if e.reason == "NodeDone"]
    targeted = [(e.time, e.message) for e in d.events if e.reason == "SetDesiredConfig"]
    # 2. node 2 is back first; the MCO cordons node 4.  3. node 1; node 5.  4.-6. node 3, node 5, node 4.
    # (each node is done 10 s after its reboot: the daemon's poll sees the uncordon, then NodeDone)
    assert [o for _, o in done] == ["node2", "node1", "node3", "node5", "node4"]
    assert targeted[1:] == [(170.0, f"Targeted node node4 to MachineConfig: {new}"), (270.0, f"Targeted node node5 to MachineConfig: {new}")]
    assert [t for t, _ in done] == [170.0, 270.0, 370.0, 490.0, 640.0]
    pool = d.store.get("MachineConfigPool", "", "worker")["status"]
    assert (pool["machineCount"], pool["updatedMachineCount"], pool["readyMachineCount"],
            pool["unavailableMachineCount"], pool["degradedMachineCount"]) == (5, 5, 5, 0, 0)
    assert pool["configuration"]["name"] == new
    updated = [c for c in pool["conditions"] if c["type"] == "Updated"][0]
    assert (updated["status"], updated["message"]) == ("True", f"All nodes are updated with MachineConfig {new}")


def test_while_nodes_update_the_pool_counts_and_conditions_are_the_mcos():
    nodes = [node(f"node{i}", created=i, annotations={"clusterui.io/update-seconds": "100", "clusterui.io/reboot-seconds": "60"})
             for i in range(1, 4)]
    d = settle(nodes)
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(50)
    status = d.store.get("MachineConfigPool", "", "worker")["status"]
    new = d.store.get("MachineConfigPool", "", "worker")["spec"]["configuration"]["name"]
    assert (status["machineCount"], status["updatedMachineCount"], status["readyMachineCount"],
            status["unavailableMachineCount"]) == (3, 0, 0, 1)
    cond = {c["type"]: (c["status"], c["message"]) for c in status["conditions"]}
    assert cond["Updated"] == ("False", "")
    assert cond["Updating"] == ("True", f"All nodes are updating to MachineConfig {new}")
    n1 = d.store.get("Node", "", "node1")
    assert n1["metadata"]["annotations"][STATE] == "Working"
    assert n1["metadata"]["annotations"][DESIRED] == new
    assert n1["spec"]["unschedulable"] is True
    assert {"key": "UpdateInProgress", "effect": "PreferNoSchedule"} in n1["spec"]["taints"]
    d.run_until(150)  # rebooting since 100 s: the kubelet is silent longer than the 40 s grace period
    ready = [c for c in d.store.get("Node", "", "node1")["status"]["conditions"] if c["type"] == "Ready"][0]
    assert ready["status"] == "Unknown"


def test_a_paused_pool_does_not_update_and_says_so():
    d = settle([node("node1")])
    pool = d.store.get("MachineConfigPool", "", "worker")
    add(d, {**pool, "spec": {**pool["spec"], "paused": True}})
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(600)
    new = d.store.get("MachineConfigPool", "", "worker")["spec"]["configuration"]["name"]
    status = d.store.get("MachineConfigPool", "", "worker")["status"]
    assert not events(d, "SetDesiredConfig")
    assert {c["type"]: c["message"] for c in status["conditions"]}["Updating"] == f"Pool is paused; will not update to MachineConfig {new}"


@pytest.mark.parametrize(
    "value, count, expected",
    [
        pytest.param(None, 10, 1, id="maxUnavailable defaults to one node"),
        pytest.param(3, 10, 3, id="a number is taken as is"),
        pytest.param("25%", 10, 2, id="a percentage of the pool's nodes rounds down"),
        pytest.param("5%", 10, 1, id="a percentage that rounds to zero still lets one node update"),
        pytest.param("1e18", 10, 0, id="a string that is neither (the CRD takes it) lets no node update"),
        pytest.param("x%", 10, 0, id="a percentage that is not a number lets no node update"),
    ],
)
def test_max_unavailable(value, count, expected):
    pool = {"spec": {} if value is None else {"maxUnavailable": value}}
    assert max_unavailable(pool, count) == expected


def test_candidates_go_by_zone_then_oldest_first_and_nodes_without_a_zone_last():
    nodes = [node("c", created=5, zone="us-east-1b"), node("a", created=9, zone="us-east-1a"),
             node("d", created=1), node("b", created=2, zone="us-east-1a"), node("e", created=0)]
    assert [n["metadata"]["name"] for n in sort_candidates(nodes)] == ["b", "a", "c", "e", "d"]


def test_a_pdb_blocks_the_drain_which_retries_with_the_mcos_timings_and_completes_when_allowed():
    labels = {"app": "web"}
    docs = [node("node1", created=0, annotations={"clusterui.io/update-seconds": "60", "clusterui.io/reboot-seconds": "60"}),
            node("node2", created=1, annotations={"clusterui.io/update-seconds": "60", "clusterui.io/reboot-seconds": "60"}),
            replica_set("web", 2, labels), pdb("web-pdb", labels, 2)]
    d = settle(docs)
    on_node1 = [p["metadata"]["name"] for p in d.store.list("Pod") if p["spec"].get("nodeName") == "node1"]
    assert len(on_node1) == 1
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(1500)
    log = d.store.state_of("mco-node-controller")["drains"]["node1"]["log"]
    # each attempt is kubectl's drain with the MCO's 90 s timeout; then 1 minute, after 10 minutes 5 minutes
    assert [entry["time"] for entry in log] == [90, 240, 390, 540, 690, 1080, 1470]
    error = f'error when evicting pods/"{on_node1[0]}" -n "default": global timeout reached: 1m30s'
    assert log[0]["message"] == f"node node1: Drain failed. Waiting 1 minute then retrying. Error message from drain: {error}"
    threshold = (f"Drain failed. Drain has been failing for more than 10 minutes. Waiting 5 minutes then retrying. "
                 f"Error message from drain: {error}")
    assert log[-1]["message"] == f"node node1: {threshold}"
    assert events(d, "DrainThresholdExceeded") == [(690.0, "DrainThresholdExceeded", threshold),
                                                   (1080.0, "DrainThresholdExceeded", threshold),
                                                   (1470.0, "DrainThresholdExceeded", threshold)]
    assert d.store.get("Node", "", "node1")["spec"]["unschedulable"] is True
    # the PDB now allows one disruption: the pod is evicted, replaced on node2, the node updates
    add(d, pdb("web-pdb", labels, 1))
    d.run_until(2400)
    assert d.store.get("Pod", "default", on_node1[0]) is None
    # the drain controller records nothing when a drain succeeds: the daemon goes on with the OS
    drained = [(e.time, e.name) for e in d.events if e.reason in ("InClusterUpgrade", "OSUpdateStarted", "OSUpgradeSkipped")]
    assert drained == []  # 99-worker-ssh changes a file only: no OS events
    rebooted = [(e.time, e.name) for e in d.events if e.reason == "Reboot"]
    assert rebooted[0] == (1860.0, "node1")  # the attempt at 1770 evicts; the pod's 30 s grace ends; 60 s update
    replaced = [e.message for e in d.events if e.reason == "Scheduled" and e.time > 1500]
    assert replaced[0].endswith(" to node2")  # node1 is cordoned: the replacement goes to node2
    assert [e.name for e in d.events if e.reason == "Uncordon"] == ["node1", "node2"]
    status = d.store.get("MachineConfigPool", "", "worker")["status"]
    assert (status["updatedMachineCount"], status["readyMachineCount"]) == (2, 2)


def test_the_progress_view_says_why_a_drain_is_stuck():
    from scheduling.engine.openshift import progress

    labels = {"app": "web"}
    docs = [node("node1", created=0), node("node2", created=1), replica_set("web", 2, labels), pdb("web-pdb", labels, 2)]
    d = settle(docs)
    blocked = [p["metadata"]["name"] for p in d.store.list("Pod") if p["spec"].get("nodeName") == "node1"][0]
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(100)
    [stuck] = progress.build(d.store, d.now)["stuck"]
    assert stuck["node"] == "node1"
    assert stuck["message"].startswith("node node1: Drain failed. Waiting 1 minute then retrying.")
    assert stuck["pods"] == [{"namespace": "default", "name": blocked, "pdb": "web-pdb",
                              "pdb_text": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently "
                                          "(disruptions allowed: 0)"}]


def test_after_the_reboot_the_node_is_uncordoned_before_the_daemon_sets_it_done():
    """pkg/daemon updateConfigAndState -> completeUpdate: desiredDrain uncordon-<config>, the
    drain controller uncordons, the daemon's 10 s poll sees lastAppliedDrain, records Uncordon;
    only then NodeDone and SetDone (currentConfig and state Done)."""
    d = settle([node("node1", annotations={"clusterui.io/update-seconds": "60", "clusterui.io/reboot-seconds": "60"})])
    old = d.store.get("MachineConfigPool", "", "worker")["spec"]["configuration"]["name"]
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(120)  # the update took 60 s, the reboot 60 s: back now
    n1 = d.store.get("Node", "", "node1")
    new = n1["metadata"]["annotations"][DESIRED]
    ann = n1["metadata"]["annotations"]
    assert (ann[CURRENT], ann[STATE]) == (old, "Working")  # not done yet
    assert ann["machineconfiguration.openshift.io/lastAppliedDrain"] == f"uncordon-{new}"
    assert not n1["spec"].get("unschedulable")  # the drain controller has uncordoned it
    assert not events(d, "Uncordon", "NodeDone")
    d.run_until(130)
    assert events(d, "Uncordon", "NodeDone") == [
        (130.0, "Uncordon", f"Update completed for config {new} and node has been uncordoned"),
        (130.0, "NodeDone", f"Setting node node1, currentConfig {new} to Done")]
    ann = d.store.get("Node", "", "node1")["metadata"]["annotations"]
    assert (ann[CURRENT], ann[STATE]) == (new, "Done")


def test_the_progress_timeline_ends_the_reboot_when_the_node_is_ready_and_the_update_at_node_done():
    from scheduling.engine.openshift import progress

    d = settle([node("node1", annotations={"clusterui.io/update-seconds": "60", "clusterui.io/reboot-seconds": "60"})])
    add(d, machine_config("99-worker-ssh", "worker"))
    d.run_until(300)
    events_ = [{"time": e.time, "reason": e.reason, "kind": e.kind, "name": e.name, "message": e.message} for e in d.events]
    # the kubelet's NodeReady at 120 s (the reboot outlasted the 40 s grace period); Uncordon, NodeDone at 130 s
    assert progress.node_timelines(events_, 0, 300) == {"node1": [
        {"phase": "drain", "start": 0.0, "end": 60.0}, {"phase": "reboot", "start": 60.0, "end": 120.0},
        {"phase": "uncordon", "start": 120.0, "end": 130.0}]}
    assert progress.updated_over_time(events_, 0) == [(0, 0), (130.0, 1)]
