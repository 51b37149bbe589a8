"""kubectl's describers for Service, ReplicaSet, ReplicationController, StatefulSet, DaemonSet,
PodDisruptionBudget, PersistentVolume, PersistentVolumeClaim, StorageClass and ConfigMap,
against the cases of kubernetes/kubectl pkg/describe/describe_test.go (TestDescribeService,
TestPersistentVolumeDescriber, TestPersistentVolumeClaimDescriber, TestGetPodsForPVC,
TestDescribeStorageClass, TestDescribePodDisruptionBudgetV1, TestDescribeStatefulSet,
TestDescribeDaemonSet, TestDescribeReplicaSet, TestDescribeConfigMap), translated: the Go
structs become the documents `oc describe` reads; the EndpointSlices of a Service's cases
become the pods the EndpointSlice controller makes them of (one per address, its IP, its
Ready condition, the container port a named targetPort names)."""

from __future__ import annotations

import pytest

from scheduling.engine import actions as A
from scheduling.engine import oc
from scheduling.engine.store import Store

NOW = 10 * 365.25 * 86_400 + 1_000  # ten years after the epoch: a deletion at 0 lasts 10y


def describe(docs, command):
    result = oc.run(Store(docs), command, NOW)
    assert (result.stderr, result.exit_code) == ("", 0)
    return result.stdout


# --- TestDescribeService ------------------------------------------------------------------------------------


def service(target=9527, internal="Cluster", ingress=None, **spec):
    doc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "bar", "namespace": "foo"}, "spec": {
        "type": "LoadBalancer", "ports": [{"name": "port-tcp", "port": 8080, "protocol": "TCP", "targetPort": target,
                                           "nodePort": 31111}],
        "selector": {"blah": "heh"}, "clusterIP": "1.2.3.4", "ipFamilies": ["IPv4"], "loadBalancerIP": "5.6.7.8",
        "sessionAffinity": "None", "externalTrafficPolicy": "Local", "healthCheckNodePort": 32222, **spec}, "status": {}}
    if internal is not None:
        doc["spec"]["internalTrafficPolicy"] = internal
    if ingress is not None:
        doc["status"]["loadBalancer"] = {"ingress": ingress}
    return doc


