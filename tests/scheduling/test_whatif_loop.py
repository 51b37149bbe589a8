"""Every what-if of the pages is the engine's one loop run on a copy: what the preview shows
is what happens once the change is applied and the clock advanced by the same time (the
events stored then are the preview's events)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from scheduling.store import clock, kube, reconcile, services
from scheduling.models import Cluster, Event
from tests.scheduling.pages import apply_form
from tests.scheduling.test_console import run as console_run

PREEMPTION = """
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
  terminationGracePeriodSeconds: 30
  containers: [{name: c, image: i, resources: {requests: {cpu: "1500m"}}}]
status: {phase: Running}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: important, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: important}}
  template:
    metadata: {labels: {app: important}}
    spec:
      priorityClassName: high
      containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
"""


def _zone_node(name: str, zone: str, ready: str) -> str:
    return f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}, failure-domain.beta.kubernetes.io/region: r, failure-domain.beta.kubernetes.io/zone: {zone}}}
status:
  capacity: {{cpu: "4", memory: 8Gi, pods: "20"}}
  allocatable: {{cpu: "4", memory: 8Gi, pods: "20"}}
  conditions: [{{type: Ready, status: "{ready}", lastHeartbeatTime: 0, lastTransitionTime: 0}}]
"""


# zone a: 3 of its 5 nodes not Ready (60 % >= 55 %, more than 2): PartialDisruption; a zone
# of 50 nodes or fewer then taints no more nodes (eviction rate 0). Zone b is healthy.
DISRUPTED = "".join(
    [_zone_node(f"a{i}", "a", "False" if i <= 3 else "True") for i in range(1, 6)]
    + [_zone_node(f"b{i}", "b", "True") for i in range(1, 3)]
) + """---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: a4
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
status: {phase: Running}
"""

TOLERATING = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "20"}, allocatable: {cpu: "4", memory: 8Gi, pods: "20"}}
---
apiVersion: v1
kind: Pod
metadata: {name: patient, namespace: default}
spec:
  nodeName: n1
  tolerations: [{key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 120}]
  containers: [{name: c, image: i}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: plain, namespace: default}
spec:
  nodeName: n1
  containers: [{name: c, image: i}]
