import pytest

from scheduling.engine.scheduler.priorities.least_requested import least_requested_priority
from tests.engine.builders import cluster, cycle, node, pod


@pytest.mark.parametrize(
    "incoming, nodes, existing, expected",
    [
        pytest.param(
            pod("p", cpu="800m", memory="500"),
            [node("n1", cpu="1000m", memory="1000")],
            [],
            # cpu (1000-800)*10/1000 = 2, memory (1000-500)*10/1000 = 5, (2+5)/2 = 3
            [3],
            id="integer division per resource and again on the average",
        ),
        pytest.param(
            pod("p"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # unset requests count 100m and 200Mi: cpu 900*10/1000 = 9, memory 800*10/1000 = 8, (9+8)/2 = 8
            [8],
            id="unset requests count as 100m cpu and 200Mi memory",
        ),
        pytest.param(
            pod("p", cpu="0", memory="0"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # explicit zero stays zero: 10 and 10
            [10],
            id="explicit zero requests count as zero",
        ),
        pytest.param(
            pod("p", cpu="200m", memory="100Mi"),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [pod("e", cpu="900m", memory="100Mi", node_name="n1")],
            # cpu 1100 > 1000 -> 0, memory (1000-200)*10/1000 = 8, (0+8)/2 = 4
            [4],
            id="an over-committed resource scores zero",
        ),
        pytest.param(
            pod("p", cpu="2", memory="2Gi"),
            [node("n1", cpu="1", memory="1Gi")],
            [],
            [0],
            id="a node over-committed on both resources scores zero",
        ),
        pytest.param(
            pod("p", cpu="100m", memory="100Mi"),
            [node("n1", cpu=None, memory="1000Mi")],
            [],
            # cpu capacity 0 -> 0, memory 900*10/1000 = 9, (0+9)/2 = 4
            [4],
            id="a resource with zero allocatable scores zero",
        ),
        pytest.param(
            pod("p", cpu="100m", memory="100Mi", init_containers=[{"name": "i", "resources": {"requests": {"cpu": "4", "memory": "4Gi"}}}]),
            [node("n1", cpu="1000m", memory="1000Mi")],
            [],
            # init containers are ignored: cpu 9, memory 9
            [9],
            id="init containers are ignored",
        ),
        pytest.param(
            pod("p", cpu="100m", memory="100Mi"),
            [node("n1", cpu="1000m", memory="1000Mi"), node("n2", cpu="1000m", memory="1000Mi")],
            [pod("e", node_name="n1")],
            # n1: existing pod without requests counts 100m/200Mi: cpu (1000-200)*10/1000 = 8,
            #     memory (1000-300)*10/1000 = 7, (8+7)/2 = 7; n2: cpu 9, memory 9 -> 9
            [7, 9],
            id="existing pods count with their non-zero requests",
        ),
    ],
)
def test_least_requested_priority(incoming, nodes, existing, expected):
    ctx, infos = cycle(incoming, cluster(nodes, existing))
    assert least_requested_priority(incoming, ctx, infos) == expected
