"""Workload controllers, PodDisruptionBudgets and the eviction API (engine.workloads), alone
and through the simulated clock: evicted pods are replaced and the replacements scheduled,
DaemonSet pods are never evicted for node problems (taint-based evictions; OpenShift 3.11's DaemonSets and tolerations)."""

from __future__ import annotations

import copy
import re

import pytest

from scheduling.engine import actions as A
from scheduling.engine.controllers import eviction, garbage_collector, workloads
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulate import simulate
from scheduling.engine.simulation import Simulation
from scheduling.engine.store import Store
from scheduling.engine.timeline import load_timeline
from tests.engine.builders import node_doc, pod_doc

SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"


def workload(kind: str, name: str, replicas: int | None = 1, labels=None, **spec) -> dict:
    labels = labels or {"app": name}
    doc = {
        "apiVersion": "v1" if kind == "ReplicationController" else "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "selector": dict(labels) if kind == "ReplicationController" else {"matchLabels": dict(labels)},
            "template": {"metadata": {"labels": dict(labels)}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
            **spec,
        },
    }
    if replicas is not None and kind != "DaemonSet":
        doc["spec"]["replicas"] = replicas
    return apply_defaults(doc)


def timeline(*steps: dict) -> dict:
    return {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"}, "steps": list(steps)}


def simulation(*docs, timelines=(), seed=0) -> Simulation:
    return Simulation(list(docs), schedulers=[(DEFAULT_SCHEDULER, default_policy())], seed=seed,
                      timelines=[load_timeline(t) for t in timelines])


def pods(sim: Simulation) -> dict[str, tuple[str | None, str]]:
    return {key: ((sim.pod_doc(key)[0].get("spec") or {}).get("nodeName"), sim.phase(key)) for key in sim.pod_keys}


def event_list(sim: Simulation, *reasons: str) -> list[tuple[float, str, str, str]]:
    return [(e.time, e.reason, e.object, e.message) for e in sim.events if not reasons or e.reason in reasons]


# --- ReplicaSet / ReplicationController --------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, source",
    [
        pytest.param("ReplicaSet", "replicaset-controller", id="a ReplicaSet creates its replicas"),
        pytest.param("ReplicationController", "replication-controller", id="a ReplicationController creates its replicas"),
    ],
)
def test_replicas_are_created_with_random_suffixes(kind, source):
    store = Store([workload(kind, "fe", 3)])
    result = workloads.reconcile(store, 0, seed=7)
    created = [a.doc for a in result.actions if isinstance(a, A.CreateObject)]
    names = [d["metadata"]["name"] for d in created]
    assert len(names) == 3 and all(re.fullmatch(f"fe-{SUFFIX}", n) for n in names)
    assert [(e.reason, e.message, e.source) for e in result.actions if isinstance(e, A.RecordEvent)] == [
        ("SuccessfulCreate", f"Created pod: {n}", source) for n in names
    ]
    doc = created[0]
    assert doc["metadata"]["generateName"] == "fe-"
    assert doc["metadata"]["ownerReferences"][0]["kind"] == kind
    assert doc["metadata"]["labels"] == {"app": "fe"}
    # admitted like an API create: DefaultTolerationSeconds
    assert [t["key"] for t in doc["spec"]["tolerations"]] == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    # the same seed gives the same names; another seed others
    assert [a.doc["metadata"]["name"] for a in workloads.reconcile(Store([workload(kind, "fe", 3)]), 0, seed=7).actions
            if isinstance(a, A.CreateObject)] == names
    assert [a.doc["metadata"]["name"] for a in workloads.reconcile(Store([workload(kind, "fe", 3)]), 0, seed=8).actions
            if isinstance(a, A.CreateObject)] != names


