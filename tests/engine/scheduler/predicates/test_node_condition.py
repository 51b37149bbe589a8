"""CheckNodeCondition, CheckNodeMemoryPressure, CheckNodeDiskPressure."""

import pytest

from scheduling.engine.scheduler.predicates.node_condition import (
    check_node_condition,
    check_node_disk_pressure,
    check_node_memory_pressure,
)
from tests.engine.builders import cluster, evaluate, node, pod

CONDITION_CASES = [
    pytest.param(node("node11"), (), id="a node without any conditions is schedulable (node11)"),
    pytest.param(node("n", conditions={"Ready": "True", "OutOfDisk": "False", "NetworkUnavailable": "False"}), (), id="a healthy node fits"),
    pytest.param(node("n", conditions={"Ready": "False"}), ("node(s) were not ready",), id="Ready False is not ready"),
    pytest.param(node("n", conditions={"Ready": "Unknown"}), ("node(s) were not ready",), id="Ready Unknown is not ready"),
    pytest.param(node("n", conditions={"OutOfDisk": "True"}), ("node(s) were out of disk space",), id="OutOfDisk True is out of disk"),
    pytest.param(node("n", conditions={"OutOfDisk": "Unknown"}), ("node(s) were out of disk space",), id="OutOfDisk anything but False is out of disk"),
    pytest.param(node("n", conditions={"NetworkUnavailable": "True"}), ("node(s) had unavailable network",), id="NetworkUnavailable True"),
    pytest.param(node("n", unschedulable=True), ("node(s) were unschedulable",), id="a cordoned node is unschedulable"),
    pytest.param(
        node("n", conditions={"NetworkUnavailable": "True", "Ready": "False"}, unschedulable=True),
        ("node(s) had unavailable network", "node(s) were not ready", "node(s) were unschedulable"),
        id="reasons follow the order of the conditions, unschedulable last",
    ),
    pytest.param(node("n", conditions={"MemoryPressure": "True", "DiskPressure": "True"}), (), id="pressure conditions are not this predicate's business"),
]


@pytest.mark.parametrize("the_node, reasons", CONDITION_CASES)
def test_check_node_condition(the_node, reasons):
    assert evaluate(check_node_condition, pod("p"), cluster([the_node])) == {the_node.name: reasons}


BEST_EFFORT = pod("be")
BURSTABLE = pod("bu", cpu="100m")

PRESSURE_CASES = [
    pytest.param(check_node_memory_pressure, {"MemoryPressure": "True"}, BEST_EFFORT, ("node(s) had memory pressure",), id="memory pressure rejects a BestEffort pod"),
    pytest.param(check_node_memory_pressure, {"MemoryPressure": "True"}, BURSTABLE, (), id="memory pressure admits a pod with requests"),
    pytest.param(check_node_memory_pressure, {"MemoryPressure": "False"}, BEST_EFFORT, (), id="no memory pressure admits a BestEffort pod"),
    pytest.param(check_node_disk_pressure, {"DiskPressure": "True"}, BURSTABLE, ("node(s) had disk pressure",), id="disk pressure rejects every pod"),
    pytest.param(check_node_disk_pressure, {"DiskPressure": "Unknown"}, BEST_EFFORT, (), id="only DiskPressure True counts"),
    pytest.param(check_node_disk_pressure, {}, BEST_EFFORT, (), id="a node without conditions has no disk pressure"),
]


@pytest.mark.parametrize("predicate, conditions, the_pod, reasons", PRESSURE_CASES)
def test_pressure_predicates(predicate, conditions, the_pod, reasons):
    assert evaluate(predicate, the_pod, cluster([node("n", conditions=conditions)])) == {"n": reasons}
