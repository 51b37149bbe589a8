"""NodeAffinity, translated from upstream's node_affinity_test.go: TestNodeAffinity
(PreFilter status and result, Filter status) and TestNodeAffinityPriority."""

import pytest

from scheduling.engine.framework.interface import ArgsError, CycleState, OK, SKIP, SUCCESS, UNRESOLVABLE
from scheduling.engine.framework.plugins.helper import PRE_FILTER_RESULT_KEY
from scheduling.engine.framework.plugins.node_affinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
)
from tests.engine.framework.plugin_builders import handle, info, node, pod, scores


def expr(key, op, *values):
    e = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def required(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def name_in(*names):
    return expr("metadata.name", "In", *names)


POD = "pod"
CASES = [
    # name, pod spec, node labels, node name, filter reason, prefilter code, prefilter node names, args, run PreFilter
    ("missing labels", {"nodeSelector": {"foo": "bar"}}, {}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("same labels", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar"}, "", None, SUCCESS, None, {}, True),
    ("node labels are superset", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar", "baz": "blah"}, "", None, SUCCESS, None, {}, True),
    ("node labels are subset", {"nodeSelector": {"foo": "bar", "baz": "blah"}}, {"foo": "bar"}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with matchExpressions using In operator that matches the existing node",
     {"affinity": required({"matchExpressions": [expr("foo", "In", "bar", "value2")]})}, {"foo": "bar"}, "", None, SUCCESS, None, {}, True),
    ("Pod with matchExpressions using Gt operator that matches the existing node",
     {"affinity": required({"matchExpressions": [expr("kernel-version", "Gt", "0204")]})}, {"kernel-version": "0206"}, "", None, SUCCESS, None, {}, True),
    ("Pod with matchExpressions using NotIn operator that matches the existing node",
     {"affinity": required({"matchExpressions": [expr("mem-type", "NotIn", "DDR", "DDR2")]})}, {"mem-type": "DDR3"}, "", None, SUCCESS, None, {}, True),
    ("Pod with matchExpressions using Exists operator that matches the existing node",
     {"affinity": required({"matchExpressions": [expr("GPU", "Exists")]})}, {"GPU": "NVIDIA-GRID-K1"}, "", None, SUCCESS, None, {}, True),
    ("Pod with affinity that don't match node's labels won't schedule onto the node",
     {"affinity": required({"matchExpressions": [expr("foo", "In", "value1", "value2")]})}, {"foo": "bar"}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
     {"affinity": required({"matchExpressions": []})}, {"foo": "bar"}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with no Affinity will schedule onto a node", {}, {"foo": "bar"}, "", None, SKIP, None, {}, True),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node",
     {"affinity": {"nodeAffinity": {}}}, {"foo": "bar"}, "", None, SKIP, None, {}, True),
    ("Pod with multiple matchExpressions ANDed that matches the existing node",
     {"affinity": required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]})},
     {"GPU": "NVIDIA-GRID-K1"}, "", None, SUCCESS, None, {}, True),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node",
     {"affinity": required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]})},
     {"GPU": "NVIDIA-GRID-K1"}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
     {"affinity": required({"matchExpressions": [expr("foo", "In", "bar", "value2")]},
                           {"matchExpressions": [expr("diffkey", "In", "wrong", "value2")]})},
     {"foo": "bar"}, "", None, SUCCESS, None, {}, True),
    ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
     {"nodeSelector": {"foo": "bar"}, "affinity": required({"matchExpressions": [expr("foo", "Exists")]})},
     {"foo": "bar"}, "", None, SUCCESS, None, {}, True),
    ("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
     {"nodeSelector": {"foo": "bar"}, "affinity": required({"matchExpressions": [expr("foo", "Exists")]})},
     {"foo": "barrrrrr"}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node",
     {"affinity": required({"matchExpressions": [expr("foo", "NotIn", "invalid value: ___@#$%^")]})},
     {"foo": "bar"}, "", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with matchFields using In operator that matches the existing node",
     {"affinity": required({"matchFields": [name_in("node1")]})}, {}, "node1", None, SUCCESS, {"node1"}, {}, True),
    ("Pod with matchFields using In operator that does not match the existing node",
     {"affinity": required({"matchFields": [name_in("node1")]})}, {}, "node2", ERR_REASON_POD, SUCCESS, {"node1"}, {}, True),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches",
     {"affinity": required({"matchFields": [name_in("node1"), name_in("node2")]},
                           {"matchExpressions": [expr("foo", "In", "bar")]})},
     {"foo": "bar"}, "node2", None, SUCCESS, None, {}, True),
    ("Pod with one term: matchFields does not match, but matchExpressions matches",
     {"affinity": required({"matchFields": [name_in("node1")], "matchExpressions": [expr("foo", "In", "bar")]})},
     {"foo": "bar"}, "node2", ERR_REASON_POD, SUCCESS, {"node1"}, {}, True),
    ("Pod with one term: both matchFields and matchExpressions match",
     {"affinity": required({"matchFields": [name_in("node1")], "matchExpressions": [expr("foo", "In", "bar")]})},
     {"foo": "bar"}, "node1", None, SUCCESS, {"node1"}, {}, True),
    ("Pod with two terms: both matchFields and matchExpressions do not match",
     {"affinity": required({"matchFields": [name_in("node1")]},
                           {"matchExpressions": [expr("foo", "In", "not-match-to-bar")]})},
     {"foo": "bar"}, "node2", ERR_REASON_POD, SUCCESS, None, {}, True),
    ("Pod with two terms of node.Name affinity",
     {"affinity": required({"matchFields": [name_in("node1")]}, {"matchFields": [name_in("node2")]})},
     {}, "node2", None, SUCCESS, {"node1", "node2"}, {}, True),
    ("Pod with two conflicting mach field requirements",
     {"affinity": required({"matchFields": [name_in("node1"), name_in("node2")]})},
     {"foo": "bar"}, "node2", ERR_REASON_POD, UNRESOLVABLE, None, {}, True),
    ("Matches added affinity and Pod's node affinity",
     {"affinity": required({"matchExpressions": [expr("zone", "In", "foo")]})}, {"zone": "foo"}, "node2", None, SUCCESS, None,
     {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [name_in("node2")]}]}}}, True),
    ("Matches added affinity but not Pod's node affinity",
     {"affinity": required({"matchExpressions": [expr("zone", "In", "bar")]})}, {"zone": "foo"}, "node2", ERR_REASON_POD, SUCCESS, None,
     {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [name_in("node2")]}]}}}, True),
    ("Doesn't match added affinity", {}, {"zone": "foo"}, "node2", ERR_REASON_ENFORCED, SUCCESS, None,
     {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "bar")]}]}}}, True),
    ("Matches node selector correctly even if PreFilter is not called",
     {"nodeSelector": {"foo": "bar"}}, {"foo": "bar", "baz": "blah"}, "", None, None, None, {}, False),
    ("Matches node affinity correctly even if PreFilter is not called",
     {"affinity": required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]})},
     {"GPU": "NVIDIA-GRID-K1"}, "", None, None, None, {}, False),
]


