import pytest

from scheduling.engine.scheduler.priorities.node_label import new_node_label_priority
from tests.engine.builders import cluster, cycle, node, pod


@pytest.mark.parametrize(
    "label, presence, expected",
    [
        pytest.param("zone", True, [10, 10, 0], id="presence true favours nodes with the label, whatever its value"),
        pytest.param("zone", False, [0, 0, 10], id="presence false favours nodes without the label"),
        pytest.param("rack", True, [0, 0, 0], id="a label no node has"),
    ],
)
def test_node_label_priority(label, presence, expected):
    nodes = [node("n1", labels={"zone": "a"}), node("n2", labels={"zone": ""}), node("n3")]
    incoming = pod("p")
    ctx, infos = cycle(incoming, cluster(nodes))
    assert new_node_label_priority(label, presence)(incoming, ctx, infos) == expected
