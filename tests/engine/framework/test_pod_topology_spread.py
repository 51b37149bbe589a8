"""PodTopologySpread, translated from upstream's test tables
(pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go: TestPreFilterState,
TestSingleConstraint), upstream case names kept; plus the args, AddPod/RemovePod, the
system default constraints and the scores."""

from __future__ import annotations

import math

import pytest

from scheduling.engine.api.objects import Controller, Service
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import ArgsError, CycleState, Handle
from scheduling.engine.framework.plugins.pod_topology_spread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PREFILTER_KEY,
    PodTopologySpread,
)
from scheduling.engine.scheduler.cluster import ClusterState
from tests.engine.framework.st import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY, MakeLabelSelector, MakeNode, MakePod

FOO = MakeLabelSelector().Exists("foo").Obj()
BAR = MakeLabelSelector().Exists("bar").Obj()


def four_nodes():
    return [MakeNode().Name(n).Label("zone", z).Label("node", n).Obj()
            for n, z in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2"))]


def foo_pods(*placements, ns=None):
    """p-<suffix> on node-<letter> with label foo, e.g. "a1" -> p-a1 on node-a."""
    out = []
    for p in placements:
        b = MakePod().Name(f"p-{p}").Node(f"node-{p[0]}").Label("foo", "")
        out.append(b.Obj())
    return out


def nd(name, taints=None, **labels):
    """st.MakeNode().Name(name).Label(k, v)... (labels in order; foo="" spelled foo="")."""
    b = MakeNode().Name(name)
    for k, v in labels.items():
        b.Label(k, v)
    if taints:
        b.Taints(taints)
    return b.Obj()


def pd(name, node, *labels):
    """st.MakePod().Name(name).Node(node).Label(l, "")..."""
    b = MakePod().Name(name).Node(node)
    for label in labels:
        b.Label(label, "")
    return b.Obj()


TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]


def setup(pod, nodes, existing=(), args=None, **objects):
    state = ClusterState(nodes=list(nodes), pods=list(existing), **objects)
    handle = Handle(state=state, node_infos=state.node_infos())
    return PodTopologySpread(args if args is not None else {"defaultingType": "List"}, handle), handle


def run_filter(pod, nodes, existing=(), args=None):
    plugin, handle = setup(pod, nodes, existing, args)
    cs = CycleState()
    status = plugin.pre_filter(cs, pod, list(handle.node_infos.values()))
    assert status.is_success, status
    return {name: plugin.filter(cs, pod, info) for name, info in handle.node_infos.items()}


S, U, R = fw.SUCCESS, fw.UNSCHEDULABLE, fw.UNRESOLVABLE