@pytest.mark.parametrize("name,spec,labels,node_name,reason,pre_code,pre_names,args,run_pre_filter", CASES,
                         ids=[c[0] for c in CASES])
def test_node_affinity(name, spec, labels, node_name, reason, pre_code, pre_names, args, run_pre_filter):
    plugin = NodeAffinity(args, handle())
    p = pod(POD, **spec)
    cs = CycleState()
    if run_pre_filter:
        status = plugin.pre_filter(cs, p, [])
        assert status.code == pre_code
        if pre_code == UNRESOLVABLE:
            assert status.reasons == (ERR_REASON_CONFLICT,)
        assert (cs.get(PRE_FILTER_RESULT_KEY) or {}).get("NodeAffinity") == (frozenset(pre_names) if pre_names else None)
    got = plugin.filter(cs, p, info(node(node_name, labels=labels)))
    if reason is None:
        assert got == OK
    else:
        assert (got.code, got.reasons) == (UNRESOLVABLE, (reason,))


def preferred(*terms):
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": list(exprs)}} for w, exprs in terms]}}


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred((2, [expr("foo", "In", "bar")]))
AFFINITY2 = preferred((2, [expr("foo", "In", "bar")]), (4, [expr("key", "In", "value")]),
                      (5, [expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")]))

PRIORITY_CASES = [
    ("all nodes are same priority as NodeAffinity is nil", {}, [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
     {"node1": 0, "node2": 0, "node3": 0}, {}, True),
    ("no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
     {"affinity": AFFINITY1}, [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
     {"node1": 0, "node2": 0, "node3": 0}, {}, True),
    ("only node1 matches the preferred scheduling requirements of pod", {"affinity": AFFINITY1},
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)], {"node1": 100, "node2": 0, "node3": 0}, {}, True),
    ("all nodes matches the preferred scheduling requirements of pod but with different priorities ", {"affinity": AFFINITY2},
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], {"node1": 18, "node5": 100, "node2": 36}, {}, True),
    ("added affinity", {}, [("node1", LABEL1), ("node2", LABEL2)], {"node1": 100, "node2": 0},
     {"addedAffinity": AFFINITY1["nodeAffinity"]}, True),
    ("added affinity and pod has default affinity", {"affinity": AFFINITY1},
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)], {"node1": 40, "node2": 60, "node3": 100},
     {"addedAffinity": preferred((3, [expr("key", "In", "value")]))["nodeAffinity"]}, True),
    ("calculate the priorities correctly even if PreScore is not called", {"affinity": AFFINITY2},
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], {"node1": 18, "node5": 100, "node2": 36}, {}, False),
]


