"""The OpenShift 4 scheduler end to end through `simulate`: which scheduler a cluster runs,
today's FailedScheduling messages, plugin verdicts and 0-100 scores, preemption, the
OpenShift profiles, and the 3.11 scheduler telling a pod which of its fields it ignores."""

from __future__ import annotations

import pytest

from scheduling.engine.simulate import SimulationError, simulate

CV_418 = {
    "apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
    "spec": {"channel": "stable-4.18", "clusterID": "c0ffee00-0000-4000-8000-000000000000"},
    "status": {"desired": {"version": "4.18.10"},
               "history": [{"state": "Completed", "version": "4.18.10", "image": "quay.io/openshift-release-dev/ocp-release:4.18.10-x86_64"}]},
}
KSC = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def node(name, zone="a", cpu="4", memory="8Gi", taints=(), labels=None):
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                              "topology.kubernetes.io/zone": zone, **(labels or {})}},
        "spec": {"taints": list(taints)},
        "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"},
                   "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def pod(name, cpu="100m", memory="128Mi", labels=None, node_name=None, priority=None, **spec):
    doc = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": dict(labels or {})},
        "spec": {"containers": [{"name": "c", "image": "registry.example.com/app:1",
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}], **spec},
    }
    if node_name:
        doc["spec"]["nodeName"] = node_name
    if priority is not None:
        doc["spec"]["priority"] = priority
    return doc


def by_pod(out):
    return {p["pod"]: p for p in out["pods"]}


SPREAD = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"app": "web"}}}]


def spread_cluster():
    nodes = [node(f"n-{z}{i}", zone=z) for z in "abc" for i in (1, 2)]
    pods = [pod(f"web-{i}", labels={"app": "web"}, topologySpreadConstraints=SPREAD) for i in range(6)]
    return nodes, pods


def zones_of(out, nodes):
    zone = {n["metadata"]["name"]: n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes}
    counts = {}
    for p in out["pods"]:
        if p["node"]:
            counts[zone[p["node"]]] = counts.get(zone[p["node"]], 0) + 1
    return counts


@pytest.mark.parametrize("selector", [CV_418, KSC], ids=["ClusterVersion 4.18", "KubeSchedulerConfiguration"])
def test_topology_spread_places_six_replicas_two_per_zone_on_an_openshift4_cluster(selector):
    nodes, pods = spread_cluster()
    out = simulate([selector, *nodes, *pods])
    assert zones_of(out, nodes) == {"a": 2, "b": 2, "c": 2}
    first = by_pod(out)["default/web-0"]
    # DoNotSchedule constraints filter; only ScheduleAnyway ones score (PreScore skips the plugin)
    assert set(first["scores"][first["node"]]) >= {"NodeResourcesFit", "TaintToleration", "total"}
    assert "PodTopologySpread" not in first["scores"][first["node"]]
    assert all(0 <= v <= 100 for k, v in first["scores"][first["node"]].items() if k != "total")
    last = by_pod(out)["default/web-5"]
    crowded = [n for n, f in last["filters"].items() if not f["fits"]]
    assert crowded and all(last["filters"][n]["plugin"] == "PodTopologySpread" for n in crowded)
    assert last["filters"][crowded[0]]["reasons"] == ["node(s) didn't match pod topology spread constraints"]


def test_the_311_scheduler_ignores_topology_spread_and_says_so():
    nodes, pods = spread_cluster()
    out = simulate([*nodes, *pods])
    warnings = [e for e in out["events"] if e["reason"] == "FieldIgnored"]
    assert {e["object"] for e in warnings} == {f"Pod/default/web-{i}" for i in range(6)}
    assert "spec.topologySpreadConstraints ignored" in warnings[0]["message"]
    assert all(e["type"] == "Warning" for e in warnings)


def test_no_warning_under_the_framework():
    nodes, pods = spread_cluster()
    out = simulate([CV_418, *nodes, *pods])
    assert not [e for e in out["events"] if e["reason"] == "FieldIgnored"]


