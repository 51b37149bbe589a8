"""`manage.py oc get events` on a stored cluster (the Event rows, their counts and times)
and on a snapshot (the Event documents as given): the Event objects in -o json|yaml|name
and the -o wide columns, exactly as oc prints them."""

from __future__ import annotations

import json

import pytest

from scheduling.store import services
from tests.scheduling.test_oc_command import CLUSTER, oc

NOW = "2026-01-01T00:10:00Z"


@pytest.fixture
def cluster(db):
    cluster = services.import_new_cluster("demo", CLUSTER, "cluster.yaml")
    for time in (120, 300):
        services.record_event(cluster, reason="BackOff", message="Back-off restarting failed container", kind="Pod",
                              name="web", namespace="default", type="Warning", source="kubelet", time=time)
    services.record_event(cluster, reason="NodeReady", message="Node node2 status is now: NodeReady", kind="Node",
                          name="node2", source="node-controller", time=540)
    return cluster


WEB_BACKOFF = {
    "apiVersion": "v1",
    "count": 2,
    "eventTime": None,
    "firstTimestamp": "2026-01-01T00:02:00Z",
    "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default"},
    "kind": "Event",
    "lastTimestamp": "2026-01-01T00:05:00Z",
    "message": "Back-off restarting failed container",
    "metadata": {"creationTimestamp": "2026-01-01T00:02:00Z", "name": "web.1886726e05dffffd", "namespace": "default"},
    "reason": "BackOff",
    "reportingComponent": "kubelet",
    "reportingInstance": "",
    "source": {"component": "kubelet"},
    "type": "Warning",
}


def test_get_events_o_json_on_a_stored_cluster_prints_its_event_rows_as_events(cluster):
    stdout, stderr, code = oc("--cluster", "demo", "--now", NOW, "get", "events", "-o", "json",
                              "--field-selector", "involvedObject.kind=Pod")
    assert (json.loads(stdout), stderr, code) == (
        {"apiVersion": "v1", "items": [WEB_BACKOFF], "kind": "List", "metadata": {"resourceVersion": ""}}, "", 0)


@pytest.mark.parametrize(
    "argv, stdout",
    [
        pytest.param(["get", "events", "-o", "wide"],
                     "LAST SEEN   TYPE      REASON      OBJECT       SUBOBJECT   SOURCE            MESSAGE"
                     "                                FIRST SEEN   COUNT   NAME\n"
                     "5m          Warning   BackOff     pod/web                  kubelet           Back-off restarting failed "
                     "container   8m           2       web.1886726e05dffffd\n"
                     "60s         Normal    NodeReady   node/node2               node-controller   Node node2 status is now: "
                     "NodeReady    60s          1       node2.188672cfd55d5a51\n",
                     id="-o wide: the row's count and first time"),
        pytest.param(["get", "events", "-o", "name"], "event/web.1886726e05dffffd\nevent/node2.188672cfd55d5a51\n",
                     id="-o name"),
        pytest.param(["get", "events", "-A", "-o", "yaml", "--field-selector", "reason=NodeReady"],
                     "apiVersion: v1\n"
                     "items:\n"
                     "- apiVersion: v1\n"
                     "  count: 1\n"
                     "  eventTime: null\n"
                     '  firstTimestamp: "2026-01-01T00:09:00Z"\n'
                     "  involvedObject:\n"
                     "    apiVersion: v1\n"
                     "    kind: Node\n"
                     "    name: node2\n"
                     "  kind: Event\n"
                     '  lastTimestamp: "2026-01-01T00:09:00Z"\n'
                     '  message: "Node node2 status is now: NodeReady"\n'
                     "  metadata:\n"
                     '    creationTimestamp: "2026-01-01T00:09:00Z"\n'
                     "    name: node2.188672cfd55d5a51\n"
                     "    namespace: default\n"
                     "  reason: NodeReady\n"
                     "  reportingComponent: node-controller\n"
                     '  reportingInstance: ""\n'
                     "  source:\n"
                     "    component: node-controller\n"
                     "  type: Normal\n"
                     "kind: List\n"
                     "metadata:\n"
                     '  resourceVersion: ""\n',
                     id="-A -o yaml with a field selector"),
        pytest.param(["get", "events", "-n", "kube-system", "-o", "json"],
                     '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n'
                     '        "resourceVersion": ""\n    }\n}\n', id="-n: a namespace without events is an empty List"),
    ],
)
def test_get_events_on_a_stored_cluster(cluster, argv, stdout):
    assert oc("--cluster", "demo", "--now", NOW, *argv) == (stdout, "", 0)


