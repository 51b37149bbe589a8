"""The machine drain controller (kubectl's drain of scheduling.engine.oc.drain with the
machine controller's options): a drain refused by a PodDisruptionBudget retries the
eviction every 5 s for its 20 s, then fails with Drained=False and is attempted again
with the controller's exponential backoff (5 s, 10 s, 20 s, ...) until the budget allows
it; a drain that outlasts the 20 s timeout is retried; only one control-plane node is
drained at a time."""

from __future__ import annotations

from scheduling.engine import actions as A
from tests.engine.openshift.machines import builders as B
from tests.engine.openshift.machines.test_deletion_flow import NS, conditions, run, running
from tests.engine.openshift.machines.driver import Driver, all_controllers_but
from scheduling.engine.openshift import machine_api as M


def test_a_drain_refused_by_a_pdb_is_retried_with_backoff_until_the_budget_allows_it():
    d = Driver([B.machineset(replicas=2), B.deployment("web", 2, grace=10), B.pdb("web", {"app": "web"}, 2)])
    d.run_until(300)
    victim = M.name_of(running(d)[0])
    node = M.node_name_of(running(d)[0])
    (pod,) = [p for p in d.store.list("Pod") if p["spec"]["nodeName"] == node]
    t0 = d.now
    run(d, f"oc delete machine {victim} -n {NS}")
    d.run_until(t0 + 100)
    error = f'error when evicting pods/"{pod["metadata"]["name"]}" -n "default": global timeout reached: 20s'
    machine = d.store.get("Machine", NS, victim)
    assert conditions(machine)["Drained"] == ("False", "DrainError", f"could not drain machine: {error}")
    assert machine["status"]["conditions"][-1]["severity"] == "Warning"
    attempts = [(e[0] - t0, e[1]) for e in d.events("DrainProceeds", "DrainRequeued") if e[2] == f"Machine/{NS}/{victim}"]
    assert attempts == [(0, "DrainProceeds"), (20, "DrainRequeued"), (25, "DrainProceeds"), (45, "DrainRequeued"),
                        (55, "DrainProceeds"), (75, "DrainRequeued"), (95, "DrainProceeds")]
    assert [e[3] for e in d.events("DrainRequeued")][0] == f"Node drain requeued: {error}"
    assert d.store.get("Node", "", node)["spec"]["unschedulable"] is True

    # the owner of the budget relaxes it: the attempt under way (started at +95) retries the
    # eviction every 5 s: at +105 it is allowed, the pod is gone 10 s later
    budget = d.store.get("PodDisruptionBudget", "default", "web")
    d.apply([A.ReplaceObject({**budget, "spec": {**budget["spec"], "minAvailable": 1}})])
    d.settle()
    d.run_until(t0 + 116)
    machine = d.store.get("Machine", NS, victim)
    assert conditions(machine)["Drained"] == ("True", None, "Drain finished successfully")
    assert [(e[0] - t0, e[1]) for e in d.events("DrainRequeued", "DrainProceeds", "DrainSucceeded")][-2:] == [
        (95, "DrainProceeds"), (115, "DrainSucceeded")]
    live = [p for p in d.store.list("Pod") if "deletionTimestamp" not in p["metadata"]]
    assert len(live) == 2 and all(p["spec"]["nodeName"] != node and p["status"]["phase"] == "Running" for p in live)


def test_a_drain_slower_than_the_timeout_is_retried_and_then_succeeds():
    d = Driver([B.machineset(replicas=2), B.deployment("web", 2, grace=30)])
    d.run_until(300)
    victim = running(d)[0]
    node = M.node_name_of(victim)
    (pod,) = [p["metadata"]["name"] for p in d.store.list("Pod") if p["spec"]["nodeName"] == node]
    t0 = d.now
    run(d, f"oc delete machine {M.name_of(victim)} -n {NS}")
    d.run_until(t0 + 60)
    flow = [(e[0] - t0, e[1], e[3]) for e in d.events("DrainProceeds", "DrainRequeued", "DrainSucceeded")]
    assert flow == [
        (0, "DrainProceeds", "Node drain proceeds"),
        (20, "DrainRequeued", f'Node drain requeued: error when waiting for pod "{pod}" in namespace "default" to terminate: '
                              "context deadline exceeded"),
        (25, "DrainProceeds", "Node drain proceeds"),
        (30, "DrainSucceeded", "Node drain succeeded"),
    ]


def test_only_one_control_plane_node_is_drained_at_a_time():
    masters = B.machineset("master", replicas=2, role="master")
    # without the etcd quorum guard (its hooks would hold the drain before this check)
    d = Driver([masters], controllers=all_controllers_but("etcd-quorum-guard"))
    d.run_until(300)
    first, second = running(d)
    other = M.node_name_of(first)
    d.apply([A.SetUnschedulable(other, True)])  # another control-plane node is being drained
    d.settle()
    run(d, f"oc delete machine {M.name_of(second)} -n {NS}")
    d.run_until(d.now + 1)
    machine = d.store.get("Machine", NS, M.name_of(second))
    assert conditions(machine)["Drained"] == ("False", "DrainError", "could not drain machine: drain not permitted: requeue in: 20s")
    assert d.store.get("Node", "", M.node_name_of(second))["spec"].get("unschedulable") is None
    d.apply([A.SetUnschedulable(other, False)])
    d.settle()
    d.run_until(d.now + 20)
    assert conditions(d.store.get("Machine", NS, M.name_of(second)))["Drained"][0] == "True"