def test_failed_scheduling_message_in_todays_words_with_the_preemption_part():
    nodes = [node("small", cpu="2"), node("tainted1", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]),
             node("tainted2", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}])]
    # the pod on "small" has the same priority: nothing to preempt there
    out = simulate([CV_418, *nodes, pod("busy", cpu="1500m", node_name="small"), pod("big", cpu="1")])
    big = by_pod(out)["default/big"]
    assert big["node"] is None
    assert big["message"] == ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
                              "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
                              "2 Preemption is not helpful for scheduling.")
    assert big["filters"]["small"] == {"fits": False, "reasons": ["Insufficient cpu"], "plugin": "NodeResourcesFit",
                                       "code": "Unschedulable"}
    assert big["filters"]["tainted1"]["plugin"] == "TaintToleration"
    assert big["filters"]["tainted1"]["code"] == "UnschedulableAndUnresolvable"


def test_a_request_beyond_the_nodes_allocatable_is_unresolvable():
    out = simulate([CV_418, node("small", cpu="1"), pod("low", cpu="500m", node_name="small", priority=0),
                    pod("big", cpu="2", priority=100)])
    big = by_pod(out)["default/big"]
    assert big["filters"]["small"]["code"] == "UnschedulableAndUnresolvable"
    assert big["message"] == ("0/1 nodes are available: 1 Insufficient cpu. "
                              "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    failed = [e for e in out["events"] if e["reason"] == "FailedScheduling"]
    assert failed and failed[0]["message"] == big["message"]


def test_preemption_policy_never_is_not_eligible():
    nodes = [node("only", cpu="1")]
    out = simulate([CV_418, *nodes, pod("low", cpu="800m", node_name="only", priority=0),
                    pod("high", cpu="800m", priority=1000, preemptionPolicy="Never")])
    high = by_pod(out)["default/high"]
    assert high["message"] == ("0/1 nodes are available: 1 Insufficient cpu. "
                               "preemption: not eligible due to preemptionPolicy=Never.")
    assert by_pod(out)["default/low"]["phase"] == "Running"


def test_preemption_evicts_the_lower_priority_pod_and_records_todays_event():
    nodes = [node("only", cpu="1")]
    out = simulate([CV_418, *nodes, pod("low", cpu="800m", node_name="only", priority=0),
                    pod("high", cpu="800m", priority=1000)])
    high = by_pod(out)["default/high"]
    assert high["nominatedNode"] == "only"
    assert high["preemption"] == {"victims": {"only": ["default/low"]}, "nominatedNode": "only"}
    # FailedScheduling without a preemption part when preemption found a node
    assert high["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    preempted = [e for e in out["events"] if e["reason"] == "Preempted"]
    assert preempted == [{"time": 0.0, "type": "Normal", "reason": "Preempted", "object": "Pod/default/low",
                          "message": "Preempted by pod uid-high on node only"}]


def test_preempted_pod_goes_and_the_preemptor_lands_when_the_clock_runs():
    nodes = [node("only", cpu="1")]
    out = simulate([CV_418, *nodes, pod("low", cpu="800m", node_name="only", priority=0, terminationGracePeriodSeconds=5),
                    pod("high", cpu="800m", priority=1000)], until=60)
    assert by_pod(out)["default/high"]["node"] == "only"


def test_high_node_utilization_packs_pods_where_low_node_utilization_spreads_them():
    nodes = [node("n1"), node("n2"), node("n3")]
    pods = [pod(f"p{i}", cpu="500m", memory="512Mi") for i in range(3)]
    scheduler = {"apiVersion": "config.openshift.io/v1", "kind": "Scheduler", "metadata": {"name": "cluster"},
                 "spec": {"profile": "HighNodeUtilization"}}
    packed = simulate([scheduler, *nodes, *pods], seed=3)
    assert len({p["node"] for p in packed["pods"]}) == 1
    spread = simulate([{**scheduler, "spec": {"profile": "LowNodeUtilization"}}, *nodes, *pods], seed=3)
    assert len({p["node"] for p in spread["pods"]}) == 3
    last = by_pod(packed)["default/p2"]
    assert "NodeResourcesBalancedAllocation" not in last["scores"][last["node"]]


def test_no_scoring_profile_scores_nothing():
    nodes = [node("n1"), node("n2")]
    scheduler = {"apiVersion": "config.openshift.io/v1", "kind": "Scheduler", "metadata": {"name": "cluster"},
                 "spec": {"profile": "NoScoring"}}
    out = simulate([scheduler, *nodes, pod("p")])
    p = by_pod(out)["default/p"]
    assert p["node"] in ("n1", "n2")
    assert all(set(s) == {"total"} for s in p["scores"].values())


def test_scheduling_gates_keep_a_pod_out_of_the_queue_without_an_event():
    out = simulate([CV_418, node("n1"), pod("gated", schedulingGates=[{"name": "example.com/wait"}])])
    gated = by_pod(out)["default/gated"]
    assert gated["node"] is None
    assert not [e for e in out["events"] if e["object"] == "Pod/default/gated"]


def test_node_unschedulable_and_node_name_reasons():
    cordoned = node("cordoned")
    cordoned["spec"]["unschedulable"] = True
    out = simulate([CV_418, cordoned, pod("p")])
    assert by_pod(out)["default/p"]["message"] == (
        "0/1 nodes are available: 1 node(s) were unschedulable. "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def test_a_policy_on_an_openshift4_cluster_is_refused():
    policy = {"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "PodFitsResources"}], "priorities": []}
    with pytest.raises(SimulationError, match="Policy API was removed in OpenShift 4.10"):
        simulate([CV_418, node("n1"), pod("p")], policy=policy)


@pytest.mark.parametrize("config, message", [
    ({"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]}, 'profiles[1].schedulerName: Duplicate value: "a"'),
    ({"percentageOfNodesToScore": 101}, "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
    ({"profiles": [{"schedulerName": "default-scheduler", "plugins": {"filter": {"enabled": [{"name": "Nope"}]}}}]},
     'FilterPlugin "Nope" does not exist'),
    ({"profiles": [{"schedulerName": "default-scheduler", "plugins": {"score": {"enabled": [{"name": "NodePorts"}]}}}]},
     'plugin "NodePorts" does not extend ScorePlugin plugin'),
])
def test_invalid_configurations_are_refused_with_the_field(config, message):
    with pytest.raises(SimulationError) as err:
        simulate([{**KSC, **config}, node("n1"), pod("p")])
    assert message in str(err.value)


def test_a_second_profile_schedules_its_own_pods():
    config = {**KSC, "profiles": [
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "packer", "pluginConfig": [
            {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}
    out = simulate([config, node("n1"), node("n2"), pod("a", schedulerName="packer"), pod("b", schedulerName="packer")])
    assert by_pod(out)["default/a"]["node"] == by_pod(out)["default/b"]["node"]


def test_a_node_name_affinity_restricts_the_nodes_evaluated_as_the_pre_filter_result_says():
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
    out = simulate([CV_418, node("n1", cpu="1"), node("n2"), node("n3"), pod("busy", cpu="800m", node_name="n1"),
                    pod("p", cpu="500m", affinity=affinity)])
    p = by_pod(out)["default/p"]
    assert p["node"] is None
    assert p["filters"]["n2"] == {"fits": False, "reasons": ["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
                                  "plugin": None, "code": "UnschedulableAndUnresolvable"}
    assert p["message"] == ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
                            "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
                            "2 Preemption is not helpful for scheduling.")


def test_the_openshift_schedulers_default_node_selector_applies_to_pods_of_projects_without_their_own():
    scheduler = {"apiVersion": "config.openshift.io/v1", "kind": "Scheduler", "metadata": {"name": "cluster"},
                 "spec": {"profile": "LowNodeUtilization", "defaultNodeSelector": "node-role.kubernetes.io/app="}}
    out = simulate([scheduler, node("infra"), node("app", labels={"node-role.kubernetes.io/app": ""}),
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}, pod("p")])
    assert by_pod(out)["default/p"]["node"] == "app"


def test_reserve_keeps_one_persistent_volume_for_one_claim_within_a_pass():
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
          "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                   "hostPath": {"path": "/data"}},
          "status": {"phase": "Available"}}
    claims = [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": f"c{i}", "namespace": "default"},
               "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                        "resources": {"requests": {"storage": "1Gi"}}}} for i in (1, 2)]
    pods = [pod(f"p{i}", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": f"c{i}"}}]) for i in (1, 2)]
    out = simulate([CV_418, sc, pv, *claims, node("n1"), *pods])
    placed = [p for p in out["pods"] if p["node"]]
    assert len(placed) == 1
    waiting = next(p for p in out["pods"] if not p["node"])
    assert "node(s) didn't find available persistent volumes to bind" in waiting["message"]