# TestSingleConstraint: (name, pod, nodes, existing pods, want code per node)
SINGLE = [
    ("no existing pods",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), [], {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("no existing pods, incoming pod doesn't match itself",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, BAR).Obj(),
     four_nodes(), [], {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("existing pods in a different namespace do not count",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(),
     [MakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
      MakePod().Name("p-b1").Namespace("ns2").Node("node-a").Label("foo", "").Obj(),
      *foo_pods("x1", "y1")],
     {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    ("existing pods do not match null selector",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, None).Obj(),
     four_nodes(), foo_pods("x1", "y1"), {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("pods spread across zones as 3/3, all nodes fit",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
     {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     [MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
      MakeNode().Name("node-b").Label("zon", "zone1").Label("node", "node-b").Obj(),
      MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
      MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj()],
     foo_pods("a1", "b1", "x1", "y1"), {"node-a": S, "node-b": R, "node-x": U, "node-y": U}),
    ("pod cannot be scheduled as all nodes don't have label 'rack'",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "rack", DO_NOT_SCHEDULE, FOO).Obj(),
     [MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
      MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj()],
     [], {"node-a": R, "node-x": R}),
    ("pods spread across nodes as 2/1/0/3, only node-x fits",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
     {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
     MakePod().Name("p").Label("bar", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
     {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("node", ["node-a", "node-y"])
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3"),
     {"node-a": S, "node-b": S, "node-x": S, "node-y": U}),
    ("terminating Pods should be excluded",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [MakeNode().Name("node-a").Label("node", "node-a").Obj(), MakeNode().Name("node-b").Label("node", "node-b").Obj()],
     [MakePod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
      MakePod().Name("p-b").Node("node-b").Label("foo", "").Obj()],
     {"node-a": S, "node-b": U}),
    ("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
     MakePod().Name("p").Label("foo", "").NodeAffinityNotIn("node", ["node-b"])
     .SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("b1", "b2", "y1"),
     {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, "node", DO_NOT_SCHEDULE, FOO, 4).Obj(),
     [MakeNode().Name(f"node-{c}").Label("node", f"node-{c}").Obj() for c in "abc"],
     foo_pods("a1", "a2", "b1", "b2", "c1"), {"node-a": U, "node-b": U, "node-c": S}),
    ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, "node", DO_NOT_SCHEDULE, FOO, 2).Obj(),
     [MakeNode().Name(f"node-{c}").Label("node", f"node-{c}").Obj() for c in "abc"],
     foo_pods("a1", "a2", "b1", "b2", "c1"), {"node-a": S, "node-b": S, "node-c": S}),
    ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, "zone", DO_NOT_SCHEDULE, FOO, 3).Obj(),
     four_nodes(), [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, "zone", DO_NOT_SCHEDULE, FOO, 1).Obj(),
     four_nodes(), [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("NodeAffinityPolicy honored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-x", node="node-x", foo=""), nd("node-y", node="node-y")],
     [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    ("NodeAffinityPolicy ignored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, "Ignore").Obj(),
     [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-x", node="node-x", foo=""), nd("node-y", node="node-y")],
     [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("NodeAffinityPolicy honored with nodeAffinity",
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", [""]).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-x", node="node-x", foo=""), nd("node-y", node="node-y")],
     [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    ("NodeAffinityPolicy ignored with labelSelectors (nodeAffinity)",  # upstream repeats the previous name
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", [""]).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, "Ignore").Obj(),
     [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-x", node="node-x", foo=""), nd("node-y", node="node-y")],
     [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("NodeTaintsPolicy honored",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, None, "Honor").Obj(),
     [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-x", node="node-x", foo=""), nd("node-y", TAINTS, node="node-y")],
     [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    ("NodeTaintsPolicy ignored",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-x", node="node-x", foo=""), nd("node-y", TAINTS, node="node-y")],
     [pd("p-b1", "node-a", "foo"), pd("p-b2", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want", SINGLE, ids=[c[0] for c in SINGLE])
def test_single_constraint(name, pod, nodes, existing, want):
    got = run_filter(pod, nodes, existing)
    assert {n: s.code for n, s in got.items()} == want
    for s in got.values():
        if s.code == U:
            assert s.reasons == (ERR_REASON_CONSTRAINTS_NOT_MATCH,)
        elif s.code == R:
            assert s.reasons == (ERR_REASON_NODE_LABEL_NOT_MATCH,)


# TestMultipleConstraints
def _zn(zone, node, **extra):
    return nd(node, zone=zone, node=node, **extra)


MULTIPLE = [
    ("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3"), {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3", "y4"), {"node-a": U, "node-b": U, "node-x": U, "node-y": U}),
    ("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo"), pd("p-y1", "node-y", "bar")], {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo"), pd("p-x1", "node-x", "bar"), pd("p-y1", "node-y", "bar")],
     {"node-a": U, "node-b": U, "node-x": U, "node-y": U}),
    ("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo"), pd("p-a2", "node-a", "foo", "bar"), pd("p-y1", "node-y", "foo"),
                    pd("p-y2", "node-y", "foo", "bar"), pd("p-y3", "node-y", "foo")],
     {"node-a": U, "node-b": S, "node-x": U, "node-y": U}),
    ("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
     MakePod().Name("p").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo"), pd("p-x1", "node-x", "bar"), pd("p-y1", "node-y", "bar")],
     {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    ("two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [_zn("zone1", "node-a"), _zn("zone1", "node-b"), nd("node-x", zone="zone2"), _zn("zone2", "node-y")],
     [pd("p-a1", "node-a", "foo"), pd("p-y3", "node-y", "foo")], {"node-a": U, "node-b": S, "node-x": R, "node-y": U}),
    ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, "Ignore").Obj(),
     [_zn("zone1", "node-a", foo=""), _zn("zone1", "node-b", foo=""), _zn("zone2", "node-x", foo=""), _zn("zone2", "node-y")],
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, None, None, "Honor")
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [_zn("zone1", "node-a", foo=""), _zn("zone1", "node-b", foo=""), _zn("zone2", "node-x", foo=""),
      nd("node-y", TAINTS, zone="zone2", node="node-y")],
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [_zn("zone1", "node-a", foo=""), _zn("zone1", "node-b"), _zn("zone2", "node-x", foo=""),
      nd("node-y", TAINTS, zone="zone2", node="node-y", foo="")],
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    ("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, None, None, "Honor")
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, "Ignore").Obj(),
     [_zn("zone1", "node-a", foo=""), _zn("zone1", "node-b"), _zn("zone2", "node-x", foo=""),
      nd("node-y", TAINTS, zone="zone2", node="node-y", foo="")],
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo"), pd("p-y1", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("two Constraints on zone, spreads = [3/3, 2/1]",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, BAR).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo", "bar"), pd("p-a2", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar"),
                    pd("p-y1", "node-y", "foo"), pd("p-y2", "node-y", "foo", "bar"), pd("p-y3", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    ("two Constraints on zone, spreads = [3/4, 2/1]",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, BAR).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo", "bar"), pd("p-a2", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar"),
                    pd("p-y1", "node-y", "foo"), pd("p-y2", "node-y", "foo", "bar"), pd("p-y3", "node-y", "foo"), pd("p-y4", "node-y", "foo")],
     {"node-a": U, "node-b": U, "node-x": U, "node-y": U}),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want", MULTIPLE, ids=[c[0] for c in MULTIPLE])
def test_multiple_constraints(name, pod, nodes, existing, want):
    got = run_filter(pod, nodes, existing)
    assert {n: s.code for n, s in got.items()} == want


def test_pre_filter_disabled():
    """TestPreFilterDisabled: Filter without PreFilter's state is an error."""
    plugin, handle = setup(MakePod().Name("p").Obj(), [MakeNode().Name("n").Obj()])
    status = plugin.filter(CycleState(), MakePod().Name("p").Obj(), handle.node_infos["n"])
    assert status.code == fw.ERROR


# TestPreFilterState: (name, pod, nodes, existing, want TpValueToMatchNum, want critical-path minima)
PREFILTER = [
    ("clean cluster with one spreadConstraint",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(5, "zone", DO_NOT_SCHEDULE, MakeLabelSelector().Label("foo", "bar").Obj()).Obj(),
     four_nodes(), [], [{"zone1": 0, "zone2": 0}], [0]),
    ("normal case with one spreadConstraint",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2"), [{"zone1": 3, "zone2": 2}], [("zone2", 2)]),
    ("normal case with null label selector",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, None).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2"), [{"zone1": 0, "zone2": 0}], [0]),
    ("normal case with one spreadConstraint, on a 3-zone cluster",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes() + [MakeNode().Name("node-o").Label("zone", "zone3").Label("node", "node-o").Obj(),
                     MakeNode().Name("node-p").Label("zone", "zone3").Label("node", "node-p").Obj()],
     foo_pods("a1", "a2", "b1", "y1", "y2"), [{"zone1": 3, "zone2": 2, "zone3": 0}], [("zone3", 0), ("zone2", 2)]),
    ("namespace mismatch doesn't count",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(),
     [foo_pods("a1")[0], MakePod().Name("p-a2").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
      foo_pods("b1")[0], MakePod().Name("p-y1").Namespace("ns2").Node("node-y").Label("foo", "").Obj(), foo_pods("y2")[0]],
     [{"zone1": 2, "zone2": 1}], [("zone2", 1), ("zone1", 2)]),
    ("normal case with two spreadConstraints",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3", "y4"),
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
     [("zone1", 3), ("zone2", 4), ("node-x", 0), ("node-b", 1)]),
    ("soft spreadConstraints should be bypassed",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO)
     .SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [n for n in four_nodes() if n.name != "node-x"], foo_pods("a1", "a2", "b1", "y1", "y2", "y3", "y4"),
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
     [("zone1", 3), ("zone2", 4), ("node-b", 1), ("node-a", 2)]),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want,paths", PREFILTER, ids=[c[0] for c in PREFILTER])
def test_pre_filter_state(name, pod, nodes, existing, want, paths):
    plugin, handle = setup(pod, nodes, existing)
    cs = CycleState()
    assert plugin.pre_filter(cs, pod, list(handle.node_infos.values())).is_success
    state = cs[PREFILTER_KEY]
    assert state.tp_value_to_match_num == want
    # criticalPaths[i][0] holds the minimum (ties compared sorted, as upstream's comparer does)
    minima = [p.paths[0][1] for p in state.critical_paths]
    want_min = [w if isinstance(w, int) else w[1] for w in paths[::2]] if len(paths) > len(want) else \
        [w if isinstance(w, int) else w[1] for w in paths[:len(want)]]
    assert minima == want_min
    assert plugin.domain_counts(cs) == {c.topology_key: m for c, m in zip(state.constraints, want)}


def test_pod_without_constraints_is_skipped():
    pod = MakePod().Name("p").Label("foo", "").Obj()
    plugin, handle = setup(pod, four_nodes(), foo_pods("a1"))
    cs = CycleState()
    assert plugin.pre_filter(cs, pod, list(handle.node_infos.values())).is_skip
    assert plugin.pre_score(cs, pod, list(handle.node_infos.values())).is_skip


def test_add_and_remove_pod_move_the_counts():
    """AddPod/RemovePod (preemption, nominated pods): a matching pod added to node-x makes
    zone2 as full as zone1; removing it restores the verdict."""
    pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj()
    plugin, handle = setup(pod, four_nodes(), foo_pods("a1"))
    cs = CycleState()
    plugin.pre_filter(cs, pod, list(handle.node_infos.values()))
    infos = handle.node_infos
    assert plugin.filter(cs, pod, infos["node-a"]).code == U
    other = MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj()
    clone = cs.clone()
    assert plugin.add_pod(clone, pod, other, infos["node-x"]).is_success
    assert plugin.filter(clone, pod, infos["node-a"]).is_success
    assert plugin.filter(cs, pod, infos["node-a"]).code == U  # the original state is untouched
    assert plugin.remove_pod(clone, pod, other, infos["node-x"]).is_success
    assert plugin.filter(clone, pod, infos["node-a"]).code == U
    # a pod of another namespace changes nothing
    assert plugin.add_pod(clone, pod, MakePod().Name("q").Namespace("ns1").Label("foo", "").Obj(), infos["node-x"]).is_success
    assert plugin.filter(clone, pod, infos["node-a"]).code == U


def test_binding_a_pod_updates_the_next_cycle():
    pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj()
    plugin, handle = setup(pod, four_nodes(), foo_pods("a1"))
    nodes = list(handle.node_infos.values())
    cs = CycleState()
    plugin.pre_filter(cs, pod, nodes)
    assert plugin.filter(cs, pod, handle.node_infos["node-x"]).is_success
    handle.node_infos["node-x"].add_pod(MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj())
    handle.node_infos["node-y"].add_pod(MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj())
    cs = CycleState()
    plugin.pre_filter(cs, pod, nodes)
    assert plugin.domain_counts(cs) == {"zone": {"zone1": 1, "zone2": 2}}
    assert plugin.filter(cs, pod, handle.node_infos["node-x"]).code == U
    assert plugin.filter(cs, pod, handle.node_infos["node-a"]).is_success


def test_match_label_keys_are_merged_into_the_selector():
    pod = MakePod().Name("p").Label("foo", "").Label("rev", "2") \
        .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, None, None, ["rev"]).Obj()
    existing = [MakePod().Name("old").Node("node-x").Label("foo", "").Label("rev", "1").Obj(),
                MakePod().Name("new").Node("node-a").Label("foo", "").Label("rev", "2").Obj()]
    got = run_filter(pod, four_nodes(), existing)
    assert {n: s.code for n, s in got.items()} == {"node-a": U, "node-b": S, "node-x": S, "node-y": S}


def test_node_taints_policy_honor_leaves_tainted_nodes_out():
    taint = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    nodes = [MakeNode().Name("node-a").Label("node", "node-a").Obj(),
             MakeNode().Name("node-b").Label("node", "node-b").Taints(taint).Obj()]
    existing = foo_pods("a1")
    honor = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, None, "Honor").Obj()
    ignore = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, None, "Ignore").Obj()
    # Honor: node-b's domain is not counted, the minimum is node-a's 1: node-a fits
    assert run_filter(honor, nodes, existing)["node-a"].is_success
    # Ignore: node-b's empty domain is the minimum: node-a is skewed
    assert run_filter(ignore, nodes, existing)["node-a"].code == U


@pytest.mark.parametrize("args,message", [
    ({"defaultingType": "Unknown"}, 'defaultingType: Unsupported value: "Unknown": supported values: "System", "List"'),
    ({"defaultingType": "System", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]},
     'defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
    ({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]},
     "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"),
    ({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                                        "labelSelector": {}}]},
     "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod"),
])
def test_args_validation(args, message):
    with pytest.raises(ArgsError) as e:
        setup(MakePod().Name("p").Obj(), [], args=args)
    assert str(e.value) == message


def _scores(plugin, handle, pod, nodes=None):
    nodes = list(handle.node_infos.values()) if nodes is None else nodes
    cs = CycleState()
    status = plugin.pre_score(cs, pod, nodes)
    if status.is_skip:
        return None
    scores = {n.name: plugin.score(cs, pod, n) for n in nodes}
    raw = dict(scores)
    plugin.normalize_score(cs, pod, scores)
    return raw, scores


def test_score_formula_and_normalization():
    """Score: count * log(domains + 2) + maxSkew - 1 per constraint, rounded; NormalizeScore
    100 * (max + min - s) / max."""
    pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).Obj()
    plugin, handle = setup(pod, four_nodes(), foo_pods("a1", "a2", "b1", "y1"))
    raw, scores = _scores(plugin, handle, pod)
    w = math.log(2 + 2)
    assert raw == {"node-a": round(3 * w), "node-b": round(3 * w), "node-x": round(1 * w), "node-y": round(1 * w)}
    mx, mn = max(raw.values()), min(raw.values())
    assert scores == {n: 100 * (mx + mn - s) // mx for n, s in raw.items()}
    assert scores["node-x"] == 100 and scores["node-a"] < 100


def test_score_nodes_missing_a_key_are_ignored():
    pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).Obj()
    nodes = four_nodes() + [MakeNode().Name("node-z").Label("node", "node-z").Obj()]
    plugin, handle = setup(pod, nodes, foo_pods("a1"))
    raw, scores = _scores(plugin, handle, pod)
    assert raw["node-z"] == 0 and scores["node-z"] == 0
    assert scores["node-x"] == 100


def test_system_default_constraints_use_the_owners_selector():
    """System defaulting: a pod without constraints owned by a ReplicaSet spreads with its
    selector (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway); Filter is skipped."""
    rs = Controller.from_doc({"kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
                              "spec": {"selector": {"matchLabels": {"app": "web"}}}})
    nodes = [MakeNode().Name(n).Label("kubernetes.io/hostname", n).Label("topology.kubernetes.io/zone", z).Obj()
             for n, z in (("n1", "z1"), ("n2", "z1"), ("n3", "z2"))]
    existing = [MakePod().Name(f"w{i}").Node("n1").Label("app", "web").OwnerReference("rs", "ReplicaSet").Obj() for i in range(3)]
    pod = MakePod().Name("p").Label("app", "web").OwnerReference("rs", "ReplicaSet").Obj()
    plugin, handle = setup(pod, nodes, existing, args={}, controllers=[rs])
    cs = CycleState()
    assert plugin.pre_filter(cs, pod, list(handle.node_infos.values())).is_skip
    raw, scores = _scores(plugin, handle, pod)
    assert scores["n3"] == 100 and scores["n1"] < scores["n2"] < 100
    # a pod nothing selects gets no default constraints
    lonely = MakePod().Name("q").Label("app", "db").Obj()
    assert _scores(plugin, handle, lonely) is None


def test_default_selector_merges_services():
    svc = Service.from_doc({"metadata": {"name": "s", "namespace": "default"}, "spec": {"selector": {"tier": "fe"}}})
    nodes = [MakeNode().Name(n).Label("kubernetes.io/hostname", n).Obj() for n in ("n1", "n2")]
    pod = MakePod().Name("p").Label("tier", "fe").Obj()
    plugin, _ = setup(pod, nodes, [], args={}, services=[svc])
    assert str(plugin.default_selector(pod)) == "tier=fe"


# --- scoring_test.go ------------------------------------------------------------------------------------

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def rs(name, selector):
    return Controller.from_doc({"kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
                                "spec": {"selector": selector}})


def hn(name, **labels):
    """A node labelled kubernetes.io/hostname=<name> after the given labels."""
    b = MakeNode().Name(name)
    for k, v in labels.items():
        b.Label(k, v)
    return b.Label(HOST, name).Obj()


# TestPreScoreSkip: (name, pod, nodes, args, controllers)
PRESCORE_SKIP = [
    ("the pod doesn't have soft topology spread Constraints",
     MakePod().Name("p").Obj(), [hn("node-a"), hn("node-b")], {"defaultingType": "List"}, []),
    ("default constraints and a replicaset that doesn't match",
     MakePod().Name("p").Label("foo", "bar").Label("baz", "sup").OwnerReference("rs2", "ReplicaSet").Obj(),
     [MakeNode().Name("node-a").Label("planet", "mars").Obj()],
     {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": "ScheduleAnyway"}]},
     [rs("rs1", MakeLabelSelector().Exists("tar").Obj())]),
]


@pytest.mark.parametrize("name,pod,nodes,args,controllers", PRESCORE_SKIP, ids=[c[0] for c in PRESCORE_SKIP])
def test_pre_score_skip(name, pod, nodes, args, controllers):
    plugin, handle = setup(pod, nodes, [], args=args, controllers=controllers)
    assert plugin.pre_score(CycleState(), pod, list(handle.node_infos.values())).is_skip


W = math.log  # topologyNormalizingWeight(n) == log(n + 2)

# TestPreScoreStateEmptyNodes: (name, pod, nodes, args, controllers, (key, maxSkew) per constraint,
# ignored nodes, TopologyValueToPodCounts, TopologyNormalizingWeight sizes)
PRESCORE_STATE = [
    ("normal case",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")], {"defaultingType": "List"}, [],
     [("zone", 1), (HOST, 1)], set(), [{"zone1": 0, "zone2": 0}, {}], [2, 3]),
    ("null selector",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, None).Obj(),
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
    ("node-x doesn't have label zone",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, BAR).Obj(),
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x")], {"defaultingType": "List"}, [],
     [("zone", 1), (HOST, 1)], {"node-x"}, [{"zone1": 0}, {}], [1, 2]),
    ("system default constraints and a replicaset",
     MakePod().Name("p").Label("foo", "tar").Label("baz", "sup").OwnerReference("rs1", "ReplicaSet").Obj(),
     [MakeNode().Name("node-a").Label(HOST, "node-a").Label(ZONE, "mars").Obj(),
      MakeNode().Name("node-b").Label(HOST, "node-b").Label(ZONE, "mars").Obj(), hn("node-c"), hn("node-d")],
     {"defaultingType": "System"}, [rs("rs1", FOO)],
     [(HOST, 3), (ZONE, 5)], set(), [{}, {"mars": 0, "": 0}], [4, 2]),
    ("default constraints and a replicaset",
     MakePod().Name("p").Label("foo", "tar").Label("baz", "sup").OwnerReference("rs1", "ReplicaSet").Obj(),
     [MakeNode().Name("node-a").Label("rack", "rack1").Label(HOST, "node-a").Label("planet", "mars").Obj()],
     {"defaultingType": "List", "defaultConstraints": [
         {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": "ScheduleAnyway"},
         {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
         {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": "ScheduleAnyway"}]},
     [rs("rs1", FOO)], [(HOST, 1), ("planet", 2)], set(), [{}, {"mars": 0}], [1, 1]),
    ("default constraints and a replicaset, but pod has constraints",
     MakePod().Name("p").Label("foo", "bar").Label("baz", "sup").OwnerReference("rs1", "ReplicaSet")
     .SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, BAR).SpreadConstraint(2, "planet", SCHEDULE_ANYWAY, MakeLabelSelector().Label("baz", "sup").Obj()).Obj(),
     [MakeNode().Name("node-a").Label("planet", "mars").Label("galaxy", "andromeda").Obj()],
     {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": "ScheduleAnyway"}]},
     [rs("rs1", FOO)], [("planet", 2)], set(), [{"mars": 0}], [1]),
    ("NodeAffinityPolicy honored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR).Obj(),
     [hn("node-a", zone="zone1", foo=""), hn("node-b", zone="zone1", foo=""), hn("node-x", zone="zone2")], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
    ("NodeAffinityPolicy ignored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR, None, "Ignore").Obj(),
     [hn("node-a", zone="zone1", foo=""), hn("node-b", zone="zone1", foo=""), hn("node-x", zone="zone2")], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
    ("NodeAffinityPolicy honored with nodeAffinity",
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", [""]).SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR).Obj(),
     [hn("node-a", zone="zone1", foo=""), hn("node-b", zone="zone1", foo=""), hn("node-x", zone="zone2")], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", [""]).SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR, None, "Ignore").Obj(),
     [hn("node-a", zone="zone1", foo=""), hn("node-b", zone="zone1", foo=""), hn("node-x", zone="zone2")], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
    ("NodeTaintsPolicy honored",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR, None, None, "Honor").Obj(),
     [hn("node-a", zone="zone1", foo=""), hn("node-b", zone="zone1", foo=""),
      MakeNode().Name("node-x").Label("zone", "zone2").Label(HOST, "node-x").Taints(TAINTS).Obj()], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
    ("NodeTaintsPolicy ignored",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR).Obj(),
     [hn("node-a", zone="zone1", foo=""), hn("node-b", zone="zone1", foo=""),
      MakeNode().Name("node-x").Label("zone", "zone2").Label(HOST, "node-x").Taints(TAINTS).Obj()], {"defaultingType": "List"}, [],
     [("zone", 1)], set(), [{"zone1": 0, "zone2": 0}], [2]),
]


@pytest.mark.parametrize("name,pod,nodes,args,controllers,constraints,ignored,counts,sizes", PRESCORE_STATE,
                         ids=[c[0] for c in PRESCORE_STATE])
def test_pre_score_state_empty_nodes(name, pod, nodes, args, controllers, constraints, ignored, counts, sizes):
    from scheduling.engine.framework.plugins.pod_topology_spread import PRESCORE_KEY
    plugin, handle = setup(pod, nodes, [], args=args, controllers=controllers)
    cs = CycleState()
    assert plugin.pre_score(cs, pod, list(handle.node_infos.values())).is_success
    state = cs[PRESCORE_KEY]
    assert [(c.topology_key, c.max_skew) for c in state.constraints] == constraints
    assert state.ignored_nodes == ignored
    assert state.topology_value_to_pod_counts == counts
    assert state.topology_normalizing_weight == [W(n + 2) for n in sizes]


def _fa(*suffixes, labels=("foo",)):
    """p-<s> on node-<s[0]> with the given labels."""
    return [pd(f"p-{s}", f"node-{s[0]}", *labels) for s in suffixes]


# TestPodTopologySpreadScore (args: defaultingType System): (name, pod, existing, candidate nodes,
# failed nodes, services, want scores)
SCORE = [
    ("one constraint on node, no existing pods",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     [], [hn("node-a"), hn("node-b")], [], [], {"node-a": 100, "node-b": 100}),
    ("one constraint on node, only one node is candidate",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1"), [hn("node-a")], [hn("node-b")], [], {"node-a": 100}),
    ("one constraint on node, all nodes have the same number of matching pods",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "b1"), [hn("node-a"), hn("node-b")], [], [], {"node-a": 100, "node-b": 100}),
    ("one constraint on node, all 4 nodes are candidates",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1", "d1", "d2", "d3"), [hn(f"node-{c}") for c in "abcd"], [], [],
     {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}),
    ("one constraint on node, null selector",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, None).Obj(),
     _fa("a1", "a2", "b1", "d1", "d2", "d3"), [hn(f"node-{c}") for c in "abcd"], [], [],
     {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=2",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1", "d1", "d2", "d3"), [hn(f"node-{c}") for c in "abcd"], [], [],
     {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=3",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(3, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "a3", "a4", "b1", "b2", "b3", "c1", "c2", "d1"), [hn(f"node-{c}") for c in "abcd"], [], [],
     {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    ("system defaulting, nodes don't have zone, pods match service",
     MakePod().Name("p").Label("foo", "").Obj(),
     _fa("a1", "a2", "a3", "a4", "b1", "b2", "b3", "c1", "c2", "d1"), [hn(f"node-{c}") for c in "abcd"], [],
     [Service.from_doc({"metadata": {"name": "s"}, "spec": {"selector": {"foo": ""}}})],
     {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "a3", "a4", "b1", "b2", "x1", "y1", "y2", "y3"), [hn("node-a"), hn("node-b"), hn("node-x")], [hn("node-y")], [],
     {"node-a": 33, "node-b": 83, "node-x": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "a3", "a4", "b1", "b2", "x1", "y1", "y2", "y3"),
     [hn("node-a"), MakeNode().Name("node-b").Label("n", "node-b").Obj(), hn("node-x")], [hn("node-y")], [],
     {"node-a": 16, "node-b": 0, "node-x": 100}),
    ("one constraint on zone, 3 out of 4 nodes are candidates",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "a3", "a4", "b1", "b2", "x1", "y1", "y2", "y3"),
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")], [hn("node-y", zone="zone2")], [],
     {"node-a": 75, "node-b": 75, "node-x": 100}),
    ("two Constraints on zone and node, 2 out of 4 nodes are candidates",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1", "x1", "x2", "y1", "y2", "y3", "y4"),
     [hn("node-a", zone="zone1"), hn("node-x", zone="zone2")], [hn("node-b", zone="zone1"), hn("node-y", zone="zone2")], [],
     {"node-a": 100, "node-x": 63}),
    ("two Constraints on zone, 2 out of 4 nodes are candidates",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, BAR).Obj(),
     [pd("p-a1", "node-a", "foo", "bar"), pd("p-a2", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar"),
      pd("p-y1", "node-y", "foo"), pd("p-y2", "node-y", "foo", "bar"), pd("p-y3", "node-y", "foo")],
     [nd("node-a", zone="zone1"), nd("node-x", zone="zone2")], [nd("node-b", zone="zone1"), nd("node-y", zone="zone2")], [],
     {"node-a": 85, "node-x": 100}),
    ("two Constraints on zone and node, with different labelSelectors",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, BAR).Obj(),
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar"), pd("p-y1", "node-y", "foo"), pd("p-y2", "node-y", "bar")],
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2"), hn("node-y", zone="zone2")], [], [],
     {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}),
    ("two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, BAR).Obj(),
     [pd("p-b1", "node-b", "bar"), pd("p-x1", "node-x", "foo"), pd("p-y1", "node-y", "foo", "bar")],
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2"), hn("node-y", zone="zone2")], [], [],
     {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}),
    ("two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO).SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, BAR).Obj(),
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar"), pd("p-y1", "node-y", "foo"), pd("p-y2", "node-y", "bar")],
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")], [hn("node-y", zone="zone2")], [],
     {"node-a": 50, "node-b": 25, "node-x": 100}),
    ("existing pods in a different namespace do not count",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     [MakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(), *_fa("a2", "b1", "b2")],
     [hn("node-a"), hn("node-b")], [], [], {"node-a": 100, "node-b": 33}),
    ("terminating Pods should be excluded",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, FOO).Obj(),
     [MakePod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(), pd("p-b", "node-b", "foo")],
     [hn("node-a"), hn("node-b")], [], [], {"node-a": 100, "node-b": 0}),
    ("minDomains has no effect when ScheduleAnyway",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(2, "node", SCHEDULE_ANYWAY, FOO, 10).Obj(),
     _fa("a1", "a2", "b1", "b2", "c1"), [nd(f"node-{c}", node=f"node-{c}") for c in "abc"], [], [],
     {"node-a": 75, "node-b": 75, "node-c": 100}),
    ("NodeAffinityPolicy honoed with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1", "c1"), [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-c", node="node-c")], [], [],
     {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("NodeAffinityPolicy ignored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO, None, "Ignore").Obj(),
     _fa("a1", "a2", "b1", "c1"), [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-c", node="node-c")], [], [],
     {"node-a": 66, "node-b": 100, "node-c": 100}),
    ("NodeAffinityPolicy honoed with nodeAffinity",
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", [""]).SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1", "c1"), [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-c", node="node-c")], [], [],
     {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     MakePod().Name("p").Label("foo", "").NodeAffinityIn("foo", [""]).SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO, None, "Ignore").Obj(),
     _fa("a1", "a2", "b1", "c1"), [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""), nd("node-c", node="node-c")], [], [],
     {"node-a": 66, "node-b": 100, "node-c": 100}),
    ("NodeTaintsPolicy honored",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO, None, None, "Honor").Obj(),
     _fa("a1", "a2", "b1", "c1"), [nd("node-a", node="node-a"), nd("node-b", node="node-b"), nd("node-c", TAINTS, node="node-c")], [], [],
     {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("NodeTaintsPolicy ignored",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", SCHEDULE_ANYWAY, FOO).Obj(),
     _fa("a1", "a2", "b1", "c1"), [nd("node-a", node="node-a"), nd("node-b", node="node-b"), nd("node-c", TAINTS, node="node-c")], [], [],
     {"node-a": 66, "node-b": 100, "node-c": 100}),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
     MakePod().Name("p").Label("foo", "").Label("bar", "")
     .SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, MakeLabelSelector().Obj(), None, None, None, ["foo"])
     .SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, MakeLabelSelector().Obj(), None, None, None, ["bar"]).Obj(),
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar"), pd("p-y1", "node-c", "foo"), pd("p-y2", "node-c", "bar")],
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-c", zone="zone2"), hn("node-d", zone="zone2")], [], [],
     {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
     MakePod().Name("p").Label("foo", "").Label("bar", "").Label("baz", "")
     .SpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO)
     .SpreadConstraint(1, HOST, SCHEDULE_ANYWAY, BAR, None, None, None, ["baz"]).Obj(),
     [pd("p-a1", "node-a", "foo"), pd("p-b1", "node-b", "foo", "bar", "baz"), pd("p-c1", "node-c", "foo"),
      pd("p-c2", "node-c", "bar"), pd("p-d3", "node-c", "bar", "baz")],
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-c", zone="zone2"), hn("node-d", zone="zone2")], [], [],
     {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}),
]


@pytest.mark.parametrize("name,pod,existing,nodes,failed,services,want", SCORE, ids=[c[0] for c in SCORE])
def test_pod_topology_spread_score(name, pod, existing, nodes, failed, services, want):
    plugin, handle = setup(pod, nodes + failed, existing, args={"defaultingType": "System"}, services=services)
    candidates = [handle.node_infos[n.name] for n in nodes]
    cs = CycleState()
    assert plugin.pre_score(cs, pod, candidates).is_success
    scores = {info.name: plugin.score(cs, pod, info) for info in candidates}
    plugin.normalize_score(cs, pod, scores)
    assert scores == want


@pytest.mark.parametrize("counts", [
    {f"n{i}": (i * 7) % 5 + 1 for i in range(40)},  # a unique minimum
    {f"n{i}": 3 if i % 9 else 1 for i in range(40)},  # tied minima
])
def test_critical_paths_of_many_domains_hold_the_two_minima(counts):
    """With many domains the critical paths are found without the value-by-value update;
    paths[0] holds the minimum and paths[1] the next one, as the update would leave them."""
    from scheduling.engine.framework.plugins.pod_topology_spread import CriticalPaths, critical_paths_of
    fast = critical_paths_of(counts).paths
    slow = CriticalPaths()
    for value in sorted(counts):
        slow.update(value, counts[value])
    assert [n for _, n in fast] == [n for _, n in slow.paths]
    assert counts[fast[0][0]] == fast[0][1] and counts[fast[1][0]] == fast[1][1] and fast[0][0] != fast[1][0]


def _svc(selector):
    return Service.from_doc({"metadata": {"name": "svc", "namespace": "default"}, "spec": {"selector": selector}})


def _list(*constraints):
    return {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": s, "topologyKey": k, "whenUnsatisfiable": w} for s, k, w in constraints]}


_ABY = lambda: [nd("node-a", zone="zone1", node="node-a"), nd("node-b", zone="zone1", node="node-b"),  # noqa: E731
                nd("node-y", zone="zone2", node="node-y")]
_NODE_FOO_BAR = lambda: [nd("node-a", node="node-a", foo=""), nd("node-b", node="node-b", foo=""),  # noqa: E731
                         nd("node-c", node="node-c", bar="")]
_BAR_PODS = lambda: [pd("p-a", "node-a", "bar"), pd("p-b", "node-b", "bar"), pd("p-c", "node-b", "bar"),  # noqa: E731
                     pd("p-d", "node-c")]
MAXINT = 2**31 - 1

# More of TestPreFilterState: (name, pod, nodes, existing, args, services, TpValueToMatchNum or "Skip",
# the minimum of each constraint's critical paths)
PREFILTER_MORE = [
    ("different labelSelectors - simple version",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     _ABY(), [pd("p-a", "node-a", "foo"), pd("p-b", "node-b", "bar")], None, [],
     [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}], [0, 0]),
    ("different labelSelectors - complex pods",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     _ABY(), [pd("p-a1", "node-a", "foo"), pd("p-a2", "node-a", "foo", "bar"), pd("p-b1", "node-b", "foo"),
              pd("p-y1", "node-y", "foo"), pd("p-y2", "node-y", "foo", "bar"), pd("p-y3", "node-y", "foo"),
              pd("p-y4", "node-y", "foo", "bar")], None, [],
     [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}], [3, 0]),
    ("two spreadConstraints, and with podAffinity",
     MakePod().Name("p").Label("foo", "").NodeAffinityNotIn("node", ["node-x"]).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3", "y4"), None, [],
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}], [3, 1]),
    ("default constraints and a service",
     MakePod().Name("p").Label("foo", "bar").Label("baz", "kar").Obj(), [], [],
     _list((3, "node", "DoNotSchedule"), (2, "node", "ScheduleAnyway"), (5, "rack", "DoNotSchedule")), [_svc({"foo": "bar"})],
     [{}, {}], [MAXINT, MAXINT]),
    ("default constraints and a service that doesn't match",
     MakePod().Name("p").Label("foo", "bar").Obj(), [], [], _list((3, "node", "DoNotSchedule")), [_svc({"baz": "kep"})],
     "Skip", []),
    ("default constraints and a service, but pod has constraints",
     MakePod().Name("p").Label("foo", "bar").Label("baz", "tar")
     .SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, MakeLabelSelector().Label("baz", "tar").Obj())
     .SpreadConstraint(2, "planet", SCHEDULE_ANYWAY, MakeLabelSelector().Label("fot", "rok").Obj()).Obj(), [], [],
     _list((2, "node", "DoNotSchedule")), [_svc({"foo": "bar"})], [{}], [MAXINT]),
    ("default soft constraints and a service",
     MakePod().Name("p").Label("foo", "bar").Obj(), [], [], _list((2, "node", "ScheduleAnyway")), [_svc({"foo": "bar"})],
     "Skip", []),
    ("TpKeyToDomainsNum is calculated when MinDomains is enabled",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     four_nodes(), foo_pods("a1", "a2", "b1", "y1", "y2", "y3", "y4"), None, [],
     [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}], [3, 0]),
    ("feature gate disabled with NodeAffinityPolicy",  # v1.35 has the gate on: Honor gives the same counts
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     _NODE_FOO_BAR(), _BAR_PODS(), None, [], [{"node-a": 1, "node-b": 2}], [1]),
    ("NodeAffinityPolicy honored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj(),
     _NODE_FOO_BAR(), _BAR_PODS(), None, [], [{"node-a": 1, "node-b": 2}], [1]),
    ("NodeAffinityPolicy ignored with labelSelectors",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR, None, "Ignore").Obj(),
     _NODE_FOO_BAR(), _BAR_PODS(), None, [], [{"node-a": 1, "node-b": 2, "node-c": 0}], [0]),
]


@pytest.mark.parametrize("name,pod,nodes,existing,args,services,want,minima", PREFILTER_MORE, ids=[c[0] for c in PREFILTER_MORE])
def test_pre_filter_state_more(name, pod, nodes, existing, args, services, want, minima):
    plugin, handle = setup(pod, nodes, existing, args=args, services=services)
    cs = CycleState()
    status = plugin.pre_filter(cs, pod, list(handle.node_infos.values()))
    if want == "Skip":
        assert status.is_skip
        return
    assert status.is_success
    state = cs[PREFILTER_KEY]
    assert state.tp_value_to_match_num == want
    assert [p.paths[0][1] for p in state.critical_paths] == minima


def _lp(name, node, **labels):
    return MakePod().Name(name).Node(node).Labels(labels).Obj()


_FOO_A = lambda: [_lp("p-a1", "node-a", foo="a"), _lp("p-a2", "node-a", foo="a"), _lp("p-b1", "node-b", foo="a"),  # noqa: E731
                  _lp("p-y1", "node-y", foo="a"), _lp("p-y2", "node-y", foo="a")]

PREFILTER_POLICIES = [
    ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, None, None, "Honor")
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [nd("node-a", zone="zone1", node="node-a", foo=""), nd("node-b", TAINTS, zone="zone1", node="node-b"),
      nd("node-x", zone="zone2", node="node-x", foo="")],
     [pd("p-b1", "node-b", "foo"), pd("p-b2", "node-b", "foo"), pd("p-x1", "node-x", "foo")], None, [],
     [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}], [0, 0]),
    ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj(),
     [nd("node-a", zone="zone1", node="node-a"), nd("node-b", TAINTS, zone="zone1", node="node-b", foo=""),
      nd("node-x", zone="zone2", node="node-x", foo=""), nd("node-y", zone="zone2", node="node-y")],
     [pd("p-a1", "node-a", "foo"), pd("p-a2", "node-a", "foo"), pd("p-x1", "node-x", "foo"), pd("p-y1", "node-y", "foo")], None, [],
     [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}], [0, 0]),
    ("two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
     MakePod().Name("p").Label("foo", "").NodeSelector({"foo": ""}).SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, None, "Ignore")
     .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO, None, None, "Honor").Obj(),
     [nd("node-a", zone="zone1", node="node-a"), nd("node-b", TAINTS, zone="zone1", node="node-b", foo=""),
      nd("node-x", zone="zone2", node="node-x", foo=""), nd("node-y", zone="zone2", node="node-y", foo="")],
     [pd("p-a1", "node-a", "foo"), pd("p-a2", "node-a", "foo"), pd("p-x1", "node-x", "foo"), pd("p-x2", "node-x", "foo"),
      pd("p-y1", "node-y", "foo")], None, [],
     [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}], [2, 1]),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
     MakePod().Name("p").Label("foo", "").Label("bar", "a").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, None, None, None, ["bar"]).Obj(),
     four_nodes(), [_lp("p-a1", "node-a", foo=""), _lp("p-a2", "node-a", foo="", bar="a"), _lp("p-b1", "node-b", foo=""),
                    _lp("p-y1", "node-y", foo="", bar="a"), _lp("p-y2", "node-y", bar="")], None, [],
     [{"zone1": 1, "zone2": 1}], [1]),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
     MakePod().Name("p").Label("foo", "a").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, MakeLabelSelector().Obj(), None, None, None, ["foo"]).Obj(),
     four_nodes(), _FOO_A(), None, [], [{"zone1": 3, "zone2": 2}], [2]),
    ("key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, None, None, None, None, ["bar"]).Obj(),
     four_nodes(), _FOO_A(), None, [], [{"zone1": 0, "zone2": 0}], [0]),
    ("no pod is matched when LabelSelector is nil when feature gate disabled",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, None, None, None, None, ["bar"]).Obj(),
     four_nodes(), _FOO_A(), None, [], [{"zone1": 0, "zone2": 0}], [0]),
    ("key in matchLabelKeys is ignored when it isn't exist in pod.labels",
     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, None, None, None, ["bar"]).Obj(),
     four_nodes(), _FOO_A(), None, [], [{"zone1": 3, "zone2": 2}], [2]),
]


