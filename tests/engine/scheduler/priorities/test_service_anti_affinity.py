import pytest

from scheduling.engine.scheduler.priorities.service_anti_affinity import new_service_anti_affinity_priority
from tests.engine.builders import cluster, cycle, node, pod, service

WEB = {"app": "web"}


def web(name, node_name, **kw):
    return pod(name, labels=WEB, node_name=node_name, **kw)


NODES = [node("n1", labels={"zone": "a"}), node("n2", labels={"zone": "a"}), node("n3", labels={"zone": "b"}), node("n4")]


@pytest.mark.parametrize(
    "existing, services, expected",
    [
        pytest.param(
            [web("w1", "n1"), web("w2", "n1"), web("w3", "n3"), web("w4", "n4")],
            [service("svc", WEB)],
            # counts 2, 0, 1, 1; numServicePods = 4 (n4's pod included); by zone a=2, b=1
            # n1, n2: 10*((4-2)/4) = 5; n3: 10*((4-1)/4) = 7.5 -> 7; n4 has no label -> 0
            [5, 5, 7, 0],
            id="nodes are scored by their label value and nodes without the label score zero",
        ),
        pytest.param(
            [web("w1", "n1")],
            [],
            # no service: counts 0, numServicePods 0 -> labelled nodes 10, the other 0
            [10, 10, 10, 0],
            id="without a service labelled nodes score ten",
        ),
        pytest.param(
            [web("w1", "n1"), pod("f1", labels={"tier": "fe"}, node_name="n3"), pod("f2", labels={"tier": "fe"}, node_name="n3")],
            [service("first", WEB), service("second", {"tier": "fe"})],
            # both services select the pod; only the first one's pods count: 1, 0, 0, 0
            # a -> 10*((1-1)/1) = 0, b -> 10*((1-0)/1) = 10 (with "second" it would be 10, 10, 0, 0)
            [0, 0, 10, 0],
            id="the first service selecting the pod is used",
        ),
        pytest.param(
            [web("w1", "n1", deletion_timestamp=3.0), web("w2", "n3")],
            [service("svc", WEB)],
            # the terminating pod is skipped: counts 0, 0, 1, 0 -> a 10, b 0
            [10, 10, 0, 0],
            id="terminating pods are not counted",
        ),
    ],
)
def test_service_anti_affinity_priority(existing, services, expected):
    incoming = pod("p", labels={"app": "web", "tier": "fe"})
    ctx, infos = cycle(incoming, cluster(NODES, existing, services=services))
    assert new_service_anti_affinity_priority("zone")(incoming, ctx, infos) == expected