def test_extra_replicas_are_deleted_unassigned_first_then_newest():
    owned = ("ReplicaSet", "fe")
    docs = [workload("ReplicaSet", "fe", 1),
            pod_doc("old", "node1", labels={"app": "fe"}, owner=owned),
            pod_doc("new", "node1", labels={"app": "fe"}, owner=owned),
            pod_doc("pending", "", labels={"app": "fe"}, owner=owned)]
    docs[1]["metadata"]["creationTimestamp"] = 1
    docs[2]["metadata"]["creationTimestamp"] = 5
    result = workloads.reconcile(Store(docs), 10)
    assert [(a.name, a.at) for a in result.actions if isinstance(a, A.SetPodDeletion)] == [("pending", 10), ("new", 10)]
    assert [e.message for e in result.actions if isinstance(e, A.RecordEvent)] == ["Deleted pod: pending", "Deleted pod: new"]


def test_an_orphan_matching_the_selector_is_adopted_not_duplicated():
    store = Store([workload("ReplicaSet", "fe", 1), pod_doc("loose", "node1", labels={"app": "fe"})])
    result = workloads.reconcile(store, 0)
    assert [type(a).__name__ for a in result.actions] == ["SetControllerRef", "PatchStatus"]
    store.apply_all(result.actions)
    assert workloads.reconcile(store, 0).actions == []


def test_evicted_replicas_are_replaced_and_the_replacements_scheduled():
    tl = timeline({"at": 10, "run": "oc adm taint nodes node1 key1=value1:NoExecute"})
    sim = simulation(node_doc("node1"), node_doc("node2"), workload("ReplicaSet", "fe", 2), timelines=[tl])
    sim.run_until(9)
    assert sorted(node for node, _ in pods(sim).values()) == ["node1", "node2"]
    sim.run_until(100)
    final = pods(sim)
    assert sorted(final.values()) == [("node1", "Deleted"), ("node2", "Running"), ("node2", "Running")]
    evicted = [k for k, (node, phase) in final.items() if phase == "Deleted"][0].split("/")[1]
    replacement = [k for k in sim.pod_keys][-1].split("/")[1]
    assert [(t, r) for t, r, o, _ in event_list(sim) if t == 10] == [
        (10.0, "CommandOutput"),
        (10.0, "TaintManagerEviction"),
        (10.0, "Killing"),
        (10.0, "SuccessfulCreate"),
        (10.0, "Scheduled"),
    ]
    assert event_list(sim, "SuccessfulCreate")[-1] == (10.0, "SuccessfulCreate", "ReplicaSet/default/fe", f"Created pod: {replacement}")
    assert event_list(sim, "Scheduled")[-1][3] == f"Successfully assigned default/{replacement} to node2"
    assert evicted != replacement


# --- Deployment ---------------------------------------------------------------------------------------------------


def test_a_deployment_makes_one_replica_set_named_with_the_template_hash():
    sim = simulation(node_doc("node1"), workload("Deployment", "web", 2))
    sim.run_until(1)
    (rs,) = sim.store.list("ReplicaSet")
    h = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{h}" and re.fullmatch("[bcdfghjklmnpqrstvwxz2456789]+", h)
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": h}
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert event_list(sim, "ScalingReplicaSet") == [
        (0.0, "ScalingReplicaSet", "Deployment/default/web", f"Scaled up replica set web-{h} to 2")
    ]
    assert [p for p, (node, phase) in pods(sim).items()] and all(
        re.fullmatch(f"default/web-{h}-{SUFFIX}", k) and v == ("node1", "Running") for k, v in pods(sim).items()
    )
    status = sim.store.get("Deployment", "default", "web")["status"]
    assert (status["replicas"], status["readyReplicas"], status["updatedReplicas"]) == (2, 2, 2)


def test_a_new_template_rolls_out_a_new_replica_set():
    changed = workload("Deployment", "web", 2)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    sim = simulation(node_doc("node1"), workload("Deployment", "web", 2), timelines=[timeline({"at": 100, "apply": changed})])
    sim.run_until(200)
    old, new = sim.store.list("ReplicaSet")
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 2)
    assert new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    # RollingUpdate 25%/25% of 2 replicas: maxSurge 1, maxUnavailable 0 (the
    # rollout follows the strategy; this list once showed every pod replaced at once)
    assert [m for _, _, _, m in event_list(sim, "ScalingReplicaSet")] == [
        f"Scaled up replica set {old['metadata']['name']} to 2",
        f"Scaled up replica set {new['metadata']['name']} to 1",
        f"Scaled down replica set {old['metadata']['name']} to 1",
        f"Scaled up replica set {new['metadata']['name']} to 2",
        f"Scaled down replica set {old['metadata']['name']} to 0",
    ]
    running = [k for k, (_, phase) in pods(sim).items() if phase == "Running"]
    assert len(running) == 2 and all(k.startswith(f"default/{new['metadata']['name']}-") for k in running)


