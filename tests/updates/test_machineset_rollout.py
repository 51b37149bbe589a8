"""The preview function of a MachineSet template edit, on documents (no database): where
each pod of the set's nodes would go once the set is scaled to 0 and back
(machine_previews.rollout_preview). Each prediction is checked against the machine and
scheduling controllers really doing it (the engine's event loop), so the preview says
what will happen."""

from __future__ import annotations

from scheduling.engine.scheduler.policy import default_policy
from tests.engine.machines import builders as B
from tests.engine.machines.driver import Driver
from tests.engine.machines.test_deletion_flow import NS, run, running
from updates import machine_previews as MP
from updates.engine import machine_api as M
from updates.engine import template_rollout as R
from scheduling.engine import actions as A

TAINT = {"key": "key1", "value": "value1", "effect": "NoExecute"}
TOLERATION = {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute", "tolerationSeconds": 3600}


def predict(d: Driver, machineset: str, replicas: int) -> tuple[dict, MP.RolloutPreview]:
    ms = R.add_template_taint(d.store.get("MachineSet", NS, machineset), "key1", "value1", "NoExecute")[0]
    rollout = R.scale_to_zero_and_back(d.store, ms, replicas, d.now)
    return ms, MP.rollout_preview(list(d.store.all()), rollout, default_policy(), now=d.now)


def really(d: Driver, ms: dict, replicas: int) -> None:
    """The seed's steps 2-4 with the controllers: the edit, scale to 0, wait, scale back, wait."""
    d.apply([A.ReplaceObject(ms)])
    d.settle()
    run(d, f"oc scale --replicas=0 machineset {M.name_of(ms)} -n {NS}")
    d.run_until(d.now + 300)
    run(d, f"oc scale --replicas={replicas} machineset {M.name_of(ms)} -n {NS}")
    d.run_until(d.now + 300)


def by_app(pods) -> dict[str, list]:
    out: dict[str, list] = {}
    for key, value in pods:
        out.setdefault(key.split("/")[1].rsplit("-", 2)[0], []).append(value)
    return out


def test_the_seeds_example_one_pod_tolerates_the_new_taint_the_other_does_not():
    d = Driver([B.machineset(replicas=2), B.deployment("plain", 1), B.deployment("tolerates", 1, tolerations=[TOLERATION])])
    d.run_until(300)
    ms, preview = predict(d, "worker-a", 2)

    outcome = {o.pod.split("/")[1].rsplit("-", 2)[0]: o for o in preview.pods}
    plain, tolerates = outcome["plain"], outcome["tolerates"]
    # while the set is at 0 there is no node at all
    assert (plain.during, plain.during_message) == (None, "no nodes available to schedule pods")
    assert (tolerates.during, tolerates.during_message) == (None, "no nodes available to schedule pods")
    # back up: the pod that tolerates the taint goes to a new node, until its tolerationSeconds run out
    assert tolerates.after in preview.new_nodes and tolerates.on_new_node
    assert (tolerates.eviction.seconds, tolerates.eviction.taints) == (3600, ("key1=value1:NoExecute",))
    # the other stays Pending, and why
    assert plain.pending and plain.after is None
    assert plain.message == "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate."
    assert [(f.taint, f.nodes) for f in plain.fixes] == [("key1=value1:NoExecute", preview.new_nodes)]
    assert plain.fixes[0].toleration_yaml == "tolerations:\n- key: key1\n  operator: Equal\n  value: value1\n  effect: NoExecute"

    really(d, ms, 2)
    new_nodes = {M.node_name_of(m) for m in running(d)}
    pods = {p["metadata"]["name"]: p for p in d.store.list("Pod")}
    real = by_app((f"default/{n}", p["spec"].get("nodeName")) for n, p in pods.items())
    assert len(real["tolerates"]) == 1 and real["tolerates"][0] in new_nodes
    assert real["plain"] == [None]
    last = [e[3] for e in d.events("FailedScheduling") if e[2].startswith("Pod/default/plain-")][-1]
    assert last == plain.message


def test_pods_that_fit_elsewhere_move_there_during_the_scale_down_and_stay():
    d = Driver([B.machineset(replicas=1), B.machineset("worker-b", replicas=1), B.deployment("plain", 4)])
    d.run_until(300)
    other = next(M.node_name_of(m) for m in running(d) if "worker-b" in M.name_of(m))
    ms, preview = predict(d, "worker-a", 1)
    moved = [o for o in preview.pods if o.fate == R.RECREATED]
    assert moved and all((o.during, o.after, o.on_new_node) == (other, other, False) for o in moved)
    assert preview.pending == []

    really(d, ms, 1)
    assert [p["spec"].get("nodeName") for p in d.store.list("Pod")] == [other] * 4


def test_a_pod_without_a_controller_is_deleted_and_pending_pods_start_on_the_new_nodes():
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "debug", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "registry.example/debug:1"}]}}
    waiting = B.deployment("tolerates", 1, tolerations=[TOLERATION], node_selector={"tier": "tainted"})
    d = Driver([B.machineset(replicas=1), bare, waiting])
    d.run_until(300)
    ms = d.store.get("MachineSet", NS, "worker-a")
    spec = ms["spec"]["template"]["spec"]
    ms = {**ms, "spec": {**ms["spec"], "template": {**ms["spec"]["template"], "spec": {**spec, "metadata": {"labels": {"tier": "tainted"}}}}}}
    ms = R.add_template_taint(ms, "key1", "value1", "NoExecute")[0]
    preview = MP.rollout_preview(list(d.store.all()), R.scale_to_zero_and_back(d.store, ms, 1, d.now), default_policy(), now=d.now)
    assert [(o.pod, o.fate) for o in preview.pods] == [("default/debug", R.DELETED)]
    (started,) = preview.started
    assert started.pod.startswith("default/tolerates-") and started.after == "worker-a-new-1"
