"""The Timeline document (engine.timeline) and the event-driven clock (engine.simulation):
validation messages, step order, apply/delete/run, and jumps from one due time to the next."""

from __future__ import annotations

import time

import pytest

from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulate import SimulationError, simulate
from scheduling.engine.simulation import Simulation
from scheduling.engine.timeline import TimelineError, load_timeline
from tests.engine.builders import node_doc, pod_doc

# engine.validation reports node taints at `metadata.taints` (upstream's path).
BAD_EFFECT = ('metadata.taints[0].effect: Unsupported value: "NoExcute": supported values: "NoSchedule", '
              '"PreferNoSchedule", "NoExecute"')


def timeline(*steps, name: str = "t", api_version: str = "clusterui.io/v1alpha1") -> dict:
    return {"apiVersion": api_version, "kind": "Timeline", "metadata": {"name": name}, "steps": list(steps)}


# --- validation -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc, message",
    [
        pytest.param(timeline(api_version="v1"),
                     'Timeline "t" is invalid: apiVersion: Unsupported value: "v1": supported values: "clusterui.io/v1alpha1"',
                     id="the wrong apiVersion"),
        pytest.param({**timeline(), "metadata": {}}, 'Timeline "" is invalid: metadata.name: Required value: name or generateName is required',
                     id="no name"),
        pytest.param({**timeline(), "steps": {"at": 0}}, 'Timeline "t" is invalid: steps: Invalid value: must be a list of steps',
                     id="steps that are not a list"),
        pytest.param(timeline({"run": "oc adm cordon n1"}), 'Timeline "t" is invalid: steps[0].at: Required value', id="a step without at"),
        pytest.param(timeline({"at": -1, "run": "oc adm cordon n1"}),
                     'Timeline "t" is invalid: steps[0].at: Invalid value: -1: must be greater than or equal to 0', id="a negative time"),
        pytest.param(timeline({"at": "soon", "run": "oc adm cordon n1"}),
                     'Timeline "t" is invalid: steps[0].at: Invalid value: "soon": must be a number of seconds', id="a time that is not a number"),
        pytest.param(timeline({"at": 0}), 'Timeline "t" is invalid: steps[0]: Required value: one of apply, delete or run',
                     id="a step that does nothing"),
        pytest.param(timeline({"at": 0, "run": "oc adm cordon n1", "delete": {"kind": "Pod", "name": "p"}}),
                     'Timeline "t" is invalid: steps[0]: Invalid value: delete, run: only one of apply, delete or run may be given',
                     id="a step that does two things"),
        pytest.param(timeline({"at": 0, "apply": {"metadata": {"name": "x"}}}),
                     'Timeline "t" is invalid: steps[0].apply.kind: Required value', id="an object without kind"),
        pytest.param(timeline({"at": 0, "apply": {"kind": "Secret", "metadata": {"name": "x"}}}),
                     'Timeline "t" is invalid: steps[0].apply.kind: Unsupported value: "Secret": supported values: "ClusterOperator", '
                     '"ClusterVersion", "ConfigMap", "CronJob", "DaemonSet", "Deployment", "Job", "KubeDescheduler", "Machine", "MachineConfig", '
                     '"MachineConfigPool", "MachineHealthCheck", "MachineSet", "Namespace", "Node", "PersistentVolume", "PersistentVolumeClaim", "Pod", '
                     '"PodDisruptionBudget", "PriorityClass", "ReplicaSet", "ReplicationController", "Service", "StatefulSet", '
                     '"StorageClass"',
                     id="a kind the simulator does not know"),
        pytest.param(timeline({"at": 0, "apply": {"apiVersion": "apps/v1", "kind": "Node", "metadata": {"name": "n1"}}}),
                     'Timeline "t" is invalid: steps[0].apply.apiVersion: Unsupported value: "apps/v1": supported values: "v1"',
                     id="an object in the wrong apiVersion"),
        pytest.param(timeline({"at": 0, "apply": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                                  "spec": {"taints": [{"key": "k", "effect": "NoExcute"}]}}}),
                     f'Timeline "t" is invalid: steps[0].apply: Node "n1" is invalid: {BAD_EFFECT}',
                     id="an invalid object gets the API server's message"),
        pytest.param(timeline({"at": 0, "apply": {"apiVersion": "machine.openshift.io/v1beta1", "kind": "MachineSet",
                                                  "metadata": {"name": "ms", "namespace": "openshift-machine-api"},
                                                  "spec": {"selector": {"matchLabels": "oops"}}}}),
                     'Timeline "t" is invalid: steps[0].apply: MachineSet.machine.openshift.io "ms" is invalid: spec.selector.matchLabels: '
                     'Invalid value: "string": spec.selector.matchLabels in body must be of type object: "string"',
                     id="a custom resource is checked against its CRD's types as an import checks it"),
        pytest.param(timeline({"at": 0, "delete": {"kind": "Pod"}}), 'Timeline "t" is invalid: steps[0].delete.name: Required value',
                     id="a delete without a name"),
        pytest.param(timeline({"at": 0, "run": " "}), 'Timeline "t" is invalid: steps[0].run: Invalid value: " ": must be an oc command',
                     id="an empty command"),
        pytest.param(timeline({"at": 0, "run": "oc adm cordon n1", "description": 3}),
                     'Timeline "t" is invalid: steps[0].description: Invalid value: 3: must be a string',
                     id="a description that is not text"),
        pytest.param(timeline({"at": 0}, {"run": "x"}),
                     'Timeline "t" is invalid: [steps[0]: Required value: one of apply, delete or run, steps[1].at: Required value]',
                     id="several problems are listed together"),
    ],
)
def test_invalid_timelines(doc, message):
    with pytest.raises(TimelineError) as exc:
        load_timeline(doc)
    assert str(exc.value) == message