def endpoint(n, ready=True, port_name=None):
    """One endpoint of an EndpointSlice: the pod it was made of."""
    container = {"name": "c", "ports": [{"name": port_name, "containerPort": 9527}] if port_name else []}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"bar-{n}", "namespace": "foo", "labels": {"blah": "heh"}},
            "spec": {"containers": [container]},
            "status": {"phase": "Running", "podIP": f"10.244.0.{n}",
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


HEAD = ("Name:                     bar\n"
        "Namespace:                foo\n"
        "Labels:                   <none>\n"
        "Annotations:              <none>\n"
        "Selector:                 blah=heh\n"
        "Type:                     LoadBalancer\n")


@pytest.mark.parametrize("docs, expected", [
    pytest.param([service(ingress=[{"ip": "5.6.7.8", "ipMode": "VIP"}]), endpoint(1), endpoint(2), endpoint(3)], HEAD + (
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      <none>\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "LoadBalancer Ingress:     5.6.7.8 (VIP)\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               9527/TCP\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                10.244.0.1:9527,10.244.0.2:9527,10.244.0.3:9527\n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "Internal Traffic Policy:  Cluster\n"
        "HealthCheck NodePort:     32222\n"
        "Events:                   <none>\n"), id="test1"),
    pytest.param([service(target="targetPort", internal="Local", ingress=[{"ip": "5.6.7.8"}])]
                 + [endpoint(n, ready=n != 3, port_name="targetPort") for n in (1, 2, 3, 4, 5)], HEAD + (
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      <none>\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "LoadBalancer Ingress:     5.6.7.8\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               targetPort/TCP\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                10.244.0.1:9527,10.244.0.2:9527,10.244.0.4:9527 + 1 more...\n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "Internal Traffic Policy:  Local\n"
        "HealthCheck NodePort:     32222\n"
        "Events:                   <none>\n"), id="test2"),
    # an endpoint without a Ready condition counts as ready; the controller always sets it: a ready pod
    pytest.param([service(), endpoint(1)], HEAD + (
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      <none>\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               9527/TCP\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                10.244.0.1:9527\n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "Internal Traffic Policy:  Cluster\n"
        "HealthCheck NodePort:     32222\n"
        "Events:                   <none>\n"), id="test-ready-field-empty"),
    pytest.param([service(target="targetPort", internal=None), endpoint(1, port_name="targetPort")], HEAD + (
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      <none>\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               targetPort/TCP\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                10.244.0.1:9527\n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "HealthCheck NodePort:     32222\n"
        "Events:                   <none>\n"), id="test-ServiceIPFamily"),
    # no EndpointSlice in upstream's case: on a cluster the controller keeps a placeholder slice
    # for a service with a selector and no pod, which formatEndpointSlices prints empty
    pytest.param([service(target="targetPort", internal=None, ipFamilyPolicy="SingleStack", clusterIPs=["1.2.3.4"])], HEAD + (
        "IP Family Policy:         SingleStack\n"
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      1.2.3.4\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               targetPort/TCP\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                \n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "HealthCheck NodePort:     32222\n"
        "Events:                   <none>\n"), id="test-ServiceIPFamilyPolicy+ClusterIPs"),
    pytest.param([service(target="targetPort", internal=None, trafficDistribution="PreferClose", selector=None)],
                 HEAD.replace("blah=heh", "<none>") + (
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      <none>\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               targetPort/TCP\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                <none>\n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "HealthCheck NodePort:     32222\n"
        "Traffic Distribution:     PreferClose\n"
        "Events:                   <none>\n"), id="test-TrafficDistribution (without a selector: no slice)"),
    pytest.param([service(ingress=[{"ip": "5.6.7.8", "ipMode": "VIP"}], ports=[
        {"name": "port-tcp", "port": 8080, "protocol": "TCP", "appProtocol": "example.com/custom-protocol", "targetPort": 9527,
         "nodePort": 31111}]), endpoint(1), endpoint(2), endpoint(3)], HEAD + (
        "IP Families:              IPv4\n"
        "IP:                       1.2.3.4\n"
        "IPs:                      <none>\n"
        "Desired LoadBalancer IP:  5.6.7.8\n"
        "LoadBalancer Ingress:     5.6.7.8 (VIP)\n"
        "Port:                     port-tcp  8080/TCP\n"
        "TargetPort:               9527/TCP\n"
        "AppProtocol:              example.com/custom-protocol\n"
        "NodePort:                 port-tcp  31111/TCP\n"
        "Endpoints:                10.244.0.1:9527,10.244.0.2:9527,10.244.0.3:9527\n"
        "Session Affinity:         None\n"
        "External Traffic Policy:  Local\n"
        "Internal Traffic Policy:  Cluster\n"
        "HealthCheck NodePort:     32222\n"
        "Events:                   <none>\n"), id="test-AppProtocol"),
])
def test_describe_service(docs, expected):
    assert describe(docs, "oc describe service bar -n foo") == expected


def test_describe_service_events_section():
    """DescribeEvents under a Service: the events recorded for it, repeats folded."""
    store = Store([service(), endpoint(1)])
    for t in (NOW - 300, NOW - 30):
        store.apply(A.RecordEvent(t, "Normal", "EnsuringLoadBalancer", "Service", "foo", "bar", "Ensuring load balancer",
                                  "service-controller"))
    out = oc.run(store, "oc describe svc/bar -n foo", NOW).stdout
    assert out.endswith("Events:\n"
                        "  Type    Reason                Age               From                Message\n"
                        "  ----    ------                ----              ----                -------\n"
                        "  Normal  EnsuringLoadBalancer  30s (x2 over 5m)  service-controller  Ensuring load balancer\n")


# --- TestPersistentVolumeDescriber --------------------------------------------------------------------------------


def pv(source, **spec):
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "bar"}, "spec": {**source, **spec}}


AFFINITY = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "foo", "operator": "In", "values": ["val1", "val2"]}, {"key": "foo", "operator": "Exists"}]}]}}
LABELLED = {"labels": {f"label{i}": f"label{i}" for i in (1, 2, 3)},
            "annotations": {f"annotation{i}": f"annotation{i}" for i in (1, 2, 3)}, "deletionTimestamp": NOW}


