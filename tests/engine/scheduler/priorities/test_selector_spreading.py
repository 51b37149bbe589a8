import pytest

from scheduling.engine.scheduler.priorities.selector_spreading import (
    selector_spread_priority,
    service_spreading_priority,
)
from tests.engine.builders import cluster, controller, cycle, node, pod, service

REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "failure-domain.beta.kubernetes.io/zone"
WEB = {"app": "web"}


def web(name, node_name, **kw):
    return pod(name, labels=WEB, node_name=node_name, **kw)


def zoned(name, zone):
    return node(name, labels={REGION: "r1", ZONE: zone})


@pytest.mark.parametrize(
    "nodes, existing, objects, expected",
    [
        pytest.param(
            [node("n1"), node("n2")],
            [web("w1", "n1")],
            {},
            # no service or controller selects the pod: map 0 everywhere, reduce 10
            [10, 10],
            id="without selectors every node scores ten",
        ),
        pytest.param(
            [zoned("n1", "a"), zoned("n2", "b")],
            [web("w1", "n1")],
            {},
            # counts 0, 0 but zones are present: fScore 10, zoneScore 10 -> 10*(1/3) + (2/3)*10 = 10.0
            [10, 10],
            id="without selectors zoned nodes score ten too",
        ),
        pytest.param(
            [node("n1"), node("n2"), node("n3")],
            [web("w1", "n1"), web("w2", "n1"), web("w3", "n2")],
            {"services": [service("svc", WEB)]},
            # counts 2, 1, 0; max 2: 10*(0/2) = 0, 10*(1/2) = 5, 10*(2/2) = 10
            [0, 5, 10],
            id="fewer matching pods score higher",
        ),
        pytest.param(
            [node("n1"), node("n2")],
            [web("w1", "n1"), web("w2", "n2", deletion_timestamp=1.0), pod("o", namespace="other", labels=WEB, node_name="n2")],
            {"services": [service("svc", WEB)]},
            # terminating pod and pod of another namespace skipped: counts 1, 0 -> 0, 10
            [0, 10],
            id="terminating pods and other namespaces are not counted",
        ),
        pytest.param(
            [node("n1"), node("n2")],
            [pod("a", labels={"app": "web", "tier": "x"}, node_name="n1"), pod("b", labels={"rc": "r"}, node_name="n1"), pod("c", labels={"app": "db"}, node_name="n2")],
            {
                "services": [service("svc", WEB)],
                "controllers": [controller("ReplicationController", "rc", {"rc": "r"})],
            },
            # the pod carries app=web and rc=r; a pod matching any selector counts: n1 2, n2 0 -> 0, 10
            [0, 10],
            id="a pod matching any of the selectors counts once",
        ),
        pytest.param(
            [zoned("n1", "a"), zoned("n2", "a"), zoned("n3", "b"), node("n4")],
            [web("w1", "n1"), web("w2", "n1"), web("w3", "n3")],
            {"controllers": [controller("ReplicaSet", "rs", {"matchLabels": WEB})]},
            # node counts 2, 0, 1, 0 (max 2); zone counts a=2, b=1 (max 2); zoneWeighting 2/3
            # n1: fScore 10*(0/2) = 0, zoneScore 10*(0/2) = 0 -> 0
            # n2: fScore 10*(2/2) = 10, zoneScore 0 -> 10*(1/3) = 3.333333333333334 -> 3
            # n3: fScore 10*(1/2) = 5, zoneScore 10*(1/2) = 5 -> 5*(1/3) + (2/3)*5 = 5.0 -> 5
            # n4: no zone key -> fScore 10*(2/2) = 10
            [0, 3, 5, 10],
            id="zones weigh two thirds and nodes without zone keep their node score",
        ),
    ],
)
def test_selector_spread_priority(nodes, existing, objects, expected):
    incoming = pod("p", labels={"app": "web", "rc": "r"})
    ctx, infos = cycle(incoming, cluster(nodes, existing, **objects))
    assert selector_spread_priority(incoming, ctx, infos) == expected


def test_service_spreading_scores_like_selector_spread_as_in_1_11():
    # 1.11's ServiceSpreadingPriority map reads the per-cycle metadata's selectors, which
    # include the RC: so the RC's pod on n1 counts too (counts 1, 1 -> 0, 0), not only the
    # service's pod on n2.
    nodes = [node("n1"), node("n2")]
    existing = [pod("a", labels={"rc": "r"}, node_name="n1"), web("w", "n2")]
    state = cluster(nodes, existing, services=[service("svc", WEB)], controllers=[controller("ReplicationController", "rc", {"rc": "r"})])
    incoming = pod("p", labels={"app": "web", "rc": "r"})
    ctx, infos = cycle(incoming, state)
    assert service_spreading_priority(incoming, ctx, infos) == [0, 0]
    assert selector_spread_priority(incoming, ctx, infos) == [0, 0]


def test_services_of_another_namespace_do_not_select_the_pod():
    nodes = [node("n1"), node("n2")]
    state = cluster(nodes, [web("w", "n1")], services=[service("svc", WEB, namespace="other")])
    incoming = pod("p", labels=WEB)
    ctx, infos = cycle(incoming, state)
    assert selector_spread_priority(incoming, ctx, infos) == [10, 10]
