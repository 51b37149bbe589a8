"""PrioritySort, SchedulingGates, NodeUnschedulable and NodeName, translated from upstream's
priority_sort_test.go (TestLess), scheduling_gates_test.go (TestPreEnqueue),
node_unschedulable_test.go (TestNodeUnschedulable) and node_name_test.go (TestNodeName)."""

import pytest

from scheduling.engine.framework.interface import CycleState, OK, UNRESOLVABLE
from scheduling.engine.framework.plugins.node_name import NodeName
from scheduling.engine.framework.plugins.node_unschedulable import NodeUnschedulable
from scheduling.engine.framework.plugins.queuesort import PrioritySort, less
from scheduling.engine.framework.plugins.scheduling_gates import SchedulingGates
from tests.engine.framework.plugin_builders import handle, info, node, pod

LOW, HIGH = 1, 2
T1, T2 = 100.0, 200.0

LESS_CASES = [
    ("p1.priority less than p2.priority", (LOW, T1), (HIGH, T2), False),
    ("p1.priority greater than p2.priority", (HIGH, T1), (LOW, T2), True),
    ("equal priority. p1 is added to schedulingQ earlier than p2", (HIGH, T1), (HIGH, T2), True),
    ("equal priority. p2 is added to schedulingQ earlier than p1", (HIGH, T2), (HIGH, T1), False),
]


@pytest.mark.parametrize("name,a,b,expected", LESS_CASES, ids=[c[0] for c in LESS_CASES])
def test_less(name, a, b, expected):
    assert less(*a, *b) is expected
    assert PrioritySort.less(*a, *b) is expected
    assert (PrioritySort.sort_key(*a) < PrioritySort.sort_key(*b)) is expected


GATE_CASES = [
    ("pod does not carry scheduling gates", [], None),
    ("pod carries scheduling gates", ["foo", "bar"], "waiting for scheduling gates: [foo bar]"),
]


@pytest.mark.parametrize("name,gates,want", GATE_CASES, ids=[c[0] for c in GATE_CASES])
def test_pre_enqueue(name, gates, want):
    p = pod("p", schedulingGates=[{"name": g} for g in gates])
    got = SchedulingGates({}, handle()).pre_enqueue(p)
    if want is None:
        assert got == OK
    else:
        assert (got.code, got.reasons) == (UNRESOLVABLE, (want,))


UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
UNSCHEDULABLE_CASES = [
    ("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", True, [], False),
    ("Schedule pod to normal node", False, [], True),
    ("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)", True,
     [{"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}], True),
]


@pytest.mark.parametrize("name,unschedulable,tolerations,fits", UNSCHEDULABLE_CASES, ids=[c[0] for c in UNSCHEDULABLE_CASES])
def test_node_unschedulable(name, unschedulable, tolerations, fits):
    got = NodeUnschedulable({}, handle()).filter(CycleState(), pod("p", tolerations=tolerations),
                                                 info(node("n", unschedulable=unschedulable)))
    if fits:
        assert got == OK
    else:
        assert (got.code, got.reasons) == (UNRESOLVABLE, ("node(s) were unschedulable",))


NODE_NAME_CASES = [
    ("no host specified", "", "foo", True),
    ("host matches", "foo", "foo", True),
    ("host doesn't match", "bar", "foo", False),
]


@pytest.mark.parametrize("name,pod_node,node_name,fits", NODE_NAME_CASES, ids=[c[0] for c in NODE_NAME_CASES])
def test_node_name(name, pod_node, node_name, fits):
    got = NodeName({}, handle()).filter(CycleState(), pod("p", node_name=pod_node), info(node(node_name)))
    if fits:
        assert got == OK
    else:
        assert (got.code, got.reasons) == (UNRESOLVABLE, ("node(s) didn't match the requested node name",))