@pytest.mark.parametrize("name,pod,nodes,existing,args,services,want,minima", PREFILTER_POLICIES,
                         ids=[c[0] for c in PREFILTER_POLICIES])
def test_pre_filter_state_policies_and_match_label_keys(name, pod, nodes, existing, args, services, want, minima):
    test_pre_filter_state_more(name, pod, nodes, existing, args, services, want, minima)


PREFILTER_LAST = [
    ("two spreadConstraints with the same topologyKey",
     MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO)
     .SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, BAR).Obj(),
     four_nodes(), [pd("p-a1", "node-a", "foo", "bar"), pd("p-b1", "node-b", "foo"), pd("p-x1", "node-x", "bar"),
                    pd("p-y1", "node-y", "foo", "bar"), pd("p-y2", "node-y", "bar")], None, [],
     [{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}], [1, 1]),
    ("skip if not specified", MakePod().Name("p").Label("foo", "").Obj(), [nd("node-a", zone="zone1", node="node-a")], [],
     None, [], "Skip", []),
]


@pytest.mark.parametrize("name,pod,nodes,existing,args,services,want,minima", PREFILTER_LAST, ids=[c[0] for c in PREFILTER_LAST])
def test_pre_filter_state_last(name, pod, nodes, existing, args, services, want, minima):
    test_pre_filter_state_more(name, pod, nodes, existing, args, services, want, minima)


