"""A stored cluster that runs the OpenShift 4 scheduler: the loop schedules with the
framework, the pod page explains with plugins and 0-100 scores, the scheduling settings
page edits the KubeSchedulerConfiguration or the OpenShift profile."""

from __future__ import annotations

import pytest
import yaml
from django.urls import reverse

from scheduling.models import Event, Pod
from scheduling.store import reconcile, services

CLUSTER = """
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {channel: stable-4.18, clusterID: c0ffee00-0000-4000-8000-000000000000}
status:
  desired: {version: 4.18.10, image: "quay.io/openshift-release-dev/ocp-release:4.18.10-x86_64"}
  history:
  - {state: Completed, version: 4.18.10, image: "quay.io/openshift-release-dev/ocp-release:4.18.10-x86_64", startedTime: "2026-11-01T00:00:00Z", completionTime: "2026-11-01T01:00:00Z", verified: true}
""" + "".join(f"""---
apiVersion: v1
kind: Node
metadata:
  name: worker-{z}
  labels: {{kubernetes.io/hostname: worker-{z}, topology.kubernetes.io/zone: zone-{z}, node-role.kubernetes.io/worker: ""}}
status:
  capacity: {{cpu: "2", memory: 4Gi, pods: "110"}}
  allocatable: {{cpu: "2", memory: 4Gi, pods: "110"}}
""" for z in "abc") + """---
apiVersion: v1
kind: Node
metadata:
  name: infra-a
  labels: {kubernetes.io/hostname: infra-a, topology.kubernetes.io/zone: zone-a, node-role.kubernetes.io/infra: ""}
spec:
  taints: [{key: node-role.kubernetes.io/infra, effect: NoSchedule}]
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default, uid: uid-huge}
spec:
  containers: [{name: c, image: registry.example.com/huge:1, resources: {requests: {cpu: "3"}}}]
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: web-{i}, namespace: default, labels: {{app: web}}}}
spec:
  topologySpreadConstraints:
  - {{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: web}}}}}}
  containers: [{{name: c, image: registry.example.com/web:1, resources: {{requests: {{cpu: 100m}}}}}}]
""" for i in range(6))

# 3 cpu on 2-cpu nodes: beyond every worker's allocatable, so preemption cannot help anywhere
HUGE_MESSAGE = ("0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. "
                "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.")


@pytest.fixture
def ocp(db):
    cluster = services.import_new_cluster("ocp", CLUSTER, "ocp.yaml")
    reconcile.reconcile(cluster.pk, force=True)  # the loop's first pass (a worker runs it in the app)
    cluster.refresh_from_db()
    return cluster


def test_the_loop_schedules_with_the_framework(ocp):
    nodes = {p.name: p.document["spec"].get("nodeName") for p in Pod.objects.filter(cluster=ocp)}
    zones = [nodes[f"web-{i}"][-1] for i in range(6)]
    assert sorted(zones) == ["a", "a", "b", "b", "c", "c"]
    failed = Event.objects.filter(cluster=ocp, reason="FailedScheduling", involved_name="huge")
    assert [e.message for e in failed] == [HUGE_MESSAGE]


def test_the_pod_page_explains_with_plugins_and_scores(client, ocp):
    body = client.get(reverse("pod-detail", args=[ocp.pk, "default", "huge"])).content.decode()
    assert HUGE_MESSAGE in body
    assert "Filter plugin" in body and "NodeResourcesFit" in body and "TaintToleration" in body
    assert "data-unresolvable" in body  # the infra node: preemption cannot help there
    body = client.get(reverse("pod-detail", args=[ocp.pk, "default", "web-0"])).content.decode()
    assert "0–100 after NormalizeScore" in body
    assert "PodTopologySpread" in body and "data-domain=\"topology.kubernetes.io/zone=zone-a\"" in body


def test_the_settings_page_speaks_the_framework_and_saves_an_openshift_profile(editor_client, ocp):
    body = editor_client.get(reverse("policy", args=[ocp.pk])).content.decode()
    assert "OpenShift 4 scheduler" in body and "HighNodeUtilization" in body
    doc = {"apiVersion": "config.openshift.io/v1", "kind": "Scheduler", "metadata": {"name": "cluster"},
           "spec": {"profile": "HighNodeUtilization"}}
    response = editor_client.post(reverse("policy-action", args=[ocp.pk]), {"action": "save", "text": yaml.safe_dump(doc)})
    assert response.status_code == 200
    ocp.refresh_from_db()
    assert ocp.policy["spec"]["profile"] == "HighNodeUtilization"


def test_an_invalid_configuration_is_refused_naming_the_field(editor_client, ocp):
    doc = {"apiVersion": "config.openshift.io/v1", "kind": "Scheduler", "spec": {"profile": "Fastest"}}
    response = editor_client.post(reverse("policy-action", args=[ocp.pk]), {"action": "save", "text": yaml.safe_dump(doc)})
    assert response.status_code == 422
    assert 'spec.profile: Unsupported value: &quot;Fastest&quot;' in response.content.decode()
    ocp.refresh_from_db()
    assert ocp.policy is None


def test_a_311_policy_is_saved_for_a_custom_scheduler_picked_by_name(editor_client, demo):
    policy = '{"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "PodFitsResources"}], "priorities": []}'
    page = editor_client.get(reverse("policy", args=[demo.pk])).content.decode()
    assert 'name="scheduler_name"' in page
    response = editor_client.post(reverse("policy-action", args=[demo.pk]),
                                  {"action": "save", "text": policy, "scheduler_name": "gpu-scheduler"})
    assert response.status_code == 200
    demo.refresh_from_db()
    assert demo.policy is None and set(demo.scheduler_policies) == {"gpu-scheduler"}
    bad = editor_client.post(reverse("policy-action", args=[demo.pk]),
                             {"action": "save", "text": policy, "scheduler_name": "GPU_scheduler"})
    assert bad.status_code == 422 and "schedulerName: Invalid value: &quot;GPU_scheduler&quot;" in bad.content.decode()
