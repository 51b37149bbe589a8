"""The machine deletion flow of the machine deletion lifecycle hooks documentation, from each of its five triggers, with a
preDrain and a preTerminate hook held and released by someone acting as their owner:
Deleting; Drainable=False until the preDrain hook is removed; the drain; Drained=True;
Terminable=False until the preTerminate hook is removed; the instance deleted; the Node
deleted; the Machine gone — and the machine controller's events in that order."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import HEARTBEAT_STOPPED_ANNOTATION
from tests.engine.openshift.machines import builders as B
from tests.engine.openshift.machines.driver import Driver
from scheduling.engine.openshift import machine_api as M

NS = M.NAMESPACE
HOOKS = {
    "preDrain": [{"name": "MigrateImportantApp", "owner": "my-app-migration-controller"}],
    "preTerminate": [{"name": "BackupFileSystem", "owner": "my-backup-controller"}],
}
DRAIN_BLOCKED = "Drain operation currently blocked by: [{Name:MigrateImportantApp Owner:my-app-migration-controller}]"
TERMINATE_BLOCKED = "Terminate operation currently blocked by: [{Name:BackupFileSystem Owner:my-backup-controller}]"
FLOW = ["DrainBlocked", "DrainProceeds", "Deleted", "DrainSucceeded", "Delete"]


def run(d: Driver, command: str) -> str:
    result = oc.run(d.store, command, d.now)
    assert result.exit_code == 0, result.stderr
    d.apply(result.actions)
    d.settle()
    return result.stdout


def until(d: Driver, predicate, step: float = 1, limit: float = 3600) -> None:
    """Play the clock in small steps until `predicate()` holds."""
    end = d.now + limit
    while not predicate():
        assert d.now < end, "never happened"
        d.run_until(d.now + step)


def running(d: Driver) -> list[dict]:
    return [m for m in M.machines(d.store) if M.phase_of(m) == M.PHASE_RUNNING]


def conditions(machine: dict) -> dict[str, tuple]:
    return {c["type"]: (c["status"], c.get("reason"), c.get("message")) for c in machine["status"].get("conditions") or []}


def cluster(**ms_args) -> Driver:
    """Two workers of a MachineSet whose template has both hooks, a Deployment on them."""
    d = Driver([B.machineset(replicas=2, hooks=HOOKS, **ms_args), B.deployment("web", 2, grace=10)])
    d.run_until(300)
    assert len(running(d)) == 2
    return d


def trigger_oc_delete(d: Driver) -> str:
    victim = M.name_of(running(d)[1])
    assert run(d, f"oc delete machine {victim} -n {NS}") == f'machine.machine.openshift.io "{victim}" deleted from {NS} namespace\n'
    return victim


def trigger_annotation(d: Driver) -> str:
    victim = M.name_of(running(d)[1])  # the second in list order: the annotation beats the Random policy's order
    run(d, f"oc annotate machine {victim} machine.openshift.io/delete-machine=true -n {NS}")
    run(d, f"oc scale --replicas=1 machineset worker-a -n {NS}")
    return victim


def trigger_scale_down(d: Driver) -> str:
    run(d, f"oc scale --replicas=3 machineset worker-a -n {NS}")
    d.run_until(d.now + 300)
    newest = max(running(d), key=lambda m: (m["metadata"]["creationTimestamp"], M.name_of(m)))
    run(d, f"oc scale --replicas=2 machineset worker-a -n {NS}")  # deletePolicy Newest
    return M.name_of(newest)


def trigger_autoscaler(d: Driver) -> str:
    # the Deployment's pods request little: both nodes are under-used; after 10 minutes the
    # autoscaler removes one (the first in list order), never below the minimum of 1
    until(d, lambda: any(M.is_deleting(m) for m in M.machines(d.store)))
    marked = [m for m in M.machines(d.store) if M.has_delete_annotation(m)]
    assert [M.name_of(m) for m in marked] == [M.name_of(m) for m in M.machines(d.store) if M.is_deleting(m)]
    return M.name_of(marked[0])


def trigger_mhc(d: Driver) -> str:
    victim = running(d)[1]
    node = M.node_name_of(victim)
    d.apply([A.SetAnnotation("Node", "", node, HEARTBEAT_STOPPED_ANNOTATION, str(int(d.now)))])
    d.settle()
    # Ready Unknown after the 40 s grace period, unhealthy after the MHC's 300 s
    until(d, lambda: M.is_deleting(d.store.get("Machine", NS, M.name_of(victim))))
    return M.name_of(victim)


TRIGGERS = [
    pytest.param(trigger_oc_delete, {}, [], id="oc delete machine"),
    pytest.param(trigger_annotation, {}, [], id="the delete-machine annotation and a scale-down"),
    pytest.param(trigger_scale_down, {"delete_policy": "Newest"}, [], id="a MachineSet scale-down with the Newest delete policy"),
    pytest.param(trigger_autoscaler, {"annotations": {M.AUTOSCALER_MIN_ANNOTATION: "1", M.AUTOSCALER_MAX_ANNOTATION: "3"}}, [],
                 id="the cluster autoscaler removing an under-used node"),
    pytest.param(trigger_mhc, {}, [B.mhc(timeout="300s")], id="a MachineHealthCheck replacing an unhealthy machine"),
]


@pytest.mark.parametrize("trigger, ms_args, extra", TRIGGERS)
def test_the_deletion_flow_waits_for_each_hook_owner(trigger, ms_args, extra):
    d = Driver([B.machineset(replicas=2, hooks=HOOKS, **ms_args), B.deployment("web", 2, grace=10), *extra])
    d.run_until(300)
    victim = trigger(d)
    machine = d.store.get("Machine", NS, victim)
    t0 = machine["metadata"]["deletionTimestamp"]
    node = M.node_name_of(machine)
    d.run_until(t0 + 60)

    machine = d.store.get("Machine", NS, victim)
    assert M.phase_of(machine) == "Deleting"
    assert conditions(machine)["Drainable"] == ("False", "HookPresent", DRAIN_BLOCKED)
    assert conditions(machine)["Terminable"] == ("False", "HookPresent", TERMINATE_BLOCKED)
    assert "Drained" not in conditions(machine)
    assert d.store.get("Node", "", node) is not None
    assert [e[1] for e in d.events() if e[2] == f"Machine/{NS}/{victim}" and e[1] in FLOW] == ["DrainBlocked"]

    # acting as my-app-migration-controller: its work is done
    d.apply([M.remove_hook(machine, "preDrain", "MigrateImportantApp")])
    d.settle()
    d.run_until(t0 + 200)
    machine = d.store.get("Machine", NS, victim)
    assert conditions(machine)["Drainable"] == ("True", None, None)
    assert conditions(machine)["Drained"] == ("True", None, "Drain finished successfully")
    assert conditions(machine)["Terminable"] == ("False", "HookPresent", TERMINATE_BLOCKED)
    assert d.store.get("Node", "", node)["spec"]["unschedulable"] is True
    # (on an unreachable node the evicted pods stay Terminating until the Node is deleted)
    live = [p for p in d.store.list("Pod") if "deletionTimestamp" not in p["metadata"]]
    assert not [p for p in live if p["spec"].get("nodeName") == node]
    assert len(live) == 2 and all(p["status"]["phase"] == "Running" for p in live), "the evicted pods run elsewhere"

    # acting as my-backup-controller
    d.apply([M.remove_hook(machine, "preTerminate", "BackupFileSystem")])
    d.settle()
    d.run_until(t0 + 300)
    assert d.store.get("Machine", NS, victim) is None
    assert d.store.get("Node", "", node) is None
    flow = [(e[0], e[1]) for e in d.events() if e[2] == f"Machine/{NS}/{victim}" and e[1] in FLOW]
    assert [r for _, r in flow] == FLOW
    times = dict((r, t) for t, r in flow)
    assert times["DrainProceeds"] == t0 + 60 and times["Delete"] == t0 + 200


def test_the_events_name_the_node_and_the_machine():
    d = cluster()
    victim = trigger_oc_delete(d)
    machine = d.store.get("Machine", NS, victim)
    node = M.node_name_of(machine)
    for point, hook in (("preDrain", "MigrateImportantApp"), ("preTerminate", "BackupFileSystem")):
        d.apply([M.remove_hook(d.store.get("Machine", NS, victim), point, hook)])
        d.settle()
    d.run_until(d.now + 100)
    messages = [(e[1], e[3]) for e in d.events() if e[2] == f"Machine/{NS}/{victim}"]
    assert messages == [
        ("Create", f"Created Machine {victim}"),
        ("DrainBlocked", "Drain blocked by pre-drain hook"),
        ("DrainProceeds", "Node drain proceeds"),
        ("Deleted", f'Node "{node}" drained'),
        ("DrainSucceeded", "Node drain succeeded"),
        ("Delete", f"Deleted machine {victim}"),
    ]


def test_a_machine_without_hooks_goes_straight_through_and_is_replaced():
    d = Driver([B.machineset(replicas=2)])
    d.run_until(300)
    victim = M.name_of(running(d)[0])
    run(d, f"oc delete machine {victim} -n {NS}")
    assert M.phase_of(d.store.get("Machine", NS, victim)) == "Deleting"
    d.run_until(d.now + 29)
    assert d.store.get("Machine", NS, victim)["metadata"]["annotations"][M.INSTANCE_STATE_ANNOTATION] == "shutting-down"
    d.run_until(d.now + 1)
    assert d.store.get("Machine", NS, victim) is None
    d.run_until(d.now + 300)
    assert len(running(d)) == 2


def test_a_hook_added_back_holds_the_machine_again():
    d = cluster()
    victim = trigger_oc_delete(d)
    d.run_until(d.now + 10)
    machine = d.store.get("Machine", NS, victim)
    d.apply([M.add_hook(machine, "preDrain", "Second", "someone-else")])
    d.apply([M.remove_hook(d.store.get("Machine", NS, victim), "preDrain", "MigrateImportantApp")])
    d.settle()
    d.run_until(d.now + 100)
    machine = d.store.get("Machine", NS, victim)
    assert conditions(machine)["Drainable"] == ("False", "HookPresent", "Drain operation currently blocked by: [{Name:Second Owner:someone-else}]")
    assert "Drained" not in conditions(machine)


@pytest.mark.parametrize(
    "policy, expected",
    [
        pytest.param("Newest", 2, id="Newest deletes the machine created last"),
        pytest.param("Oldest", 0, id="Oldest deletes the machine created first"),
        pytest.param("Random", None, id="Random deletes the first in list order among machines with nodes"),
    ],
)
def test_scale_down_follows_the_delete_policy(policy, expected):
    d = Driver([B.machineset(replicas=1, delete_policy=policy)])
    for replicas in (2, 3):  # three machines of three ages
        d.run_until(d.now + 100)
        run(d, f"oc scale --replicas={replicas} machineset worker-a -n {NS}")
    d.run_until(d.now + 300)
    by_age = sorted(running(d), key=lambda m: m["metadata"]["creationTimestamp"])
    assert len({m["metadata"]["creationTimestamp"] for m in by_age}) == 3
    first = M.name_of(running(d)[0])
    run(d, f"oc scale --replicas=2 machineset worker-a -n {NS}")
    deleting = [M.name_of(m) for m in M.machines(d.store) if M.is_deleting(m)]
    assert deleting == [M.name_of(by_age[expected]) if expected is not None else first]