def _paths(state):
    """criticalPaths as upstream's comparer sees them: tied paths sorted by value."""
    out = []
    for p in state.critical_paths:
        (v0, n0), (v1, n1) = p.paths
        if n0 == n1 and v0 > v1:
            v0, v1 = v1, v0
        out.append(((v0, n0), (v1, n1)))
    return out


_ZONE_NODE = lambda: MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO) \
    .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj()  # noqa: E731
_ZONE_FOO_NODE_BAR = lambda: MakePod().Name("p").Label("foo", "").Label("bar", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO) \
    .SpreadConstraint(1, "node", DO_NOT_SCHEDULE, BAR).Obj()  # noqa: E731
_NODE_ONLY = lambda: MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "node", DO_NOT_SCHEDULE, FOO).Obj()  # noqa: E731
_AB = lambda: [nd("node-a", zone="zone1", node="node-a"), nd("node-b", zone="zone1", node="node-b")]  # noqa: E731
_AX = lambda: [nd("node-a", zone="zone1", node="node-a"), nd("node-x", zone="zone2", node="node-x")]  # noqa: E731
_ABX = lambda: [nd("node-a", zone="zone1", node="node-a"), nd("node-b", zone="zone1", node="node-b"),  # noqa: E731
                nd("node-x", zone="zone2", node="node-x")]