@pytest.mark.parametrize("doc, expected, unexpected", [
    pytest.param(pv({"hostPath": {"type": ""}}), [], ["VolumeMode", "Filesystem"], id="test0"),
    pytest.param(pv({"gcePersistentDisk": {}}, volumeMode="Filesystem"), ["VolumeMode", "Filesystem"], [], id="test1"),
    pytest.param(pv({"awsElasticBlockStore": {}}), [], ["VolumeMode", "Filesystem"], id="test2"),
    pytest.param(pv({"nfs": {}}), [], ["VolumeMode", "Filesystem"], id="test3"),
    pytest.param(pv({"iscsi": {}}, volumeMode="Block"), ["VolumeMode", "Block"], [], id="test4"),
    pytest.param(pv({"glusterfs": {}}), ["EndpointsNamespace", "<unset>"], ["VolumeMode", "Filesystem"], id="test5"),
    pytest.param(pv({"rbd": {}}), [], ["VolumeMode", "Filesystem"], id="test6"),
    pytest.param(pv({"quobyte": {}}), [], ["VolumeMode", "Filesystem"], id="test7"),
    pytest.param(pv({"cinder": {}}), [], ["VolumeMode", "Filesystem"], id="test8"),
    pytest.param(pv({"fc": {}}, volumeMode="Block"), ["VolumeMode", "Block"], [], id="test9"),
    pytest.param(pv({"local": {}}), ["Node Affinity:   <none>"], ["Required Terms", "Term "], id="test10"),
    pytest.param(pv({"local": {}}, nodeAffinity={}), ["Node Affinity:   <none>"], ["Required Terms", "Term "], id="test11"),
    pytest.param(pv({"local": {}}, nodeAffinity={"required": {}}), ["Node Affinity", "Required Terms:  <none>"], ["Term "],
                 id="test12"),
    pytest.param(pv({"local": {}}, nodeAffinity={"required": {"nodeSelectorTerms": [{"matchExpressions": []},
                                                                                    {"matchExpressions": []}]}}),
                 ["Node Affinity", "Required Terms", "Term 0", "Term 1"], [], id="test13"),
    pytest.param(pv({"local": {}}, nodeAffinity=AFFINITY),
                 ["Node Affinity", "Required Terms", "Term 0", "foo in [val1, val2]", "foo exists"], [], id="test14"),
    pytest.param({**pv({"local": {}}), "metadata": {"name": "bar", "deletionTimestamp": 0}}, ["Terminating (lasts 10y)"], [],
                 id="test15"),
    pytest.param({**pv({"local": {}}, nodeAffinity=AFFINITY), "metadata": {"name": "bar", **LABELLED}},
                 ["Node Affinity", "Required Terms", "Term 0", "foo in [val1, val2]", "foo exists"], [], id="test16"),
    pytest.param({**pv({"csi": {"driver": "drive", "volumeHandle": "handler", "readOnly": True, "volumeAttributes": {
        "Attribute1": "Value1", "Attribute2": "Value2", "Attribute3": "Value3"}}}), "metadata": {"name": "bar", **LABELLED}},
                 ["Driver", "VolumeHandle", "ReadOnly", "VolumeAttributes"], [], id="test17"),
    pytest.param(pv({"glusterfs": {"endpointsNamespace": "glusterfsendpointname"}}),
                 ["EndpointsNamespace", "glusterfsendpointname"], ["VolumeMode", "Filesystem"], id="test19"),
])
def test_describe_persistent_volume(doc, expected, unexpected):
    out = describe([doc], "oc describe pv bar")
    assert out
    for text in expected:
        assert text in out
    for text in unexpected:
        assert text not in out


