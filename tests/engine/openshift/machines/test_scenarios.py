"""The built-in Machine API scenarios play as their descriptions say (simulate, the CLI's
code path, with the simulated hook owners)."""

from __future__ import annotations

import pytest

from scheduling.engine import scenarios
from scheduling.engine.simulate import simulate
from scheduling.store.kube import load_documents
from tests.engine.test_scenarios import play

NS = "openshift-machine-api"
VICTIM = "ci-7xk2p-worker-us-east-1a-4bk7q"
FLOW = ("DrainBlocked", "DrainProceeds", "DrainSucceeded", "Delete", "MemberAddAsLearner", "MemberPromote", "MemberRemove",
        "MachineDeletionHook")


def flow(result: dict, *objects: str) -> list[tuple[float, str, str]]:
    return [(e["time"], e["reason"], e["object"].rsplit("/", 1)[-1]) for e in result["events"]
            if e["reason"] in FLOW and (not objects or e["object"].rsplit("/", 1)[-1] in objects)]


@pytest.mark.parametrize(
    "name, expected",
    [
        pytest.param("machine-deletion-hooks", [(60.0, "DrainBlocked")], id="the documentation's hooks hold the machine for their owners"),
        pytest.param("machine-proactive-replacement", [(60.0, "DrainBlocked"), (300.0, "DrainProceeds"), (310.0, "DrainSucceeded"),
                                                       (310.0, "Delete")], id="proactive replacement waits for the new node"),
        pytest.param("machine-custom-drain", [(61.0, "DrainBlocked"), (121.0, "DrainProceeds"), (131.0, "DrainSucceeded"),
                                              (131.0, "Delete")], id="the custom drain runs before the machine controller's"),
        pytest.param("machine-storage-detach", [(60.0, "DrainProceeds"), (60.0, "DrainSucceeded"), (125.0, "Delete")],
                     id="the instance waits for the storage to detach"),
        pytest.param("machine-log-flush", [(60.0, "DrainProceeds"), (70.0, "DrainSucceeded"), (160.0, "Delete")],
                     id="the instance waits for the logs to be flushed"),
    ],
)
def test_the_hook_scenarios(name, expected):
    result = play(name)
    assert [(t, r) for t, r, _ in flow(result, VICTIM)] == expected


def test_the_etcd_quorum_scenario():
    result = play("etcd-quorum-guard")
    assert [(t, r, o) for t, r, o in flow(result) if r != "DrainSucceeded"] == [
        (60.0, "DrainBlocked", "ci-7xk2p-master-2"),
        (120.0, "DrainBlocked", "ci-7xk2p-master-1"),
        (360.0, "MemberAddAsLearner", "etcd-operator"),
        (480.0, "MemberPromote", "etcd-operator"),
        (480.0, "MemberRemove", "etcd-operator"),
        (480.0, "MachineDeletionHook", "etcd-operator"),
        (480.0, "DrainProceeds", "ci-7xk2p-master-2"),
        (480.0, "Delete", "ci-7xk2p-master-2"),
        (600.0, "MemberAddAsLearner", "etcd-operator"),
        (720.0, "MemberPromote", "etcd-operator"),
        (720.0, "MemberRemove", "etcd-operator"),
        (720.0, "MachineDeletionHook", "etcd-operator"),
        (720.0, "DrainProceeds", "ci-7xk2p-master-1"),
        (720.0, "Delete", "ci-7xk2p-master-1"),
    ]


def test_the_machineset_taints_scenario():
    scenario = scenarios.BY_NAME["machineset-taints"]
    with open(scenarios.path(scenario), encoding="utf-8") as f:
        result = simulate(load_documents(f.read(), scenario.file), until=scenario.until, objects=True)
    nodes = [o for o in result["objects"] if o["kind"] == "Node"]
    assert [n["spec"]["taints"] for n in nodes] == [[{"effect": "NoExecute", "key": "key1", "value": "value1"}]] * 2
    machines = [o for o in result["objects"] if o["kind"] == "Machine"]
    assert [m["status"]["phase"] for m in machines] == ["Running", "Running"]
    (get_nodes,) = [e["message"] for e in result["events"] if e["reason"] == "CommandOutput" and e["message"].startswith("NAME ")]
    assert get_nodes.count("Ready") == 2 and "ip-10-0-21-11" not in get_nodes
    tolerating = [p for p in result["pods"] if p["pod"].startswith("default/tolerates-") and p["phase"] == "Running"]
    assert len(tolerating) == 1 and tolerating[0]["node"] in {n["metadata"]["name"] for n in nodes}
    # the pod without the toleration: Pending while the set is at 0, and still once the tainted nodes joined
    (waiting,) = [p for p in result["pods"] if p["pod"].startswith("default/no-toleration-") and p["phase"] != "Deleted"]
    assert (waiting["node"], waiting["phase"]) == (None, "Pending")
    assert waiting["message"] == "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate."