status: {phase: Running}
"""

WATCHED = ("TaintManagerEviction", "Preempted", "Killing", "Scheduled", "SuccessfulCreate", "FailedScheduling",
           "ScalingReplicaSet", "SuccessfulDelete")


def _load(name: str, text: str, advance: float = 10.0) -> Cluster:
    cluster = services.import_new_cluster(name, text, f"{name}.yaml")
    reconcile.reconcile(cluster.pk, force=True)
    cluster.refresh_from_db()
    if advance:
        _advance(cluster, advance)
    return cluster


def _advance(cluster: Cluster, seconds: float) -> None:
    clock.step(cluster, seconds)
    reconcile.reconcile(cluster.pk, force=True)
    cluster.refresh_from_db()


def shown_events(fragment: str) -> set[str]:
    """The events the preview fragment lists: "<time>|<reason>|<object>"."""
    return {html.unescape(e) for e in re.findall(r'data-event="([^"]+)"', fragment)
            if e.split("|")[1] in WATCHED}


def stored_events(cluster: Cluster, since: float) -> set[str]:
    return {f"{format(e.first_time, '.15g')}|{e.reason}|{e.object_ref}"
            for e in Event.objects.filter(cluster=cluster, first_time__gte=since - 1e-9) if e.reason in WATCHED}


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def console(client, cluster, command: str, **extra) -> dict:
    """What the console shows for `command` (its htmx answer, read by test_console.run)."""
    return console_run(client, cluster, command, **extra)


# --- (a) a new pod that must preempt ----------------------------------------------------------------


def test_the_console_dry_run_of_a_scale_shows_the_preemption_it_causes(editor_client, db):
    cluster = _load("preempt", PREEMPTION)
    at = cluster.now
    answer = console(editor_client, cluster, "oc scale deployment important --replicas=1")
    fragment = answer["preview"]
    said = text(fragment)
    assert re.search(r"default/low preempted by default/important-[0-9a-z]+-[0-9a-z]+ on node n1", said), said
    assert re.search(r"created: default/important-[0-9a-z]+-[0-9a-z]+", said), said
    assert "No pod is evicted, started or stopped" not in said
    shown = shown_events(fragment)
    assert any("|Preempted|Pod/default/low" in e for e in shown)
    # the same command applied, the clock advanced as far as the preview looked
    until = float(re.search(r'data-until="([^"]+)"', fragment).group(1))
    applied = console(editor_client, cluster, "oc scale deployment important --replicas=1", confirm="1")
    assert applied["exit_code"] == 0
    cluster.refresh_from_db()
    _advance(cluster, until - at)
    assert stored_events(cluster, at) == shown


def test_the_workload_editor_previews_a_replicas_change_with_its_preemption(editor_client, db):
    cluster = _load("preempt", PREEMPTION)
    doc = services.get_object(cluster, "Deployment", "important", "default").document
    url = reverse("controller-preview", args=[cluster.pk, "Deployment", "default", "important"])
    yaml_text = re.sub(r"replicas: 0", "replicas: 1", kube.dump_documents([doc]))
    fragment = editor_client.post(url, {"op": "yaml", "text": yaml_text}, HTTP_HX_REQUEST="true").content.decode()
    said = text(fragment)
    assert re.search(r"default/low preempted by default/important-[0-9a-z]+-[0-9a-z]+ on node n1", said), said
    at = cluster.now
    until = float(re.search(r'data-until="([^"]+)"', fragment).group(1))
    shown = shown_events(fragment)
    response = editor_client.post(reverse("apply-edit", args=[cluster.pk]), apply_form(fragment), HTTP_HX_REQUEST="true")
    assert "deployment/important replaced" in response.content.decode()
    cluster.refresh_from_db()
    _advance(cluster, until - at)
    assert stored_events(cluster, at) == shown


# --- (b) the zone's rate limit ----------------------------------------------------------------------


def test_a_node_going_unknown_in_a_partially_disrupted_small_zone_evicts_nothing(editor_client, db):
    cluster = _load("zones", DISRUPTED)
    at = cluster.now
    fragment = editor_client.post(reverse("node-preview", args=[cluster.pk, "a4"]),
                                  {"op": "condition", "type": "Ready", "status": "Unknown"},
                                  HTTP_HX_REQUEST="true").content.decode()
    said = text(fragment)
    assert "No pod is evicted" in said, said
    assert "data-evicted" not in fragment
    assert "node.kubernetes.io/unreachable:NoExecute" not in said  # the zone's rate limit: no NoExecute taint
    assert "node.kubernetes.io/unreachable:NoSchedule" in said  # taint nodes by condition: at once
    shown = shown_events(fragment)
    until = float(re.search(r'data-until="([^"]+)"', fragment).group(1))
    response = editor_client.post(reverse("apply-edit", args=[cluster.pk]), apply_form(fragment), HTTP_HX_REQUEST="true")
    assert "node/a4 replaced" in response.content.decode()
    cluster.refresh_from_db()
    _advance(cluster, max(until - at, 600))
    assert stored_events(cluster, at) == shown
    assert not Event.objects.filter(cluster=cluster, reason="TaintManagerEviction").exists()
    taints = services.get_object(cluster, "Node", "a4").document["spec"].get("taints") or []
    assert [t["key"] for t in taints if t["effect"] == "NoExecute"] == []


# --- (c) tolerationSeconds ----------------------------------------------------------------------------


def test_a_noexecute_taint_previews_the_eviction_times_the_taint_manager_keeps(editor_client, db):
    cluster = _load("tolerating", TOLERATING)
    at = cluster.now
    assert at == 10
    fragment = editor_client.post(reverse("node-preview", args=[cluster.pk, "n1"]),
                                  {"op": "taint-oc", "taint": "k=v:NoExecute"}, HTTP_HX_REQUEST="true").content.decode()
    said = text(fragment)
    assert re.findall(r'data-evicted="([^"]+)"', fragment) == ["default/plain"]
    assert re.findall(r'data-evicted-later="([^"]+)"', fragment) == ["default/patient"]
    assert "default/patient from n1 at t=130s (120s after the change" in said, said
    shown = shown_events(fragment)
    assert "130|TaintManagerEviction|Pod/default/patient" in shown
    until = float(re.search(r'data-until="([^"]+)"', fragment).group(1))
    editor_client.post(reverse("apply-edit", args=[cluster.pk]), apply_form(fragment), HTTP_HX_REQUEST="true")
    cluster.refresh_from_db()
    _advance(cluster, until - at)
    assert stored_events(cluster, at) == shown
    eviction = Event.objects.get(cluster=cluster, reason="TaintManagerEviction", involved_name="patient")
    assert eviction.first_time == 130


# --- (d) the console's dry run ------------------------------------------------------------------------


def test_the_console_dry_run_shows_the_events_the_apply_records(editor_client, db):
    cluster = _load("tolerating", TOLERATING)
    at = cluster.now
    answer = console(editor_client, cluster, "oc adm taint nodes n1 k=v:NoExecute")
    fragment = answer["preview"]
    shown = shown_events(fragment)
    assert {"10|TaintManagerEviction|Pod/default/plain", "130|TaintManagerEviction|Pod/default/patient"} <= shown
    said = text(fragment)
    assert "evicted at once: default/plain from n1" in said, said
    assert "evicted at t=130s: default/patient from n1" in said, said
    until = float(re.search(r'data-until="([^"]+)"', fragment).group(1))
    assert console(editor_client, cluster, answer["confirm"], confirm="1")["exit_code"] == 0
    cluster.refresh_from_db()
    _advance(cluster, until - at)
    assert stored_events(cluster, at) == shown


@pytest.mark.parametrize("for_seconds", [60])
def test_the_preview_command_and_the_editor_agree(editor_client, db, for_seconds):
    """The editor's taint field and `oc adm taint` previewed by preview_command: one loop, one answer."""
    from scheduling.pages import previews

    cluster = _load("tolerating", TOLERATING)
    result = previews.preview_command(cluster, ["oc", "adm", "taint", "nodes", "n1", "k=v:NoExecute"])
    fragment = editor_client.post(reverse("node-preview", args=[cluster.pk, "n1"]),
                                  {"op": "taint-oc", "taint": "k=v:NoExecute"}, HTTP_HX_REQUEST="true").content.decode()
    assert {f"{format(e['time'], '.15g')}|{e['reason']}|{e['object']}" for e in result.events if e["reason"] in WATCHED} == shown_events(fragment)