def test_describe_persistent_volume_whole():
    """describePersistentVolume line by line for a bound local volume (test16's node affinity)."""
    doc = pv({"local": {"path": "/mnt/disks/ssd1"}}, nodeAffinity=AFFINITY, capacity={"storage": "10Gi"},
             accessModes=["ReadWriteOnce"], persistentVolumeReclaimPolicy="Delete", storageClassName="local-storage",
             claimRef={"namespace": "foo", "name": "data"})
    doc["metadata"]["finalizers"] = ["kubernetes.io/pv-protection"]
    doc["status"] = {"phase": "Bound"}
    assert describe([doc], "oc describe pv bar") == (
        "Name:              bar\n"
        "Labels:            <none>\n"
        "Annotations:       <none>\n"
        "Finalizers:        [kubernetes.io/pv-protection]\n"
        "StorageClass:      local-storage\n"
        "Status:            Bound\n"
        "Claim:             foo/data\n"
        "Reclaim Policy:    Delete\n"
        "Access Modes:      RWO\n"
        "Capacity:          10Gi\n"
        "Node Affinity:     \n"
        "  Required Terms:  \n"
        "    Term 0:        foo in [val1, val2]\n"
        "                   foo exists\n"
        "Message:           \n"
        "Source:\n"
        "    Type:  LocalVolume (a persistent volume backed by local storage on a node)\n"
        "    Path:  /mnt/disks/ssd1\n"
        "Events:    <none>\n")


# --- TestPersistentVolumeClaimDescriber, TestGetPodsForPVC ---------------------------------------------------------


def pvc(volume="volume1", status=None, metadata=None, **spec):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"namespace": "foo", "name": "bar", **(metadata or {})},
            "spec": {"volumeName": volume, "storageClassName": "gold", **spec}, "status": status or {}}


@pytest.mark.parametrize("doc, expected, unexpected", [
    pytest.param(pvc(status={"phase": "Bound"}), ["Events"], ["VolumeMode", "Filesystem"], id="default"),
    pytest.param(pvc("volume2", {"phase": "Bound"}, volumeMode="Filesystem"), ["VolumeMode", "Filesystem"], [], id="filesystem"),
    pytest.param(pvc("volume3", {"phase": "Bound"}, volumeMode="Block"), ["VolumeMode", "Block"], [], id="block"),
    pytest.param(pvc("volume4", {"conditions": [{"type": "Resizing"}]}), ["Conditions", "Type", "Resizing"], [],
                 id="condition-type"),
    pytest.param(pvc("volume5", {"conditions": [{"status": "True"}]}), ["Conditions", "Status", "True"], [],
                 id="condition-status"),
    pytest.param(pvc("volume6", {"conditions": [{"lastProbeTime": NOW}]}),
                 ["Conditions", "LastProbeTime", "Tue, 01 Jan 2036 12:16:40 +0000"], [], id="condition-last-probe-time"),
    pytest.param(pvc("volume7", {"conditions": [{"lastTransitionTime": NOW}]}),
                 ["Conditions", "LastTransitionTime", "Tue, 01 Jan 2036 12:16:40 +0000"], [], id="condition-last-transition-time"),
    pytest.param(pvc("volume8", {"conditions": [{"reason": "OfflineResize"}]}), ["Conditions", "Reason", "OfflineResize"], [],
                 id="condition-reason"),
    pytest.param(pvc("volume9", {"conditions": [{"message": "User request resize"}]}),
                 ["Conditions", "Message", "User request resize"], [], id="condition-message"),
    pytest.param(pvc("volume10", metadata={"deletionTimestamp": 0}), ["Terminating (lasts 10y)"], [], id="deletion-timestamp"),
    pytest.param(pvc("volume10", dataSource={"name": "srcpvc", "kind": "PersistentVolumeClaim"}),
                 ["\nDataSource:\n  Kind:   PersistentVolumeClaim\n  Name:   srcpvc"], [], id="pvc-datasource"),
    pytest.param(pvc("volume10", dataSource={"name": "src-snapshot", "kind": "VolumeSnapshot",
                                             "apiGroup": "snapshot.storage.k8s.io"}),
                 ["DataSource:\n  APIGroup:  snapshot.storage.k8s.io\n  Kind:      VolumeSnapshot\n  Name:      src-snapshot\n"], [],
                 id="snapshot-datasource"),
])
def test_describe_persistent_volume_claim(doc, expected, unexpected):
    out = describe([doc], "oc describe pvc bar -n foo")
    for text in expected:
        assert text in out
    for text in unexpected:
        assert text not in out


def claim_pod(name, uid="", claim=None):
    volumes = [{"name": "volume", "persistentVolumeClaim": {"claimName": claim}}] if claim else []
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "foo", "name": name, "uid": uid},
            "spec": {"containers": [{"name": "c"}], "volumes": volumes}, "status": {}}