def test_simulate_refuses_an_invalid_timeline_with_its_message():
    with pytest.raises(SimulationError, match=r'^Timeline "t" is invalid: steps\[0\].at: Required value$'):
        simulate([node_doc("n1"), timeline({"run": "oc adm cordon n1"})], until=10)


def test_steps_are_sorted_by_time_then_written_order_and_objects_defaulted():
    t = load_timeline(timeline(
        {"at": 30, "run": "oc adm cordon n1"},
        {"at": 10, "delete": {"kind": "Node", "name": "n2"}},
        {"at": 10, "apply": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
    ))
    assert [(s.at, s.action) for s in t.steps] == [(10, "delete"), (10, "apply"), (30, "run")]
    pod = t.steps[1].object
    assert (pod["metadata"]["namespace"], pod["spec"]["schedulerName"], pod["status"]["phase"]) == ("default", "default-scheduler", "Pending")
    assert (t.steps[0].namespace, t.steps[1].has_status) == ("", False)


# --- playing steps --------------------------------------------------------------------------------------------------


def test_steps_keep_their_optional_description():
    loaded = load_timeline(timeline({"at": 5, "run": "oc adm cordon n1", "description": " node1 is cordoned "},
                                    {"at": 9, "run": "oc adm uncordon n1"}))
    assert [(s.at, s.description) for s in loaded.steps] == [(5.0, "node1 is cordoned"), (9.0, "")]


def test_apply_creates_then_replaces_keeping_the_status_when_none_is_given():
    labelled = node_doc("n2", labels={"zone": "b"})
    del labelled["status"]
    docs = [node_doc("n1"), timeline({"at": 5, "apply": node_doc("n2")}, {"at": 7, "apply": labelled}, {"at": 9, "apply": pod_doc("web")})]
    sim = Simulation(docs[:1], schedulers=[(DEFAULT_SCHEDULER, default_policy())], timelines=[load_timeline(docs[1])])
    sim.run_until(10)
    n2 = sim.store.get("Node", "", "n2")
    assert n2["metadata"]["labels"]["zone"] == "b"
    assert n2["status"]["capacity"] == {"cpu": "4", "memory": "8Gi", "pods": "110"}  # kept: the step gave no status
    assert sim.store.get("Pod", "default", "web")["spec"]["nodeName"] in ("n1", "n2")


def test_delete_is_graceful_for_pods_and_reports_missing_objects():
    docs = [node_doc("n1"), pod_doc("web", "n1", grace=10),
            timeline({"at": 5, "delete": {"kind": "Pod", "namespace": "default", "name": "web"}},
                     {"at": 6, "delete": {"kind": "Pod", "name": "ghost"}})]
    result = simulate(docs, until=14)
    assert result["pods"][0]["phase"] == "Terminating"
    assert [(e["time"], e["type"], e["reason"], e["object"], e["message"]) for e in result["events"]] == [
        (5.0, "Normal", "Killing", "Pod/default/web", "Killing container with id docker://c:Need to kill Pod"),
        (6.0, "Warning", "FailedDelete", "Timeline/t", 'Error from server (NotFound): pods "ghost" not found'),
    ]
    assert simulate(docs, until=15)["pods"][0]["phase"] == "Deleted"  # 5 + grace period 10


def test_run_records_the_command_and_its_output():
    docs = [node_doc("n1"), timeline({"at": 1, "run": "oc adm taint nodes n1 k=v:NoSchedule"},
                                     {"at": 2, "run": "oc adm taint nodes n1 k=v:NoSchedule"})]
    result = simulate(docs, until=3)
    assert [(e["time"], e["type"], e["reason"], e["object"], e["message"]) for e in result["events"]] == [
        (1.0, "Normal", "CommandOutput", "Command/0", "node/n1 tainted\n"),
        (2.0, "Warning", "CommandFailed", "Command/1", "error: node n1 already has k taint(s) "
                                                       "with same effect(s) and --overwrite is false\n"),
    ]


def test_two_timelines_interleave_by_time():
    docs = [node_doc("n1"), timeline({"at": 20, "run": "oc adm uncordon n1"}, name="b"),
            timeline({"at": 10, "run": "oc adm cordon n1"}, name="a")]
    result = simulate(docs, until=30)
    assert [(e["time"], e["object"], e["message"]) for e in result["events"]] == [
        (10.0, "Command/0", "node/n1 cordoned\n"), (20.0, "Command/0", "node/n1 uncordoned\n")]


def test_until_zero_only_schedules():
    docs = [node_doc("n1"), pod_doc("web"), timeline({"at": 0, "run": "oc adm cordon n1"})]
    result = simulate(docs)
    assert [e["reason"] for e in result["events"]] == ["Scheduled"]
    assert result["pods"][0]["phase"] == "Running"


# --- the clock jumps ----------------------------------------------------------------------------------------------------


def test_the_clock_jumps_from_one_due_time_to_the_next():
    docs = [node_doc("n1", annotations={"clusterui.io/heartbeat-stopped-at": "0"}), node_doc("n2"),
            pod_doc("web", "n1", tolerations=[{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                               "effect": "NoExecute", "tolerationSeconds": 300}])]
    sim = Simulation(docs, schedulers=[(DEFAULT_SCHEDULER, default_policy())])
    sim.schedule()
    sim.run_until(86400)
    # 0: start; 45: Unknown; 50: tainted; 350: evicted. Nothing is due after that: the
    # pod stays Terminating on the unreachable node.
    assert sim.instants == [0, 45, 50, 350]


def test_a_day_of_simulated_time_is_quick():
    nodes = [node_doc(f"n{i}") for i in range(20)]
    pods = [pod_doc(f"p{i}", cpu="100m") for i in range(200)]
    steps = [{"at": 3600 * h, "run": f"oc adm taint nodes n{h % 20} k{h}=v:NoExecute"} for h in range(1, 24)]
    started = time.perf_counter()
    result = simulate(nodes + pods + [timeline(*steps)], until=86400, explain="none")
    assert time.perf_counter() - started < 30
    assert len(result["pods"]) == 200
    gone = sum(1 for p in result["pods"] if p["phase"] in ("Terminating", "Deleted"))
    assert gone > 0
    assert sum(1 for e in result["events"] if e["reason"] == "TaintManagerEviction") == gone
