"""The descheduler (OpenShift 3.11's Descheduler documentation, openshift/descheduler v3.11.0): its policy, its four
strategies on the documentation's examples and on our own tables, the never-evicted pods, the
flags, the edges, the controller protocol and the dry run's "where it would land"."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine.controller import Context
from scheduling.engine.controllers.descheduler import Descheduler, Flags, load_policy, run_descheduler
from scheduling.engine.controllers.descheduler_strategies.common import (
    ABORT_MESSAGE,
    DeschedulerPolicyError,
    not_evictable_reason,
)
from scheduling.engine.api.objects import Pod
from scheduling.engine.controllers.descheduler import preview
from scheduling.engine.store import Store
from tests.engine.controllers.descheduler_builders import (
    SEED_POLICY,
    anti_affinity,
    lnu,
    node,
    node_affinity,
    pdb,
    pod,
    policy,
)

DUPLICATES = policy(RemoveDuplicates={"enabled": True})


def evicted(report) -> list[str]:
    return [p.key for p in report.evicted]


def events(report, reason: str) -> list[tuple[str, str]]:
    return [(e.object, e.message) for e in report.actions if isinstance(e, A.RecordEvent) and e.reason == reason]


def run(docs, pol, **flags):
    return run_descheduler(Store(docs), 0.0, pol, Flags(**flags))


# --- the policy document ---------------------------------------------------------------------------------


def test_the_seeds_sample_policy_enables_three_strategies():
    p = load_policy(SEED_POLICY)
    assert p.enabled == ("LowNodeUtilization", "RemovePodsViolatingInterPodAntiAffinity", "RemovePodsViolatingNodeAffinity")
    t = p.strategy("LowNodeUtilization").thresholds
    assert (t.thresholds, t.target_thresholds, t.number_of_nodes) == (
        {"cpu": 20.0, "memory": 20.0, "pods": 20.0}, {"cpu": 50.0, "memory": 50.0, "pods": 50.0}, 3)


def test_a_strategy_missing_from_the_policy_is_off():
    assert load_policy(policy()).enabled == ()
    assert not load_policy(policy()).strategy("RemoveDuplicates").enabled


@pytest.mark.parametrize("doc, message", [
    pytest.param({**policy(), "apiVersion": "v1"},
                 "failed decoding descheduler's policy config: no kind \"DeschedulerPolicy\" is registered for version \"v1\"",
                 id="a policy of another apiVersion is refused"),
    pytest.param(policy(RemoveDuplicates={"enabled": "yes"}),
                 "failed decoding descheduler's policy config: strategies.RemoveDuplicates.enabled: expected bool, got string",
                 id="enabled must be a boolean"),
    pytest.param(policy(LowNodeUtilization=lnu({"cpu": "20"}, {"pods": 50})),
                 "failed decoding descheduler's policy config: strategies.LowNodeUtilization.params."
                 "nodeResourceUtilizationThresholds.thresholds.cpu: expected number, got string",
                 id="a threshold must be a number"),
])
def test_undecodable_policies_are_refused_with_the_path(doc, message):
    with pytest.raises(DeschedulerPolicyError) as exc:
        load_policy(doc)
    assert str(exc.value) == message


# --- RemoveDuplicates ------------------------------------------------------------------------------------


def test_remove_duplicates_evicts_all_but_one_pod_of_a_replica_set_on_a_node_seed_example():
    # The RemoveDuplicates example: after a node failure the pods moved; now node1 runs three of web.
    docs = [node("node1"), node("node2"), pod("web-1", "node1"), pod("web-2", "node1"), pod("web-3", "node1"), pod("web-4", "node2")]
    report = run(docs, DUPLICATES)
    assert evicted(report) == ["default/web-2", "default/web-3"]
    assert events(report, "Descheduled") == [
        ("Pod/default/web-2", "pod evicted by sigs.k8s.io/descheduler (RemoveDuplicates)"),
        ("Pod/default/web-3", "pod evicted by sigs.k8s.io/descheduler (RemoveDuplicates)"),
    ]
    assert events(report, "DeschedulerRun") == [("DeschedulerPolicy/descheduler-policy", "2 pods evicted")]
    assert [a.name for a in report.actions if isinstance(a, A.SetPodDeletion)] == ["web-2", "web-3"]


@pytest.mark.parametrize("docs, expected", [
    pytest.param([node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n2")], [],
                 id="one pod per node is not a duplicate"),
    pytest.param([node("n1"), node("n2"), pod("a-1", "n1", owner=("ReplicaSet", "a")), pod("b-1", "n1", owner=("ReplicaSet", "b"))], [],
                 id="pods of different owners are not duplicates"),
    pytest.param([node("n1"), node("n2"), pod("rc-1", "n1", owner=("ReplicationController", "rc")),
                  pod("rc-2", "n1", owner=("ReplicationController", "rc"))], ["default/rc-2"],
                 id="replication controller duplicates are evicted too"),
    pytest.param([node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1", namespace="other")], ["other/web-2"],
                 id="owners are compared by kind and name only, as upstream"),
])
def test_remove_duplicates_table(docs, expected):
    assert evicted(run(docs, DUPLICATES)) == expected


def test_max_pods_to_evict_per_node_caps_each_node_across_strategies():
    docs = [node("n1"), node("n2")] + [pod(f"web-{i}", "n1") for i in range(1, 5)]
    assert evicted(run(docs, DUPLICATES, max_pods_to_evict_per_node=2)) == ["default/web-2", "default/web-3"]


# --- LowNodeUtilization ---------------------------------------------------------------------------------


def loaded_cluster(extra_empty_nodes: int) -> list[dict]:
    docs = [node("n1")] + [node(f"e{i}") for i in range(1, extra_empty_nodes + 1)]
    docs += [pod(f"web-{i}", "n1", cpu="500m", memory="1Gi") for i in range(1, 7)]
    return docs


def test_low_node_utilization_moves_pods_from_an_overutilized_node_seed_policy():
    # n1: 6 of 10 pods, 3 of 4 cpus, 6 of 8Gi (60/75/75 %): above the 50 % targets; three
    # empty nodes are underutilized (numberOfNodes: 3). Two evictions bring cpu and memory to 50 %.
    report = run(loaded_cluster(3), SEED_POLICY)
    assert evicted(report) == ["default/web-1", "default/web-2"]
    assert {u.node.name: u.classification for u in report.usage} == {
        "n1": "overutilized", "e1": "underutilized", "e2": "underutilized", "e3": "underutilized"}
    assert events(report, "Descheduled")[0] == ("Pod/default/web-1", "pod evicted by sigs.k8s.io/descheduler (LowNodeUtilization)")
    assert report.planned[0].reason == "node n1 is above the target utilization (cpu 75%, memory 75%, pods 60%)"


def test_low_node_utilization_does_nothing_with_fewer_underutilized_nodes_than_number_of_nodes():
    assert evicted(run(loaded_cluster(2), SEED_POLICY)) == []


def test_low_node_utilization_does_nothing_when_every_node_is_underutilized():
    docs = [node("n1"), node("n2"), pod("web-1", "n1")]
    assert evicted(run(docs, policy(LowNodeUtilization=lnu({"pods": 20}, {"pods": 50})))) == []


def test_low_node_utilization_evicts_best_effort_pods_first():
    docs = [node("n1"), node("n2")]
    docs += [pod(f"b-{i}", "n1", cpu="1") for i in range(1, 5)]
    docs += [pod(f"be-{i}", "n1") for i in range(1, 3)]
    report = run(docs, policy(LowNodeUtilization=lnu({"cpu": 20, "pods": 20}, {"cpu": 50, "pods": 50})))
    assert evicted(report) == ["default/be-1", "default/be-2", "default/b-1", "default/b-2"]


def test_a_cordoned_node_is_never_underutilized():
    docs = loaded_cluster(0) + [node("e1", unschedulable=True)]
    assert evicted(run(docs, policy(LowNodeUtilization=lnu({"pods": 20}, {"pods": 50})))) == []


@pytest.mark.parametrize("params", [
    pytest.param(lnu({"cpu": 20, "storage": 20}, {"pods": 50}), id="a threshold on another resource turns the strategy off"),
    pytest.param(lnu({}, {"pods": 50}), id="empty thresholds turn the strategy off"),
    pytest.param(lnu(None, {"pods": 50}), id="missing thresholds turn the strategy off"),
    pytest.param(lnu({"pods": 20}, {"cpu": 50}), id="target thresholds without pods turn the strategy off"),
    pytest.param(lnu({"pods": 20}, None), id="missing target thresholds turn the strategy off"),
])
def test_bad_low_node_utilization_parameters_make_it_do_nothing(params):
    report = run(loaded_cluster(1), policy(LowNodeUtilization=params))
    assert evicted(report) == []
    assert events(report, "DeschedulerRun") == [("DeschedulerPolicy/descheduler-policy", "0 pods evicted")]


# --- RemovePodsViolatingInterPodAntiAffinity ----------------------------------------------------------------


def test_anti_affinity_evicts_the_pods_whose_own_rule_is_violated_seed_example():
    # The RemovePodsViolatingInterPodAntiAffinity example: node1 runs podA, podB and podC; podB and podC have anti-affinity
    # against podA. The 3.11 code evicts the pods carrying the violated rule (podB, podC)
    # and keeps podA; the documentation's prose says podA, which is not what the binary does.
    docs = [node("node1"), node("node2"),
            pod("poda", "node1", labels={"app": "a"}, owner=("ReplicaSet", "a")),
            pod("podb", "node1", labels={"app": "b"}, owner=("ReplicaSet", "b"), affinity=anti_affinity({"app": "a"})),
            pod("podc", "node1", labels={"app": "c"}, owner=("ReplicaSet", "c"), affinity=anti_affinity({"app": "a"}))]
    report = run(docs, policy(RemovePodsViolatingInterPodAntiAffinity={"enabled": True}))
    assert evicted(report) == ["default/podb", "default/podc"]
    assert report.planned[0].reason == "its required pod anti-affinity matches default/poda on node node1"


def test_anti_affinity_against_each_other_evicts_only_the_first_of_the_pair():
    docs = [node("n1"), node("n2"),
            pod("x-1", "n1", labels={"app": "x"}, owner=("ReplicaSet", "x1"), affinity=anti_affinity({"app": "x"})),
            pod("x-2", "n1", labels={"app": "x"}, owner=("ReplicaSet", "x2"), affinity=anti_affinity({"app": "x"}))]
    assert evicted(run(docs, policy(RemovePodsViolatingInterPodAntiAffinity={"enabled": True}))) == ["default/x-1"]


def test_anti_affinity_on_another_node_is_not_a_violation():
    docs = [node("n1"), node("n2"), pod("poda", "n1", labels={"app": "a"}, owner=("ReplicaSet", "a")),
            pod("podb", "n2", labels={"app": "b"}, owner=("ReplicaSet", "b"), affinity=anti_affinity({"app": "a"}))]
    assert evicted(run(docs, policy(RemovePodsViolatingInterPodAntiAffinity={"enabled": True}))) == []


# --- RemovePodsViolatingNodeAffinity ---------------------------------------------------------------------------

NODE_AFFINITY = policy(RemovePodsViolatingNodeAffinity={"enabled": True, "params": {"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]}})


def test_node_affinity_evicts_a_pod_its_node_no_longer_satisfies_seed_example():
    # The RemovePodsViolatingNodeAffinity example: podA was placed on nodeA for its required node affinity; nodeA no
    # longer has the label, nodeB has it: podA is evicted.
    docs = [node("nodea", {"zone": "west"}), node("nodeb", {"zone": "east"}),
            pod("poda", "nodea", affinity=node_affinity("zone", ["east"]))]
    report = run(docs, NODE_AFFINITY)
    assert evicted(report) == ["default/poda"]
    assert report.planned[0].reason == ("node nodea no longer satisfies its "
                                        "requiredDuringSchedulingIgnoredDuringExecution node affinity")


@pytest.mark.parametrize("docs, pol", [
    pytest.param([node("a", {"zone": "west"}), node("b", {"zone": "north"}), pod("p", "a", affinity=node_affinity("zone", ["east"]))],
                 NODE_AFFINITY, id="no other node satisfies the affinity: the pod stays"),
    pytest.param([node("a", {"zone": "west"}), node("b", {"zone": "east"}, unschedulable=True),
                  pod("p", "a", affinity=node_affinity("zone", ["east"]))],
                 NODE_AFFINITY, id="the only matching node is cordoned: the pod stays"),
    pytest.param([node("a", {"zone": "west"}), node("b", {"zone": "east"}), pod("p", "a", node_selector={"zone": "east"})],
                 NODE_AFFINITY, id="a nodeSelector alone is not node affinity"),
    pytest.param([node("a", {"zone": "west"}), node("b", {"zone": "east"}), pod("p", "a", affinity=node_affinity("zone", ["east"]))],
                 policy(RemovePodsViolatingNodeAffinity={"enabled": True}), id="no nodeAffinityType: nothing to check"),
    pytest.param([node("a", {"zone": "west"}), node("b", {"zone": "east"}), pod("p", "a", affinity=node_affinity("zone", ["east"]))],
                 policy(RemovePodsViolatingNodeAffinity={"enabled": True, "params": {"nodeAffinityType": ["preferredDuringSchedulingIgnoredDuringExecution"]}}),
                 id="an unknown nodeAffinityType makes the strategy do nothing"),
])
def test_node_affinity_keeps_the_pod(docs, pol):
    assert evicted(run(docs, pol)) == []


# --- pods never evicted ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc, reason", [
    pytest.param(pod("p", "n1", namespace="kube-system", annotations={"scheduler.alpha.kubernetes.io/critical-pod": ""}),
                 "critical pod", id="a critical pod in kube-system is never evicted"),
    pytest.param(pod("p", "n1", namespace="openshift-infra", annotations={"scheduler.alpha.kubernetes.io/critical-pod": ""}),
                 "critical pod", id="a critical pod in an openshift- namespace is never evicted"),
    pytest.param(pod("p", "n1", annotations={"scheduler.alpha.kubernetes.io/critical-pod": ""}),
                 None, id="the critical-pod annotation outside kube-system and openshift- does not protect a pod"),
    pytest.param(pod("p", "n1", namespace="kube-system", annotations={"scheduler.alpha.kubernetes.io/critical-pod": "true"}),
                 None, id="3.11 protects only the empty annotation value"),
    pytest.param(pod("p", "n1", owner=None), "pod without a controller", id="a pod without a controller is never evicted"),
    pytest.param(pod("p", "n1", annotations={"kubernetes.io/config.mirror": "abc"}), "mirror pod", id="a mirror pod is never evicted"),
    pytest.param(pod("p", "n1", owner=("DaemonSet", "ds")), "DaemonSet pod", id="a DaemonSet pod is never evicted"),
    pytest.param(pod("p", "n1", volumes=[{"name": "v", "emptyDir": {}}]), "pod with local storage", id="a pod with an emptyDir is never evicted"),
    pytest.param(pod("p", "n1", volumes=[{"name": "v", "hostPath": {"path": "/x"}}]), "pod with local storage", id="a pod with a hostPath is never evicted"),
    pytest.param(pod("p", "n1", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]), None,
                 id="a pod with a claim is evictable"),
])
def test_never_evicted_pods(doc, reason):
    assert not_evictable_reason(Pod.from_doc(doc)) == reason


@pytest.mark.parametrize("make", [
    pytest.param(lambda i: pod(f"p-{i}", "n1", owner=None), id="pods without a controller stay on an overloaded node"),
    pytest.param(lambda i: pod(f"p-{i}", "n1", owner=("DaemonSet", "ds")), id="DaemonSet pods stay on an overloaded node"),
    pytest.param(lambda i: pod(f"p-{i}", "n1", volumes=[{"name": "v", "emptyDir": {}}]), id="pods with local storage stay on an overloaded node"),
    pytest.param(lambda i: pod(f"p-{i}", "n1", annotations={"kubernetes.io/config.mirror": "x"}), id="mirror pods stay on an overloaded node"),
    pytest.param(lambda i: pod(f"p-{i}", "n1", namespace="kube-system", annotations={"scheduler.alpha.kubernetes.io/critical-pod": ""}),
                 id="critical pods stay on an overloaded node"),
])
def test_no_strategy_evicts_a_never_evicted_pod(make):
    docs = [node("n1"), node("n2")] + [make(i) for i in range(1, 8)]
    everything = policy(RemoveDuplicates={"enabled": True}, LowNodeUtilization=lnu({"pods": 20}, {"pods": 50}))
    assert evicted(run(docs, everything)) == []


# --- the eviction API, the edges, the flags ---------------------------------------------------------------------


def test_a_pod_disruption_budget_refuses_the_eviction():
    docs = [node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1"), pod("web-3", "n2"), pdb("web", 3, {"app": "web"})]
    report = run(docs, DUPLICATES)
    assert evicted(report) == []
    assert report.planned[0].refusal == ("Cannot evict pod as it would violate the pod's disruption budget. "
                                         "The disruption budget web needs 3 healthy pods and has 3 currently")
    assert events(report, "Descheduled") == []
    assert events(report, "DeschedulerRun") == [("DeschedulerPolicy/descheduler-policy", "0 pods evicted")]


def test_a_pod_disruption_budget_lets_as_many_go_as_it_allows():
    docs = [node("n1"), node("n2")] + [pod(f"web-{i}", "n1") for i in range(1, 5)] + [pdb("web", 2, {"app": "web"})]
    assert evicted(run(docs, DUPLICATES)) == ["default/web-2", "default/web-3"]


@pytest.mark.parametrize("nodes, flags", [
    pytest.param([node("n1")], {}, id="one node: nothing happens"),
    pytest.param([node("n1"), node("n2", ready="False")], {}, id="one ready node: nothing happens"),
    pytest.param([node("n1", {"role": "app"}), node("n2")], {"node_selector": "role=app"}, id="one node matches the node selector: nothing happens"),
])
def test_one_or_fewer_ready_nodes_abort_the_run(nodes, flags):
    docs = nodes + [pod("web-1", "n1"), pod("web-2", "n1")]
    report = run(docs, DUPLICATES, **flags)
    assert report.aborted and evicted(report) == []
    assert events(report, "DeschedulerRun") == [("DeschedulerPolicy/descheduler-policy", ABORT_MESSAGE)]


def test_a_node_without_conditions_counts_as_ready():
    docs = [node("n1", ready=None), node("n2", ready=None), pod("web-1", "n1"), pod("web-2", "n1")]
    assert evicted(run(docs, DUPLICATES)) == ["default/web-2"]


def test_the_node_selector_limits_the_nodes_considered():
    docs = [node("n1", {"role": "app"}), node("n2", {"role": "app"}), node("n3"),
            pod("web-1", "n3"), pod("web-2", "n3"), pod("api-1", "n1", owner=("ReplicaSet", "api")), pod("api-2", "n1", owner=("ReplicaSet", "api"))]
    assert evicted(run(docs, DUPLICATES, node_selector="role=app")) == ["default/api-2"]


def test_dry_run_evicts_nothing_and_says_what_it_would_evict():
    docs = [node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1"), pod("web-3", "n1")]
    report = run(docs, DUPLICATES, dry_run=True)
    assert evicted(report) == ["default/web-2", "default/web-3"]
    assert [a for a in report.actions if not isinstance(a, A.RecordEvent)] == []
    assert events(report, "Descheduled") == []
    assert events(report, "DeschedulerRun") == [("DeschedulerPolicy/descheduler-policy", "would evict 2 pods")]


def test_strategies_run_in_upstream_order_and_do_not_evict_a_pod_twice():
    docs = [node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1", affinity=anti_affinity({"app": "web"}))]
    report = run(docs, policy(RemoveDuplicates={"enabled": True}, RemovePodsViolatingInterPodAntiAffinity={"enabled": True}))
    assert [(p.key, p.strategy) for p in report.planned] == [("default/web-2", "RemoveDuplicates")]


# --- the controller ------------------------------------------------------------------------------------------------


def reconcile(store, now, state, interval=None):
    settings = {"descheduler": {"policy": DUPLICATES, "interval": interval, "flags": {}}}
    return Descheduler().reconcile(Context(store, now, settings=settings, state=state))


def test_the_controller_runs_once_like_the_seeds_job():
    store = Store([node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1")])
    first = reconcile(store, 0.0, {})
    assert [a.name for a in first.actions if isinstance(a, A.SetPodDeletion)] == ["web-2"]
    assert A.SetControllerState("descheduler", "lastRun", 0) in first.actions
    assert first.next_due is None
    assert reconcile(store, 5.0, {"lastRun": 0, "runs": 1}).actions == []


def test_the_controller_runs_again_after_its_interval():
    store = Store([node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1")])
    assert reconcile(store, 0.0, {}, interval=60).next_due == 60
    waiting = reconcile(store, 30.0, {"lastRun": 0, "runs": 1}, interval=60)
    assert (waiting.actions, waiting.next_due) == ([], 60)
    again = reconcile(store, 60.0, {"lastRun": 0, "runs": 1}, interval=60)
    assert A.SetControllerState("descheduler", "runs", 2) in again.actions
    assert again.next_due == 120


def test_the_controller_without_a_policy_does_nothing():
    store = Store([node("n1"), node("n2")])
    assert Descheduler().reconcile(Context(store, 0.0, settings={}, state={})).actions == []


# --- the dry run: where the pods would land ---------------------------------------------------------------------------


def test_the_preview_says_where_each_evicted_pod_would_land():
    docs = [node("n1"), node("n2"), pod("web-1", "n1", cpu="1"), pod("web-2", "n1", cpu="1")]
    store = Store(docs)
    result = preview(store, 0.0, DUPLICATES)
    assert result.to_doc()["evictions"] == [{
        "pod": "default/web-2", "node": "n1", "strategy": "RemoveDuplicates",
        "reason": "another pod of ReplicaSet/web (web-1) runs on node n1", "evicted": True, "refusal": None,
        "wouldLandOn": "n2", "message": None}]
    assert result.to_doc()["message"] == "would evict 1 pods"
    assert store.get("Pod", "default", "web-2")["spec"]["nodeName"] == "n1"  # the store is not changed


def test_the_preview_says_when_an_evicted_pod_would_stay_pending_and_why():
    docs = [node("nodea", {"zone": "west"}), node("nodeb", {"zone": "east"}, cpu="1"),
            pod("poda", "nodea", cpu="2", affinity=node_affinity("zone", ["east"]))]
    [entry] = preview(Store(docs), 0.0, NODE_AFFINITY).to_doc()["evictions"]
    assert entry["wouldLandOn"] is None
    assert entry["message"] == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match node selector."


def test_the_preview_reports_a_disruption_budget_refusal_instead_of_a_landing():
    docs = [node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n1"), pdb("web", 2, {"app": "web"})]
    [entry] = preview(Store(docs), 0.0, DUPLICATES).to_doc()["evictions"]
    assert entry["wouldLandOn"] is None
    assert entry["message"] == ("not evicted: Cannot evict pod as it would violate the pod's disruption budget. "
                                "The disruption budget web needs 2 healthy pods and has 2 currently")