@pytest.mark.parametrize("docs, used_by", [
    pytest.param([pvc(status={"phase": "Bound"})], "Used By:       <none>\n", id="pvc-unused"),
    pytest.param([pvc(status={"phase": "Bound"}), claim_pod("pod-name", claim="bar")], "Used By:       pod-name\n",
                 id="pvc-in-pods-volumes-list"),
    pytest.param([pvc(status={"phase": "Bound"}, metadata={"ownerReferences": [{"kind": "Pod", "name": "pod-name",
                                                                                 "uid": "pod-uid"}]}),
                  claim_pod("pod-name", uid="pod-uid")], "Used By:       pod-name\n", id="pvc-owned-by-pod"),
])
def test_describe_persistent_volume_claim_used_by(docs, used_by):
    assert used_by in describe(docs, "oc describe pvc bar -n foo")


def test_describe_persistent_volume_claim_whole():
    """printPersistentVolumeClaim line by line for a bound claim used by two pods."""
    doc = pvc("pv-1", {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}},
              metadata={"finalizers": ["kubernetes.io/pvc-protection"]}, resources={"requests": {"storage": "1Gi"}})
    assert describe([doc, claim_pod("web-b", claim="bar"), claim_pod("web-a", claim="bar")], "oc describe pvc bar -n foo") == (
        "Name:          bar\n"
        "Namespace:     foo\n"
        "StorageClass:  gold\n"
        "Status:        Bound\n"
        "Volume:        pv-1\n"
        "Labels:        <none>\n"
        "Annotations:   <none>\n"
        "Finalizers:    [kubernetes.io/pvc-protection]\n"
        "Capacity:      1Gi\n"
        "Access Modes:  RWO\n"
        "Used By:       web-a\n"
        "               web-b\n"
        "Events:        <none>\n")


# --- TestDescribeStorageClass, TestDescribePodDisruptionBudgetV1, TestDescribeConfigMap ------------------------------


def test_describe_storage_class():
    doc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "foo", "annotations": {"name": "foo"}},
           "provisioner": "my-provisioner", "parameters": {"param1": "value1", "param2": "value2"}, "reclaimPolicy": "Retain",
           "volumeBindingMode": "bindingmode", "allowedTopologies": [
               {"matchLabelExpressions": [{"key": "failure-domain.beta.kubernetes.io/zone", "values": ["zone1"]},
                                          {"key": "kubernetes.io/hostname", "values": ["node1"]}]},
               {"matchLabelExpressions": [{"key": "failure-domain.beta.kubernetes.io/zone", "values": ["zone2"]},
                                          {"key": "kubernetes.io/hostname", "values": ["node2"]}]}]}
    out = describe([doc], "oc describe sc foo")
    for text in ("foo", "my-provisioner", "param1", "param2", "value1", "value2", "Retain", "bindingmode",
                 "failure-domain.beta.kubernetes.io/zone", "zone1", "kubernetes.io/hostname", "node1", "zone2", "node2"):
        assert text in out
    assert out == (
        "Name:                  foo\n"
        "IsDefaultClass:        No\n"
        "Annotations:           name=foo\n"
        "Provisioner:           my-provisioner\n"
        "Parameters:            param1=value1,param2=value2\n"
        "AllowVolumeExpansion:  <unset>\n"
        "MountOptions:          <none>\n"
        "ReclaimPolicy:         Retain\n"
        "VolumeBindingMode:     bindingmode\n"
        "AllowedTopologies:     \n"
        "  Term 0:              failure-domain.beta.kubernetes.io/zone in [zone1]\n"
        "                       kubernetes.io/hostname in [node1]\n"
        "  Term 1:              failure-domain.beta.kubernetes.io/zone in [zone2]\n"
        "                       kubernetes.io/hostname in [node2]\n"
        "Events:                <none>\n")


def test_describe_pod_disruption_budget():
    doc = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"namespace": "ns1", "name": "pdb1"},
           "spec": {"minAvailable": 22}, "status": {"disruptionsAllowed": 5}}
    assert describe([doc], "oc describe pdb pdb1 -n ns1") == (
        "Name:           pdb1\n"
        "Namespace:      ns1\n"
        "Min available:  22\n"
        "Selector:       <unset>\n"
        "Status:\n"
        "    Allowed disruptions:  5\n"
        "    Current:              0\n"
        "    Desired:              0\n"
        "    Total:                0\n"
        "Events:                   <none>\n")


