"""The Descheduler page: the documentation's samples one click away, validation, the dry-run
preview (what would be evicted, why, where it would land, utilisation bars), and for
editors Save and Run, whose evictions the reconcile writes to the cluster."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scheduling.store import services
from scheduling.engine.controllers.descheduler_strategies.samples import SAMPLES
from scheduling.models import Cluster, Event, Pod
from scheduling.store.reconcile import reconcile

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: node1}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: node2}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, uid: rs-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-a
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-web, controller: true}]
spec: {nodeName: node1, containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-b
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-web, controller: true}]
spec: {nodeName: node1, containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}
"""


@pytest.fixture
def cluster(db):
    c = services.import_new_cluster("desched", CLUSTER, "cluster.yaml")
    reconcile(c.pk, force=True)
    return Cluster.objects.get(pk=c.pk)


def act(client, cluster, **data):
    return client.post(reverse("descheduler-action", args=[cluster.pk]), data, HTTP_HX_REQUEST="true")


def test_the_page_offers_the_seeds_samples_and_loads_one(client, cluster):
    body = client.get(reverse("descheduler", args=[cluster.pk])).content.decode()
    for name in SAMPLES:
        assert f'value="sample:{name}"' in body
    body = act(client, cluster, action="sample:RemoveDuplicates").content.decode()
    assert 'sample &quot;RemoveDuplicates&quot; loaded into the editor' in body
    assert "&quot;RemoveDuplicates&quot;:\n     enabled: true" in body


def test_an_invalid_policy_is_refused_with_the_reason(client, cluster):
    body = act(client, cluster, action="validate", policy='apiVersion: "descheduler/v1alpha1"\nkind: "DeschedulerPolicy"\n'
               'strategies:\n  "RemoveDuplicates":\n    enabled: "yes"\n').content.decode()
    assert "failed decoding descheduler&#x27;s policy config: strategies.RemoveDuplicates.enabled: expected bool, got string" in body


def test_unparsable_yaml_gets_the_one_yaml_error_message(client, cluster):
    """The import's YAML error (scheduling.store.kube.parse_values): where and what, the same
    words as every other YAML editor of the app."""
    body = act(client, cluster, action="validate",
               policy="apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nstrategies: {a: 1\n").content.decode()
    assert "error parsing the DeschedulerPolicy at line 3, column 18: did not find expected &#x27;,&#x27; or &#x27;}&#x27;" in body


def test_the_preview_shows_what_would_be_evicted_and_where_it_would_land(client, cluster):
    body = act(client, cluster, action="preview", policy=SAMPLES["RemoveDuplicates"]).content.decode()
    assert "<strong>would evict 1 pods</strong>" in body
    assert ("<td>default/web-b</td><td>node1</td><td>RemoveDuplicates</td>"
            "<td>another pod of ReplicaSet/web (web-a) runs on node node1</td>\n          <td>node2</td>") in body
    assert 'aria-label="node1 cpu 50.0%"' in body  # the utilisation bars
    assert Pod.objects.get(cluster=cluster, name="web-b").node_name == "node1"  # nothing evicted


def test_the_preview_draws_the_low_node_utilization_thresholds(client, cluster):
    policy = SAMPLES["LowNodeUtilization"].replace("numberOfNodes: 3", "numberOfNodes: 1")
    body = act(client, cluster, action="preview", policy=policy).content.decode()
    assert 'aria-label="node1 cpu 50.0%, threshold 20.0%, target 50.0%"' in body
    assert '<span class="badge">underutilized</span>' in body


def test_a_viewer_may_preview_but_not_run(viewer_client, cluster):
    assert act(viewer_client, cluster, action="preview", policy=SAMPLES["RemoveDuplicates"]).status_code == 200
    assert act(viewer_client, cluster, action="run", policy=SAMPLES["RemoveDuplicates"]).status_code in (302, 403)
    assert Cluster.objects.get(pk=cluster.pk).descheduler == {}


def test_an_editor_runs_it_and_the_reconcile_evicts(editor_client, cluster):
    body = act(editor_client, cluster, action="run", policy=SAMPLES["RemoveDuplicates"]).content.decode()
    assert "run requested" in body
    cluster.refresh_from_db()
    assert cluster.descheduler["runRequests"] == 1
    reconcile(cluster.pk, force=True)
    assert Pod.objects.get(cluster=cluster, name="web-b").metadata.get("deletionTimestamp") is not None
    assert Event.objects.filter(cluster=cluster, reason="Descheduled", involved_name="web-b",
                                message="pod evicted by sigs.k8s.io/descheduler (RemoveDuplicates)").exists()
    assert Event.objects.filter(cluster=cluster, reason="DeschedulerRun", message="1 pods evicted").exists()
    page = editor_client.get(reverse("descheduler", args=[cluster.pk])).content.decode()
    assert "<strong>1 pods evicted</strong>" in page
    # saved without a new run request: it does not run again
    reconcile(cluster.pk, force=True)
    assert Event.objects.filter(cluster=cluster, reason="DeschedulerRun").count() == 1


