"""Preemption as the pages show it: the pods a preemptor would evict or evicted (which pods,
on which node) in the pending queue and in the explainer, and a summary whose "Pending"
counts exactly the pods of the pending queue."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scheduling.store import reconcile, services
from scheduling.models import Pod
from scheduling.pages.views.board import pod_statuses

CLUSTER = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}, allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: default}
spec:
  nodeName: n1
  terminationGracePeriodSeconds: 300
  containers: [{name: c, image: i, resources: {requests: {cpu: "1500m"}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: urgent, namespace: default}
spec:
  priorityClassName: high
  containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: starting, namespace: default}
spec:
  nodeName: n1
  containers: [{name: c, image: i}]
status: {phase: Pending}
"""


@pytest.fixture
def preempted(db):
    cluster = services.import_new_cluster("preempt", CLUSTER, "preempt.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    cluster.refresh_from_db()
    return cluster


def test_the_scheduler_preempted_low_for_urgent(preempted):
    urgent = Pod.objects.get(cluster=preempted, name="urgent")
    low = Pod.objects.get(cluster=preempted, name="low")
    assert urgent.node_name == "" and urgent.status.get("nominatedNodeName") == "n1"
    assert "deletionTimestamp" in low.metadata


def test_the_pending_queue_names_the_victims_on_the_nominated_node(client, preempted):
    body = client.get(reverse("cluster-detail", args=[preempted.pk])).content.decode()
    start = body.index('id="pending"')
    queue = body[start:body.index("</section>", start)]
    assert 'nominated: n1</span> <span class="victims" data-victims="n1">preempted there, terminating: ' in queue
    assert re.findall(r'data-victims="n1">[^<]*<button[^>]*data-pod="([^"]+)"', queue) == ["default/low"]


def test_the_explainer_names_the_pods_still_terminating_for_it(client, preempted):
    body = client.get(reverse("pod-detail", args=[preempted.pk, "default", "urgent"])).content.decode()
    assert "The pod already preempted: lower-priority pods are still terminating on its nominated node." in body
    assert '<p data-victims="n1">Preempted on <strong>n1</strong>, still terminating: <span data-victim="default/low">default/low</span> (0).</p>' in body


def test_the_summary_counts_terminating_pods_apart(client, preempted):
    assert pod_statuses(preempted) == [("Pending", 1), ("Running", 1), ("Terminating", 1)]
    body = client.get(reverse("cluster-detail", args=[preempted.pk])).content.decode()
    assert "Pods: Pending 1, Running 1, Terminating 1" in body


def test_the_summary_pending_count_is_the_pending_queue(client, db):
    # before any reconcile: `starting` is bound but Pending, `urgent` is in the queue
    cluster = services.import_new_cluster("bound", CLUSTER, "bound.yaml")
    assert pod_statuses(cluster) == [("Pending", 1), ("Pending on a node", 1), ("Running", 1)]
    body = client.get(reverse("cluster-detail", args=[cluster.pk])).content.decode()
    assert "Pods: Pending 1, Pending on a node 1, Running 1" in body
    assert 'Pending pods <span class="count">1</span>' in body
