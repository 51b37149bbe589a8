import pytest

from scheduling.engine.scheduler.priorities.most_requested import most_requested_priority
from tests.engine.builders import cluster, cycle, node, pod


@pytest.mark.parametrize(
    "incoming, nodes, existing, expected",
    [
        pytest.param(
            pod("p", cpu="300m", memory="500Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # cpu 300*10/1000 = 3, memory 500*10/1000 = 5, (3+5)/2 = 4
            [4],
            id="requested share of each resource averaged",
        ),
        pytest.param(
            pod("p", cpu="1200m", memory="500Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # cpu 1200 > 1000 -> 0 (not 10), memory 5, (0+5)/2 = 2
            [2],
            id="an over-committed resource scores zero",
        ),
        pytest.param(
            pod("p"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # 100m -> 1, 200Mi -> 2, (1+2)/2 = 1
            [1],
            id="unset requests count as 100m cpu and 200Mi memory",
        ),
        pytest.param(
            pod("p", cpu="500m", memory="500Mi"),
            [node("n1", cpu="1000m", memory="1000Mi"), node("n2", cpu="1000m", memory="1000Mi")],
            [pod("e", cpu="500m", memory="500Mi", node_name="n1")],
            # n1: 1000/1000 -> 10 and 10 -> 10; n2: 5 and 5 -> 5
            [10, 5],
            id="the fuller node scores higher",
        ),
        pytest.param(
            pod("p", cpu="500m", memory="500Mi"),
            [node("n1", cpu=None, memory=None)],
            [],
            [0],
            id="zero allocatable scores zero",
        ),
    ],
)
def test_most_requested_priority(incoming, nodes, existing, expected):
    ctx, infos = cycle(incoming, cluster(nodes, existing))
    assert most_requested_priority(incoming, ctx, infos) == expected
