"""The event loop (engine.simulation): the literal CONTROLLERS list, running only some of
them, `--until 0`, when a controller runs (a watched kind changed, or it is due), the
controllers' own state (the taint manager's timer survives a replaced pod and a resumed
run), and the same run whatever the steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduling.engine.controllers.scheduling import is_pod_updated

from scheduling.store import kube
from scheduling.engine import actions as A
from scheduling.engine import scenarios, simulation
from scheduling.engine.controller import Context
from scheduling.engine.controllers import kubelet, node_lifecycle, taint_manager
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulate import SimulationError, admit, simulate
from scheduling.engine.simulation import ControllerLoadError, Simulation, load_controller
from scheduling.engine.timeline import load_timeline
from tests.engine.builders import node_doc, pod_doc, toleration

K1 = "key1=value1:NoExecute"


def timeline(*steps) -> dict:
    return {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"}, "steps": list(steps)}


def sim_of(*docs, **kwargs) -> Simulation:
    timelines = [load_timeline(d) for d in docs if d["kind"] == "Timeline"]
    cluster = admit([d for d in docs if d["kind"] != "Timeline"])
    return Simulation(cluster, schedulers=[("default-scheduler", default_policy())], timelines=timelines, **kwargs)


def events(result_or_sim) -> list[tuple]:
    evs = result_or_sim["events"] if isinstance(result_or_sim, dict) else [e.to_doc() for e in result_or_sim.events]
    return [(e["time"], e["reason"], e["object"], e["message"]) for e in evs]


# --- the list ----------------------------------------------------------------------------------------------


def test_the_controllers_run_in_the_order_of_the_literal_list():
    assert simulation.CONTROLLERS == [
        "scheduling.engine.controllers.scheduling:SchedulerController",
        "scheduling.engine.controllers.node_lifecycle:NodeLifecycleController",
        "scheduling.engine.controllers.taint_manager:TaintManager",
        "scheduling.engine.controllers.kubelet:Kubelet",
        "scheduling.engine.controllers.workloads:WorkloadControllers",
        "scheduling.engine.controllers.job:JobController",
        "scheduling.engine.controllers.cronjob:CronJobController",
        "scheduling.engine.oc.drain:DrainController",
        "scheduling.engine.controllers.descheduler:Descheduler",
        "scheduling.engine.openshift.cvo:ClusterVersionOperator",
        "scheduling.engine.openshift.mco:MCONodeController",
        "scheduling.engine.openshift.mco:MCODaemon",
        "scheduling.engine.openshift.machinesets:MachineSetController",
        "scheduling.engine.openshift.machinesets:ControlPlaneMachineSetController",
        "scheduling.engine.openshift.machines:MachineController",
        "scheduling.engine.openshift.machines:DrainController",
        "scheduling.engine.openshift.machinehealthcheck:MachineHealthCheckController",
        "scheduling.engine.openshift.etcd_quorum:EtcdQuorumGuard",
        "scheduling.engine.openshift.hook_owners:HookOwners",
        "scheduling.engine.openshift.hook_owners:ClusterAutoscaler",
    ]
    assert simulation.controller_names() == [
        "scheduler", "node-lifecycle", "taint-manager", "kubelet", "workloads", "job-controller", "cronjob-controller", "drain",
        "descheduler", "cvo",
        "mco-node-controller", "mco-daemon",
        "machineset-controller", "control-plane-machine-set-controller", "machine-controller", "machine-drain-controller",
        "machinehealthcheck-controller", "etcd-quorum-guard", "machine-hook-owners", "cluster-autoscaler",
    ]


@pytest.mark.parametrize(
    "path, message",
    [
        pytest.param("scheduling.engine.controllers.nope:Nope",
                     "controller 'scheduling.engine.controllers.nope:Nope' cannot be loaded: "
                     "No module named 'scheduling.engine.controllers.nope'",
                     id="a module that does not exist"),
        pytest.param("scheduling.engine.controllers.kubelet:Nope",
                     "controller 'scheduling.engine.controllers.kubelet:Nope' cannot be loaded: "
                     "scheduling.engine.controllers.kubelet has no controller class 'Nope'",
                     id="a class the module does not have"),
    ],
)
def test_a_controller_that_cannot_be_loaded_is_an_error_not_skipped(path, message, monkeypatch):
    with pytest.raises(ControllerLoadError) as exc:
        load_controller(path)
    assert str(exc.value) == message
    monkeypatch.setattr(simulation, "CONTROLLERS", simulation.CONTROLLERS + [path])
    with pytest.raises(ControllerLoadError):
        sim_of(node_doc("node1"))


def test_an_unknown_controller_name_lists_the_valid_ones():
    with pytest.raises(SimulationError) as exc:
        simulate([node_doc("node1")], controllers=["scheduler", "no-such-controller"])
    assert str(exc.value) == (
        '--controllers: unknown controller(s) "no-such-controller": valid names are '
        "scheduler, node-lifecycle, taint-manager, kubelet, workloads, job-controller, cronjob-controller, drain, descheduler, cvo, mco-node-controller, mco-daemon, machineset-controller, control-plane-machine-set-controller, machine-controller, machine-drain-controller, machinehealthcheck-controller, etcd-quorum-guard, machine-hook-owners, cluster-autoscaler"
    )


@pytest.mark.parametrize(
    "controllers, expected",
    [
        pytest.param(None, [(0.0, "Scheduled", "Pod/default/new", "Successfully assigned default/new to node2"),
                            (0.0, "TaintManagerEviction", "Pod/default/old", "Marking for deletion Pod default/old"),
                            (0.0, "Killing", "Pod/default/old", "Killing container with id docker://c:Need to kill Pod")],
                     id="all of them"),
        pytest.param(["scheduler"], [(0.0, "Scheduled", "Pod/default/new", "Successfully assigned default/new to node2")],
                     id="the scheduler alone places the pod and evicts nothing"),
        pytest.param(["taint-manager"], [(0.0, "TaintManagerEviction", "Pod/default/old", "Marking for deletion Pod default/old")],
                     id="the taint manager alone evicts and nobody stops the container"),
        pytest.param(["kubelet", "taint-manager"],
                     [(0.0, "TaintManagerEviction", "Pod/default/old", "Marking for deletion Pod default/old"),
                      (0.0, "Killing", "Pod/default/old", "Killing container with id docker://c:Need to kill Pod")],
                     id="the named ones run in CONTROLLERS order, not the order given"),
    ],
)
def test_only_the_named_controllers_run(controllers, expected):
    docs = [node_doc("node1", taints=[K1]), node_doc("node2"), pod_doc("old", "node1"), pod_doc("new")]
    assert events(simulate(docs, controllers=controllers, until=0)) == expected


def test_until_0_is_every_first_sync_done():
    """The workload controllers create the pods at t=0 and the scheduler, which ran before
    them, runs again at the same instant and places them (no simulated time passes)."""
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    result = simulate([node_doc("node1"), rs])
    assert [(e[0], e[1], e[2].rsplit("-", 1)[0]) for e in events(result)] == [
        (0.0, "SuccessfulCreate", "ReplicaSet/default/web")] * 2 + [(0.0, "Scheduled", "Pod/default/web")] * 2
    assert [(p["node"], p["phase"]) for p in result["pods"]] == [("node1", "Running")] * 2
    longer = simulate([node_doc("node1"), rs], until=1)
    assert events(longer)[:4] == events(result)  # --until 0 is the first part of every longer run
    assert [(p["node"], p["phase"]) for p in longer["pods"]] == [("node1", "Running")] * 2


# --- when a controller runs ---------------------------------------------------------------------------------


class Recorder:
    """A controller for the tests: watches Nodes, asks to run every 100 s."""

    name = "recorder"
    watches = frozenset({"Node"})
    runs: list[tuple[float, object]] = []

    def reconcile(self, ctx: Context) -> A.Result:
        Recorder.runs.append((ctx.now, None if ctx.changed is None else sorted(ctx.changed)))
        count = int(ctx.state.get("runs") or 0) + 1
        return A.Result([A.SetControllerState(self.name, "runs", count)], next_due=ctx.now + 100)


def test_a_controller_added_to_the_list_runs_when_a_watched_kind_changes_or_it_is_due(monkeypatch):
    monkeypatch.setattr(simulation, "CONTROLLERS", simulation.CONTROLLERS + ["tests.engine.test_simulation:Recorder"])
    Recorder.runs = []
    sim = sim_of(node_doc("node1"), pod_doc("p"),
                 timeline({"at": 30, "run": "oc adm cordon node1"},
                          {"at": 40, "delete": {"kind": "Pod", "name": "p"}}))  # a Pod: not watched
    sim.run_until(250)
    assert Recorder.runs == [
        (0.0, None),  # the first run: everything is new to it
        (30.0, [("Node", "", "node1")]),  # cordoned (and then tainted unschedulable by the node lifecycle controller)
        (130.0, []),
        (230.0, []),
    ]
    assert sim.store.state_of("recorder") == {"runs": 4}


# --- controller state ---------------------------------------------------------------------------------------


def test_lengthening_the_toleration_of_a_pod_does_not_postpone_its_eviction():
    """kubernetes v1.11 TestUpdatePod "lengthening toleration shouldn't work": the timer
    set at 0 for 1 s fires at 1 s although the pod was replaced at 0.5 s with a toleration
    of 100 s (the timer is the taint manager's, keyed by the pod's namespace/name)."""
    longer = pod_doc("web", "node1", [toleration("key1", seconds=100)])
    sim = sim_of(node_doc("node1", taints=[K1]), pod_doc("web", "node1", [toleration("key1", seconds=1)]),
                 timeline({"at": 0.5, "apply": longer}))
    sim.run_until(0.5)
    assert taint_manager.eviction_time(sim.store, "default", "web") == 1.0
    assert sim.store.get("Pod", "default", "web")["spec"]["tolerations"][0]["tolerationSeconds"] == 100
    sim.run_until(200)
    assert [e for e in events(sim) if e[1] == "TaintManagerEviction"] == [
        (1.0, "TaintManagerEviction", "Pod/default/web", "Marking for deletion Pod default/web")
    ]
    assert sim.store.state_of(taint_manager.NAME) == {}  # fired: the timer is gone


def test_replacing_a_pod_keeps_its_timer_and_the_pod_carries_none():
    sim = sim_of(node_doc("node1", taints=[K1]), pod_doc("web", "node1", [toleration("key1", seconds=60)]))
    sim.run_until(10)
    sim.apply([A.ReplaceObject(pod_doc("web", "node1", [toleration("key1", seconds=3600)]))])
    sim.run_until(59)
    assert sim.store.state_of(taint_manager.NAME) == {"default/web": 60}
    assert "annotations" not in sim.store.get("Pod", "default", "web")["metadata"]
    sim.run_until(61)
    assert sim.store.get("Pod", "default", "web")["metadata"]["deletionTimestamp"] == 90  # 60 + grace 30


def resume(sim: Simulation, until: float, timelines: list[dict]) -> Simulation:
    """What scheduling.store.reconcile does between two runs: a new Simulation from the documents
    and the state the previous one left, resumed at its time (events carried over)."""
    nxt = Simulation(list(sim.store.all()), schedulers=[("default-scheduler", default_policy())],
                     timelines=[load_timeline(d) for d in timelines], steps_played=sim.steps_played,
                     controller_state=sim.store.controller_state, due=sim.due, resumed=True)
    nxt.now = sim.now
    nxt.run_until(until)
    nxt.store.events[:0] = sim.store.events
    return nxt


def test_the_timer_survives_a_resumed_run():
    steps = [timeline({"at": 0.5, "apply": pod_doc("web", "node1", [toleration("key1", seconds=100)])})]
    sim = sim_of(node_doc("node1", taints=[K1]), pod_doc("web", "node1", [toleration("key1", seconds=1)]), *steps)
    sim.run_until(0.25)
    sim = resume(sim, 0.75, steps)
    assert sim.store.state_of(taint_manager.NAME) == {"default/web": 1}
    sim = resume(sim, 200, steps)
    assert [e[0] for e in events(sim) if e[1] == "TaintManagerEviction"] == [1.0]


@pytest.mark.parametrize("steps", [[600], [60] * 10, [37] * 16 + [8]], ids=["one step", "ten steps", "uneven steps"])
def test_the_default_toleration_seconds_scenario_is_the_same_however_it_is_stepped(steps):
    docs = kube.load_documents(Path(scenarios.path("default-toleration-seconds")).read_text())
    whole = simulate(docs, until=600)
    timelines = [d for d in docs if d["kind"] == "Timeline"]
    sim = sim_of(*docs)
    sim.run_until(0)  # a stored cluster's first reconcile: t=0, settled
    t = 0.0
    for step in steps:
        t += step
        sim = resume(sim, t, timelines)
    assert events(sim) == events(whole)
    alive = {p["pod"]: p["node"] for p in whole["pods"] if p["phase"] != "Deleted"}
    assert {pod_key: (sim.store.get("Pod", *pod_key.split("/")) or {}).get("spec", {}).get("nodeName")
            for pod_key in alive} == alive


# --- legacy documents ---------------------------------------------------------------------------------------


def test_state_kept_in_documents_by_older_versions_is_migrated_on_read():
    old_pod = pod_doc("web", "node1", [toleration("key1", seconds=3600)])
    old_pod["metadata"]["annotations"] = {"clusterui.io/noexecute-eviction-at": "3600", "team": "a"}
    gone = pod_doc("gone", "node1")
    gone["metadata"].update(deletionTimestamp=30, annotations={"clusterui.io/killed-at": "0"})
    zone = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Zone", "metadata": {"name": "cluster"},
            "status": {"state": "Normal", "since": 0, "nodes": 1, "notReady": 0, "evictionRate": 0.1, "tokenAvailableAt": 0}}
    sim = Simulation([node_doc("node1", taints=[K1]), old_pod, gone, zone], schedulers=[("default-scheduler", default_policy())])
    assert sim.store.get("Pod", "default", "web")["metadata"]["annotations"] == {"team": "a"}
    assert sim.store.list("Zone") == []
    assert taint_manager.eviction_time(sim.store, "default", "web") == 3600
    assert kubelet.killed_at(sim.store, "default", "gone") == 0
    assert node_lifecycle.zone_states(sim.store) == {"cluster": "Normal"}
    sim.run_until(100)
    assert "Killing" not in [e[1] for e in events(sim)]  # the kubelet had already stopped it


def test_a_controller_added_to_the_list_since_the_last_run_looks_at_everything_once(monkeypatch):
    sim = sim_of(node_doc("node1"))
    sim.run_until(10)
    monkeypatch.setattr(simulation, "CONTROLLERS", simulation.CONTROLLERS + ["tests.engine.test_simulation:Recorder"])
    Recorder.runs = []
    resume(sim, 20, [])
    assert Recorder.runs == [(10.0, None)]


AFFINITY_TO_DB = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}


def _follower() -> dict:
    doc = pod_doc("follower")
    doc["spec"]["affinity"] = AFFINITY_TO_DB
    return doc


@pytest.mark.parametrize("db_bound", [False, True], ids=["bound-by-the-scheduler", "created-bound"])
def test_a_pod_held_for_a_pod_affinity_match_is_retried_when_a_matching_pod_is_bound_later(db_bound):
    """1.11's AssignedPodAdded: the pods of the unschedulable queue whose required pod-affinity
    terms the newly bound pod matches go back to the active queue (not only within one pass)."""
    db = pod_doc("db", labels={"app": "db"}, node="node2" if db_bound else "")
    result = simulate([node_doc("node1"), node_doc("node2"), _follower(),
                       timeline({"at": 30, "apply": db})], until=60)
    placed = [(t, obj, msg) for t, reason, obj, msg in events(result) if reason == "Scheduled"]
    node = "node2" if db_bound else placed[0][2].rsplit(" ", 1)[1]
    assert placed[-1] == (30, "Pod/default/follower", f"Successfully assigned default/follower to {node}")
    # a bound pod that matches nothing wakes nobody
    other = pod_doc("other", labels={"app": "web"}, node="node2" if db_bound else "")
    result = simulate([node_doc("node1"), node_doc("node2"), _follower(),
                       timeline({"at": 30, "apply": other})], until=60)
    assert [obj for _, reason, obj, _ in events(result) if reason == "FailedScheduling"] == ["Pod/default/follower"]


def test_an_unschedulable_pod_updated_with_the_toleration_it_lacked_is_scheduled_at_once():
    """The 1.11 scheduling queue's Update: a pod in the unschedulable queue that is updated
    (isPodUpdated) goes back to the active queue; nothing else had to change."""
    taint = {"key": "k", "value": "v", "effect": "NoSchedule"}
    pod = pod_doc("p")
    fixed = {**pod, "spec": {**pod["spec"], "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]}}
    timeline = {"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                "steps": [{"at": 10, "apply": fixed}]}
    result = simulate([node_doc("node1", taints=[taint]), pod, timeline], until=20)
    assert [(e[0], e[1]) for e in events(result) if e[2] == "Pod/default/p"] == [(0.0, "FailedScheduling"), (10.0, "Scheduled")]


@pytest.mark.parametrize("old, new, updated", [
    pytest.param({"metadata": {"name": "p", "resourceVersion": "1"}, "spec": {"a": 1}, "status": {"phase": "Pending"}},
                 {"metadata": {"name": "p", "resourceVersion": "2"}, "spec": {"a": 1}, "status": {"nominatedNodeName": "n"}},
                 False, id="a new resourceVersion and status is no update"),
    pytest.param({"metadata": {"name": "p"}, "spec": {"a": 1}}, {"metadata": {"name": "p"}, "spec": {"a": 2}}, True,
                 id="a spec change is an update"),
    pytest.param({"metadata": {"name": "p"}, "spec": {}}, {"metadata": {"name": "p", "labels": {"x": "y"}}, "spec": {}}, True,
                 id="a label is an update"),
    pytest.param(None, {"metadata": {"name": "p"}}, True, id="a pod not seen before counts as updated"),
])
def test_is_pod_updated_ignores_what_the_scheduling_queue_ignores(old, new, updated):
    assert is_pod_updated(old, new) is updated
