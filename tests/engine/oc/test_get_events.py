"""`oc get events` in every output format: printEvent's table and its `-o wide` columns
(kubernetes pkg/printers/internalversion), the Event objects as the API server returns
them (`-o json|yaml`, a v1 List as kubectl prints one), `-o name`; with -n, -A and
--field-selector. Repeats of an engine event are folded as client-go's EventCorrelator
folds them (count, firstTimestamp, lastTimestamp)."""

from __future__ import annotations

import json

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

NOW = 3600  # 2026-01-01T01:00:00Z


def cluster() -> Store:
    store = Store([node_doc("node1"), pod_doc("web", node="node1"), pod_doc("db", namespace="team", node="node1")])
    store.apply(A.RecordEvent(3000, "Warning", "FailedScheduling", "Pod", "default", "web", "0/1 nodes are available.",
                              "default-scheduler"))
    store.apply(A.RecordEvent(3100, "Warning", "FailedScheduling", "Pod", "default", "web", "0/1 nodes are available.",
                              "default-scheduler"))
    store.apply(A.RecordEvent(3300, "Normal", "Scheduled", "Pod", "team", "db", "Successfully assigned team/db to node1",
                              "default-scheduler"))
    store.apply(A.RecordEvent(3590, "Normal", "NodeNotReady", "Node", "", "node1", "Node node1 status is now: NodeNotReady",
                              "node-controller"))
    return store


WEB_EVENT = {
    "apiVersion": "v1",
    "count": 2,
    "eventTime": None,
    "firstTimestamp": "2026-01-01T00:50:00Z",
    "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default"},
    "kind": "Event",
    "lastTimestamp": "2026-01-01T00:51:40Z",
    "message": "0/1 nodes are available.",
    "metadata": {"creationTimestamp": "2026-01-01T00:50:00Z", "name": "web.1886750c83ee2978", "namespace": "default"},
    "reason": "FailedScheduling",
    "reportingComponent": "default-scheduler",
    "reportingInstance": "",
    "source": {"component": "default-scheduler"},
    "type": "Warning",
}
NODE_EVENT = {
    "apiVersion": "v1",
    "count": 1,
    "eventTime": None,
    "firstTimestamp": "2026-01-01T00:59:50Z",
    "involvedObject": {"apiVersion": "v1", "kind": "Node", "name": "node1"},
    "kind": "Event",
    "lastTimestamp": "2026-01-01T00:59:50Z",
    "message": "Node node1 status is now: NodeNotReady",
    "metadata": {"creationTimestamp": "2026-01-01T00:59:50Z", "name": "node1.18867595f5fdbf12", "namespace": "default"},
    "reason": "NodeNotReady",
    "reportingComponent": "node-controller",
    "reportingInstance": "",
    "source": {"component": "node-controller"},
    "type": "Normal",
}


def v1_list(*items: dict) -> dict:
    return {"apiVersion": "v1", "items": list(items), "kind": "List", "metadata": {"resourceVersion": ""}}


@pytest.mark.parametrize(
    "command, document",
    [
        pytest.param("oc get events -o json", v1_list(WEB_EVENT, NODE_EVENT),
                     id="-o json is a v1 List of the namespace's Events, a repeat folded into count and lastTimestamp"),
        pytest.param("oc get ev -o json --field-selector involvedObject.kind=Node", v1_list(NODE_EVENT),
                     id="the field selector chooses among the Events"),
        pytest.param("oc get events -o json --field-selector source=default-scheduler,reason=FailedScheduling",
                     v1_list(WEB_EVENT), id="the source field is the source component"),
        pytest.param("oc get events -o json --field-selector metadata.name=node1.18867595f5fdbf12", v1_list(NODE_EVENT),
                     id="an Event is selected by its name"),
        pytest.param("oc get events node1.18867595f5fdbf12 -o json", NODE_EVENT, id="one Event named is the Event itself"),
        pytest.param("oc get events -n kube-system -o json", v1_list(), id="a namespace without Events is an empty List"),
    ],
)
def test_get_events_o_json_prints_the_event_objects_of_the_api_server(command, document):
    result = oc.run(cluster(), command, NOW)
    assert (json.loads(result.stdout), result.stderr, result.exit_code) == (document, "", 0)


def test_get_events_o_json_across_namespaces_lists_each_event_in_its_namespace():
    listed = json.loads(oc.run(cluster(), "oc get events -A -o json", NOW).stdout)
    assert [(i["metadata"]["namespace"], i["metadata"]["name"], i["involvedObject"].get("namespace"), i["count"])
            for i in listed["items"]] == [
        ("default", "web.1886750c83ee2978", "default", 2),
        ("team", "db.1886755251376e30", "team", 1),
        ("default", "node1.18867595f5fdbf12", None, 1),
    ]