def _rollout(strategy: dict | None, replicas: int = 3) -> tuple[Simulation, str, str]:
    before = workload("Deployment", "web", replicas)
    if strategy is not None:
        before["spec"]["strategy"] = strategy
    changed = copy.deepcopy(before)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    sim = simulation(node_doc("node1"), before, timelines=[timeline({"at": 100, "apply": changed})])
    sim.run_until(300)
    old, new = (rs["metadata"]["name"] for rs in sim.store.list("ReplicaSet"))
    return sim, old, new


@pytest.mark.parametrize("strategy", [
    pytest.param(None, id="the default RollingUpdate 25%/25% replaces three replicas one pod at a time"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                 id="maxSurge 1 maxUnavailable 0 replaces one pod at a time"),
])
def test_a_rolling_update_replaces_one_pod_at_a_time(strategy):
    sim, old, new = _rollout(strategy)
    assert [(t, m) for t, _, _, m in event_list(sim, "ScalingReplicaSet")][1:] == [
        (100.0, f"Scaled up replica set {new} to 1"),
        (100.0, f"Scaled down replica set {old} to 2"),
        (100.0, f"Scaled up replica set {new} to 2"),
        (100.0, f"Scaled down replica set {old} to 1"),
        (100.0, f"Scaled up replica set {new} to 3"),
        (100.0, f"Scaled down replica set {old} to 0"),
    ]


def test_a_rolling_update_with_max_unavailable_may_go_two_at_a_time():
    sim, old, new = _rollout({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 2}}, replicas=4)
    assert [m for _, _, _, m in event_list(sim, "ScalingReplicaSet")][1:3] == [
        f"Scaled down replica set {old} to 2",
        f"Scaled up replica set {new} to 2",
    ]


def test_a_paused_deployment_is_not_rolled_out_until_resumed():
    paused = workload("Deployment", "web", 2)
    paused["spec"]["paused"] = True
    changed = copy.deepcopy(paused)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    resumed = copy.deepcopy(changed)
    del resumed["spec"]["paused"]
    sim = simulation(node_doc("node1"), workload("Deployment", "web", 2),
                     timelines=[timeline({"at": 50, "apply": paused}, {"at": 100, "apply": changed}, {"at": 200, "apply": resumed})])
    sim.run_until(150)
    assert len(sim.store.list("ReplicaSet")) == 1  # the new template waits
    assert sim.store.get("Deployment", "default", "web")["status"]["updatedReplicas"] == 0
    sim.run_until(300)
    assert sorted(rs["spec"]["replicas"] for rs in sim.store.list("ReplicaSet")) == [0, 2]