def test_describe_config_map():
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mycm", "namespace": "foo"},
           "data": {"key1": "value1", "key2": "value2"},
           "binaryData": {"binarykey1": "//79/Ps=", "binarykey2": "//79/Pv6"}}  # 5 and 6 bytes, base64
    assert describe([doc], "oc describe configmap mycm -n foo") == (
        "Name:         mycm\nNamespace:    foo\nLabels:       <none>\nAnnotations:  <none>\n\nData\n====\n"
        "key1:\n----\nvalue1\n\nkey2:\n----\nvalue2\n\n\nBinaryData\n====\nbinarykey1: 5 bytes\nbinarykey2: 6 bytes\n\n"
        "Events:  <none>\n")


# --- TestDescribeStatefulSet, TestDescribeDaemonSet, TestDescribeReplicaSet ----------------------------------------


def test_describe_stateful_set():
    doc = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "bar", "namespace": "foo"}, "spec": {
        "podManagementPolicy": "Parallel", "replicas": 1, "selector": {"matchLabels": {"app": "mytest"}},
        "template": {"spec": {"containers": [{"name": "mytest", "image": "mytest-image:latest"}]}},
        "serviceName": "test-service",
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Retain"},
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 2672}}}}
    out = describe([doc], "oc describe sts bar -n foo")
    for line in ("Name:                   bar", "Namespace:              foo",
                 "CreationTimestamp:      Mon, 01 Jan 0001 00:00:00 +0000", "Selector:               app=mytest",
                 "Service Name:           test-service", "Pod Management Policy:  Parallel",
                 "Replicas:               1 desired | 0 total", "Update Strategy:        RollingUpdate",
                 "  Partition:            2672", "Persistent Volume Claim Retention Policy:", "  WhenDeleted:  Delete",
                 "  WhenScaled:   Retain"):
        assert line in out


def test_describe_daemon_set():
    doc = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "bar", "namespace": "foo"}, "spec": {
        "selector": {"matchLabels": {"node-role.kubernetes.io/control-plane": "true"}},
        "template": {"spec": {"containers": [{"image": "mytest-image:latest"}]}}}}
    out = describe([doc], "oc describe ds bar -n foo")
    for text in ("bar", "foo", "Containers:", "mytest-image:latest", "Selector", "node-role.kubernetes.io/control-plane=true"):
        assert text in out
    assert out.startswith(
        "Name:           bar\n"
        "Namespace:      foo\n"
        "Selector:       node-role.kubernetes.io/control-plane=true\n"
        "Node-Selector:  <none>\n"
        "Labels:         <none>\n"
        "Annotations:    <none>\n"
        "Desired Number of Nodes Scheduled: 0\n"
        "Current Number of Nodes Scheduled: 0\n"
        "Number of Nodes Scheduled with Up-to-date Pods: 0\n"
        "Number of Nodes Scheduled with Available Pods: 0\n"
        "Number of Nodes Misscheduled: 0\n"
        "Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed\n"
        "Pod Template:\n")


def owned_pod(name, phase, uid="test-uid"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "foo", "ownerReferences": [
        {"uid": uid, "controller": True}]}, "spec": {"containers": [{"name": "c"}]}, "status": {"phase": phase}}


def replica_set(replicas, conditions=()):
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "bar", "namespace": "foo", "uid": "test-uid"},
            "spec": {"replicas": replicas}, "status": {"replicas": replicas, "readyReplicas": replicas,
                                                       "availableReplicas": replicas, "conditions": list(conditions)}}