# --- what the node lifecycle controller and the workload controllers do, from the loop -----------------


HEALTHY = "".join(_zone_node(f"a{i}", "a", "True") for i in range(1, 4)) + """---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: a1
  containers: [{name: c, image: i}]
status: {phase: Running}
"""


def test_a_not_ready_node_in_a_healthy_zone_gets_both_not_ready_taints_and_its_pods_go_after_300s(editor_client, db):
    cluster = _load("healthy", HEALTHY)
    fragment = editor_client.post(reverse("node-preview", args=[cluster.pk, "a1"]),
                                  {"op": "condition", "type": "Ready", "status": "False"},
                                  HTTP_HX_REQUEST="true").content.decode()
    said = text(fragment)
    assert "a1: adds node.kubernetes.io/not-ready:NoSchedule" in said, said
    assert re.search(r"a1: adds node.kubernetes.io/not-ready:NoExecute \(at t=1[05]s\)", said), said
    # the DefaultTolerationSeconds admission gave the pod 300 s of not-ready
    assert re.findall(r'data-evicted-later="([^"]+)"', fragment) == ["default/web"]


def test_cordoning_previews_the_unschedulable_taint_and_a_label_previews_nothing(editor_client, db):
    cluster = _load("healthy", HEALTHY)
    fragment = editor_client.post(reverse("node-preview", args=[cluster.pk, "a2"]), {"op": "cordon"},
                                  HTTP_HX_REQUEST="true").content.decode()
    assert "a2: adds node.kubernetes.io/unschedulable:NoSchedule" in text(fragment)
    fragment = editor_client.post(reverse("node-preview", args=[cluster.pk, "a2"]),
                                  {"op": "label-set", "key": "team", "value": "x"}, HTTP_HX_REQUEST="true").content.decode()
    assert "nothing happens after this change" in text(fragment)


TAINTED_NODE = """
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/hostname: node1}}
spec: {taints: [{key: key1, value: value1, effect: NoExecute}]}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "20"}, allocatable: {cpu: "4", memory: 8Gi, pods: "20"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec: {containers: [{name: c, image: frontend:1}]}
"""


def test_a_template_toleration_with_seconds_previews_the_new_pods_start_and_their_eviction(editor_client, db):
    cluster = _load("template", TAINTED_NODE)
    at = cluster.now
    url = reverse("controller-preview", args=[cluster.pk, "Deployment", "default", "frontend"])
    fragment = editor_client.post(url, {"op": "toleration-add", "key": "key1", "operator": "Equal", "value": "value1",
                                        "effect": "NoExecute", "seconds": "120"}, HTTP_HX_REQUEST="true").content.decode()
    said = text(fragment)
    # the new pod starts on node1, is evicted 120 s later, its ReplicaSet creates another, ...
    # until the preview's hour is up: what the cluster then does
    started = re.findall(r'data-scheduled="([^"]+)" data-node="node1"', fragment)
    evicted = re.findall(r'data-evicted-later="([^"]+)"', fragment)
    assert len(started) > 2 and evicted[:2] == started[:2], said
    assert re.findall(r'data-created="([^"]+)"', fragment)[:2] == started[:2]
    assert f"{started[0]} from node1 at t=130s" in said and f"{started[1]} from node1 at t=250s" in said
    shown = shown_events(fragment)
    until = float(re.search(r'data-until="([^"]+)"', fragment).group(1))
    editor_client.post(reverse("apply-edit", args=[cluster.pk]), apply_form(fragment), HTTP_HX_REQUEST="true")
    cluster.refresh_from_db()
    _advance(cluster, until - at)
    assert stored_events(cluster, at) == shown