def test_an_old_replica_set_taken_back_gets_the_next_revision():
    """What `oc rollout undo` leads to: the template of revision 1 again makes its ReplicaSet
    the new one, with revision 3 (deployment controller getNewReplicaSet)."""
    changed = workload("Deployment", "web", 2)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    sim = simulation(node_doc("node1"), workload("Deployment", "web", 2),
                     timelines=[timeline({"at": 100, "apply": changed}, {"at": 200, "apply": workload("Deployment", "web", 2)})])
    sim.run_until(300)
    revisions = {rs["spec"]["template"]["spec"]["containers"][0]["image"]:
                 (rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"], rs["spec"]["replicas"])
                 for rs in sim.store.list("ReplicaSet")}
    assert revisions == {workload("Deployment", "web")["spec"]["template"]["spec"]["containers"][0]["image"]: ("3", 2),
                         "nginx:2": ("2", 0)}


def test_recreate_scales_the_old_pods_away_and_starts_the_new_ones_once_they_are_gone():
    sim, old, new = _rollout({"type": "Recreate"})
    assert [(t, m) for t, _, _, m in event_list(sim, "ScalingReplicaSet")][1:] == [
        (100.0, f"Scaled down replica set {old} to 0"),
        (130.0, f"Scaled up replica set {new} to 3"),  # after the old pods' 30 s grace period
    ]
    running = sorted(k for k, (_, phase) in pods(sim).items() if phase == "Running")
    assert len(running) == 3 and all(k.startswith(f"default/{new}-") for k in running)


# --- StatefulSet -------------------------------------------------------------------------------------------------------


def test_a_stateful_set_creates_its_pods_in_order():
    sim = simulation(node_doc("node1"), workload("StatefulSet", "db", 3, serviceName="db"))
    sim.run_until(1)
    assert [(r, m) for _, r, _, m in event_list(sim, "SuccessfulCreate", "Scheduled")] == [
        ("SuccessfulCreate", "create Pod db-0 in StatefulSet db successful"),
        ("Scheduled", "Successfully assigned default/db-0 to node1"),
        ("SuccessfulCreate", "create Pod db-1 in StatefulSet db successful"),
        ("Scheduled", "Successfully assigned default/db-1 to node1"),
        ("SuccessfulCreate", "create Pod db-2 in StatefulSet db successful"),
        ("Scheduled", "Successfully assigned default/db-2 to node1"),
    ]
    pod = sim.store.get("Pod", "default", "db-1")
    assert pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == "db-1"
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("db-1", "db")


def test_the_next_ordinal_waits_until_the_previous_pod_runs():
    stopped = node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": "0"})
    sim = simulation(stopped, workload("StatefulSet", "db", 3))
    sim.run_until(30)
    assert pods(sim) == {"default/db-0": ("node1", "Pending")}  # bound, but its kubelet does not run it


def test_a_deleted_stateful_pod_is_recreated_under_its_name_once_it_is_gone():
    sim = simulation(node_doc("node1"), workload("StatefulSet", "db", 2),
                     timelines=[timeline({"at": 100, "delete": {"kind": "Pod", "namespace": "default", "name": "db-0"}})])
    sim.run_until(129)
    assert sim.phase("default/db-0") == "Terminating"
    sim.run_until(130)  # grace period 30 s: gone at 130, recreated at once
    assert sim.phase("default/db-0") == "Running"
    assert event_list(sim, "SuccessfulCreate")[-1] == (130.0, "SuccessfulCreate", "StatefulSet/default/db",
                                                       "create Pod db-0 in StatefulSet db successful")


# --- DaemonSet -------------------------------------------------------------------------------------------------------------


def test_one_daemon_pod_per_eligible_node():
    docs = [node_doc("node1"), node_doc("node2", taints=["dedicated=db:NoSchedule"]),
            node_doc("node3", labels={"role": "infra"}), workload("DaemonSet", "agent", None)]
    sim = simulation(*docs)
    sim.run_until(1)
    assert sorted(node for node, _ in pods(sim).values()) == ["node1", "node3"]
    assert [e.source for e in sim.events if e.reason == "SuccessfulCreate"] == ["daemonset-controller"] * 2
    assert not [e for e in sim.events if e.reason == "Scheduled"]  # 1.11: the controller binds them itself
    status = sim.store.get("DaemonSet", "default", "agent")["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"], status["numberReady"]) == (2, 2, 2)


def test_a_node_selector_limits_the_daemon_set():
    ds = workload("DaemonSet", "agent", None)
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"role": "infra"}
    sim = simulation(node_doc("node1"), node_doc("node3", labels={"role": "infra"}), ds)
    sim.run_until(1)
    assert [node for node, _ in pods(sim).values()] == ["node3"]


@pytest.mark.parametrize(
    "taint, kept",
    [
        pytest.param("dedicated=db:NoSchedule", True, id="a new NoSchedule taint leaves the running daemon pod"),
        pytest.param("dedicated=db:NoExecute", False, id="an untolerated NoExecute taint removes it"),
    ],
)
def test_a_running_daemon_pod_and_new_taints(taint, kept):
    sim = simulation(node_doc("node1"), node_doc("node2"), workload("DaemonSet", "agent", None),
                     timelines=[timeline({"at": 10, "run": f"oc adm taint nodes node1 {taint}"})])
    sim.run_until(100)
    on_node1 = [phase for node, phase in pods(sim).values() if node == "node1"]
    assert on_node1 == (["Running"] if kept else ["Deleted"])


