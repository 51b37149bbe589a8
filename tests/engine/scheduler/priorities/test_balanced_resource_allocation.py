import pytest

from scheduling.engine.scheduler.priorities.balanced_resource_allocation import balanced_resource_allocation
from tests.engine.builders import cluster, cycle, node, pod


@pytest.mark.parametrize(
    "incoming, nodes, existing, expected",
    [
        pytest.param(
            pod("p", cpu="500m", memory="500Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # fractions 0.5 and 0.5, diff 0 -> (1-0)*10 = 10
            [10],
            id="equal fractions score ten",
        ),
        pytest.param(
            pod("p", cpu="300m", memory="500Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # 0.3 and 0.5, diff 0.2 -> (1-0.2)*10 = 8.0 -> 8
            [8],
            id="the fraction difference is subtracted",
        ),
        pytest.param(
            pod("p", cpu="200m", memory="800Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # float64: 0.2 - 0.8 = -0.6000000000000001, (1-0.6000000000000001)*10 = 3.999999999999999 -> int 3
            [3],
            id="the float product is truncated, not rounded",
        ),
        pytest.param(
            pod("p", cpu="100m", memory="100Mi"),
            [node("n1", cpu=None, memory="1000Mi")],
            [],
            # zero allocatable cpu: fractionOfCapacity returns 1 -> >= 1 -> 0
            [0],
            id="zero allocatable scores zero",
        ),
        pytest.param(
            pod("p", cpu="1000m", memory="100Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # cpu fraction 1.0 >= 1 -> 0
            [0],
            id="a fully requested resource scores zero",
        ),
        pytest.param(
            pod("p"),
            [node("n1", cpu="1000m", memory="1000Mi"), node("n2", cpu="1000m", memory="1000Mi")],
            [pod("e", cpu="400m", memory="0", node_name="n2")],
            # n1: 100/1000 = 0.1 and 200/1000 = 0.2 -> (1-0.1)*10 = 9.0 -> 9
            # n2: 500/1000 = 0.5 and 200/1000 = 0.2 -> (1-0.3)*10 = 7.000000000000001 -> 7
            [9, 7],
            id="non-zero requests of the pod and the node are used",
        ),
    ],
)
def test_balanced_resource_allocation(incoming, nodes, existing, expected):
    ctx, infos = cycle(incoming, cluster(nodes, existing))
    assert balanced_resource_allocation(incoming, ctx, infos) == expected
