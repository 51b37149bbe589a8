"""InterPodAffinity, translated from upstream's test table
(pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go: TestRequiredAffinitySingleNode,
with v1.35's single reasons and codes), upstream case names kept; plus AddPod/RemovePod,
namespaceSelector, the args, and the scores."""

from __future__ import annotations

import pytest

from scheduling.engine.api.objects import Pod
from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import ArgsError, CycleState, Handle
from scheduling.engine.framework.plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    InterPodAffinity,
)
from scheduling.engine.scheduler.cluster import ClusterState
from tests.engine.framework.st import POD_AFFINITY_WITH_REQUIRED_REQ, MakeNode, MakePod

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}


def expr(key, op, *values):
    e = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def term(*exprs, key=None, namespaces=None, namespace_selector=None):
    t = {"labelSelector": {"matchExpressions": list(exprs)}}
    if key is not None:
        t["topologyKey"] = key
    if namespaces is not None:
        t["namespaces"] = namespaces
    if namespace_selector is not None:
        t["namespaceSelector"] = namespace_selector
    return t


def with_terms(labels, node="", affinity=None, anti=None, namespace="default", name="p") -> Pod:
    """createPodWithAffinityTerms."""
    doc = {"metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
           "spec": {"nodeName": node, "containers": [{"name": "c"}], "affinity": {
               "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": affinity or []},
               "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": anti or []}}}}
    return Pod.from_doc(doc)


def plain(labels, node="", namespace="default", name="e") -> Pod:
    return Pod.from_doc({"metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
                         "spec": {"nodeName": node, "containers": [{"name": "c"}]}})


def setup(pods, nodes, args=None, namespace_labels=None):
    state = ClusterState(nodes=list(nodes), pods=list(pods))
    handle = Handle(state=state, node_infos=state.node_infos(), namespace_labels=namespace_labels or {})
    return InterPodAffinity(args or {}, handle), handle


IN_SEC = expr("service", "In", "securityscan", "value2")
IN_AV = expr("service", "In", "antivirusscan", "value2")
REQ = POD_AFFINITY_WITH_REQUIRED_REQ
TEAM1 = {"matchExpressions": [expr("team", "In", "team1")]}
# The Namespaces upstream's test lists (name -> labels).
NAMESPACES = {"subteam1.team1": {"team": "team1"}, "subteam2.team1": {"team": "team1"},
              "subteam1.team2": {"team": "team2"}, "subteam2.team2": {"team": "team2"}}


def node1():
    return MakeNode().Name("node1").Label("region", "r1").Label("zone", "z11").Obj()


def existing():
    """st.MakePod().Labels(podLabel).Node("node1")"""
    return MakePod().Labels(POD_LABEL).Node("node1").Obj()


