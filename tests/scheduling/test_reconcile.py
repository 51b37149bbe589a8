"""The controllers run on a stored cluster: scheduling, taint-based eviction, replacement,
on the simulated clock, idempotent and compare-and-swap."""

import pytest

from scheduling.store import clock, reconcile, services
from scheduling.engine import simulation
from scheduling.models import Cluster, Event, Pod

pytestmark = pytest.mark.django_db

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node2, labels: {kubernetes.io/hostname: node2}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/hostname: node1}
      containers: [{name: web, image: nginx:1.15, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""


@pytest.fixture
def cluster():
    cluster = services.create_cluster("live", seed=7)
    services.import_documents(cluster, CLUSTER)
    return cluster


def pods(cluster):
    return {p.name: p for p in Pod.objects.filter(cluster=cluster)}


def taint_node1(cluster, taint):
    node = services.get_object(cluster, "Node", "node1")
    doc = node.document
    doc.setdefault("spec", {})["taints"] = [taint]
    services.replace_object(cluster, doc)


def test_the_replica_set_creates_its_pod_and_the_scheduler_places_it(cluster):
    outcome = reconcile.reconcile(cluster.pk)
    assert outcome.ran and not outcome.conflict
    [pod] = pods(cluster).values()
    assert pod.name.startswith("web-") and pod.node_name == "node1"
    reasons = list(Event.objects.filter(cluster=cluster).values_list("reason", flat=True))
    assert "SuccessfulCreate" in reasons and "Scheduled" in reasons
    scheduled = Event.objects.get(cluster=cluster, reason="Scheduled")
    assert scheduled.message == f"Successfully assigned default/{pod.name} to node1"


def test_running_it_again_changes_nothing(cluster):
    reconcile.reconcile(cluster.pk)
    state = services.export_documents(cluster)
    events = Event.objects.count()
    assert reconcile.reconcile(cluster.pk).ran is False  # nothing changed, nothing due
    forced = reconcile.reconcile(cluster.pk, force=True)
    assert (forced.written, forced.events) == (0, 0)
    assert services.export_documents(cluster) == state and Event.objects.count() == events


def test_an_untolerated_no_execute_taint_evicts_and_the_replacement_waits_pending(cluster):
    reconcile.reconcile(cluster.pk)
    [first] = pods(cluster)
    taint_node1(cluster, {"key": "key1", "value": "value1", "effect": "NoExecute"})
    reconcile.reconcile(cluster.pk)
    evicted = Pod.objects.get(cluster=cluster, name=first)
    assert evicted.metadata.get("deletionTimestamp") is not None
    assert Event.objects.filter(
        cluster=cluster, reason="TaintManagerEviction", message=f"Marking for deletion Pod default/{first}"
    ).exists()
    clock.step(Cluster.objects.get(pk=cluster.pk), 30)  # the pod's grace period
    reconcile.reconcile(cluster.pk)
    remaining = pods(cluster)
    assert first not in remaining
    [replacement] = remaining.values()
    assert replacement.node_name == ""  # its nodeSelector pins it to the tainted node1
    condition = next(c for c in replacement.status["conditions"] if c["type"] == "PodScheduled")
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == (
        "0/2 nodes are available: 1 node(s) didn't match node selector, "
        "1 node(s) had taints that the pod didn't tolerate."
    )


def test_a_tolerated_taint_evicts_after_toleration_seconds_and_not_before(cluster):
    reconcile.reconcile(cluster.pk)
    rs = services.get_object(cluster, "ReplicaSet", "web", "default")
    [name] = pods(cluster)
    pod = services.get_object(cluster, "Pod", name, "default").document
    pod["spec"]["tolerations"] = [{"key": "key1", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 3600}]
    services.replace_object(cluster, pod)
    assert rs  # the ReplicaSet stays as it is
    taint_node1(cluster, {"key": "key1", "value": "value1", "effect": "NoExecute"})
    reconcile.reconcile(cluster.pk)
    clock.step(Cluster.objects.get(pk=cluster.pk), 3599)
    reconcile.reconcile(cluster.pk)
    assert Pod.objects.get(cluster=cluster, name=name).metadata.get("deletionTimestamp") is None
    clock.step(Cluster.objects.get(pk=cluster.pk), 1)
    reconcile.reconcile(cluster.pk)
    assert Pod.objects.get(cluster=cluster, name=name).metadata.get("deletionTimestamp") is not None
    eviction = Event.objects.get(cluster=cluster, reason="TaintManagerEviction")
    assert eviction.first_time == 3600.0


def test_a_write_during_the_run_wins_and_nothing_of_the_run_is_written(cluster, monkeypatch):
    real_run_until = simulation.Simulation.run_until

    def run_until_with_a_concurrent_edit(self, until):
        real_run_until(self, until)
        services.import_documents(cluster, "apiVersion: v1\nkind: Namespace\nmetadata: {name: edited-meanwhile}\n")

    monkeypatch.setattr(simulation.Simulation, "run_until", run_until_with_a_concurrent_edit)
    outcome = reconcile.reconcile(cluster.pk)
    assert outcome.conflict
    assert Pod.objects.filter(cluster=cluster).count() == 0  # the run's pod was not written
    assert not Event.objects.filter(cluster=cluster).exists()
    monkeypatch.setattr(simulation.Simulation, "run_until", real_run_until)
    assert not reconcile.reconcile(cluster.pk).conflict  # the next run starts from the new state
    assert Pod.objects.filter(cluster=cluster).count() == 1


def test_zone_states_are_shown_on_the_cluster_page(cluster, client):
    from django.urls import reverse

    reconcile.reconcile(cluster.pk)
    body = client.get(reverse("cluster-detail", args=[cluster.pk])).content.decode()
    assert 'data-zone="cluster"' in body and "zone cluster: <strong>Normal</strong>" in body


def test_a_named_scheduler_runs_with_its_own_policy_beside_the_default_one():
    cluster = services.create_cluster("two-schedulers")
    services.import_documents(cluster, """
apiVersion: v1
kind: Node
metadata: {name: plain}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: racked, labels: {rack: r1}}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Policy
apiVersion: v1
schedulerName: rack-scheduler
predicates: [{name: RackRequired, argument: {labelsPresence: {labels: [rack], presence: true}}}]
priorities: [{name: EqualPriority, weight: 1}]
---
apiVersion: v1
kind: Pod
metadata: {name: needs-rack}
spec: {schedulerName: rack-scheduler, containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: default-one}
spec: {nodeSelector: {rack: r1}, containers: [{name: c, image: nginx}]}
""")
    cluster.refresh_from_db()
    assert cluster.policy is None and list(cluster.scheduler_policies) == ["rack-scheduler"]
    reconcile.reconcile(cluster.pk)
    placed = {p.name: p.node_name for p in Pod.objects.filter(cluster=cluster)}
    assert placed == {"needs-rack": "racked", "default-one": "racked"}
    sources = set(Event.objects.filter(cluster=cluster, reason="Scheduled").values_list("source", flat=True))
    assert sources == {"rack-scheduler", "default-scheduler"}
    assert [d["kind"] for d in services.export_documents(cluster)].count("Policy") == 1


TIMER = """
apiVersion: v1
kind: Node
metadata: {name: node1}
spec: {taints: [{key: key1, value: value1, effect: NoExecute}]}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: node1
  tolerations: [{key: key1, operator: Exists, effect: NoExecute, tolerationSeconds: 1}]
  containers: [{name: web, image: nginx}]
---
apiVersion: clusterui.io/v1alpha1
kind: Timeline
metadata: {name: lengthen}
steps:
- at: 0.5
  apply:
    apiVersion: v1
    kind: Pod
    metadata: {name: web, namespace: default}
    spec:
      nodeName: node1
      tolerations: [{key: key1, operator: Exists, effect: NoExecute, tolerationSeconds: 100}]
      containers: [{name: web, image: nginx}]
"""


def test_a_stored_pod_replaced_while_its_timer_runs_is_evicted_when_kubernetes_would(client):
    """kubernetes v1.11 TestUpdatePod "lengthening toleration shouldn't work", on a stored
    cluster reconciled between the steps: the timer is kept with the cluster, not in the
    pod, and the pod page shows it."""
    from django.urls import reverse

    cluster = services.create_cluster("timer")
    services.import_documents(cluster, TIMER)
    reconcile.reconcile(cluster.pk)
    clock.step(Cluster.objects.get(pk=cluster.pk), 0.5)
    reconcile.reconcile(cluster.pk)
    web = pods(cluster)["web"]
    assert web.document["spec"]["tolerations"][0]["tolerationSeconds"] == 100  # replaced at 0.5
    assert "annotations" not in web.document["metadata"]
    assert Cluster.objects.get(pk=cluster.pk).controller_state["controllers"]["taint-manager"] == {"default/web": 1}
    page = client.get(reverse("pod-detail", args=[cluster.pk, "default", "web"])).content.decode()
    assert "evicted at t=1 s" in page
    clock.step(Cluster.objects.get(pk=cluster.pk), 0.5)
    reconcile.reconcile(cluster.pk)
    assert list(Event.objects.filter(cluster=cluster, reason="TaintManagerEviction").values_list("first_time", "message")) == [
        (1.0, "Marking for deletion Pod default/web")
    ]
    assert pods(cluster)["web"].document["metadata"]["deletionTimestamp"] == 31  # 1 + grace 30
    assert "evicted at t=" not in client.get(reverse("pod-detail", args=[cluster.pk, "default", "web"])).content.decode()


def test_a_stored_cluster_from_before_controller_state_is_migrated_on_read():
    cluster = services.create_cluster("old", seed=7)
    services.import_documents(cluster, TIMER.split("---\napiVersion: clusterui.io")[0].replace(
        "metadata: {name: web, namespace: default}",
        "metadata: {name: web, namespace: default, annotations: {clusterui.io/noexecute-eviction-at: '5'}}", 1))
    Cluster.objects.filter(pk=cluster.pk).update(controller_state={"zones": [
        {"apiVersion": "clusterui.io/v1alpha1", "kind": "Zone", "metadata": {"name": "cluster"},
         "status": {"state": "Normal", "since": 0, "nodes": 1, "notReady": 0, "evictionRate": 0.1, "tokenAvailableAt": 0}}]})
    reconcile.reconcile(cluster.pk)
    state = Cluster.objects.get(pk=cluster.pk).controller_state
    assert state["controllers"]["taint-manager"] == {"default/web": 5}  # the old timer, not 0 + 1
    assert state["controllers"]["node-lifecycle"]["zone/cluster"]["state"] == "Normal"
    assert "annotations" not in pods(cluster)["web"].document["metadata"]