SNAPSHOT = """
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: shop, creationTimestamp: "2026-03-01T10:00:00Z"}
  spec: {nodeName: ip-10-0-1-1.ec2.internal, containers: [{name: c, image: nginx}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Event
  metadata:
    name: web.17f8a2b3c4d5e6f7
    namespace: shop
    uid: 4b9a6a4e-2f0c-4f57-9d0b-1f2a3b4c5d6e
    resourceVersion: "81234"
    creationTimestamp: "2026-03-01T10:00:05Z"
    managedFields: [{manager: kubelet, operation: Update}]
  involvedObject: {apiVersion: v1, kind: Pod, name: web, namespace: shop, fieldPath: "spec.containers{c}", uid: 0f1e2d3c}
  reason: Pulled
  message: Container image "nginx" already present on machine
  source: {component: kubelet, host: ip-10-0-1-1.ec2.internal}
  firstTimestamp: "2026-03-01T10:00:05Z"
  lastTimestamp: "2026-03-01T12:00:05Z"
  count: 7
  type: Normal
  eventTime: null
  reportingComponent: kubelet
  reportingInstance: ip-10-0-1-1.ec2.internal
"""

SNAPSHOT_EVENT = {
    "apiVersion": "v1",
    "count": 7,
    "eventTime": None,
    "firstTimestamp": "2026-03-01T10:00:05Z",
    "involvedObject": {"apiVersion": "v1", "fieldPath": "spec.containers{c}", "kind": "Pod", "name": "web",
                       "namespace": "shop", "uid": "0f1e2d3c"},
    "kind": "Event",
    "lastTimestamp": "2026-03-01T12:00:05Z",
    "message": 'Container image "nginx" already present on machine',
    "metadata": {"creationTimestamp": "2026-03-01T10:00:05Z", "name": "web.17f8a2b3c4d5e6f7", "namespace": "shop",
                 "resourceVersion": "81234", "uid": "4b9a6a4e-2f0c-4f57-9d0b-1f2a3b4c5d6e"},
    "reason": "Pulled",
    "reportingComponent": "kubelet",
    "reportingInstance": "ip-10-0-1-1.ec2.internal",
    "source": {"component": "kubelet", "host": "ip-10-0-1-1.ec2.internal"},
    "type": "Normal",
}


def test_a_snapshots_events_print_as_given(tmp_path):
    path = tmp_path / "must-gather.yaml"
    path.write_text(SNAPSHOT)
    stdout, stderr, code = oc("-f", str(path), "--now", "2026-03-01T12:30:00Z", "get", "events", "-n", "shop", "-o", "json")
    assert (json.loads(stdout), stderr, code) == (
        {"apiVersion": "v1", "items": [SNAPSHOT_EVENT], "kind": "List", "metadata": {"resourceVersion": ""}}, "", 0)
    assert oc("-f", str(path), "--now", "2026-03-01T12:30:00Z", "get", "events", "-n", "shop", "-o", "wide") == (
        "LAST SEEN   TYPE     REASON   OBJECT    SUBOBJECT            SOURCE                              MESSAGE"
        "                                              FIRST SEEN   COUNT   NAME\n"
        "29m         Normal   Pulled   pod/web   spec.containers{c}   kubelet, ip-10-0-1-1.ec2.internal   Container image "
        '"nginx" already present on machine   149m         7       web.17f8a2b3c4d5e6f7\n', "", 0)
    assert oc("-f", str(path), "get", "events", "-A", "-o", "name") == ("event/web.17f8a2b3c4d5e6f7\n", "", 0)


def test_events_read_again_show_what_was_recorded_bumped_or_rewound_since(cluster):
    """The process keeps the events it read (oc_cli): a second read shows a new event, a
    bumped count and a rewind as a first read in a fresh process would."""
    from scheduling.models import Event

    def rows():
        stdout, stderr, code = oc("--cluster", "demo", "--now", NOW, "get", "events", "-A")
        assert code == 0, stderr
        return [" ".join(line.split()[2:6]) for line in stdout.splitlines()[1:]]

    first = rows()
    assert first == ["Warning BackOff pod/web Back-off", "Normal NodeReady node/node2 Node"]
    services.record_event(cluster, reason="BackOff", message="Back-off restarting failed container", kind="Pod",
                          name="web", namespace="default", type="Warning", source="kubelet", time=560)
    services.record_event(cluster, reason="Scheduled", message="Successfully assigned default/web to node2", kind="Pod",
                          name="web", namespace="default", source="default-scheduler", time=570)
    assert rows() == ["Normal NodeReady node/node2 Node", "Warning BackOff pod/web Back-off",
                      "Normal Scheduled pod/web Successfully"]
    stdout, _, _ = oc("--cluster", "demo", "--now", NOW, "get", "events", "-A", "-o", "json")
    assert [e["count"] for e in json.loads(stdout)["items"]] == [1, 3, 1]
    Event.objects.filter(cluster=cluster, reason="Scheduled").delete()
    Event.objects.filter(cluster=cluster, reason="BackOff").update(count=2, last_time=300)
    assert rows() == first
