import pytest

from scheduling.engine.scheduler.priorities.taint_toleration import taint_toleration_priority
from tests.engine.builders import cluster, cycle, node, pod

PREFER = "PreferNoSchedule"


@pytest.mark.parametrize(
    "tolerations, nodes, expected",
    [
        pytest.param([], [node("n1"), node("n2")], [10, 10], id="no taints anywhere gives every node ten"),
        pytest.param(
            [],
            [node("n1", taints=["a=1:PreferNoSchedule"]), node("n2", taints=["a=1:PreferNoSchedule", "b=1:PreferNoSchedule"]), node("n3")],
            # counts 1, 2, 0; max 2: 10-10*1/2 = 5, 10-10*2/2 = 0, 10-0 = 10
            [5, 0, 10],
            id="fewer intolerable PreferNoSchedule taints score higher",
        ),
        pytest.param(
            [],
            [node("n1", taints=["a=1:PreferNoSchedule"]), node("n2", taints=["a=1:PreferNoSchedule", "b=1:PreferNoSchedule", "c=1:PreferNoSchedule"])],
            # counts 1, 3: 10 - (10*1/3 = 3) = 7, 10 - 10 = 0 (integer division before the subtraction)
            [7, 0],
            id="the share is truncated before it is subtracted from ten",
        ),
        pytest.param(
            [],
            [node("n1", taints=["a=1:NoSchedule", "b=1:NoExecute"]), node("n2")],
            # NoSchedule and NoExecute are ignored: counts 0, 0 -> all 10
            [10, 10],
            id="NoSchedule and NoExecute taints are ignored",
        ),
        pytest.param(
            [{"key": "a", "operator": "Equal", "value": "1", "effect": "NoSchedule"}],
            [node("n1", taints=["a=1:PreferNoSchedule"]), node("n2")],
            # the toleration's effect is NoSchedule, so it is not used: counts 1, 0
            [0, 10],
            id="a toleration for another effect does not count",
        ),
        pytest.param(
            [{"key": "a", "operator": "Exists"}],
            [node("n1", taints=["a=1:PreferNoSchedule", "b=1:PreferNoSchedule"]), node("n2", taints=["b=1:PreferNoSchedule"])],
            # an empty effect tolerates PreferNoSchedule: counts 1 (b), 1 (b) -> 10-10 = 0 both
            [0, 0],
            id="a toleration with an empty effect tolerates PreferNoSchedule taints",
        ),
        pytest.param(
            [{"key": "a", "operator": "Equal", "value": "1", "effect": PREFER}],
            [node("n1", taints=["a=1:PreferNoSchedule"]), node("n2", taints=["a=2:PreferNoSchedule"])],
            # n1 tolerated (count 0), n2 value differs (count 1): 10, 0
            [10, 0],
            id="Equal compares the value",
        ),
    ],
)
def test_taint_toleration_priority(tolerations, nodes, expected):
    incoming = pod("p", tolerations=tolerations)
    ctx, infos = cycle(incoming, cluster(nodes))
    assert taint_toleration_priority(incoming, ctx, infos) == expected