@pytest.mark.parametrize("docs, expects", [
    pytest.param([replica_set(1, [{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate"}]),
                  owned_pod("pod1", "Running")],
                 ["Name:         bar", "Namespace:    foo", "Replicas:     1 current / 1 desired",
                  "Pods Status:  1 Running / 0 Waiting / 0 Succeeded / 0 Failed", "Conditions:",
                  "Type             Status  Reason", "----             ------  ------", "ReplicaFailure   True    FailedCreate"],
                 id="replica set with one pod and one condition"),
    pytest.param([replica_set(2), owned_pod("pod1", "Running"), owned_pod("pod2", "Running")],
                 ["Name:         bar", "Namespace:    foo", "Replicas:     2 current / 2 desired",
                  "Pods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed"], id="replica set with multiple pods"),
    pytest.param([replica_set(4), owned_pod("pod1", "Running"), owned_pod("pod2", "Pending"), owned_pod("pod3", "Succeeded"),
                  owned_pod("pod4", "Failed"), owned_pod("stranger", "Running", uid="other")],
                 ["Name:         bar", "Namespace:    foo", "Replicas:     4 current / 4 desired",
                  "Pods Status:  1 Running / 1 Waiting / 1 Succeeded / 1 Failed"], id="replica set with different pod statuses"),
])
def test_describe_replica_set(docs, expects):
    out = describe(docs, "oc describe rs bar -n foo")
    for text in expects:
        assert text in out


def test_describe_replication_controller_and_every_object_of_a_kind():
    """describeReplicationController; `oc describe rc` without a name describes each one."""
    rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "bar", "namespace": "foo", "uid": "test-uid"},
          "spec": {"replicas": 2, "selector": {"app": "bar"}, "template": {
              "metadata": {"labels": {"app": "bar"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
          "status": {"replicas": 1}}
    pod = owned_pod("bar-x", "Running")
    pod["metadata"]["labels"] = {"app": "bar"}
    out = describe([rc, pod], "oc describe rc -n foo")
    assert out.startswith(
        "Name:         bar\n"
        "Namespace:    foo\n"
        "Selector:     app=bar\n"
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "Replicas:     1 current / 2 desired\n"
        "Pods Status:  1 Running / 0 Waiting / 0 Succeeded / 0 Failed\n"
        "Pod Template:\n"
        "  Labels:  app=bar\n"
        "  Containers:\n"
        "   c:\n"
        "    Image:         nginx\n")
    assert out.endswith("Events:            <none>\n")


def test_a_pod_templates_volumes_are_described_by_their_source():
    """describeVolumes under DescribePodTemplate: each volume's source (here a StatefulSet's)."""
    doc = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "foo"}, "spec": {
        "replicas": 1, "selector": {"matchLabels": {"app": "db"}}, "template": {"metadata": {"labels": {"app": "db"}}, "spec": {
            "containers": [{"name": "db", "image": "postgres"}],
            "volumes": [{"name": "scratch", "emptyDir": {}}, {"name": "conf", "configMap": {"name": "db-conf"}},
                        {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "db-data"}}]}}}}
    out = describe([doc], "oc describe sts db -n foo")
    assert ("  Volumes:\n"
            "   scratch:\n"
            "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)\n"
            "    Medium:     \n"
            "    SizeLimit:  <unset>\n"
            "   conf:\n"
            "    Type:      ConfigMap (a volume populated by a ConfigMap)\n"
            "    Name:      db-conf\n"
            "    Optional:  false\n"
            "   host:\n"
            "    Type:          HostPath (bare host directory volume)\n"
            "    Path:          /var/log\n"
            "    HostPathType:  Directory\n"
            "   data:\n"  # (Go's tabwriter: these rows and the next ones form one column block)
            "    Type:          PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"
            "    ClaimName:     db-data\n"
            "    ReadOnly:      false\n"
            "  Node-Selectors:  <none>\n") in out


def test_a_pod_whose_owner_reference_has_no_uid_counts_for_its_owner_by_name():
    """A ReplicaSet's pods made in the same step as the ReplicaSet (or written by hand) carry
    an ownerReference without a uid: they are its pods all the same (Pods Status)."""
    rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "bar", "namespace": "foo", "uid": "test-uid"},
          "spec": {"replicas": 2, "selector": {"app": "bar"}, "template": {
              "metadata": {"labels": {"app": "bar"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
          "status": {"replicas": 2}}
    pods = [owned_pod(f"bar-{i}", "Running") for i in range(2)]
    for pod in pods:
        pod["metadata"]["labels"] = {"app": "bar"}
    pods[1]["metadata"]["ownerReferences"] = [{"kind": "ReplicationController", "name": "bar", "controller": True}]
    assert "Pods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed\n" in describe([rc, *pods], "oc describe rc bar -n foo")
