"""CheckNodeLabelPresence (labelsPresence argument)."""

import pytest

from scheduling.engine.scheduler.predicates.label_presence import new_node_label_predicate
from tests.engine.builders import cluster, evaluate, node, pod

MISSING = ("node(s) didn't have the requested labels",)
NODES = [node("both", labels={"rack": "r1", "region": "east"}), node("rack-only", labels={"rack": "r2"}), node("none")]

CASES = [
    pytest.param(["rack", "region"], True, {"both": (), "rack-only": MISSING, "none": MISSING}, id="presence true needs every label, whatever its value"),
    pytest.param(["rack", "region"], False, {"both": MISSING, "rack-only": MISSING, "none": ()}, id="presence false rejects a node with any of the labels"),
    pytest.param([], True, {"both": (), "rack-only": (), "none": ()}, id="no labels admits every node"),
]


@pytest.mark.parametrize("labels, presence, expected", CASES)
def test_node_label_presence(labels, presence, expected):
    assert evaluate(new_node_label_predicate(labels, presence), pod("p"), cluster(NODES)) == expected