KUBE_DESCHEDULER = """\
apiVersion: operator.openshift.io/v1
kind: KubeDescheduler
metadata: {name: cluster, namespace: openshift-kube-descheduler-operator}
spec:
  mode: Predictive
  deschedulingIntervalSeconds: 3600
  profiles: [TopologyAndDuplicates]
"""


def test_the_preview_of_a_kube_descheduler_names_the_plugin_and_the_landing(client, cluster):
    body = act(client, cluster, action="preview", policy=KUBE_DESCHEDULER).content.decode()
    assert "would evict 1 pods" in body
    row = body.split('id="eviction-defaultweb-b"')[1].split("</tr>")[0]
    assert "RemoveDuplicates" in row and "node2" in row
    assert "policy.yaml" in body and "- RemovePodsViolatingTopologySpreadConstraint" in body


def test_a_kube_descheduler_in_automatic_mode_evicts_when_run(editor_client, cluster):
    act(editor_client, cluster, action="run", policy=KUBE_DESCHEDULER.replace("Predictive", "Automatic"))
    reconcile(cluster.pk, force=True)
    events = Event.objects.filter(cluster=cluster, reason="Descheduled")
    assert [e.involved_name for e in events] == ["web-b"]
    assert "(RemoveDuplicates)" in events[0].message
    run = Event.objects.get(cluster=cluster, reason="DeschedulerRun")
    assert (run.involved_kind, run.message) == ("KubeDescheduler", "1 pods evicted")


def test_without_an_interval_the_operator_runs_nothing_and_says_so(editor_client, cluster):
    body = act(editor_client, cluster, action="save", policy=KUBE_DESCHEDULER.replace("  deschedulingIntervalSeconds: 3600\n", "")).content.decode()
    assert "the operator runs no descheduler: descheduler should have an interval set and it should be greater than 0" in body


def test_a_kube_descheduler_the_operator_refuses_is_reported(client, cluster):
    body = act(client, cluster, action="validate", policy=KUBE_DESCHEDULER.replace("TopologyAndDuplicates", "CompactAndScale")).content.decode()
    assert "enabling Descheduler CompactAndScale with Scheduler LowNodeUtilization may cause an eviction/scheduling hot loop" in body


def test_the_openshift4_section_composes_a_kube_descheduler_and_previews_it(client, cluster):
    page = client.get(reverse("descheduler", args=[cluster.pk])).content.decode()
    assert 'id="descheduler-openshift4"' in page and "TopologyAndDuplicates" in page
    body = act(client, cluster, action="compose", profiles=["TopologyAndDuplicates", "EvictPodsWithPVC"], mode="Predictive",
               descheduling_interval_seconds="600", pod_lifetime="", low_thresholds="", high_thresholds="").content.decode()
    assert "would evict 1 pods" in body
    assert "kind: KubeDescheduler" in body and "deschedulingIntervalSeconds: 600" in body  # in the editor
    row = body.split('id="eviction-defaultweb-b"')[1].split("</tr>")[0]
    assert "RemoveDuplicates" in row and "node2" in row
    assert "<th scope=\"col\">Plugin</th>" in body
    assert 'id="usage-node1"' in body  # the nodes' requests


def test_the_composer_reports_what_the_operator_refuses(client, cluster):
    body = act(client, cluster, action="compose", profiles=["LifecycleAndUtilization"], mode="Predictive",
               namespaces_included="a", namespaces_excluded="b").content.decode()
    assert "It is forbidden to combine both included and excluded namespaces" in body


def test_a_misspelt_strategy_name_is_refused_naming_the_known_ones(editor_client, cluster):
    policy = ('apiVersion: "descheduler/v1alpha1"\nkind: "DeschedulerPolicy"\n'
              'strategies:\n  "RemoveDuplicate":\n    enabled: true\n')
    body = act(editor_client, cluster, action="save", policy=policy).content.decode()
    assert ("strategies.RemoveDuplicate: unknown strategy name &quot;RemoveDuplicate&quot;: the descheduler skips it; "
            "the strategies are RemoveDuplicates, LowNodeUtilization, RemovePodsViolatingInterPodAntiAffinity, "
            "RemovePodsViolatingNodeAffinity") in body
    assert not (Cluster.objects.get(pk=cluster.pk).descheduler or {}).get("policy")  # nothing saved


def test_the_page_says_which_pods_3_11_protects_as_critical(client, cluster):
    body = client.get(reverse("descheduler", args=[cluster.pk])).content.decode()
    never = " ".join(body[body.index('id="descheduler-never"'):].split("</p>", 1)[0].split())
    assert "<code>scheduler.alpha.kubernetes.io/critical-pod: \"\"</code>" in never
    assert "<code>kube-system</code>" in never
    assert "<code>system-cluster-critical</code> does not protect a pod" in never