@pytest.mark.parametrize("name,spec,nodes,expected,args,run_pre_score", PRIORITY_CASES, ids=[c[0] for c in PRIORITY_CASES])
def test_node_affinity_priority(name, spec, nodes, expected, args, run_pre_score):
    infos = [info(node(n, labels=l)) for n, l in nodes]
    plugin = NodeAffinity(args, handle(infos))
    p = pod(POD, **spec)
    if run_pre_score and not spec and not args:
        # Nothing to score: PreScore skips (the runtime then leaves the plugin out).
        assert plugin.pre_score(CycleState(), p, infos).code == SKIP
        assert scores(plugin, p, infos, pre_score=False) == expected
        return
    assert scores(plugin, p, infos, pre_score=run_pre_score) == expected


VALID_ADDED = {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [expr("label-1", "In", "label-1-val")]}]},
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchFields": [name_in("node-1")]}}],
}
INVALID_ADDED = {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [expr("invalid/label/key", "In", "label-1-val")]}]},
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchFields": [name_in("node-1", "node-2")]}}],
}


@pytest.mark.parametrize("name,args,fields", [
    # validation_pluginargs_test.go, TestValidateNodeAffinityArgs
    ("empty", {}, None),
    ("valid added affinity", {"addedAffinity": VALID_ADDED}, None),
    ("invalid added affinity", {"addedAffinity": INVALID_ADDED},
     ["addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: ",
      "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: Invalid value: "]),
])
def test_validate_node_affinity_args(name, args, fields):
    if fields is None:
        NodeAffinity(args, handle())
        return
    with pytest.raises(ArgsError) as e:
        NodeAffinity(args, handle())
    text = str(e.value)
    assert text.startswith("[") and text.endswith("]")
    parts = text[1:-1].split(", addedAffinity.")
    assert len(parts) == 2
    assert parts[0].startswith(fields[0]) and ("addedAffinity." + parts[1]).startswith(fields[1])
    assert parts[1].endswith('[]string{"node-1", "node-2"}: must have one element')
