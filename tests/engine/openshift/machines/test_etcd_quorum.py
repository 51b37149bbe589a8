"""The etcd quorum guard (quorum protection with machine lifecycle hooks): a control-plane machine is replaced; for a
while there are four control-plane machines; the new etcd member is added as a learner
(Running, not ready), promoted to a voting member once it has the whole database; the
old member is removed; only then is the EtcdQuorumOperator preDrain hook removed and the
old machine drained and deleted. A second deletion is held until removing its member
keeps quorum."""

from __future__ import annotations

from scheduling.engine import oc
from tests.engine.openshift.machines import builders as B
from tests.engine.openshift.machines.driver import Driver
from scheduling.engine.openshift import etcd_quorum as E
from scheduling.engine.openshift import machine_api as M

NS = M.NAMESPACE
HOOK = [{"name": "EtcdQuorumOperator", "owner": "clusteroperator/etcd"}]
OPERATOR = "Deployment/openshift-etcd-operator/etcd-operator"


def delete(d: Driver, name: str) -> None:
    result = oc.run(d.store, f"oc delete machine {name} -n {NS}", d.now)
    assert result.exit_code == 0, result.stderr
    d.apply(result.actions)
    d.settle()


def quorum(d: Driver) -> tuple:
    q = E.quorum(d.store.state_of("etcd-quorum-guard"))
    return q["members"], q["voting"], q["learners"], q["healthy"], q["hasQuorum"]


def control_plane_machines(d: Driver) -> list[tuple[str, str]]:
    return [(M.name_of(m), M.phase_of(m)) for m in M.machines(d.store) if M.is_control_plane(m)]


def test_the_etcd_operator_puts_its_hook_on_every_control_plane_machine():
    d = Driver(B.control_plane())
    assert [M.hooks_of(m, "preDrain") for m in M.machines(d.store)] == [HOOK, HOOK, HOOK]
    assert quorum(d) == (3, 3, 0, 3, True)
    assert E.quorum(d.store.state_of("etcd-quorum-guard"))["leader"].endswith(".ec2.internal")


def test_a_control_plane_machine_is_replaced_in_the_seeds_order():
    d = Driver(B.control_plane())
    old = "ci-7xk2p-master-2"
    old_node = M.node_name_of(d.store.get("Machine", NS, old))
    d.run_until(10)
    delete(d, old)
    (new,) = [n for n, _ in control_plane_machines(d) if n.endswith("-2") and n != old]
    assert new.startswith("ci-7xk2p-master-") and len(new) == len("ci-7xk2p-master-xxxxx-2")
    samples = {}
    for t in (11, 300, 320, 429, 430, 470):
        d.run_until(t)
        samples[t] = (control_plane_machines(d), quorum(d), [h["name"] for h in M.hooks_of(d.store.get("Machine", NS, old) or {}, "preDrain")])
    # 1-2: the old machine is Deleting; its replacement is created: four control-plane machines
    assert samples[11][0] == [("ci-7xk2p-master-0", "Running"), ("ci-7xk2p-master-1", "Running"), ("ci-7xk2p-master-2", "Deleting"),
                              (new, "Provisioning")]
    assert samples[11][1:] == ((3, 3, 0, 3, True), ["EtcdQuorumOperator"])
    # 3a: the fourth machine's member starts as a learner: four members, three voting
    assert samples[300][1] == (3, 3, 0, 3, True)
    assert samples[320][1] == (4, 3, 1, 3, True) and samples[320][2] == ["EtcdQuorumOperator"]
    assert samples[429][1] == (4, 3, 1, 3, True)
    # 3b: promoted, the old member removed, the hook removed; drained and deleted
    assert samples[430][1] == (3, 3, 0, 3, True) and samples[430][2] == []
    assert samples[470][0] == [("ci-7xk2p-master-0", "Running"), ("ci-7xk2p-master-1", "Running"), (new, "Running")]
    assert d.store.get("Node", "", old_node) is None
    assert M.hooks_of(d.store.get("Machine", NS, new), "preDrain") == HOOK

    flow = [(e[0], e[1]) for e in d.events() if (e[2] in (OPERATOR, f"Machine/{NS}/{old}") or e[1] == "Create")]
    assert flow == [
        (10, "DrainBlocked"),
        (10, "Create"),
        (310, "MemberAddAsLearner"),
        (430, "MemberPromote"),
        (430, "MemberRemove"),
        (430, "ScaleDown"),
        (430, "MachineDeletionHook"),
        (430, "DrainProceeds"),
        (430, "Deleted"),
        (430, "DrainSucceeded"),
        (430, "Delete"),
    ]
    messages = {e[1]: e[3] for e in d.events() if e[2] == OPERATOR}
    assert messages["MachineDeletionHook"] == (f"successfully removed the deletion hook from machine {old} as it doesn't have a member")
    assert messages["MemberAddAsLearner"].startswith("successfully added new member https://10.0.")
    assert messages["MemberAddAsLearner"].endswith(":2380")


def test_a_second_deletion_that_would_lose_quorum_is_held():
    d = Driver(B.control_plane())
    d.run_until(10)
    delete(d, "ci-7xk2p-master-2")
    d.run_until(15)
    delete(d, "ci-7xk2p-master-1")
    lowest = 3
    held_until = None
    for t in range(20, 800, 5):
        d.run_until(t)
        lowest = min(lowest, quorum(d)[3])
        second = d.store.get("Machine", NS, "ci-7xk2p-master-1")
        if held_until is None and (second is None or not M.hooks_of(second, "preDrain")):
            held_until = t
        if t == 500:
            # the first replacement is done; the second machine still has its hook and its member
            assert M.phase_of(second) == "Deleting" and M.hooks_of(second, "preDrain") == HOOK
            assert E.quorum(d.store.state_of("etcd-quorum-guard"))["waiting"] == (
                "skip scale down: all voting, non-bootstrap members are healthy and membership does not exceed the desired "
                "cluster size of 3")
    assert lowest == 3, "never fewer than three healthy voting members"
    assert held_until == 670  # its own replacement's member promoted: 250 (created) + 240 + 60 + 120
    assert [M.phase_of(m) for m in M.machines(d.store)] == ["Running"] * 3