def test_get_events_o_yaml_prints_the_list_as_kubectl_does():
    assert oc.run(cluster(), "oc get events -o yaml --field-selector involvedObject.name=node1", NOW).stdout == (
        "apiVersion: v1\n"
        "items:\n"
        "- apiVersion: v1\n"
        "  count: 1\n"
        "  eventTime: null\n"
        '  firstTimestamp: "2026-01-01T00:59:50Z"\n'
        "  involvedObject:\n"
        "    apiVersion: v1\n"
        "    kind: Node\n"
        "    name: node1\n"
        "  kind: Event\n"
        '  lastTimestamp: "2026-01-01T00:59:50Z"\n'
        '  message: "Node node1 status is now: NodeNotReady"\n'
        "  metadata:\n"
        '    creationTimestamp: "2026-01-01T00:59:50Z"\n'
        "    name: node1.18867595f5fdbf12\n"
        "    namespace: default\n"
        "  reason: NodeNotReady\n"
        "  reportingComponent: node-controller\n"
        '  reportingInstance: ""\n'
        "  source:\n"
        "    component: node-controller\n"
        "  type: Normal\n"
        "kind: List\n"
        "metadata:\n"
        '  resourceVersion: ""\n'
    )


@pytest.mark.parametrize(
    "command, stdout",
    [
        pytest.param("oc get events",
                     "LAST SEEN   TYPE      REASON             OBJECT       MESSAGE\n"
                     "8m20s       Warning   FailedScheduling   pod/web      0/1 nodes are available.\n"
                     "10s         Normal    NodeNotReady       node/node1   Node node1 status is now: NodeNotReady\n",
                     id="the table shows an event folded once, at its last time"),
        pytest.param("oc get events -o wide",
                     "LAST SEEN   TYPE      REASON             OBJECT       SUBOBJECT   SOURCE              MESSAGE"
                     "                                  FIRST SEEN   COUNT   NAME\n"
                     "8m20s       Warning   FailedScheduling   pod/web                  default-scheduler   0/1 nodes are "
                     "available.                 10m          2       web.1886750c83ee2978\n"
                     "10s         Normal    NodeNotReady       node/node1               node-controller     Node node1 "
                     "status is now: NodeNotReady   10s          1       node1.18867595f5fdbf12\n",
                     id="-o wide adds SUBOBJECT and SOURCE before MESSAGE, FIRST SEEN COUNT NAME after it"),
        pytest.param("oc get events -A -o wide --field-selector type=Normal",
                     "NAMESPACE   LAST SEEN   TYPE     REASON         OBJECT       SUBOBJECT   SOURCE              MESSAGE"
                     "                                  FIRST SEEN   COUNT   NAME\n"
                     "team        5m          Normal   Scheduled      pod/db                   default-scheduler   "
                     "Successfully assigned team/db to node1   5m           1       db.1886755251376e30\n"
                     "default     10s         Normal   NodeNotReady   node/node1               node-controller     "
                     "Node node1 status is now: NodeNotReady   10s          1       node1.18867595f5fdbf12\n",
                     id="-A -o wide starts with NAMESPACE"),
        pytest.param("oc get events -o name", "event/web.1886750c83ee2978\nevent/node1.18867595f5fdbf12\n",
                     id="-o name prints event/<name>"),
        pytest.param("oc get events -n team -o name", "event/db.1886755251376e30\n", id="-n with -o name"),
        pytest.param("oc get events -o jsonpath={.items[*].count}", "2 1", id="-o jsonpath reads the Events"),
    ],
)
def test_get_events_prints_each_format(command, stdout):
    result = oc.run(cluster(), command, NOW)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, "", 0)


def test_an_event_not_found_is_the_api_servers_not_found():
    result = oc.run(cluster(), "oc get events web.0 -o json", NOW)
    assert (result.stdout, result.stderr, result.exit_code) == ("", 'Error from server (NotFound): events "web.0" not found\n', 1)


def test_event_names_are_the_first_time_in_unix_nanoseconds_and_stay_apart_within_a_second():
    """makeEvent names an Event `<object>.<hex UnixNano>`: the second is the first time's, the
    nanoseconds within it differ between two events of one object in the same second."""
    store = Store([pod_doc("web")])
    store.apply(A.RecordEvent(0, "Normal", "Scheduled", "Pod", "default", "web", "Successfully assigned default/web to n1",
                              "default-scheduler"))
    store.apply(A.RecordEvent(0, "Normal", "Pulled", "Pod", "default", "web", "Container image already present", "kubelet"))
    names = oc.run(store, "oc get events -o name", NOW).stdout.split()
    nanos = [int(n.rpartition(".")[2], 16) for n in names]
    assert len(set(names)) == 2
    assert [n // 10**9 for n in nanos] == [1767225600, 1767225600]  # 2026-01-01T00:00:00Z
    assert names == oc.run(store, "oc get events -o name", NOW + 60).stdout.split()
