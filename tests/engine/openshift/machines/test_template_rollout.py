"""What scaling a MachineSet to 0 and back would do, said without running anything
(scheduling.engine.openshift.template_rollout, the what-if preview's engine part): the set's nodes and
what each drain does with each pod, the Nodes the new machines would register (built as
the machine controller builds them), the DaemonSets on them, and what would hold it back."""

from __future__ import annotations

import copy

from scheduling.engine import actions as A
from tests.engine.openshift.machines import builders as B
from tests.engine.openshift.machines.driver import Driver
from tests.engine.openshift.machines.test_deletion_flow import NS, run, running
from scheduling.engine.openshift import machine_api as M
from scheduling.engine.openshift import template_rollout as R

TAINT = {"key": "key1", "value": "value1", "effect": "NoExecute"}
TOLERATION = {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute", "tolerationSeconds": 3600}


def daemonset(name: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "registry.example/agent:1"}]}}}}


def bare_pod(name: str, node: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "registry.example/debug:1"}]}}


def cluster() -> Driver:
    d = Driver([B.machineset(replicas=2, node_labels={"tier": "batch"}), B.deployment("plain", 2, labels={"app": "plain"}),
                B.deployment("tolerates", 1, tolerations=[TOLERATION]), daemonset("agent"), B.pdb("plain", {"app": "plain"}, 2)])
    d.run_until(300)
    first = M.node_name_of(running(d)[0])
    d.apply([A.CreateObject(bare_pod("debug", first))])
    d.settle()
    return d


def edited(d: Driver) -> dict:
    return R.add_template_taint(d.store.get("MachineSet", NS, "worker-a"), "key1", "value1", "NoExecute")[0]


def test_the_rollout_names_the_nodes_that_go_and_what_each_drain_does_with_each_pod():
    d = cluster()
    before = copy.deepcopy(sorted(d.store.all(), key=lambda o: (o["kind"], str(o["metadata"]))))
    rollout = R.scale_to_zero_and_back(d.store, edited(d), 2, d.now)

    assert sorted(rollout.machines) == sorted(M.name_of(m) for m in running(d))
    assert sorted(rollout.old_nodes) == sorted(M.node_name_of(m) for m in running(d))
    fates = {}
    for p in rollout.displaced:
        fates.setdefault(p.fate, []).append(p.key.split("/")[1].rsplit("-", 2)[0] if p.owner.startswith("ReplicaSet") else p.key)
    assert sorted(fates[R.RECREATED]) == ["plain", "plain", "tolerates"]
    assert fates[R.DELETED] == ["default/debug"]
    assert len(fates[R.WITH_NODE]) == 2 and all(k.startswith("default/agent-") for k in fates[R.WITH_NODE])
    # the pods the controllers create again: unbound, Pending, the same spec otherwise
    assert all("nodeName" not in p["spec"] and p["status"] == {"phase": "Pending"} for p in rollout.recreated)
    # the PDB (minAvailable 2 of 2) lets no eviction through at once
    assert rollout.notes == (
        "PodDisruptionBudget default/plain allows 0 disruption(s) and the drains evict 2 of its pods: the others are "
        "evicted only as their replacements run (the drain retries every 5 s); a replacement that cannot be placed "
        "keeps its old machine in Deleting (Drained=False) with the pod still running there",)
    # the DaemonSet does not tolerate the new taint: no pod on the new nodes
    assert rollout.daemon_sets == (R.DaemonSetOnNewNodes("default/agent", 0, ("key1=value1:NoExecute",)),)
    assert rollout.daemon_pods == ()
    # nothing was changed
    assert copy.deepcopy(sorted(d.store.all(), key=lambda o: (o["kind"], str(o["metadata"])))) == before


def test_the_new_nodes_are_the_ones_the_machine_controller_would_register():
    d = cluster()
    ms = edited(d)
    rollout = R.scale_to_zero_and_back(d.store, ms, 2, d.now)
    assert rollout.new_node_names == ("worker-a-new-1", "worker-a-new-2")

    # the real thing: the edit, scaled to 0 and back
    d.apply([A.ReplaceObject(ms)])
    d.settle()
    run(d, f"oc scale --replicas=0 machineset worker-a -n {NS}")
    d.run_until(d.now + 300)
    run(d, f"oc scale --replicas=2 machineset worker-a -n {NS}")
    d.run_until(d.now + 300)
    real = [d.store.get("Node", "", M.node_name_of(m)) for m in running(d)]

    def shape(node: dict) -> tuple:
        labels = {k: v for k, v in node["metadata"]["labels"].items() if k != "kubernetes.io/hostname"}
        return labels, node["spec"].get("taints"), node["status"]["capacity"], node["status"]["allocatable"]

    assert [shape(n) for n in rollout.new_nodes] == [shape(n) for n in real]
    assert [n["spec"]["taints"] for n in rollout.new_nodes] == [[TAINT], [TAINT]]
    assert rollout.new_nodes[0]["metadata"]["labels"]["tier"] == "batch"


def test_lifecycle_hooks_on_the_machines_are_named():
    d = Driver([B.machineset(replicas=1, hooks={"preDrain": [{"name": "MigrateImportantApp", "owner": "my-app-migration-controller"}]})])
    d.run_until(300)
    rollout = R.scale_to_zero_and_back(d.store, d.store.get("MachineSet", NS, "worker-a"), 1, d.now)
    (machine,) = rollout.machines
    assert rollout.notes == (
        f"machine {machine} has preDrain hooks: its node is drained only once their owners remove them: "
        "MigrateImportantApp (owner my-app-migration-controller)",
        "the new machines carry the template's lifecycle hooks: their owners hold each machine's deletion in turn")


def test_template_taint_edits():
    ms = B.machineset(taints=[{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}])
    added, summary = R.add_template_taint(ms, "key1", "value1", "NoExecute")
    assert summary == "add taint key1=value1:NoExecute to the template"
    assert R.template_taints(added) == [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}, TAINT]
    replaced, _ = R.add_template_taint(added, "dedicated", "gpu", "NoSchedule")
    assert R.taint_texts(R.template_taints(replaced)) == ["dedicated=gpu:NoSchedule", "key1=value1:NoExecute"]
    removed, summary = R.remove_template_taint(replaced, 0)
    assert summary == "remove taint dedicated=gpu:NoSchedule from the template"
    assert R.template_taints(removed) == [TAINT]
    assert "taints" not in R.remove_template_taint(removed, 0)[0]["spec"]["template"]["spec"]
    assert R.template_taints(ms) == [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}], "the input is not changed"
    assert R.template_taint_errors(R.with_template_taints(ms, [{"key": "k", "effect": "Sometimes"}])) == [
        'spec.template.spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"']