SKIP = "Skip"
# TestRequiredAffinitySingleNode: (name, pod, existing pods, want: None (fits), SKIP (PreFilter skips),
# or (code, reason))
REQUIRED_SINGLE = [
    ("A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
     MakePod().Obj(), [], SKIP),
    ("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
     MakePod().Labels(POD_LABEL2).PodAffinityIn("service", "region", ["securityscan", "value2"], REQ).Obj(), [existing()], None),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
     MakePod().Labels(POD_LABEL2).PodAffinityNotIn("service", "region", ["securityscan3", "value3"], REQ).Obj(), [existing()], None),
    ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, namespaces=["DiffNameSpace"])]),
     [MakePod().Namespace("ns").Label("service", "securityscan").Node("node1").Obj()],
     (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
     MakePod().Labels(POD_LABEL).PodAffinityIn("service", "", ["antivirusscan", "value2"], REQ).Obj(), [existing()],
     (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
     with_terms(POD_LABEL2, affinity=[
         term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
         term(expr("service", "In", "securityscan"), expr("service", "NotIn", "WrongValue"), key="region")]),
     [existing()], None),
    ("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
     with_terms(POD_LABEL2, affinity=[
         term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
         term(expr("service", "In", "securityscan2"), expr("service", "NotIn", "WrongValue"), key="region")]),
     [existing()], (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
     MakePod().Labels(POD_LABEL2).PodAffinityIn("service", "region", ["securityscan", "value2"], REQ)
     .PodAntiAffinityIn("service", "node", ["antivirusscan", "value2"], REQ).Obj(), [existing()], None),
    ("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
     MakePod().Labels(POD_LABEL2).PodAffinityIn("service", "region", ["securityscan", "value2"], REQ)
     .PodAntiAffinityIn("service", "node", ["antivirusscan", "value2"], REQ).Obj(),
     [MakePod().Node("node1").Labels(POD_LABEL).PodAntiAffinityIn("service", "node", ["antivirusscan", "value2"], REQ).Obj()], None),
    ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
     MakePod().Labels(POD_LABEL2).PodAffinityIn("service", "region", ["securityscan", "value2"], REQ)
     .PodAntiAffinityIn("service", "zone", ["securityscan", "value2"], REQ).Obj(), [existing()],
     (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     MakePod().Labels(POD_LABEL).PodAffinityIn("service", "region", ["securityscan", "value2"], REQ)
     .PodAntiAffinityIn("service", "node", ["antivirusscan", "value2"], REQ).Obj(),
     [MakePod().Labels(POD_LABEL).Node("node1").PodAntiAffinityIn("service", "zone", ["securityscan", "value2"], REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
     MakePod().Labels(POD_LABEL).PodAffinityNotIn("service", "region", ["securityscan", "value2"], REQ).Obj(),
     [MakePod().Label("service", "securityscan").Node("node2").Obj()], (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     MakePod().Labels(POD_LABEL).Obj(),
     [MakePod().Node("node1").Labels(POD_LABEL).PodAntiAffinityIn("service", "zone", ["securityscan", "value2"], REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
     MakePod().Labels(POD_LABEL).Obj(),
     [MakePod().Node("node1").Labels(POD_LABEL).PodAntiAffinityNotIn("service", "zone", ["securityscan", "value2"], REQ).Obj()], SKIP),
    ("satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
     MakePod().Labels(POD_LABEL).PodAntiAffinityExists("service", "region", REQ).PodAntiAffinityExists("security", "region", REQ).Obj(),
     [MakePod().Node("node1").Labels(POD_LABEL2).PodAntiAffinityExists("security", "zone", REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
     MakePod().Labels(POD_LABEL).PodAntiAffinityExists("service", "zone", REQ).PodAntiAffinityExists("security", "zone", REQ).Obj(),
     [MakePod().Node("node1").Labels(POD_LABEL2).PodAntiAffinityExists("security", "zone", REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
     MakePod().Labels(POD_LABEL2).PodAntiAffinityExists("security", "zone", REQ).Obj(),
     [MakePod().Node("node1").Labels(POD_LABEL).PodAntiAffinityExists("service", "zone", REQ).PodAntiAffinityExists("security", "zone", REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
     MakePod().Labels({"abc": "", "xyz": ""}).PodAntiAffinityExists("abc", "zone", REQ).PodAntiAffinityExists("def", "zone", REQ).Obj(),
     [MakePod().Node("node1").Labels({"def": "", "xyz": ""}).PodAntiAffinityExists("abc", "zone", REQ).PodAntiAffinityExists("def", "zone", REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
     MakePod().Labels({"def": "", "xyz": ""}).PodAntiAffinityExists("abc", "zone", REQ).PodAntiAffinityExists("def", "zone", REQ).Obj(),
     [MakePod().Node("node1").Labels({"abc": "", "xyz": ""}).PodAntiAffinityExists("abc", "zone", REQ).PodAntiAffinityExists("def", "zone", REQ).Obj()],
     (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("affinity with NamespaceSelector",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region", namespace_selector=TEAM1)]),
     [plain(POD_LABEL, "node1", namespace="subteam1.team1")], None),
    ("affinity with non-matching NamespaceSelector",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region", namespace_selector=TEAM1)]),
     [plain(POD_LABEL, "node1", namespace="subteam1.team2")], (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("anti-affinity with matching NamespaceSelector",
     with_terms(POD_LABEL2, anti=[term(IN_SEC, key="zone", namespace_selector=TEAM1)], namespace="subteam1.team1"),
     [plain(POD_LABEL, "node1", namespace="subteam2.team1")], (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("anti-affinity with matching all NamespaceSelector",
     with_terms(POD_LABEL2, anti=[term(IN_SEC, key="zone", namespace_selector={})], namespace="subteam1.team1"),
     [plain(POD_LABEL, "node1", namespace="subteam2.team1")], (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("anti-affinity with non-matching NamespaceSelector",
     with_terms(POD_LABEL2, anti=[term(IN_SEC, key="zone", namespace_selector=TEAM1)], namespace="subteam1.team1"),
     [plain(POD_LABEL, "node1", namespace="subteam1.team2")], None),
]


def filter_one(pod, existing_pods, nodes=None, namespace_labels=None):
    """PreFilter then Filter on every node: {node: Status}, or SKIP when PreFilter skips."""
    nodes = nodes or [node1()]
    plugin, handle = setup(existing_pods, nodes, namespace_labels=namespace_labels)
    cs = CycleState()
    status = plugin.pre_filter(cs, pod, list(handle.node_infos.values()))
    if status.is_skip:
        return SKIP
    assert status.is_success, status
    return {name: plugin.filter(cs, pod, info) for name, info in handle.node_infos.items()}


@pytest.mark.parametrize("name,pod,existing_pods,want", REQUIRED_SINGLE, ids=[c[0] for c in REQUIRED_SINGLE])
def test_required_affinity_single_node(name, pod, existing_pods, want):
    got = filter_one(pod, existing_pods, namespace_labels=NAMESPACES)
    if want == SKIP:
        assert got == SKIP
        return
    status = got["node1"]
    if want is None:
        assert status.is_success, status
    else:
        assert (status.code, status.reasons) == (want[0], (want[1],))


@pytest.mark.parametrize("kind,method", [("requiredAffinityTerms", "PodAffinityIn"), ("requiredAntiAffinityTerms", "PodAntiAffinityIn")])
def test_invalid_label_syntax_fails_pre_filter(kind, method):
    """PodAffinity/PodAntiAffinity fails PreFilter with an invalid label syntax: UnschedulableAndUnresolvable,
    `parsing pod: <terms>: ...`."""
    pod = getattr(MakePod().Labels(POD_LABEL), method)("service", "region", ["{{.bad-value.}}"], REQ).Obj()
    plugin, handle = setup([], [node1()])
    status = plugin.pre_filter(CycleState(), pod, list(handle.node_infos.values()))
    assert status.code == fw.UNRESOLVABLE
    assert status.message.startswith(f"parsing pod: {kind}: ") and "{{.bad-value.}}" in status.message


def n(name, **labels):
    b = MakeNode().Name(name)
    for k, v in labels.items():
        b.Label(k, v)
    return b.Obj()


CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}
OK_ = None
ANTI = (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXIST = (fw.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
AFF = (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)


def rz(name, region, zone):
    return n(name, region=region, zone=zone, hostname=name)


# TestRequiredAffinityMultipleNodes: (name, pod, existing pods, nodes, want per node in order, or SKIP)
MULTIPLE = [
    ("A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
     MakePod().PodAffinityIn("foo", "region", ["bar"], REQ).Obj(), [MakePod().Name("p1").Node("node1").Labels({"foo": "bar"}).Obj()],
     [n("node1", **CHINA), n("node2", **CHINA_AZ1), n("node3", **INDIA)], [OK_, OK_, AFF]),
    ("The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection "
     "should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
     MakePod().Labels({"foo": "bar", "service": "securityscan"}).PodAffinityIn("foo", "zone", ["bar"], REQ)
     .PodAffinityIn("service", "zone", ["securityscan"], REQ).Obj(), [MakePod().Name("p1").Node("nodeA").Labels({"foo": "bar"}).Obj()],
     [n("nodeA", zone="az1", hostname="h1"), n("nodeB", zone="az2", hostname="h2")], [OK_, OK_]),
    ("The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
     MakePod().Labels({"foo": "bar", "service": "securityscan"}).PodAffinityIn("foo", "zone", ["bar"], REQ)
     .PodAffinityIn("service", "zone", ["securityscan"], REQ).Obj(), [MakePod().Name("p1").Node("nodeA").Labels({"foo": "bar"}).Obj()],
     [n("nodeA", zoneLabel="az1", hostname="h1"), n("nodeB", zoneLabel="az2", hostname="h2")], [AFF, AFF]),
    ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
     MakePod().PodAntiAffinityIn("foo", "region", ["abc"], REQ).Obj(), [MakePod().Node("nodeA").Labels({"foo": "abc"}).Obj()],
     [n("nodeA", region="r1", hostname="nodeA"), n("nodeB", region="r1", hostname="nodeB")], [ANTI, ANTI]),
    ("This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
     MakePod().PodAntiAffinityIn("foo", "region", ["abc"], REQ).PodAntiAffinityIn("service", "zone", ["securityscan"], REQ).Obj(),
     [MakePod().Node("nodeA").Labels({"foo": "abc", "service": "securityscan"}).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [ANTI, ANTI]),
    ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
     MakePod().PodAntiAffinityIn("foo", "region", ["abc"], REQ).Obj(), [MakePod().Node("nodeA").Labels({"foo": "abc"}).Obj()],
     [n("nodeA", **CHINA), n("nodeB", **CHINA_AZ1), n("nodeC", **INDIA)], [ANTI, ANTI, OK_]),
    ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
     MakePod().Namespace("NS1").Labels({"foo": "123"}).PodAntiAffinityIn("foo", "region", ["bar"], REQ).Obj(),
     [MakePod().Node("nodeA").Namespace("NS1").Labels({"foo": "bar"}).Obj(),
      MakePod().Node("nodeC").Namespace("NS2").PodAntiAffinityIn("foo", "region", ["123"], REQ).Obj()],
     [n("nodeA", **CHINA), n("nodeB", **CHINA_AZ1), n("nodeC", **INDIA)], [ANTI, ANTI, OK_]),
    ("Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
     MakePod().Label("foo", "").Obj(), [MakePod().Node("nodeA").PodAntiAffinityExists("foo", "invalid-node-label", REQ).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1")], SKIP),
    ("Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
     MakePod().Node("nodeA").PodAntiAffinityExists("foo", "invalid-node-label", REQ).Obj(), [MakePod().Node("nodeA").Labels({"foo": ""}).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1")], [OK_, OK_]),
    ("Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
     MakePod().Label("foo", "").Label("bar", "").Obj(),
     [MakePod().Node("nodeA").PodAntiAffinityExists("foo", "zone", REQ).Obj(), MakePod().Node("nodeA").PodAntiAffinityExists("bar", "region", REQ).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [EXIST, EXIST]),
    ("Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
     MakePod().PodAntiAffinityExists("foo", "zone", REQ).PodAntiAffinityExists("bar", "region", REQ).Obj(),
     [MakePod().Node("nodeA").Labels({"foo": ""}).Obj(), MakePod().Node("nodeB").Labels({"bar": ""}).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [ANTI, ANTI]),
    ("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
     MakePod().Label("foo", "").Label("bar", "").Obj(),
     [MakePod().Node("nodeA").PodAntiAffinityExists("foo", "invalid-node-label", REQ).PodAntiAffinityExists("bar", "zone", REQ).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [EXIST, OK_]),
    ("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
     MakePod().PodAntiAffinityExists("foo", "invalid-node-label", REQ).PodAntiAffinityExists("bar", "zone", REQ).Obj(),
     [MakePod().Name("podA").Node("nodeA").Labels({"foo": "", "bar": ""}).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [ANTI, OK_]),
    ("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
     MakePod().Label("foo", "").Label("bar", "").Obj(),
     [MakePod().Node("nodeA").PodAntiAffinityExists("foo", "region", REQ).PodAntiAffinityExists("bar", "zone", REQ).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [EXIST, EXIST]),
    ("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
     MakePod().PodAntiAffinityExists("foo", "region", REQ).PodAntiAffinityExists("bar", "zone", REQ).Obj(),
     [MakePod().Node("nodeA").Labels({"foo": "", "bar": ""}).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [ANTI, ANTI]),
    ("Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
     MakePod().Label("foo", "").Label("bar", "").Obj(),
     [MakePod().Node("nodeA").PodAntiAffinityExists("foo", "zone", REQ).PodAntiAffinityExists("labelA", "zone", REQ).Obj(),
      MakePod().Node("nodeB").PodAntiAffinityExists("bar", "zone", REQ).PodAntiAffinityExists("labelB", "zone", REQ).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2"), rz("nodeC", "r1", "z3")], [EXIST, EXIST, OK_]),
    ("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
     MakePod().PodAffinityExists("foo", "region", REQ).PodAffinityExists("bar", "zone", REQ).Obj(),
     [MakePod().Name("pod1").Labels({"foo": "", "bar": ""}).Node("nodeA").Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1")], [OK_, OK_]),
    ("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
     MakePod().PodAffinityExists("foo", "region", REQ).PodAffinityExists("bar", "zone", REQ).Obj(),
     [MakePod().Node("nodeA").Name("pod1").Labels({"foo": ""}).Obj(), MakePod().Node("nodeB").Name("pod2").Labels({"bar": ""}).Obj()],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], [AFF, AFF]),
]


@pytest.mark.parametrize("name,pod,existing_pods,nodes,want", MULTIPLE, ids=[c[0][:120] for c in MULTIPLE])
def test_required_affinity_multiple_nodes(name, pod, existing_pods, nodes, want):
    got = filter_one(pod, existing_pods, nodes, namespace_labels={"NS1": {}})
    if want == SKIP:
        assert got == SKIP
        return
    for node, expected in zip(nodes, want):
        status = got[node.name]
        if expected is None:
            assert status.is_success, (node.name, status)
        else:
            assert (status.code, status.reasons) == (expected[0], (expected[1],)), node.name


def test_pre_filter_disabled():
    """TestPreFilterDisabled: Filter without PreFilter's state is an error with upstream's words."""
    plugin, handle = setup([], [MakeNode().Name("n").Obj()])
    status = plugin.filter(CycleState(), MakePod().Obj(), handle.node_infos["n"])
    assert status.code == fw.ERROR
    assert status.message.startswith('error reading "PreFilterInterPodAffinity" from cycleState')


def test_pod_without_affinity_and_no_anti_affinity_pods_is_skipped():
    plugin, handle = setup([plain(POD_LABEL, "node1")], [node1()])
    assert plugin.pre_filter(CycleState(), plain(POD_LABEL, name="p"), list(handle.node_infos.values())).is_skip


def test_first_pod_of_a_group_matching_its_own_term():
    """No pod matches anywhere and the pod matches its own affinity term: it may go to any
    node carrying the key; a node without the key is refused."""
    nodes = [node1(), MakeNode().Name("node2").Obj()]
    pod = with_terms(POD_LABEL, affinity=[term(IN_SEC, key="region")])
    got = filter_one(pod, [], nodes)
    assert got["node1"].is_success
    assert (got["node2"].code, got["node2"].reasons) == (fw.UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,))


def test_namespace_selector_counts_pods_of_selected_namespaces():
    pod = with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region", namespace_selector={"matchLabels": {"team": "a"}})])
    existing = [plain(POD_LABEL, "node1", namespace="team-a")]
    labels = {"team-a": {"team": "a"}, "team-b": {"team": "b"}}
    assert filter_one(pod, existing, namespace_labels=labels)["node1"].is_success
    existing_b = [plain(POD_LABEL, "node1", namespace="team-b")]
    assert filter_one(pod, existing_b, namespace_labels=labels)["node1"].code == fw.UNRESOLVABLE
    # an empty namespaceSelector selects every namespace
    every = with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region", namespace_selector={})])
    assert filter_one(every, existing_b, namespace_labels=labels)["node1"].is_success


def test_add_and_remove_pod():
    nodes = [node1(), MakeNode().Name("node2").Label("region", "r2").Label("zone", "z21").Obj()]
    pod = with_terms(POD_LABEL2, anti=[term(IN_SEC, key="zone")])
    plugin, handle = setup([], nodes)
    cs = CycleState()
    assert plugin.pre_filter(cs, pod, list(handle.node_infos.values())).is_success
    infos = handle.node_infos
    assert plugin.filter(cs, pod, infos["node1"]).is_success
    victim = plain(POD_LABEL, "node1")
    clone = cs.clone()
    plugin.add_pod(clone, pod, victim, infos["node1"])
    assert plugin.filter(clone, pod, infos["node1"]).reasons == (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,)
    assert plugin.filter(clone, pod, infos["node2"]).is_success
    assert plugin.filter(cs, pod, infos["node1"]).is_success
    plugin.remove_pod(clone, pod, victim, infos["node1"])
    assert plugin.filter(clone, pod, infos["node1"]).is_success
    # an existing pod's anti-affinity added by AddPod
    guard = with_terms({}, "node2", anti=[term(expr("security", "Exists"), key="region")], name="g")
    plugin.add_pod(clone, pod, guard, infos["node2"])
    assert plugin.filter(clone, pod, infos["node2"]).reasons == (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,)


def test_binding_updates_the_next_cycle():
    nodes = [node1(), MakeNode().Name("node2").Label("region", "r2").Label("zone", "z21").Obj()]
    pod = with_terms(POD_LABEL, anti=[term(IN_SEC, key="zone")])
    plugin, handle = setup([], nodes)
    all_nodes = list(handle.node_infos.values())
    cs = CycleState()
    plugin.pre_filter(cs, pod, all_nodes)
    assert plugin.filter(cs, pod, handle.node_infos["node1"]).is_success
    handle.node_infos["node1"].add_pod(plain(POD_LABEL, "node1", name="bound"))
    cs = CycleState()
    plugin.pre_filter(cs, pod, all_nodes)
    assert plugin.filter(cs, pod, handle.node_infos["node1"]).code == fw.UNSCHEDULABLE
    assert plugin.filter(cs, pod, handle.node_infos["node2"]).is_success


@pytest.mark.parametrize("weight", [-1, 101])
def test_hard_pod_affinity_weight_range(weight):
    with pytest.raises(ArgsError) as e:
        setup([], [], args={"hardPodAffinityWeight": weight})
    assert str(e.value) == f"hardPodAffinityWeight: Invalid value: {weight}: not in valid range [0, 100]"


def _scores(plugin, handle, pod):
    nodes = list(handle.node_infos.values())
    cs = CycleState()
    if plugin.pre_score(cs, pod, nodes).is_skip:
        return None
    raw = {n.name: plugin.score(cs, pod, n) for n in nodes}
    scores = dict(raw)
    plugin.normalize_score(cs, pod, scores)
    return raw, scores


def _preferred(labels, affinity=(), anti=(), node="", name="p"):
    doc = {"metadata": {"name": name, "namespace": "default", "labels": dict(labels)},
           "spec": {"nodeName": node, "containers": [{"name": "c"}], "affinity": {}}}
    if affinity:
        doc["spec"]["affinity"]["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "podAffinityTerm": t} for w, t in affinity]}
    if anti:
        doc["spec"]["affinity"]["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "podAffinityTerm": t} for w, t in anti]}
    return Pod.from_doc(doc)


def three_regions():
    return [MakeNode().Name(n).Label("region", r).Obj() for n, r in (("m1", "r1"), ("m2", "r2"), ("m3", "r1"))]


def test_preferred_affinity_scores():
    """The weights per (key, value) of the pod's preferred terms matched by existing pods,
    normalized to 100 * (s - min) / (max - min)."""
    pod = _preferred(POD_LABEL2, affinity=[(5, term(IN_SEC, key="region"))], anti=[(3, term(expr("security", "Exists"), key="region"))])
    existing = [plain(POD_LABEL, "m1", name="a"), plain(POD_LABEL, "m1", name="b"), plain(POD_LABEL2, "m2", name="c")]
    plugin, handle = setup(existing, three_regions())
    raw, scores = _scores(plugin, handle, pod)
    assert raw == {"m1": 10, "m2": -3, "m3": 10}
    assert scores == {"m1": 100, "m2": 0, "m3": 100}


def test_existing_pods_terms_score_and_hard_weight():
    """Existing pods' required affinity terms the incoming pod matches count
    hardPodAffinityWeight; their preferred anti-affinity terms subtract their weight."""
    existing = [with_terms({}, "m1", affinity=[term(IN_SEC, key="region")], name="a"),
                _preferred({}, anti=[(7, term(IN_SEC, key="region"))], node="m2", name="b")]
    pod = plain(POD_LABEL, name="p")
    for weight, want in ((1, {"m1": 1, "m2": -7, "m3": 1}), (10, {"m1": 10, "m2": -7, "m3": 10}),
                         (0, {"m1": 0, "m2": -7, "m3": 0})):
        plugin, handle = setup(existing, three_regions(), args={"hardPodAffinityWeight": weight})
        raw, scores = _scores(plugin, handle, pod)
        assert raw == want
        assert scores["m2"] == 0 and scores["m1"] == 100
    plugin, handle = setup(existing, three_regions(), args={"ignorePreferredTermsOfExistingPods": True})
    assert _scores(plugin, handle, pod) is None


# --- scoring_test.go ------------------------------------------------------------------------------------

S1, S2 = {"security": "S1"}, {"security": "S2"}
RG_CHINA, RG_INDIA, AZ1, AZ2, RG_CHINA_AZ1 = {"region": "China"}, {"region": "India"}, {"az": "az1"}, {"az": "az2"}, \
    {"region": "China", "az": "az1"}


def weighted(weight, *exprs, key, namespaces=None, namespace_selector=None):
    return {"weight": weight, "podAffinityTerm": term(*exprs, key=key, namespaces=namespaces, namespace_selector=namespace_selector)}


STAY_WITH_S1_IN_REGION = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(5, expr("security", "In", "S1"), key="region")]}}
STAY_WITH_S2_IN_REGION = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(6, expr("security", "In", "S2"), key="region")]}}
AFFINITY3 = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(8, expr("security", "NotIn", "S1"), expr("security", "In", "S2"), key="region"),
    weighted(2, expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), key="region")]}}
HARD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    term(expr("security", "In", "S1", "value2"), key="region"),
    term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), key="region")]}}
AWAY_FROM_S1_IN_AZ = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(5, expr("security", "In", "S1"), key="az")]}}
AWAY_FROM_S2_IN_AZ = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(5, expr("security", "In", "S2"), key="az")]}}
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = {
    "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [weighted(8, expr("security", "In", "S1"), key="region")]},
    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [weighted(5, expr("security", "In", "S2"), key="az")]}}
AFFINITY_NAMESPACE_SELECTOR = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(5, expr("security", "In", "S1"), key="region", namespaces=["subteam2.team2"], namespace_selector=TEAM1)]}}
ANTI_AFFINITY_NAMESPACE_SELECTOR = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(5, expr("security", "In", "S1"), key="region", namespaces=["subteam2.team2"], namespace_selector=TEAM1)]}}
INVALID_AFFINITY_LABELS = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(8, expr("security", "In", "{{.bad-value.}}"), key="region")]}}
INVALID_ANTI_AFFINITY_LABELS = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    weighted(5, expr("security", "In", "{{.bad-value.}}"), key="az")]}}


def sp(labels=None, node="", affinity=None, namespace="default", name=""):
    """&v1.Pod{Spec: {NodeName, Affinity}, ObjectMeta: {Namespace, Labels}}."""
    b = MakePod().Namespace(namespace).Labels(labels or {}).Name(name)
    if node:
        b.Node(node)
    if affinity is not None:
        b.Affinity(affinity)
    return b.Obj()


def nodes_of(*pairs):
    return [n(name, **labels) for name, labels in pairs]


MAX = 100
# TestPreferredAffinity: (name, pod, existing pods, nodes, want scores in node order | SKIP | ERROR, ignorePreferredTermsOfExistingPods)
PREFERRED = [
    ("all nodes are same priority as Affinity is nil", sp(S1), [],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), SKIP, False),
    ("Affinity: pod that matches topology key & pods in nodes will get high score comparing to others"
     "which doesn't match either pods in nodes or in topology key",
     sp(S1, affinity=STAY_WITH_S1_IN_REGION), [sp(S1, "node1"), sp(S2, "node2"), sp(S1, "node3")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), [MAX, 0, 0], False),
    ("All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
     sp(affinity=STAY_WITH_S1_IN_REGION), [sp(S1, "node1")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_CHINA_AZ1), ("node3", RG_INDIA)), [MAX, MAX, 0], False),
    ("Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
     sp(S1, affinity=STAY_WITH_S2_IN_REGION), [sp(S2, "node1"), sp(S2, "node1"), sp(S2, "node2"), sp(S2, "node3"), sp(S2, "node4"), sp(S2, "node5")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", RG_CHINA), ("node4", RG_CHINA), ("node5", RG_INDIA)),
     [MAX, 0, MAX, MAX, 0], False),
    ("Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
     sp(S1, affinity=AFFINITY3), [sp(S1, "node1"), sp(S2, "node2"), sp(S1, "node3")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), [20, MAX, 0], False),
    ("Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
     sp(S2), [sp(S1, "node1", STAY_WITH_S1_IN_REGION), sp(S2, "node2", STAY_WITH_S2_IN_REGION)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), [0, MAX, 0], False),
    ("Affinity symmetry with namespace selector",
     sp(S1, namespace="subteam1.team1"), [sp(S1, "node1", AFFINITY_NAMESPACE_SELECTOR), sp(S2, "node2", STAY_WITH_S2_IN_REGION)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), [MAX, 0, 0], False),
    ("AntiAffinity symmetry with namespace selector",
     sp(S1, namespace="subteam1.team1"), [sp(S1, "node1", ANTI_AFFINITY_NAMESPACE_SELECTOR), sp(S2, "node2", STAY_WITH_S2_IN_REGION)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), [0, MAX, MAX], False),
    ("Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
     sp(S1), [sp(S1, "node1", HARD_AFFINITY), sp(S2, "node2", HARD_AFFINITY)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), [MAX, MAX, 0], False),
    ("Anti Affinity: pod that does not match existing pods in node will get high score ",
     sp(S1, affinity=AWAY_FROM_S1_IN_AZ), [sp(S1, "node1"), sp(S2, "node2")],
     nodes_of(("node1", AZ1), ("node2", RG_CHINA)), [0, MAX], False),
    ("Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
     sp(S1, affinity=AWAY_FROM_S1_IN_AZ), [sp(S1, "node1"), sp(S1, "node2")],
     nodes_of(("node1", AZ1), ("node2", RG_CHINA)), [0, MAX], False),
    ("Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
     sp(S1, affinity=AWAY_FROM_S1_IN_AZ), [sp(S1, "node1"), sp(S1, "node1"), sp(S2, "node2")],
     nodes_of(("node1", AZ1), ("node2", RG_INDIA)), [0, MAX], False),
    ("Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
     sp(S2), [sp(S1, "node1", AWAY_FROM_S2_IN_AZ), sp(S2, "node2", AWAY_FROM_S1_IN_AZ)],
     nodes_of(("node1", AZ1), ("node2", AZ2)), [0, MAX], False),
    ("Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
     sp(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), [sp(S1, "node1"), sp(S1, "node2")],
     nodes_of(("node1", RG_CHINA), ("node2", AZ1)), [MAX, 0], False),
    ("Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
     sp(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
     [sp(S1, "node1"), sp(S1, "node1"), sp(S1, "node2"), sp(S1, "node3"), sp(S1, "node3"), sp(S1, "node4"), sp(S1, "node5")],
     nodes_of(("node1", RG_CHINA_AZ1), ("node2", RG_INDIA), ("node3", RG_CHINA), ("node4", RG_CHINA), ("node5", RG_INDIA)),
     [MAX, 0, MAX, MAX, 0], False),
    ("Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
     sp(S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
     [sp(S1, "node1"), sp(S2, "node2"), sp(node="node3", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), sp(node="node4", affinity=AWAY_FROM_S1_IN_AZ)],
     nodes_of(("node1", RG_CHINA), ("node2", AZ1), ("node3", RG_INDIA), ("node4", AZ2)), [MAX, 0, MAX, 0], False),
    ("Avoid panic when partial nodes in a topology don't have pods with affinity",
     sp(S1), [sp(S1, "node1"), sp(node="node2", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_CHINA)), [0, 0], False),
    ("invalid Affinity fails PreScore", sp(affinity=INVALID_AFFINITY_LABELS), [],
     nodes_of(("node1", RG_CHINA), ("node2", RG_CHINA)), fw.ERROR, False),
    ("invalid AntiAffinity fails PreScore", sp(affinity=INVALID_ANTI_AFFINITY_LABELS), [],
     nodes_of(("node1", RG_CHINA), ("node2", RG_CHINA)), fw.ERROR, False),
    ("Affinity with pods matching NamespaceSelector",
     sp(S1, affinity=AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
     [sp(S1, "node1", namespace="subteam1.team1"), sp(S1, "node1", namespace="subteam1.team1"),
      sp(S1, "node1", namespace="subteam1.team2"), sp(S1, "node2", namespace="subteam2.team1")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA)), [MAX, 0], False),
    ("Affinity with pods matching both NamespaceSelector and Namespaces fields",
     sp(S1, affinity=AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
     [sp(S1, "node1", namespace="subteam1.team1"), sp(S1, "node1", namespace="subteam1.team1"),
      sp(S1, "node1", namespace="subteam2.team2"), sp(S1, "node2", namespace="subteam2.team1")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA)), [MAX, 0], False),
    ("Affinity with pods matching NamespaceSelector (anti-affinity)",  # upstream repeats the name
     sp(S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
     [sp(S1, "node1", namespace="subteam1.team1"), sp(S1, "node1", namespace="subteam1.team1"),
      sp(S1, "node1", namespace="subteam1.team2"), sp(S1, "node2", namespace="subteam2.team1")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False),
    ("Affinity with pods matching both NamespaceSelector and Namespaces fields (anti-affinity)",  # upstream repeats the name
     sp(S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR, namespace="subteam1.team1"),
     [sp(S1, "node1", namespace="subteam1.team1"), sp(S1, "node1", namespace="subteam1.team1"),
      sp(S1, "node1", namespace="subteam2.team2"), sp(S1, "node2", namespace="subteam2.team1")],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False),
    ("Ignore preferred terms of existing pods",
     sp(S2), [sp(S1, "node1", STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), sp(S2, "node2", STAY_WITH_S2_IN_REGION)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA)), SKIP, True),
    ("Do not ignore preferred terms of existing pods",
     sp(S2), [sp(S1, "node1", STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), sp(S2, "node2", STAY_WITH_S2_IN_REGION)],
     nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False),
    ("No nodes to score", sp(S2), [], [], SKIP, False),
]


def run_scores(pod, pods, nodes, args):
    plugin, handle = setup(pods, nodes, args=args, namespace_labels=NAMESPACES)
    infos = list(handle.node_infos.values())
    cs = CycleState()
    status = plugin.pre_score(cs, pod, infos)
    if not status.is_success:
        return status
    scores = {info.name: plugin.score(cs, pod, info) for info in infos}
    plugin.normalize_score(cs, pod, scores)
    return [scores[node.name] for node in nodes]


@pytest.mark.parametrize("name,pod,pods,nodes,want,ignore", PREFERRED, ids=[c[0][:120] for c in PREFERRED])
def test_preferred_affinity(name, pod, pods, nodes, want, ignore):
    got = run_scores(pod, pods, nodes, {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": ignore})
    if want == SKIP:
        assert got.is_skip
    elif want == fw.ERROR:
        assert got.code == fw.ERROR and '"{{.bad-value.}}"' in got.message
    else:
        assert got == want


HARD_POD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    term(expr("service", "In", "S1"), key="region", namespaces=["default", "subteam2.team2"], namespace_selector=TEAM1)]}}
SERVICE_S1 = {"service": "S1"}
THREE = nodes_of(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1))

# TestPreferredAffinityWithHardPodAffinitySymmetricWeight: (name, pod, weight, want)
HARD_WEIGHT = [
    ("with default weight", sp(SERVICE_S1), 1, [MAX, MAX, 0]),
    ("with zero weight", sp(SERVICE_S1), 0, SKIP),
    ("with no matching namespace", sp(SERVICE_S1, namespace="subteam1.team2"), 1, SKIP),
    ("with matching NamespaceSelector", sp(SERVICE_S1, namespace="subteam1.team1"), 1, [MAX, MAX, 0]),
    ("with matching Namespaces", sp(SERVICE_S1, namespace="subteam2.team2"), 1, [MAX, MAX, 0]),
]


@pytest.mark.parametrize("name,pod,weight,want", HARD_WEIGHT, ids=[c[0] for c in HARD_WEIGHT])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(name, pod, weight, want):
    pods = [sp(node="node1", affinity=HARD_POD_AFFINITY), sp(node="node2", affinity=HARD_POD_AFFINITY)]
    got = run_scores(pod, pods, THREE, {"hardPodAffinityWeight": weight})
    if want == SKIP:
        assert got.is_skip
    else:
        assert got == want


# --- TestPreFilterStateAddRemovePod, TestGetTPMapMatchingIncomingAffinityAntiAffinity ----------------------

from scheduling.engine.framework.plugins.inter_pod_affinity import PREFILTER_KEY  # noqa: E402

ANTI_FOO_BAR = {"requiredDuringSchedulingIgnoredDuringExecution": [term(expr("foo", "In", "bar"), key="region")]}
ANTI_COMPLEX = {"requiredDuringSchedulingIgnoredDuringExecution": [
    term(expr("foo", "In", "bar", "buzz"), key="region"), term(expr("service", "NotIn", "bar", "security", "test"), key="zone")]}
AFFINITY_COMPLEX = ANTI_COMPLEX
LABEL1, LABEL2, LABEL3 = {"region": "r1", "zone": "z11"}, {"region": "r1", "zone": "z12"}, {"region": "r2", "zone": "z21"}


def _aff(name, labels=None, node="", anti=None, affinity=None):
    doc = {"metadata": {"name": name, "namespace": "default", "labels": dict(labels or {})},
           "spec": {"nodeName": node, "containers": [{"name": "c"}], "affinity": {}}}
    if anti is not None:
        doc["spec"]["affinity"]["podAntiAffinity"] = anti
    if affinity is not None:
        doc["spec"]["affinity"]["podAffinity"] = affinity
    return Pod.from_doc(doc)


ABC = lambda: nodes_of(("nodeA", LABEL1), ("nodeB", LABEL2), ("nodeC", LABEL3))  # noqa: E731
ADD_REMOVE = [
    ("preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
     _aff("pending", {"foo": "bar"}, anti=ANTI_FOO_BAR),
     [_aff("p1", {"foo": "bar"}, "nodeA"), _aff("p2", node="nodeC", anti=ANTI_FOO_BAR)],
     _aff("addedPod", {"foo": "bar"}, "nodeB", anti=ANTI_FOO_BAR), {("region", "r1"): 2}, {}),
    ("preFilterState anti-affinity terms are updated correctly after adding and removing a pod (complex)",  # upstream repeats the name
     _aff("pending", {"foo": "bar"}, anti=ANTI_COMPLEX),
     [_aff("p1", {"foo": "bar"}, "nodeA"), _aff("p2", node="nodeC", anti=ANTI_FOO_BAR)],
     _aff("addedPod", {"foo": "bar"}, "nodeA", anti=ANTI_COMPLEX), {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {}),
    ("preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
     _aff("pending", {"foo": "bar"}, affinity=AFFINITY_COMPLEX),
     [_aff("p1", {"foo": "bar"}, "nodeA"), _aff("p2", node="nodeC", anti=ANTI_FOO_BAR, affinity=AFFINITY_COMPLEX)],
     _aff("addedPod", {"foo": "bar"}, "nodeA", anti=ANTI_COMPLEX), {}, {("region", "r1"): 2, ("zone", "z11"): 2}),
]


def _counts(state):
    return (dict(state.existing_anti_affinity_counts), dict(state.affinity_counts), dict(state.anti_affinity_counts))


@pytest.mark.parametrize("name,pending,existing_pods,added,want_anti,want_affinity", ADD_REMOVE, ids=[c[0] for c in ADD_REMOVE])
def test_pre_filter_state_add_remove_pod(name, pending, existing_pods, added, want_anti, want_affinity):
    def state_of(pods):
        plugin, handle = setup(pods, ABC())
        cs = CycleState()
        assert plugin.pre_filter(cs, pending, list(handle.node_infos.values())).is_success
        return plugin, handle, cs
    _, _, all_cs = state_of(existing_pods + [added])
    plugin, handle, cs = state_of(existing_pods)
    original = _counts(cs[PREFILTER_KEY])
    plugin.add_pod(cs, pending, added, handle.node_infos[added.node_name])
    state = cs[PREFILTER_KEY]
    assert dict(state.anti_affinity_counts) == want_anti
    assert dict(state.affinity_counts) == want_affinity
    assert _counts(state) == _counts(all_cs[PREFILTER_KEY])
    plugin.remove_pod(cs, pending, added, handle.node_infos[added.node_name])
    assert _counts(cs[PREFILTER_KEY]) == original


def test_pre_filter_state_clone():
    """TestPreFilterStateClone: a copy equal to its source, and independent of it."""
    plugin, handle = setup([_aff("p1", {"foo": "bar"}, "nodeA")], ABC())
    cs = CycleState()
    pending = _aff("pending", {"foo": "bar"}, anti=ANTI_FOO_BAR)
    plugin.pre_filter(cs, pending, list(handle.node_infos.values()))
    source = cs[PREFILTER_KEY]
    clone = source.clone()
    assert clone is not source and _counts(clone) == _counts(source)
    clone.anti_affinity_counts[("region", "r2")] = 5
    assert ("region", "r2") not in source.anti_affinity_counts


def _normal(*labels):
    b = MakePod().Name("normal").Node("nodeA")
    for label in labels:
        b.Label(label, "")
    return b.Obj()


NODE_A = lambda: [n("nodeA", hostname="nodeA")]  # noqa: E731
INCOMING = [
    ("nil test", [], MakePod().Name("aaa-normal").Obj(), {}, {}),
    ("incoming pod without affinity/anti-affinity causes a no-op", [_normal("aaa")], MakePod().Name("aaa-normal").Obj(), {}, {}),
    ("no pod has label that violates incoming pod's affinity and anti-affinity", [_normal("bbb")],
     MakePod().Name("aaa-anti").PodAffinityExists("aaa", "hostname", REQ).PodAntiAffinityExists("aaa", "hostname", REQ).Obj(), {}, {}),
    ("existing pod matches incoming pod's affinity and anti-affinity - single term case", [_normal("aaa")],
     MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", REQ).PodAntiAffinityExists("aaa", "hostname", REQ).Obj(),
     {("hostname", "nodeA"): 1}, {("hostname", "nodeA"): 1}),
    ("existing pod matches incoming pod's affinity and anti-affinity - multiple terms case", [_normal("aaa", "bbb")],
     MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", REQ).PodAffinityExists("bbb", "hostname", REQ)
     .PodAntiAffinityExists("aaa", "hostname", REQ).Obj(), {("hostname", "nodeA"): 2}, {("hostname", "nodeA"): 1}),
    ("existing pod not match incoming pod's affinity but matches anti-affinity", [_normal("aaa")],
     MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", REQ).PodAffinityExists("bbb", "hostname", REQ)
     .PodAntiAffinityExists("aaa", "hostname", REQ).PodAntiAffinityExists("bbb", "hostname", REQ).Obj(), {}, {("hostname", "nodeA"): 1}),
    ("incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1", [_normal("aaa", "bbb")],
     MakePod().Name("anaffi-antiaffiti").PodAffinityExists("aaa", "hostname", REQ).PodAffinityExists("ccc", "hostname", REQ)
     .PodAntiAffinityExists("aaa", "hostname", REQ).PodAntiAffinityExists("ccc", "hostname", REQ).Obj(), {}, {("hostname", "nodeA"): 1}),
    ("incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2", [_normal("bbb")],
     MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", REQ).PodAffinityExists("bbb", "hostname", REQ)
     .PodAntiAffinityExists("aaa", "hostname", REQ).PodAntiAffinityExists("bbb", "hostname", REQ).Obj(), {}, {("hostname", "nodeA"): 1}),
]


@pytest.mark.parametrize("name,existing_pods,pod,want_affinity,want_anti", INCOMING, ids=[c[0] for c in INCOMING])
def test_get_tp_map_matching_incoming_affinity_anti_affinity(name, existing_pods, pod, want_affinity, want_anti):
    plugin, handle = setup(existing_pods, NODE_A())
    cs = CycleState()
    plugin.pre_filter(cs, pod, list(handle.node_infos.values()))
    state = cs.get(PREFILTER_KEY)
    got = ({}, {}) if state is None else (dict(state.affinity_counts), dict(state.anti_affinity_counts))
    assert got == (want_affinity, want_anti)


def test_match_and_mismatch_label_keys_merge_into_the_term():
    """matchLabelKeys / mismatchLabelKeys of a term add `key in (value)` / `key notin (value)` of
    the owner pod's labels to its selector (as the API server does on create)."""
    nodes = [n("n1", hostname="n1"), n("n2", hostname="n2")]
    old = _aff("old", {"app": "web", "rev": "1"}, "n1")
    new = _aff("new", {"app": "web", "rev": "2"}, "n2")
    t = term(expr("app", "In", "web"), key="hostname")
    pod = _aff("p", {"app": "web", "rev": "2"},
               anti={"requiredDuringSchedulingIgnoredDuringExecution": [{**t, "matchLabelKeys": ["rev"]}]})
    got = filter_one(pod, [old, new], nodes)
    assert got["n1"].is_success and got["n2"].reasons == (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,)
    pod = _aff("p", {"app": "web", "rev": "2"},
               anti={"requiredDuringSchedulingIgnoredDuringExecution": [{**t, "mismatchLabelKeys": ["rev"]}]})
    got = filter_one(pod, [old, new], nodes)
    assert got["n2"].is_success and got["n1"].reasons == (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,)
