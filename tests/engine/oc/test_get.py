"""`oc get`: the printer columns of every simulated kind, as kubectl's printers
(pkg/printers/internalversion) and the OpenShift CRDs' printer columns print them, with
AGE from a pinned simulated clock (3600 s = one hour after the epoch), and get's flags."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

NOW = 3600

KINDS = [
 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "creationTimestamp": 0}, "status": {"phase": "Active"}},
 {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default", "creationTimestamp": 60}, "spec": {"type": "ClusterIP", "clusterIP": "172.30.0.10", "clusterIPs": ["172.30.0.10"], "selector": {"app": "web"}, "ports": [{"port": 80, "protocol": "TCP"}, {"port": 443, "protocol": "TCP"}]}},
 {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default", "creationTimestamp": 60}, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}}}, "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}},
 {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-5d4f", "namespace": "default", "creationTimestamp": 60}, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}}}, "status": {"replicas": 3, "readyReplicas": 2}},
 {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default", "creationTimestamp": 120}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "db"}}, "template": {"spec": {"containers": [{"name": "pg", "image": "postgres:16"}]}}}, "status": {"readyReplicas": 2}},
 {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default", "creationTimestamp": 0}, "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"spec": {"nodeSelector": {"kubernetes.io/os": "linux"}, "containers": [{"name": "a", "image": "agent:1"}]}}}, "status": {"desiredNumberScheduled": 2, "currentNumberScheduled": 2, "numberReady": 1, "updatedNumberScheduled": 2, "numberAvailable": 1}},
 {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default", "creationTimestamp": 60}, "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 0}},
 {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1", "creationTimestamp": 0}, "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3", "claimRef": {"namespace": "default", "name": "data"}}, "status": {"phase": "Bound"}},
 {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default", "creationTimestamp": 0}, "spec": {"volumeName": "pv1", "storageClassName": "gp3"}, "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]}},
 {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3", "creationTimestamp": 0, "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": "ebs.csi.aws.com", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True},
 {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high", "creationTimestamp": 0}, "value": 1000000, "globalDefault": False},
 {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version", "creationTimestamp": 0}, "status": {"history": [{"state": "Partial", "version": "4.14.1"}, {"state": "Completed", "version": "4.13.40"}], "conditions": [{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True", "lastTransitionTime": 300, "message": "Working towards 4.14.1: 106 of 860 done (12% complete)"}]}},
 {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool", "metadata": {"name": "worker", "creationTimestamp": 0}, "status": {"configuration": {"name": "rendered-worker-8f1c"}, "conditions": [{"type": "Updated", "status": "False"}, {"type": "Updating", "status": "True"}, {"type": "Degraded", "status": "False"}], "machineCount": 3, "readyMachineCount": 1, "updatedMachineCount": 1, "degradedMachineCount": 0}},
 {"apiVersion": "machine.openshift.io/v1beta1", "kind": "Machine", "metadata": {"name": "ocp-worker-a-x7k2p", "namespace": "openshift-machine-api", "creationTimestamp": 0, "labels": {"machine.openshift.io/instance-type": "m6i.xlarge", "machine.openshift.io/region": "us-east-1", "machine.openshift.io/zone": "us-east-1a"}}, "status": {"phase": "Running", "nodeRef": {"name": "node1"}}},
]


@pytest.mark.parametrize(
    "command, stdout",
    [
        pytest.param('oc get ns',
                     'NAME      STATUS   AGE\n'
                     'default   Active   60m\n',
                     id='get ns'),
        pytest.param('oc get svc -o wide',
                     'NAME   TYPE        CLUSTER-IP    EXTERNAL-IP   PORT(S)          AGE   SELECTOR\n'
                     'web    ClusterIP   172.30.0.10   <none>        80/TCP,443/TCP   59m   app=web\n',
                     id='get svc -o wide'),
        pytest.param('oc get deploy -o wide',
                     'NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR\n'
                     'web    2/3     3            2           59m   nginx        nginx:1.25   app=web\n',
                     id='get deploy -o wide'),
        pytest.param('oc get rs',
                     'NAME       DESIRED   CURRENT   READY   AGE\n'
                     'web-5d4f   3         3         2       59m\n',
                     id='get rs'),
        pytest.param('oc get sts',
                     'NAME   READY   AGE\n'
                     'db     2/2     58m\n',
                     id='get sts'),
        pytest.param('oc get ds',
                     'NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE\n'
                     'agent   2         2         1       2            1           kubernetes.io/os=linux   60m\n',
                     id='get ds'),
        pytest.param('oc get pdb',
                     'NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\n'
                     'web    2               N/A               0                     59m\n',
                     id='get pdb'),
        pytest.param('oc get pv',
                     'NAME   CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS   CLAIM          STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE\n'
                     'pv1    10Gi       RWO            Delete           Bound    default/data   gp3            <unset>                          60m\n',
                     id='get pv'),
        pytest.param('oc get pvc',
                     'NAME   STATUS   VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\n'
                     'data   Bound    pv1      10Gi       RWO            gp3            <unset>                 60m\n',
                     id='get pvc'),
        pytest.param('oc get sc',
                     'NAME            PROVISIONER       RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE\n'
                     'gp3 (default)   ebs.csi.aws.com   Delete          WaitForFirstConsumer   true                   60m\n',
                     id='get sc'),
        pytest.param('oc get pc',
                     'NAME   VALUE     GLOBAL-DEFAULT   AGE\n'
                     'high   1000000   false            60m\n',
                     id='get pc: PREEMPTIONPOLICY is a wide column'),
        pytest.param('oc get pc -o wide',
                     'NAME   VALUE     GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY\n'
                     'high   1000000   false            60m   \n',
                     id='get pc -o wide: a policy the object does not have is blank'),
        pytest.param('oc get clusterversion',
                     'NAME      VERSION   AVAILABLE   PROGRESSING   SINCE   STATUS\n'
                     'version   4.13.40   True        True          55m     Working towards 4.14.1: 106 of 860 done (12% complete)\n',
                     id='get clusterversion'),
        pytest.param('oc get mcp',
                     'NAME     CONFIG                 UPDATED   UPDATING   DEGRADED   MACHINECOUNT   READYMACHINECOUNT   UPDATEDMACHINECOUNT   DEGRADEDMACHINECOUNT   AGE\n'
                     'worker   rendered-worker-8f1c   False     True       False      3              1                   1                     0                      60m\n',
                     id='get mcp'),
        pytest.param('oc get machines -n openshift-machine-api',
                     'NAME                 PHASE     TYPE         REGION      ZONE         AGE\n'
                     'ocp-worker-a-x7k2p   Running   m6i.xlarge   us-east-1   us-east-1a   60m\n',
                     id='get machines -n openshift-machine-api'),
    ],
)
def test_each_kind_prints_kubectls_columns(command, stdout):
    assert oc.run(Store(KINDS), command, NOW).stdout == stdout


@pytest.mark.parametrize(
    "seconds, text",
    [(-5, "<invalid>"), (-1, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (150, "2m30s"), (600, "10m"), (10799, "179m"),
     (10800, "3h"), (11700, "3h15m"), (28800, "8h"), (172799, "47h"), (172800, "2d"), (180000, "2d2h"), (691200, "8d"),
     (63072000, "2y"), (63158400, "2y1d"), (252288000, "8y")],
)
def test_ages_are_kubectls_human_durations(seconds, text):
    from scheduling.engine.oc.output import human_duration

    assert human_duration(seconds) == text


PODS = Store([
    node_doc("node1"),
    pod_doc("web-1", node="node1", labels={"app": "web", "tier": "front"}, phase="Running"),
    pod_doc("web-2", labels={"app": "web"}),
    pod_doc("db-0", node="node1", namespace="data", labels={"app": "db"}, phase="Running"),
])


@pytest.mark.parametrize(
    "command, stdout, stderr, code",
    [
        pytest.param("oc get pods -l app=web -o name", "pod/web-1\npod/web-2\n", "", 0, id="-l selects by label"),
        pytest.param("oc get pods -A -o name", "pod/db-0\npod/web-1\npod/web-2\n", "", 0,
                     id="-A lists every namespace, sorted by namespace then name"),
        pytest.param("oc get pods -n data -o name", "pod/db-0\n", "", 0, id="-n picks the namespace"),
        pytest.param("oc get pods --field-selector spec.nodeName=node1 -A -o name", "pod/db-0\npod/web-1\n", "", 0,
                     id="--field-selector spec.nodeName"),
        pytest.param("oc get pods --field-selector status.phase!=Running -o name", "pod/web-2\n", "", 0,
                     id="--field-selector with !="),
        pytest.param("oc get pods --field-selector spec.host=node1 -o name", "pod/web-1\n", "", 0,
                     id="--field-selector spec.host, old clients' spec.nodeName"),
        pytest.param("oc get nodes --field-selector spec.unschedulable=false -o name", "node/node1\n", "", 0,
                     id="--field-selector spec.unschedulable: unset is false"),
        pytest.param("oc get pods -l app=web --field-selector spec.nodename=node1", "",
                     'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "app=web", '
                     'field selector "spec.nodename=node1": field label not supported: spec.nodename\n', 1,
                     id="a field the API server does not convert for pods"),
        pytest.param("oc get nodes --field-selector spec.nodeName=node1", "",
                     'Error from server (BadRequest): Unable to find "/v1, Resource=nodes" that match label selector "", '
                     'field selector "spec.nodeName=node1": field label not supported: spec.nodeName\n', 1,
                     id="nodes have no spec.nodeName field label"),
        pytest.param("oc get deploy --field-selector status.phase=Running", "",
                     'Error from server (BadRequest): Unable to find "apps/v1, Resource=deployments" that match label selector "", '
                     'field selector "status.phase=Running": "status.phase" is not a known field selector: only "metadata.name", '
                     '"metadata.namespace"\n', 1, id="other kinds: the object meta fields only"),
        pytest.param("oc get pod web-1 --show-labels",
                     "NAME    READY   STATUS    RESTARTS   AGE         LABELS\nweb-1   1/1     Running   0          <unknown>   app=web,tier=front\n",
                     "", 0, id="--show-labels, and <unknown> AGE without creationTimestamp"),
        pytest.param("oc get pods -l app=none", "", "No resources found in default namespace.\n", 0,
                     id="nothing found is said on stderr"),
        pytest.param("oc get nodes -l x=y", "", "No resources found\n", 0, id="cluster-scoped: no namespace named"),
        pytest.param("oc get pod nope", "", 'Error from server (NotFound): pods "nope" not found\n', 1, id="a missing object"),
        pytest.param("oc get pod web-1 nope -o name", "pod/web-1\n", 'Error from server (NotFound): pods "nope" not found\n', 1,
                     id="the others are still printed"),
        pytest.param("oc get gizmos", "", 'error: the server doesn\'t have a resource type "gizmos"\n', 1, id="an unknown type"),
        pytest.param("oc get pods -o table", "",
                     'error: unable to match a printer suitable for the output format "table", allowed formats are: '
                     "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,"
                     "jsonpath-file,name,template,templatefile,wide,yaml\n", 1, id="an unknown output format"),
        pytest.param("oc get pods -o jsonpath='{range .items[*]}{.metadata.name}{\"\\t\"}{.spec.nodeName}{\"\\n\"}{end}'",
                     "web-1\tnode1\nweb-2\t\n", "", 0, id="jsonpath with range"),
        pytest.param("oc get deploy,po -o name -n data", "pod/db-0\n", "", 0, id="several types"),
        pytest.param("oc get no/node1 pod/web-1 -o name", "node/node1\npod/web-1\n", "", 0, id="TYPE/NAME arguments"),
    ],
)
def test_get_flags(command, stdout, stderr, code):
    result = oc.run(PODS, command, NOW)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, stderr, code)


def test_o_name_names_the_group():
    assert oc.run(Store(KINDS), "oc get deploy,pdb,mcp -o name", NOW).stdout == (
        "deployment.apps/web\npoddisruptionbudget.policy/web\nmachineconfigpool.machineconfiguration.openshift.io/worker\n")


def test_o_yaml_prints_the_object_with_sorted_keys_and_timestamps():
    store = Store([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "creationTimestamp": 90,
                                                                       "labels": {"disk": "ssd", "zone": "true"}},
                    "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoExecute", "timeAdded": 30}]}}])
    assert oc.run(store, "oc get node n1 -o yaml", NOW).stdout == (
        "apiVersion: v1\n"
        "kind: Node\n"
        "metadata:\n"
        '  creationTimestamp: "2026-01-01T00:01:30Z"\n'
        "  labels:\n"
        "    disk: ssd\n"
        '    zone: "true"\n'
        "  name: n1\n"
        "spec:\n"
        "  taints:\n"
        "  - effect: NoExecute\n"
        "    key: k\n"
        '    timeAdded: "2026-01-01T00:00:30Z"\n'
        "    value: v\n"
    )


def test_o_json_of_a_list_is_a_v1_list():
    import json

    listed = json.loads(oc.run(PODS, "oc get pods -l app=web -o json", NOW).stdout)
    assert (listed["apiVersion"], listed["kind"], listed["metadata"]) == ("v1", "List", {"resourceVersion": ""})
    assert [i["metadata"]["name"] for i in listed["items"]] == ["web-1", "web-2"]


def test_get_events_lists_what_happened_oldest_first():
    from scheduling.engine import actions as A

    store = Store([node_doc("node1")])
    store.apply(A.RecordEvent(3000, "Warning", "FailedScheduling", "Pod", "default", "web", "0/1 nodes are available: "
                              "1 node(s) had taints that the pod didn't tolerate.", "default-scheduler"))
    store.apply(A.RecordEvent(3590, "Normal", "NodeNotReady", "Node", "", "node1", "Node node1 status is now: NodeNotReady",
                              "node-controller"))
    assert oc.run(store, "oc get events", NOW).stdout == (
        "LAST SEEN   TYPE      REASON             OBJECT       MESSAGE\n"
        "10m         Warning   FailedScheduling   pod/web      0/1 nodes are available: 1 node(s) had taints that the pod "
        "didn't tolerate.\n"
        "10s         Normal    NodeNotReady       node/node1   Node node1 status is now: NodeNotReady\n"
    )


def test_get_events_takes_the_field_selectors_of_events():
    from scheduling.engine import actions as A

    store = Store([node_doc("node1")])
    store.apply(A.RecordEvent(3000, "Warning", "FailedScheduling", "Pod", "default", "web", "0/1 nodes are available.",
                              "default-scheduler"))
    store.apply(A.RecordEvent(3590, "Normal", "Scheduled", "Pod", "default", "db", "Successfully assigned default/db to node1",
                              "default-scheduler"))
    assert oc.run(store, "oc get events --field-selector involvedObject.name=db,type=Normal", NOW).stdout == (
        "LAST SEEN   TYPE     REASON      OBJECT   MESSAGE\n"
        "10s         Normal   Scheduled   pod/db   Successfully assigned default/db to node1\n"
    )
    result = oc.run(store, "oc get events --field-selector involvedObject.node=x", NOW)
    assert (result.stdout, result.stderr, result.exit_code) == (
        "", 'Error from server (BadRequest): Unable to find "/v1, Resource=events" that match label selector "", field selector '
            '"involvedObject.node=x": field label not supported: involvedObject.node\n', 1)


def test_json_and_jsonpath_print_maps_with_sorted_keys_as_encoding_json_does():
    """kubectl prints unstructured objects: encoding/json marshals their maps with sorted keys."""
    store = Store([node_doc("node1", taints=["k=v:NoExecute"]), pod_doc("web-1", node="node1", tolerations=[
        {"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 60}])])
    assert oc.run(store, "oc get pod web-1 -o jsonpath={.spec.tolerations}", NOW).stdout == (
        '[{"effect":"NoExecute","key":"k","operator":"Equal","tolerationSeconds":60,"value":"v"}]')
    assert oc.run(store, "oc get node node1 -o json", NOW).stdout == (
        "{\n"
        '    "apiVersion": "v1",\n'
        '    "kind": "Node",\n'
        '    "metadata": {\n'
        '        "labels": {\n'
        '            "kubernetes.io/hostname": "node1"\n'
        "        },\n"
        '        "name": "node1"\n'
        "    },\n"
        '    "spec": {\n'
        '        "taints": [\n'
        "            {\n"
        '                "effect": "NoExecute",\n'
        '                "key": "k",\n'
        '                "value": "v"\n'
        "            }\n"
        "        ]\n"
        "    },\n"
        '    "status": {\n'
        '        "allocatable": {\n'
        '            "cpu": "4",\n'
        '            "memory": "8Gi",\n'
        '            "pods": "110"\n'
        "        },\n"
        '        "capacity": {\n'
        '            "cpu": "4",\n'
        '            "memory": "8Gi",\n'
        '            "pods": "110"\n'
        "        }\n"
        "    }\n"
        "}\n"
    )
    tainted = oc.run(store, "oc adm taint nodes node1 a=b:NoSchedule -o json", NOW).stdout
    assert tainted.index('"effect": "NoSchedule"') < tainted.index('"key": "a"') < tainted.index('"value": "b"')
