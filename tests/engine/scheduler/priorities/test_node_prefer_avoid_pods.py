import json

import pytest

from scheduling.engine.scheduler.priorities.node_prefer_avoid_pods import (
    PREFER_AVOID_PODS_ANNOTATION,
    node_prefer_avoid_pods_priority,
)
from tests.engine.builders import cluster, cycle, node, pod


def avoid(*controllers, **entry_fields):
    """The annotation value listing (kind, uid) pod controllers."""
    entries = [
        {"podSignature": {"podController": {"apiVersion": "v1", "kind": kind, "name": "x", "uid": uid, "controller": True}}, **entry_fields}
        for kind, uid in controllers
    ]
    return json.dumps({"preferAvoidPods": entries})


def avoiding(annotation):
    return [node("n1", annotations={PREFER_AVOID_PODS_ANNOTATION: annotation}), node("n2")]


@pytest.mark.parametrize(
    "owner, annotation, expected",
    [
        pytest.param(("ReplicationController", "rc", "uid-rc"), avoid(("ReplicationController", "uid-rc")), [0, 10], id="a pod of an avoided replication controller scores zero there"),
        pytest.param(("ReplicaSet", "rs", "uid-rs"), avoid(("ReplicaSet", "uid-rs")), [0, 10], id="a pod of an avoided replica set scores zero there"),
        pytest.param(("ReplicationController", "rc", "uid-rc"), avoid(("ReplicationController", "uid-other")), [10, 10], id="another controller's uid does not count"),
        pytest.param(("ReplicationController", "rc", "uid-1"), avoid(("ReplicaSet", "uid-1")), [10, 10], id="the kind must match as well as the uid"),
        pytest.param(("Deployment", "d", "uid-d"), avoid(("Deployment", "uid-d")), [10, 10], id="a pod owned by a Deployment is not affected"),
        pytest.param(("StatefulSet", "s", "uid-s"), avoid(("StatefulSet", "uid-s")), [10, 10], id="a pod owned by a StatefulSet is not affected"),
        pytest.param(None, avoid(("ReplicationController", "uid-rc")), [10, 10], id="a pod without controller is not affected"),
        pytest.param(("ReplicationController", "rc", "uid-rc"), "{not json", [10, 10], id="an unparsable annotation scores ten"),
        pytest.param(
            ("ReplicationController", "rc", "uid-rc"),
            avoid(("ReplicationController", "uid-rc"), reason=5),
            [10, 10],
            id="a type error anywhere fails the whole annotation as json.Unmarshal does",
        ),
        pytest.param(
            ("ReplicationController", "rc", "uid-rc"),
            avoid(("ReplicationController", "uid-rc"), evictionTime="2018-07-01T10:00:00Z", reason="Planned", message="m"),
            [0, 10],
            id="an entry with eviction time and reason",
        ),
        pytest.param(
            ("ReplicationController", "rc", "uid-rc"),
            '{"PreferAvoidPods": [{"PodSignature": {"PodController": {"Kind": "ReplicationController", "UID": "uid-rc"}}}]}',
            [0, 10],
            id="keys match case-insensitively as in Go",
        ),
        pytest.param(("ReplicationController", "rc", "uid-rc"), "", [10, 10], id="an empty annotation"),
    ],
)
def test_node_prefer_avoid_pods_priority(owner, annotation, expected):
    incoming = pod("p", owner=owner)
    ctx, infos = cycle(incoming, cluster(avoiding(annotation)))
    assert node_prefer_avoid_pods_priority(incoming, ctx, infos) == expected


def test_an_owner_reference_that_is_not_the_controller_is_ignored():
    incoming = pod("p")
    incoming = type(incoming).from_doc(
        {
            "metadata": {"name": "p", "ownerReferences": [{"kind": "ReplicationController", "name": "rc", "uid": "uid-rc", "controller": False}]},
            "spec": {"containers": [{"name": "c"}]},
        }
    )
    ctx, infos = cycle(incoming, cluster(avoiding(avoid(("ReplicationController", "uid-rc")))))
    assert node_prefer_avoid_pods_priority(incoming, ctx, infos) == [10, 10]