def test_daemon_set_pods_are_never_evicted_for_node_problems():
    # DaemonSets and tolerations: NoExecute tolerations for unreachable and not-ready without seconds.
    sim = simulation(node_doc("node1", annotations={"clusterui.io/heartbeat-stopped-at": "0"}), node_doc("node2"),
                     workload("DaemonSet", "agent", None), pod_doc("web", "node1"))
    sim.run_until(86400)
    # `web` is taken as stored (no admission here: no 300 s default toleration): evicted when
    # the unreachable:NoExecute taint arrives at 50; the DaemonSet pods tolerate it forever.
    assert [(e.time, e.object) for e in sim.events if e.reason == "TaintManagerEviction"] == [(50.0, "Pod/default/web")]
    agent_pods = {node: phase for key, (node, phase) in pods(sim).items() if key.startswith("default/agent-")}
    assert agent_pods == {"node1": "Pending", "node2": "Running"}  # node1's kubelet never started it, nobody evicts it
    assert len(sim.store.list("Pod")) == 3


# --- PodDisruptionBudget and eviction --------------------------------------------------------------------------------------


def pdb(name: str = "fe-pdb", **spec) -> dict:
    return {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "fe"}}, **spec}}


def running_fe(n: int, owner=("ReplicaSet", "fe")) -> list[dict]:
    return [pod_doc(f"fe-{i}", "node1", labels={"app": "fe"}, owner=owner) for i in range(n)]


@pytest.mark.parametrize(
    "spec, expected",
    [
        pytest.param({"minAvailable": 2}, (3, 2, 3, 1), id="minAvailable 2 of 3 running pods allows one disruption"),
        pytest.param({"minAvailable": 3}, (3, 3, 3, 0), id="minAvailable equal to the healthy pods allows none"),
        pytest.param({"minAvailable": "50%"}, (3, 2, 3, 1), id="minAvailable 50% of 3 replicas rounds up to 2"),
        pytest.param({"maxUnavailable": 1}, (3, 2, 3, 1), id="maxUnavailable 1 of 3 replicas wants 2 healthy"),
        pytest.param({"maxUnavailable": "100%"}, (3, 0, 3, 3), id="maxUnavailable 100% allows every pod"),
    ],
)
def test_pdb_status(spec, expected):
    store = Store([workload("ReplicaSet", "fe", 3), pdb(**spec), *running_fe(3)])
    store.apply_all(workloads.reconcile(store, 0).actions)
    status = store.get("PodDisruptionBudget", "default", "fe-pdb")["status"]
    assert (status["currentHealthy"], status["desiredHealthy"], status["expectedPods"], status["disruptionsAllowed"]) == expected


def test_a_percentage_pdb_over_pods_without_controller_fails_safe():
    store = Store([pdb(minAvailable="50%"), *running_fe(3, owner=None)])
    store.apply_all(workloads.reconcile(store, 0).actions)
    assert store.get("PodDisruptionBudget", "default", "fe-pdb")["status"]["disruptionsAllowed"] == 0


def test_evictions_stop_when_the_budget_is_spent():
    store = Store([workload("ReplicaSet", "fe", 3), pdb(minAvailable=2), *running_fe(3)])
    store.apply_all(workloads.reconcile(store, 0).actions)
    first = eviction.evict(store, "default", "fe-0", 5)
    assert (first.allowed, first.code) == (True, 201)
    store.apply_all(first.actions)
    assert store.get("Pod", "default", "fe-0")["metadata"]["deletionTimestamp"] == 35
    budget = store.get("PodDisruptionBudget", "default", "fe-pdb")["status"]
    assert (budget["disruptionsAllowed"], budget["disruptedPods"]) == (0, {"fe-0": 5})
    second = eviction.evict(store, "default", "fe-1", 6)
    assert (second.allowed, second.code, second.message, second.actions) == (
        False, 429, "Cannot evict pod as it would violate the pod's disruption budget.", ()
    )
    assert second.causes == ("The disruption budget fe-pdb needs 2 healthy pods and has 3 currently",)
    # the disruption controller recounts: fe-0 terminates, 2 healthy, 0 allowed
    store.apply_all(workloads.reconcile(store, 6).actions)
    budget = store.get("PodDisruptionBudget", "default", "fe-pdb")["status"]
    assert (budget["currentHealthy"], budget["disruptionsAllowed"], budget.get("disruptedPods")) == (2, 0, None)