# TestPreFilterStateAddPod: (name, preemptor, added pod, existing, node index, nodes, TpValueToMatchNum, criticalPaths)
ADD_POD = [
    ("node a and b both impact current min match", _NODE_ONLY(), pd("p-a1", "node-a", "foo"), [], 0, _AB(),
     [{"node-a": 1, "node-b": 0}], [(("node-b", 0), ("node-a", 1))]),
    ("only node a impacts current min match", _NODE_ONLY(), pd("p-a1", "node-a", "foo"), [pd("p-b1", "node-b", "foo")], 0, _AB(),
     [{"node-a": 1, "node-b": 1}], [(("node-a", 1), ("node-b", 1))]),
    ("add a pod in a different namespace doesn't change topologyKeyToMinPodsMap", _NODE_ONLY(),
     MakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(), [pd("p-b1", "node-b", "foo")], 0, _AB(),
     [{"node-a": 0, "node-b": 1}], [(("node-a", 0), ("node-b", 1))]),
    ("add pod on non-critical node won't trigger re-calculation", _NODE_ONLY(), pd("p-b2", "node-b", "foo"),
     [pd("p-b1", "node-b", "foo")], 1, _AB(), [{"node-a": 0, "node-b": 2}], [(("node-a", 0), ("node-b", 2))]),
    ("node a and x both impact topologyKeyToMinPodsMap on zone and node", _ZONE_NODE(), pd("p-a1", "node-a", "foo"), [], 0, _AX(),
     [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}], [(("zone2", 0), ("zone1", 1)), (("node-x", 0), ("node-a", 1))]),
    ("only node a impacts topologyKeyToMinPodsMap on zone and node", _ZONE_NODE(), pd("p-a1", "node-a", "foo"),
     [pd("p-x1", "node-x", "foo")], 0, _AX(),
     [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}], [(("zone1", 1), ("zone2", 1)), (("node-a", 1), ("node-x", 1))]),
    ("node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone", _ZONE_NODE(),
     pd("p-a1", "node-a", "foo"), [pd("p-b1", "node-b", "foo"), pd("p-b2", "node-b", "foo"), pd("p-x1", "node-x", "foo")], 0, _ABX(),
     [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}], [(("zone2", 1), ("zone1", 3)), (("node-a", 1), ("node-x", 1))]),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone", _ZONE_FOO_NODE_BAR(),
     pd("p-a1", "node-a", "foo"), [pd("p-b1", "node-b", "foo", "bar"), pd("p-x1", "node-x", "foo", "bar"), pd("p-x2", "node-x", "bar")],
     0, _ABX(), [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}],
     [(("zone2", 1), ("zone1", 2)), (("node-a", 0), ("node-b", 1))]),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone and node", _ZONE_FOO_NODE_BAR(),
     pd("p-a1", "node-a", "foo", "bar"), [pd("p-b1", "node-b", "bar"), pd("p-x1", "node-x", "foo", "bar"), pd("p-x2", "node-x", "bar")],
     0, _ABX(), [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}],
     [(("zone1", 1), ("zone2", 1)), (("node-a", 1), ("node-b", 1))]),
]


