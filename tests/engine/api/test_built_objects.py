"""Pods, their containers, owner references and tolerations are built from documents
without their dataclass __init__ (objects._frozen): they must be the objects the
constructor makes, every field set, equal and hashing alike."""

from __future__ import annotations

import dataclasses

import pytest

from scheduling.engine.api.objects import Container, OwnerReference, Pod, Toleration
from scheduling.engine.scheduler.scheduler import _replace
from tests.engine.scheduler.test_scheduler_equivalence import random_cluster


def rebuilt(obj):
    return type(obj)(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})


@pytest.mark.parametrize("seed", [61, 62])
def test_objects_read_from_documents_are_the_constructors(seed):
    pods = random_cluster(seed, 5, 120).pods
    assert pods
    for pod in pods:
        parts = [pod, *pod.containers, *pod.init_containers, *pod.owner_references, *pod.tolerations]
        for obj in parts:
            assert {f.name for f in dataclasses.fields(obj)} <= set(vars(obj))
            assert obj == rebuilt(obj) and repr(obj) == repr(rebuilt(obj))
        for toleration in pod.tolerations:
            assert hash(toleration) == hash(rebuilt(toleration))
        bound = _replace(pod, node_name="node-x", phase="Running")
        assert bound == dataclasses.replace(pod, node_name="node-x", phase="Running")
        assert bound.request == pod.request and bound.key == pod.key


def test_a_document_with_every_field_reads_back():
    doc = {
        "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "labels": {"app": "web"}, "annotations": {"a": "b"},
                     "ownerReferences": [{"kind": "ReplicaSet", "name": "web-1", "uid": "rs", "controller": True}],
                     "deletionTimestamp": 5},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}},
                                 "ports": [{"containerPort": 80, "hostPort": 8080}]}],
                 "initContainers": [{"name": "i", "image": "busybox"}], "nodeSelector": {"disk": "ssd"},
                 "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 30}],
                 "volumes": [{"name": "data", "emptyDir": {}}], "nodeName": "node1", "schedulerName": "other", "priority": 100,
                 "priorityClassName": "high", "hostNetwork": True, "terminationGracePeriodSeconds": 10},
        "status": {"phase": "Running", "nominatedNodeName": "node2"},
    }
    pod = Pod.from_doc(doc)
    assert pod == rebuilt(pod)
    assert (pod.owner_references[0], pod.containers[0].ports[0].host_port, pod.tolerations[0].toleration_seconds) == (
        OwnerReference("ReplicaSet", "web-1", "rs", True), 8080, 30)
    assert isinstance(pod.containers[0], Container) and isinstance(pod.tolerations[0], Toleration)