@pytest.mark.parametrize(
    "docs, code, message",
    [
        pytest.param([], 201, "", id="a pod without a budget is evicted"),
        pytest.param([pdb("a", minAvailable=1), pdb("b", minAvailable=1)], 500,
                     "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                     id="two budgets for one pod are refused"),
    ],
)
def test_eviction_api_answers(docs, code, message):
    store = Store([*docs, *running_fe(1)])
    result = eviction.evict(store, "default", "fe-0", 0)
    assert (result.code, result.message) == (code, message)


def test_evicting_a_missing_pod():
    assert eviction.evict(Store(), "default", "nope", 0).message == 'pods "nope" not found'


# --- idempotency and cascading deletion --------------------------------------------------------------------------------------


def test_running_the_workload_controllers_twice_gives_nothing_new():
    sim = simulation(node_doc("node1"), node_doc("node2"), workload("Deployment", "web", 3), workload("StatefulSet", "db", 2),
                     workload("DaemonSet", "agent", None), workload("ReplicationController", "rc", 2), pdb(minAvailable=1))
    sim.run_until(5)
    assert workloads.reconcile(sim.store, 5).actions == []


def test_deleting_a_replica_set_deletes_its_pods():
    sim = simulation(node_doc("node1"), workload("ReplicaSet", "fe", 2),
                     timelines=[timeline({"at": 50, "delete": {"kind": "ReplicaSet", "namespace": "default", "name": "fe"}})])
    sim.run_until(79)
    assert sorted(phase for _, phase in pods(sim).values()) == ["Terminating", "Terminating"]
    sim.run_until(80)
    assert sim.store.list("Pod") == [] and sim.store.list("ReplicaSet") == []


def test_simulate_lists_controller_pods_after_the_input_pods():
    result = simulate([node_doc("node1"), pod_doc("first"), workload("ReplicaSet", "fe", 1), pod_doc("second")], until=1)
    assert [p["pod"] for p in result["pods"]][:2] == ["default/first", "default/second"]
    assert re.fullmatch(f"default/fe-{SUFFIX}", result["pods"][2]["pod"])


def test_a_rollout_that_deletes_pods_beside_the_ones_it_places_keeps_the_scheduler_in_step():
    """The demo's frontend ReplicaSet with a template its Deployment no longer has (a container
    renamed): the rollout places new pods on nodes whose old pods are deleted in the same pass.
    The scheduler's kept NodeInfos once sorted a new pod past a pod already dropped from the
    store and raised KeyError (found by fuzzing accepted documents)."""
    import yaml
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "scheduling" / "demo" / "demo-cluster.yaml").read_text()
    raw = [d for d in yaml.safe_load_all(text) if d]
    [rs] = [d for d in raw if d["kind"] == "ReplicaSet"]
    rs["spec"]["template"]["spec"]["containers"][0]["name"] = "x"
    # keys sorted (as a YAML dump writes them): the template hash, so the new pods' names
    # and their store order, are those of the file that failed
    docs = [apply_defaults(d) for d in yaml.safe_load_all(yaml.safe_dump_all(raw))]
    out = simulate(docs, until=60)
    phases = {p["pod"]: p["phase"] for p in out["pods"] if p["pod"].startswith("shop/frontend-")}
    old = rs["metadata"]["name"]
    assert sorted(v for k, v in phases.items() if k.startswith(f"shop/{old}-")) == ["Deleted"] * 3
    assert sorted(v for k, v in phases.items() if not k.startswith(f"shop/{old}-")) == ["Running"] * 3
