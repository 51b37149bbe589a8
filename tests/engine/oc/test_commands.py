"""`oc annotate`, `oc label` on any kind, `oc scale`, `oc delete`, `oc create|apply|replace -f`
and `oc describe node|pod`: kubectl's output (pinned simulated clock) and the actions."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import Store
from tests.engine.builders import node_doc, pod_doc

NOW = 600
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default", "uid": "d1"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def cluster() -> Store:
    web = pod_doc("web-1", node="node1", labels={"app": "web"}, owner=("ReplicaSet", "web-5d4f"), phase="Running")
    web["metadata"]["creationTimestamp"] = 300
    return Store([node_doc("node1"), DEPLOYMENT, web, pod_doc("lonely", node="node1")])


@pytest.mark.parametrize(
    "command, stdout, stderr, code, actions",
    [
        pytest.param("oc annotate pod web-1 owner=team-a", "pod/web-1 annotated\n", "", 0,
                     [A.SetAnnotation("Pod", "default", "web-1", "owner", "team-a")], id="annotate"),
        pytest.param("oc annotate node node1 note='two words'", "node/node1 annotated\n", "", 0,
                     [A.SetAnnotation("Node", "", "node1", "note", "two words")], id="annotation values may hold spaces"),
        pytest.param("oc annotate pod web-1 owner=a owner-", "",
                     "error: can not both modify and remove the following annotation(s) in the same command: owner\n", 1, [],
                     id="modify and remove"),
        pytest.param("oc annotate pod web-1 justakey", "", "error: at least one annotation update is required\n", 1, [],
                     id="a word without = is one more resource name"),
        pytest.param("oc label deploy web tier=front", "deployment.apps/web labeled\n", "", 0,
                     [A.SetLabel("Deployment", "default", "web", "tier", "front")], id="label any kind"),
        pytest.param("oc scale deployment web --replicas=5", "deployment.apps/web scaled\n", "", 0,
                     [A.SetReplicas("Deployment", "default", "web", 5)], id="scale"),
        pytest.param("oc scale deploy/web --replicas=1 --current-replicas=3", "", "error: Expected replicas to be 3, was 2\n", 1, [],
                     id="scale with a precondition that fails"),
        pytest.param("oc scale deploy web", "",
                     "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n", 1, [],
                     id="scale without --replicas"),
        pytest.param("oc scale deploy web --replicas=2 --dry-run=client", "deployment.apps/web scaled (dry run)\n", "", 0, [],
                     id="scale dry run"),
        pytest.param("oc delete pod lonely", 'pod "lonely" deleted from default namespace\n', "", 0,
                     [A.SetPodDeletion("default", "lonely", NOW, 30, "Deleted")], id="delete a pod gracefully"),
        pytest.param("oc delete pod lonely --grace-period=0 --force", 'pod "lonely" force deleted from default namespace\n',
                     "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. "
                     "The resource may continue to run on the cluster indefinitely.\n", 0,
                     [A.DeleteObject("Pod", "default", "lonely")], id="force delete"),
        pytest.param("oc delete node node9", "", 'Error from server (NotFound): nodes "node9" not found\n', 1, [],
                     id="delete a missing object"),
        pytest.param("oc delete node node9 --ignore-not-found", "", "", 0, [], id="--ignore-not-found"),
        pytest.param("oc delete pods -l app=web --dry-run=server", 'pod "web-1" deleted from default namespace (server dry run)\n',
                     "", 0, [], id="delete by label, server dry run"),
        pytest.param("oc delete", "",
                     "error: You must provide one or more resources by argument or filename.\nExample resource specifications "
                     "include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n"
                     "See 'oc delete -h' for help and examples\n", 1, [], id="delete without arguments"),
    ],
)
def test_commands(command, stdout, stderr, code, actions):
    result = oc.run(cluster(), command, NOW)
    assert (result.stdout, result.stderr, result.exit_code, result.actions) == (stdout, stderr, code, actions)


def test_deleting_a_deployment_takes_its_pods():
    result = oc.run(cluster(), "oc delete deployment web", NOW)
    assert result.stdout == 'deployment.apps "web" deleted from default namespace\n'
    assert A.DeleteObject("Deployment", "default", "web") in result.actions


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "new"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


@pytest.mark.parametrize(
    "command, files, stdout, stderr, code",
    [
        pytest.param("oc create -f pod.yaml", {"pod.yaml": [POD]}, "pod/new created\n", "", 0, id="create"),
        pytest.param("oc create -f pod.yaml", {"pod.yaml": [{**POD, "metadata": {"name": "lonely"}}]}, "",
                     'Error from server (AlreadyExists): error when creating "pod.yaml": pods "lonely" already exists\n', 1,
                     id="create an existing object"),
        pytest.param("oc replace -f pod.yaml", {"pod.yaml": [POD]}, "",
                     'Error from server (NotFound): error when replacing "pod.yaml": pods "new" not found\n', 1,
                     id="replace a missing object"),
        pytest.param("oc apply -f pod.yaml", {"pod.yaml": [POD]}, "pod/new created\n", "", 0, id="apply creates"),
        pytest.param("oc apply -f d.yaml", {"d.yaml": [DEPLOYMENT]}, "deployment.apps/web unchanged\n", "", 0,
                     id="apply of the same object"),
        pytest.param("oc apply -f d.yaml", {"d.yaml": [{**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "replicas": 4}}]},
                     "deployment.apps/web configured\n", "", 0, id="apply of a change"),
        pytest.param("oc create -f bad.yaml", {"bad.yaml": [{**POD, "metadata": {"name": "Bad_Name"}}]}, "",
                     "The Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a DNS-1123 subdomain "
                     "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                     "character (e.g. 'example.com', regex used for validation is "
                     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n", 1, id="validation"),
        # kubectl's `if count == 0 { return fmt.Errorf("no objects passed to <verb>") }` (create.go,
        # apply.go, replace.go) and the FileVisitor's error for a path it cannot read
        pytest.param("oc create -f -", {"-": []}, "", "error: no objects passed to create\n", 1, id="create: empty stdin"),
        pytest.param("oc apply -f -", {}, "", "error: no objects passed to apply\n", 1, id="apply: no stdin at all"),
        pytest.param("oc replace -f empty.yaml", {"empty.yaml": []}, "", "error: no objects passed to replace\n", 1,
                     id="replace: a file without objects"),
        pytest.param("oc create -f pod.yaml", {}, "", 'error: the path "pod.yaml" does not exist\n', 1,
                     id="create: a file the caller could not read"),
        pytest.param("oc apply -f list.yaml", {"list.yaml": ["not an object", 3]}, "", "error: no objects passed to apply\n", 1,
                     id="apply: documents that are not objects"),
    ],
)
def test_create_apply_replace(command, files, stdout, stderr, code):
    result = oc.run(cluster(), command, NOW, files=files)
    assert (result.stdout, result.stderr, result.exit_code) == (stdout, stderr, code)


def test_describe_pod():
    store = cluster()
    store.apply(A.RecordEvent(300, "Normal", "Scheduled", "Pod", "default", "web-1", "Successfully assigned default/web-1 to node1",
                              "default-scheduler"))
    for t in (400, 500, 580):
        store.apply(A.RecordEvent(t, "Warning", "BackOff", "Pod", "default", "web-1", "Back-off restarting failed container", "kubelet"))
    assert oc.run(store, "oc describe pod web-1", NOW).stdout == (
        "Name:             web-1\n"
        "Namespace:        default\n"
        "Service Account:  default\n"
        "Node:             node1/\n"
        "Labels:           app=web\n"
        "Annotations:      <none>\n"
        "Status:           Running\n"
        "IP:               \n"
        "IPs:              <none>\n"
        "Controlled By:    ReplicaSet/web-5d4f\n"
        "Containers:\n"
        "  c:\n"
        "    Image:        busybox\n"
        "    Port:         <none>\n"
        "    Host Port:    <none>\n"
        "    Environment:  <none>\n"
        "    Mounts:       <none>\n"
        "Volumes:          <none>\n"
        "QoS Class:        BestEffort\n"
        "Node-Selectors:   <none>\n"
        "Tolerations:      <none>\n"
        "Events:\n"
        "  Type     Reason     Age                  From               Message\n"
        "  ----     ------     ----                 ----               -------\n"
        "  Normal   Scheduled  5m                   default-scheduler  Successfully assigned default/web-1 to node1\n"
        "  Warning  BackOff    20s (x3 over 3m20s)  kubelet            Back-off restarting failed container\n"
    )


def test_describe_without_a_type_is_a_plain_error():
    result = oc.run(cluster(), "oc describe", NOW)
    assert (result.stdout, result.stderr, result.exit_code) == (
        "", 'error: You must specify the type of resource to describe. Use "oc api-resources" for a complete list of '
            "supported resources.\n", 1)


def test_describe_a_missing_pod():
    result = oc.run(cluster(), "oc describe pod nope", NOW)
    assert (result.stdout, result.stderr, result.exit_code) == ("", 'Error from server (NotFound): pods "nope" not found\n', 1)


def test_describe_node():
    store = Store([node_doc("node1", taints=["k=v:NoSchedule"], unschedulable=True),
                   pod_doc("db", node="node1", cpu="500m")])
    assert oc.run(store, "oc describe node node1", NOW).stdout == (
        "Name:               node1\n"
        "Roles:              <none>\n"
        "Labels:             kubernetes.io/hostname=node1\n"
        "Annotations:        <none>\n"
        "CreationTimestamp:  Mon, 01 Jan 0001 00:00:00 +0000\n"  # Go's zero time: no creationTimestamp given
        "Taints:             k=v:NoSchedule\n"
        "Unschedulable:      true\n"
        "Addresses:\n"  # always written, even with no addresses
        "Capacity:\n"
        "  cpu:     4\n"
        "  memory:  8Gi\n"
        "  pods:    110\n"
        "Allocatable:\n"
        "  cpu:     4\n"
        "  memory:  8Gi\n"
        "  pods:    110\n"
        "System Info:\n"  # always written; one tabwriter column block down to the pods table
        "  Machine ID:                 \n"
        "  System UUID:                \n"
        "  Boot ID:                    \n"
        "  Kernel Version:             \n"
        "  OS Image:                   \n"
        "  Operating System:           \n"
        "  Architecture:               \n"
        "  Container Runtime Version:  \n"
        "  Kubelet Version:            \n"
        "Non-terminated Pods:          (1 in total)\n"
        "  Namespace                   Name    CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        "  ---------                   ----    ------------  ----------  ---------------  -------------  ---\n"
        "  default                     db      500m (12%)    0 (0%)      0 (0%)           0 (0%)         <unknown>\n"
        "Allocated resources:\n"
        "  (Total limits may be over 100 percent, i.e., overcommitted.)\n"
        "  Resource           Requests    Limits\n"
        "  --------           --------    ------\n"
        "  cpu                500m (12%)  0 (0%)\n"
        "  memory             0 (0%)      0 (0%)\n"
        "  ephemeral-storage  0 (0%)      0 (0%)\n"
        "Events:              <none>\n"
    )


def test_describe_node_with_addresses_system_info_and_extended_resources():
    """describeNode: the addresses, the node info, PodCIDR(s) and ProviderID, and the
    hugepages (with percentages) and extended resources (without) of Allocated resources."""
    resources = {"cpu": "4", "hugepages-2Mi": "1Gi", "memory": "8Gi", "nvidia.com/gpu": "2", "pods": "110"}
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node2", "labels": {"kubernetes.io/hostname": "node2"}, "creationTimestamp": 0},
            "spec": {"podCIDR": "10.128.2.0/23", "podCIDRs": ["10.128.2.0/23"], "providerID": "aws:///us-east-1a/i-0abc"},
            "status": {"capacity": resources, "allocatable": resources,
                       "addresses": [{"type": "InternalIP", "address": "10.0.0.2"}, {"type": "Hostname", "address": "node2"}],
                       "nodeInfo": {"machineID": "m-2", "systemUUID": "u-2", "bootID": "b-2",
                                    "kernelVersion": "5.14.0-427.el9.x86_64", "osImage": "Red Hat Enterprise Linux CoreOS 9.6",
                                    "operatingSystem": "linux", "architecture": "amd64",
                                    "containerRuntimeVersion": "cri-o://1.33.5", "kubeletVersion": "v1.33.5"}}}
    gpu = pod_doc("gpu", node="node2", cpu="1")
    gpu["metadata"]["creationTimestamp"] = 0
    gpu["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "1", "hugepages-2Mi": "512Mi"}
    assert oc.run(Store([node, gpu]), "oc describe node node2", NOW).stdout == (
        "Name:               node2\n"
        "Roles:              <none>\n"
        "Labels:             kubernetes.io/hostname=node2\n"
        "Annotations:        <none>\n"
        "CreationTimestamp:  Thu, 01 Jan 2026 00:00:00 +0000\n"
        "Taints:             <none>\n"
        "Unschedulable:      false\n"
        "Addresses:\n"
        "  InternalIP:  10.0.0.2\n"
        "  Hostname:    node2\n"
        "Capacity:\n"
        "  cpu:             4\n"
        "  hugepages-2Mi:   1Gi\n"
        "  memory:          8Gi\n"
        "  nvidia.com/gpu:  2\n"
        "  pods:            110\n"
        "Allocatable:\n"
        "  cpu:             4\n"
        "  hugepages-2Mi:   1Gi\n"
        "  memory:          8Gi\n"
        "  nvidia.com/gpu:  2\n"
        "  pods:            110\n"
        "System Info:\n"
        "  Machine ID:                 m-2\n"
        "  System UUID:                u-2\n"
        "  Boot ID:                    b-2\n"
        "  Kernel Version:             5.14.0-427.el9.x86_64\n"
        "  OS Image:                   Red Hat Enterprise Linux CoreOS 9.6\n"
        "  Operating System:           linux\n"
        "  Architecture:               amd64\n"
        "  Container Runtime Version:  cri-o://1.33.5\n"
        "  Kubelet Version:            v1.33.5\n"
        "PodCIDR:                      10.128.2.0/23\n"
        "PodCIDRs:                     10.128.2.0/23\n"
        "ProviderID:                   aws:///us-east-1a/i-0abc\n"
        "Non-terminated Pods:          (1 in total)\n"
        "  Namespace                   Name    CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        "  ---------                   ----    ------------  ----------  ---------------  -------------  ---\n"
        "  default                     gpu     1 (25%)       0 (0%)      0 (0%)           0 (0%)         10m\n"
        "Allocated resources:\n"
        "  (Total limits may be over 100 percent, i.e., overcommitted.)\n"
        "  Resource           Requests     Limits\n"
        "  --------           --------     ------\n"
        "  cpu                1 (25%)      0 (0%)\n"
        "  memory             0 (0%)       0 (0%)\n"
        "  ephemeral-storage  0 (0%)       0 (0%)\n"
        "  hugepages-2Mi      512Mi (50%)  512Mi (50%)\n"
        "  nvidia.com/gpu     1            1\n"
        "Events:              <none>\n"
    )


def test_describe_pod_prints_every_port_and_one_node_selector_a_line():
    """describeContainerBasicInfo: several ports as `Ports:`/`Host Ports:`, named; the node
    selector with printLabelsMultiline, one a line."""
    pod = pod_doc("api", node="node1")
    pod["spec"]["nodeSelector"] = {"zone": "a", "disk": "ssd"}
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "name": "http", "protocol": "TCP"},
                                             {"containerPort": 8443, "hostPort": 8443, "name": "https", "protocol": "TCP"}]
    assert oc.run(Store([node_doc("node1"), pod]), "oc describe pod api", NOW).stdout == (
        "Name:             api\n"
        "Namespace:        default\n"
        "Service Account:  default\n"
        "Node:             node1/\n"
        "Labels:           <none>\n"
        "Annotations:      <none>\n"
        "Status:           Running\n"
        "IP:               \n"
        "IPs:              <none>\n"
        "Containers:\n"
        "  c:\n"
        "    Image:        busybox\n"
        "    Ports:        8080/TCP (http), 8443/TCP (https)\n"
        "    Host Ports:   0/TCP (http), 8443/TCP (https)\n"
        "    Environment:  <none>\n"
        "    Mounts:       <none>\n"
        "Volumes:          <none>\n"
        "QoS Class:        BestEffort\n"
        "Node-Selectors:   disk=ssd\n"
        "                  zone=a\n"
        "Tolerations:      <none>\n"
        "Events:           <none>\n"
    )