@pytest.mark.parametrize("name,preemptor,added,existing,node_idx,nodes,want,paths", ADD_POD, ids=[c[0] for c in ADD_POD])
def test_pre_filter_state_add_pod(name, preemptor, added, existing, node_idx, nodes, want, paths):
    plugin, handle = setup(preemptor, nodes, existing)
    infos = list(handle.node_infos.values())
    cs = CycleState()
    assert plugin.pre_filter(cs, preemptor, infos).is_success
    assert plugin.add_pod(cs, preemptor, added, infos[node_idx]).is_success
    state = cs[PREFILTER_KEY]
    assert state.tp_value_to_match_num == want
    assert _paths(state) == paths


_ZONE_ONLY = lambda: MakePod().Name("p").Label("foo", "").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj()  # noqa: E731
_ZONE_NOT_BAR = lambda: MakePod().Name("p").Label("foo", "").NodeAffinityNotIn("foo", ["bar"]) \
    .SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj()  # noqa: E731
_AFF_NODES = lambda: [nd("node-a", zone="zone1", node="node-a", foo="bar"), nd("node-b", zone="zone2", node="node-b", foo="")]  # noqa: E731
_TAINT_NODES = lambda: [nd("node-a", TAINTS, zone="zone1", node="node-a"), nd("node-b", zone="zone2", node="node-b")]  # noqa: E731
_Z = lambda name, node, *extra: MakePod().Name(name).Node(node).Label("foo", "").Label("zone", extra[0]).Obj()  # noqa: E731

