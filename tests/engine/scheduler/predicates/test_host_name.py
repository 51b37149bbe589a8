"""HostName: a pod naming a node fits only that node."""

import pytest

from scheduling.engine.scheduler.predicates.host_name import pod_fits_host
from tests.engine.builders import cluster, evaluate, node, pod

CASES = [
    pytest.param(pod("p"), {"n1": (), "n2": ()}, id="a pod without nodeName fits every node"),
    pytest.param(
        pod("p", node_name="n2"), {"n1": ("node(s) didn't match the requested hostname",), "n2": ()},
        id="a pod with nodeName fits only that node",
    ),
]


@pytest.mark.parametrize("incoming, expected", CASES)
def test_pod_fits_host(incoming, expected):
    assert evaluate(pod_fits_host, incoming, cluster([node("n1"), node("n2")])) == expected
