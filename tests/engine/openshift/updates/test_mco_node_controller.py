"""The MCO node controller against its upstream tests (openshift/machine-config-operator
pkg/controller/node/node_controller_test.go TestMaxUnavailable, TestGetPrimaryPoolForNode)
and getAllCandidateMachines' rules: a node that is not ready is no candidate (it already
counts as unavailable), the desired image goes when a pool is not layered, and a node
reports its release's kubelet after the reboot."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.api.objects import LabelSelector
from scheduling.engine.openshift.mco import DESIRED, DESIRED_IMAGE, max_unavailable, pools_for_node, primary_pool, scaled_int_or_percent

from .builders import cluster_version, machine_config, node
from .driver import MCO, Driver


@pytest.mark.parametrize("value, expected, error", [
    (None, 1, None),
    (2, 2, None),
    (0, 1, None),
    ("50%", 2, None),
    ("60%", 2, None),
    ("50 percent", 0, "invalid value for IntOrString: invalid type: string is not a percentage"),
    ("60", 0, "invalid value for IntOrString: invalid type: string is not a percentage"),
    ("40 %", 0, 'invalid value for IntOrString: invalid value "40 %": strconv.Atoi: parsing "40 ": invalid syntax'),
], ids=[f"case#{i}" for i in range(8)])
def test_max_unavailable_of_four_nodes(value, expected, error):
    pool = {"spec": {} if value is None else {"maxUnavailable": value}}
    assert max_unavailable(pool, 4) == expected
    if error:
        with pytest.raises(ValueError, match="^" + error.replace("(", r"\(").replace(")", r"\)") + "$"):
            scaled_int_or_percent(value, 4, False)


MASTER = ("master", {"node-role/master": ""})
WORKER = ("worker", {"node-role/worker": ""})
INFRA = ("infra", {"node-role/infra": ""})


def selectors(*pools):
    return [(name, LabelSelector.from_doc({"matchLabels": labels})) for name, labels in pools]


@pytest.mark.parametrize("pools, labels, expected, error", [
    pytest.param([MASTER, WORKER], {"node-role": ""}, None, False, id="case#0"),
    pytest.param([MASTER, WORKER], {"node-role/master": ""}, "master", False, id="case#1"),
    pytest.param([MASTER, WORKER], {"node-role/master": "", "node-role/worker": ""}, "master", False, id="case#2"),
    pytest.param([MASTER, WORKER, INFRA], {"node-role/worker": "", "node-role/infra": ""}, "infra", False, id="case#3"),
    pytest.param([MASTER, WORKER, INFRA], {"node-role/master": "", "node-role/infra": ""}, "master", False,
                 id="case#4 master wins over a custom pool (OCPBUGS-2177)"),
    pytest.param([MASTER, WORKER, INFRA, ("infra2", {"node-role/infra2": ""})], {"node-role/infra": "", "node-role/infra2": ""},
                 None, True, id="case#5 two custom pools"),
    pytest.param([("test-cluster-pool-1", {"node-role": "master"}), ("test-cluster-pool-2", {"node-role": "master"})],
                 {"node-role": "master"}, None, True, id="case#6"),
    pytest.param([WORKER], {"node-role/master": "", "node-role/worker": "", "kubernetes.io/os": "windows"}, None, False,
                 id="case#7 a Windows node"),
])
def test_primary_pool_for_node(pools, labels, expected, error):
    assert primary_pool("node-0", labels, selectors(*pools)) == expected
    if error:
        with pytest.raises(ValueError, match=r"^node node-0 belongs to 2 custom roles, cannot proceed with this Node$"):
            pools_for_node("node-0", labels, selectors(*pools))


def test_a_node_in_a_custom_pool_is_counted_in_that_pool_only():
    infra = node("infra-0", "infra")
    infra["metadata"]["labels"]["node-role.kubernetes.io/worker"] = ""
    d = Driver([node("master-0", "master"), node("worker-0"), infra], controllers=MCO)
    d.run_until(0)
    counts = {p["metadata"]["name"]: p["status"]["machineCount"] for p in d.store.list("MachineConfigPool")}
    assert counts == {"infra": 1, "master": 1, "worker": 1}


def test_a_node_that_is_not_ready_is_not_a_candidate_and_counts_once_against_max_unavailable():
    docs = [node(f"worker-{i}", created=i, annotations={"clusterui.io/update-seconds": "600"}) for i in range(3)]
    d = Driver(docs, controllers=MCO)
    d.run_until(0)
    pool = d.store.get("MachineConfigPool", "", "worker")
    d.apply([A.ReplaceObject({**pool, "spec": {**pool["spec"], "maxUnavailable": 2}}, keep_status=True)])
    # worker-0 goes NotReady before the new config exists: unavailable, and no candidate
    n0 = d.store.get("Node", "", "worker-0")
    d.apply([A.ReplaceObject({**n0, "status": {**n0["status"], "conditions": [{"type": "Ready", "status": "False"}]}})])
    d.apply([A.ReplaceObject(machine_config("99-worker-ssh", "worker"))])
    d.run_until(1)
    target = d.store.get("MachineConfigPool", "", "worker")["spec"]["configuration"]["name"]
    targeted = sorted(n["metadata"]["name"] for n in d.store.list("Node") if n["metadata"]["annotations"].get(DESIRED) == target)
    # maxUnavailable 2, one unavailable: one slot, for the oldest ready node (not the not-ready worker-0)
    assert targeted == ["worker-1"]


def test_the_desired_image_annotation_goes_when_the_pool_is_not_layered():
    docs = [node("worker-0", annotations={DESIRED_IMAGE: "quay.io/example/layered@sha256:" + "0" * 64})]
    d = Driver(docs, controllers=MCO)
    d.run_until(0)
    d.apply([A.ReplaceObject(machine_config("99-worker-ssh", "worker"))])
    d.run_until(1)
    assert DESIRED_IMAGE not in d.store.get("Node", "", "worker-0")["metadata"]["annotations"]


def test_a_node_that_does_not_say_its_kubelet_reports_the_releases_at_first_boot():
    d = Driver([cluster_version("4.16.60", "eus-4.18"), node("master-0", "master"), node("worker-0")])
    d.run_until(0)
    versions = {n["metadata"]["name"]: n["status"]["nodeInfo"]["kubeletVersion"] for n in d.store.list("Node")}
    assert versions == {"master-0": "v1.29.21+2245128", "worker-0": "v1.29.21+2245128"}
    rows = oc.run(d.store, "oc get nodes", d.now).stdout.splitlines()
    assert [r.split()[-1] for r in rows[1:]] == ["v1.29.21+2245128", "v1.29.21+2245128"]