ADD_POD_POLICIES = [
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled", _ZONE_NOT_BAR(),
     _Z("p-a1", "node-a", "zone1"), [_Z("p-a2", "node-a", "zone1"), _Z("p-b1", "node-b", "zone2")], 0, _AFF_NODES(),
     [{"zone2": 1}], [(("zone2", 1), ("", MAXINT))]),
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled", _ZONE_NOT_BAR(),
     _Z("p-a1", "node-a", "zone1"), [_Z("p-a2", "node-a", "zone1"), _Z("p-b1", "node-b", "zone2")], 0, _AFF_NODES(),
     [{"zone2": 1}], [(("zone2", 1), ("", MAXINT))]),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled", _ZONE_ONLY(),
     _Z("p-b1", "node-b", "zone2"), [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], 1, _AFF_NODES(),
     [{"zone1": 1, "zone2": 2}], [(("zone1", 1), ("zone2", 2))]),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", _ZONE_ONLY(),
     _Z("p-b1", "node-b", "zone2"), [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], 1, _AFF_NODES(),
     [{"zone1": 1, "zone2": 2}], [(("zone1", 1), ("zone2", 2))]),
    ("add a label selector not matched pod when with NodeInclusionPolicy enabled", _ZONE_ONLY(),
     MakePod().Name("p-b1").Node("node-b").Label("zone", "zone2").Obj(),
     [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], 1, _AFF_NODES(),
     [{"zone1": 1, "zone2": 1}], [(("zone1", 1), ("zone2", 1))]),
    ("add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled", _ZONE_ONLY(),
     _Z("p-b1", "node-b", "zone2"), [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], 1, _TAINT_NODES(),
     [{"zone1": 1, "zone2": 2}], [(("zone1", 1), ("zone2", 2))]),
    ("add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
     MakePod().Name("p").Label("foo", "").Toleration("node.kubernetes.io/unschedulable").SpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO).Obj(),
     _Z("p-b1", "node-b", "zone2"), [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], 1, _TAINT_NODES(),
     [{"zone1": 1, "zone2": 2}], [(("zone1", 1), ("zone2", 2))]),
]


