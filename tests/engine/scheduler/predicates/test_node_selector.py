"""MatchNodeSelector: nodeSelector AND required node affinity (terms ORed, expressions ANDed)."""

import pytest

from scheduling.engine.scheduler.predicates.node_selector import (
    node_matches_node_selector_terms,
    pod_match_node_selector,
)
from tests.engine.builders import cluster, evaluate, node, pod

NO = ("node(s) didn't match node selector",)


def required(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def expr(key, operator, *values):
    return {"key": key, "operator": operator, "values": list(values)} if values else {"key": key, "operator": operator}


# OpenShift 3.11's node affinity example: pod-s1 requires zone In [us].
ZONE_US = required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["us"]}]})

CASES = [
    pytest.param({"zone": "us"}, {}, ZONE_US, (), id="node affinity with matching labels: pod-s1 fits node1 labelled zone=us"),
    pytest.param({"zone": "emea"}, {}, ZONE_US, NO, id="node affinity with no matching labels: pod-s1 does not fit node1 labelled zone=emea"),
    pytest.param({}, {"disk": "ssd"}, None, NO, id="a nodeSelector label the node lacks"),
    pytest.param({"disk": "ssd", "x": "y"}, {"disk": "ssd"}, None, (), id="a nodeSelector matching a subset of the node labels"),
    pytest.param({}, {"disk": "bad value!"}, None, (), id="1.11 quirk: a nodeSelector with an invalid value selects every node"),
    pytest.param({"disk": "ssd", "zone": "emea"}, {"disk": "ssd"}, ZONE_US, NO, id="nodeSelector and node affinity must both match"),
    pytest.param(
        {"e2e-az-NorthSouth": "e2e-az-South"}, {},
        required({"matchExpressions": [expr("e2e-az-NorthSouth", "In", "e2e-az-North", "e2e-az-South")]}), (),
        id="In with several values (the documentation's node affinity sample)",
    ),
    pytest.param(
        {"a": "1"}, {}, required({"matchExpressions": [expr("a", "In", "2")]}, {"matchExpressions": [expr("a", "Exists")]}), (),
        id="terms are ORed",
    ),
    pytest.param(
        {"a": "1"}, {}, required({"matchExpressions": [expr("a", "Exists"), expr("b", "Exists")]}), NO,
        id="expressions of one term are ANDed",
    ),
    pytest.param({"a": "1"}, {}, required(), NO, id="a present but empty term list matches nothing"),
    pytest.param({"a": "1"}, {}, required({}), NO, id="an empty term matches nothing"),
    pytest.param(
        {"a": "1"}, {}, {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [expr("b", "Exists")]}}]}},
        (), id="preferred node affinity never filters",
    ),
    pytest.param({}, {}, {"nodeAffinity": {}}, (), id="node affinity without a required part admits every node"),
    pytest.param({"zone": "us"}, {}, required({"matchExpressions": [expr("zone", "NotIn", "emea")]}), (), id="NotIn with another value"),
    pytest.param({}, {}, required({"matchExpressions": [expr("zone", "NotIn", "emea")]}), (), id="NotIn matches a node without the label"),
    pytest.param({"zone": "us"}, {}, required({"matchExpressions": [expr("zone", "DoesNotExist")]}), NO, id="DoesNotExist"),
    pytest.param({"cores": "8"}, {}, required({"matchExpressions": [expr("cores", "Gt", "4")]}), (), id="Gt compares integers"),
    pytest.param({"cores": "8"}, {}, required({"matchExpressions": [expr("cores", "Lt", "10")]}), (), id="Lt compares integers"),
    pytest.param({"cores": "eight"}, {}, required({"matchExpressions": [expr("cores", "Gt", "4")]}), NO, id="Gt against a non-integer label fails"),
    pytest.param({"cores": "8"}, {}, required({"matchExpressions": [expr("cores", "Gt", "4", "5")]}), NO, id="Gt with two values cannot be built and fails its term"),
    pytest.param(
        {"foo": "bar"}, {}, required({"matchExpressions": [expr("foo", "NotIn", "invalid value: ___@#$%^")]}), NO,
        id="an invalid label value fails the term, even with NotIn",
    ),
    pytest.param(
        {"foo": "bar"}, {},
        required({"matchExpressions": [expr("foo", "NotIn", "invalid value: ___@#$%^")]}, {"matchExpressions": [expr("foo", "In", "bar")]}), (),
        id="an invalid term is skipped, another term can still match",
    ),
    pytest.param({"foo": "bar"}, {}, required({"matchExpressions": [expr("foo", "In")]}), NO, id="In without values cannot be built"),
    pytest.param({"foo": "bar"}, {}, required({"matchExpressions": [expr("foo", "Exists", "bar")]}), NO, id="Exists with values cannot be built"),
    pytest.param({}, {}, required({"matchFields": [expr("metadata.name", "In", "node1")]}), (), id="matchFields on metadata.name"),
    pytest.param({}, {}, required({"matchFields": [expr("metadata.name", "In", "node2")]}), NO, id="matchFields on another name"),
    pytest.param({}, {}, required({"matchFields": [expr("metadata.name", "NotIn", "node2")]}), (), id="matchFields NotIn"),
    pytest.param({}, {}, required({"matchFields": [expr("metadata.name", "In", "node1", "node2")]}), NO, id="matchFields In takes exactly one value"),
    pytest.param({}, {}, required({"matchFields": [expr("metadata.name", "Exists")]}), NO, id="matchFields supports only In and NotIn"),
    pytest.param(
        {"zone": "us"}, {}, required({"matchExpressions": [expr("zone", "In", "us")], "matchFields": [expr("metadata.name", "In", "other")]}), NO,
        id="matchExpressions and matchFields of one term are ANDed",
    ),
]


@pytest.mark.parametrize("labels, node_selector, affinity, reasons", CASES)
def test_pod_match_node_selector(labels, node_selector, affinity, reasons):
    the_pod = pod("pod-s1", node_selector=node_selector, affinity=affinity)
    assert evaluate(pod_match_node_selector, the_pod, cluster([node("node1", labels=labels)])) == {"node1": reasons}


def test_pv_style_terms_have_no_name_field():
    terms = [{"matchFields": [expr("metadata.name", "In", "node1")]}]
    the_node = node("node1")
    assert node_matches_node_selector_terms(terms, the_node) is True
    assert node_matches_node_selector_terms(terms, the_node, fields={}) is False
