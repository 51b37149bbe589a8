"""MachineSets: provisioning on the clock (Provisioning -> Provisioned -> Running with a
Node carrying the template's labels and taints and its instance type's capacity), and
taints through a MachineSet (as the OpenShift 4 docs describe it): editing the template changes no existing
node; scaled to 0 and back, the new nodes have the taint, and pods follow it."""

from __future__ import annotations

from scheduling.engine import actions as A
from tests.engine.openshift.machines import builders as B
from tests.engine.openshift.machines.driver import Driver
from tests.engine.openshift.machines.test_deletion_flow import NS, conditions, run, running
from scheduling.engine.openshift import machine_api as M

TAINT = {"effect": "NoExecute", "key": "key1", "value": "value1"}


def test_a_machine_is_provisioned_on_the_clock_and_its_node_carries_the_template():
    d = Driver([B.machineset(replicas=1, instance_type="m6i.2xlarge", node_labels={"tier": "batch"},
                             taints=[{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}])])
    (machine,) = M.machines(d.store)
    name = M.name_of(machine)
    phases = {}
    for t in (0, 29, 30, 239, 240):
        d.run_until(t)
        phases[t] = M.phase_of(d.store.get("Machine", NS, name))
    assert phases == {0: "Provisioning", 29: "Provisioning", 30: "Provisioned", 239: "Provisioned", 240: "Running"}
    machine = d.store.get("Machine", NS, name)
    assert machine["metadata"]["finalizers"] == ["machine.machine.openshift.io"]
    assert conditions(machine) == {"InstanceExists": ("True", None, None), "Drainable": ("True", None, None),
                                   "Terminable": ("True", None, None)}
    node = d.store.get("Node", "", M.node_name_of(machine))
    # (the Machine Config Operator, in the same loop, adds its config annotations to the new node)
    assert node["metadata"]["annotations"]["machine.openshift.io/machine"] == f"{NS}/{name}"
    assert node["metadata"]["annotations"]["machineconfiguration.openshift.io/state"] == "Done"
    assert node["metadata"]["labels"]["tier"] == "batch"
    assert node["metadata"]["labels"]["node-role.kubernetes.io/worker"] == ""
    assert node["metadata"]["labels"]["node.kubernetes.io/instance-type"] == "m6i.2xlarge"
    assert node["spec"]["taints"] == [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    assert node["status"]["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "250"}
    assert node["status"]["allocatable"] == {"cpu": "7500m", "memory": "31744Mi", "pods": "250"}
    assert node["spec"]["providerID"] == machine["spec"]["providerID"]


def test_taints_through_a_machineset_reach_only_new_nodes():
    tolerating = B.deployment("tolerates", 1, tolerations=[{"key": "key1", "operator": "Equal", "value": "value1",
                                                             "effect": "NoExecute", "tolerationSeconds": 3600}])
    d = Driver([B.machineset(replicas=2), tolerating])
    d.run_until(300)
    old_nodes = {M.node_name_of(m) for m in running(d)}

    # step 2: the taint goes into spec.template.spec
    ms = d.store.get("MachineSet", NS, "worker-a")
    template = ms["spec"]["template"]
    edited = {**ms, "spec": {**ms["spec"], "template": {**template, "spec": {**template["spec"], "taints": [TAINT]}}}}
    d.apply([A.ReplaceObject(edited)])
    d.settle()
    d.run_until(d.now + 600)
    assert all(not d.store.get("Node", "", n)["spec"].get("taints") for n in old_nodes), "existing nodes are not changed"

    # step 3: scale to 0 and wait for the machines to be removed
    assert run(d, f"oc scale --replicas=0 machineset worker-a -n {NS}") == "machineset.machine.openshift.io/worker-a scaled\n"
    d.run_until(d.now + 300)
    assert M.machines(d.store) == [] and d.store.list("Node") == []

    # step 4: scale up again and wait for the machines to start
    run(d, f"oc scale --replicas=2 machineset worker-a -n {NS}")
    d.run_until(d.now + 300)
    new_nodes = [M.node_name_of(m) for m in running(d)]
    assert len(new_nodes) == 2 and not set(new_nodes) & old_nodes
    assert [d.store.get("Node", "", n)["spec"]["taints"] for n in new_nodes] == [[TAINT], [TAINT]]
    # the pod tolerating the taint runs on one of them; one that does not would not
    (pod,) = d.store.list("Pod")
    assert pod["spec"]["nodeName"] in new_nodes and pod["status"]["phase"] == "Running"
    d.apply([A.CreateObject(B.deployment("plain", 1))])
    d.settle()
    plain = [p for p in d.store.list("Pod") if p["metadata"]["name"].startswith("plain-")]
    assert [p["spec"].get("nodeName") for p in plain] == [None]
    assert [e[3] for e in d.events("FailedScheduling") if e[2].startswith("Pod/default/plain-")][-1] == (
        "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate.")