@pytest.mark.parametrize("name,preemptor,added,existing,node_idx,nodes,want,paths", ADD_POD_POLICIES, ids=[c[0] for c in ADD_POD_POLICIES])
def test_pre_filter_state_add_pod_policies(name, preemptor, added, existing, node_idx, nodes, want, paths):
    test_pre_filter_state_add_pod(name, preemptor, added, existing, node_idx, nodes, want, paths)


# TestPreFilterStateRemovePod: (name, preemptor, nodes, existing, index of the removed pod in existing (or the
# pod itself), node index, TpValueToMatchNum, criticalPaths)
REMOVE_POD = [
    ("one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged", _ZONE_ONLY(), _ABX(), foo_pods("a1", "b1", "x1"), 0, 0,
     [{"zone1": 1, "zone2": 1}], [(("zone1", 1), ("zone2", 1))]),
    ("one spreadConstraint on node, topologyKeyToMinPodsMap changed", _ZONE_ONLY(), four_nodes(), foo_pods("a1", "b1", "x1", "y1"), 0, 0,
     [{"zone1": 1, "zone2": 2}], [(("zone1", 1), ("zone2", 2))]),
    ("delete an irrelevant pod won't help", _ZONE_ONLY(), four_nodes(), [pd("p-a0", "node-a", "bar"), *foo_pods("a1", "b1", "x1", "y1")],
     0, 0, [{"zone1": 2, "zone2": 2}], [(("zone1", 2), ("zone2", 2))]),
    ("delete a non-existing pod won't help", _ZONE_ONLY(), four_nodes(), foo_pods("a1", "b1", "x1", "y1"),
     pd("p-a0", "node-a", "bar"), 0, [{"zone1": 2, "zone2": 2}], [(("zone1", 2), ("zone2", 2))]),
    ("two spreadConstraints", _ZONE_NODE(), _ABX(), foo_pods("a1", "a2", "b1", "x1", "x2"), 3, 2,
     [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}], [(("zone2", 1), ("zone1", 3)), (("node-b", 1), ("node-x", 1))]),
]


@pytest.mark.parametrize("name,preemptor,nodes,existing,removed,node_idx,want,paths", REMOVE_POD, ids=[c[0] for c in REMOVE_POD])
def test_pre_filter_state_remove_pod(name, preemptor, nodes, existing, removed, node_idx, want, paths):
    plugin, handle = setup(preemptor, nodes, existing)
    infos = list(handle.node_infos.values())
    cs = CycleState()
    assert plugin.pre_filter(cs, preemptor, infos).is_success
    pod = existing[removed] if isinstance(removed, int) else removed
    assert plugin.remove_pod(cs, preemptor, pod, infos[node_idx]).is_success
    state = cs[PREFILTER_KEY]
    assert state.tp_value_to_match_num == want
    assert _paths(state) == paths


REMOVE_POD_POLICIES = [
    ("remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled", _ZONE_NOT_BAR(), _AFF_NODES(),
     [_Z("p-a2", "node-a", "zone1"), _Z("p-b1", "node-b", "zone2")], _Z("p-a1", "node-a", "zone1"), 0,
     [{"zone2": 1}], [(("zone2", 1), ("", MAXINT))]),
    ("remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled", _ZONE_NOT_BAR(), _AFF_NODES(),
     [_Z("p-a2", "node-a", "zone1"), _Z("p-b1", "node-b", "zone2")], _Z("p-a1", "node-a", "zone1"), 0,
     [{"zone2": 1}], [(("zone2", 1), ("", MAXINT))]),
    ("remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled", _ZONE_ONLY(), _AFF_NODES(),
     [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], _Z("p-b1", "node-b", "zone2"), 1,
     [{"zone1": 1, "zone2": 0}], [(("zone2", 0), ("zone1", 1))]),
    ("remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", _ZONE_ONLY(), _AFF_NODES(),
     [_Z("p-a1", "node-a", "zone1"), _Z("p-b2", "node-b", "zone2")], _Z("p-b1", "node-b", "zone2"), 1,
     [{"zone1": 1, "zone2": 0}], [(("zone2", 0), ("zone1", 1))]),
]


@pytest.mark.parametrize("name,preemptor,nodes,existing,removed,node_idx,want,paths", REMOVE_POD_POLICIES,
                         ids=[c[0] for c in REMOVE_POD_POLICIES])
def test_pre_filter_state_remove_pod_policies(name, preemptor, nodes, existing, removed, node_idx, want, paths):
    test_pre_filter_state_remove_pod(name, preemptor, nodes, existing, removed, node_idx, want, paths)
