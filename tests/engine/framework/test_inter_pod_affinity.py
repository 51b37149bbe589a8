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
from tests.engine.framework.st import MakeNode, MakePod

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = dict(name="machine1", labels={"region": "r1", "zone": "z11"})


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


def node1():
    b = MakeNode().Name(NODE1["name"])
    for k, v in NODE1["labels"].items():
        b.Label(k, v)
    return b.Obj()


IN_SEC = expr("service", "In", "securityscan", "value2")
IN_AV = expr("service", "In", "antivirusscan", "value2")

# TestRequiredAffinitySingleNode: (name, pod, existing pods, want (code, reason) or None)
REQUIRED_SINGLE = [
    ("A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
     plain({}, name="p"), [], None),
    ("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region")]), [plain(POD_LABEL, "machine1")], None),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
     with_terms(POD_LABEL2, affinity=[term(expr("service", "NotIn", "securityscan3", "value3"), key="region")]),
     [plain(POD_LABEL, "machine1")], None),
    ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, namespaces=["DiffNameSpace"])]),
     [plain(POD_LABEL, "machine1", namespace="ns")], (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
     with_terms(POD_LABEL, affinity=[term(IN_AV)]), [plain(POD_LABEL, "machine1")],
     (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
     with_terms(POD_LABEL2, affinity=[
         term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
         term(expr("service", "In", "securityscan"), expr("service", "NotIn", "WrongValue"), key="region")]),
     [plain(POD_LABEL, "machine1")], None),
    ("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
     with_terms(POD_LABEL2, affinity=[
         term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
         term(expr("service", "In", "securityscan2"), expr("service", "NotIn", "WrongValue"), key="region")]),
     [plain(POD_LABEL, "machine1")], (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region")], anti=[term(IN_AV, key="node")]),
     [plain(POD_LABEL, "machine1")], None),
    ("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region")], anti=[term(IN_AV, key="node")]),
     [with_terms(POD_LABEL, "machine1", anti=[term(IN_AV, key="node")], name="e")], None),
    ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
     with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region")], anti=[term(IN_SEC, key="zone")]),
     [plain(POD_LABEL, "machine1")], (fw.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     with_terms(POD_LABEL, affinity=[term(IN_SEC, key="region")], anti=[term(IN_AV, key="node")]),
     [with_terms(POD_LABEL, "machine1", anti=[term(IN_SEC, key="zone")], name="e")],
     (fw.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
     with_terms(POD_LABEL, affinity=[term(expr("service", "NotIn", "securityscan", "value2"), key="region")]),
     [plain(POD_LABEL, "machine2")], (fw.UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     plain(POD_LABEL, name="p"), [with_terms(POD_LABEL, "machine1", anti=[term(IN_SEC, key="zone")], name="e")],
     (fw.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
     plain(POD_LABEL, name="p"),
     [with_terms(POD_LABEL, "machine1", anti=[term(expr("service", "NotIn", "securityscan", "value2"), key="zone")], name="e")],
     None),
]


def filter_one(pod, existing, nodes=None, namespace_labels=None):
    nodes = nodes or [node1()]
    plugin, handle = setup(existing, nodes, namespace_labels=namespace_labels)
    cs = CycleState()
    status = plugin.pre_filter(cs, pod, list(handle.node_infos.values()))
    if status.is_skip:
        return {name: fw.OK for name in handle.node_infos}
    assert status.is_success, status
    return {name: plugin.filter(cs, pod, info) for name, info in handle.node_infos.items()}


@pytest.mark.parametrize("name,pod,existing,want", REQUIRED_SINGLE, ids=[c[0] for c in REQUIRED_SINGLE])
def test_required_affinity_single_node(name, pod, existing, want):
    status = filter_one(pod, existing)["machine1"]
    if want is None:
        assert status.is_success, status
    else:
        assert (status.code, status.reasons) == (want[0], (want[1],))


def test_pod_without_affinity_and_no_anti_affinity_pods_is_skipped():
    plugin, handle = setup([plain(POD_LABEL, "machine1")], [node1()])
    assert plugin.pre_filter(CycleState(), plain(POD_LABEL, name="p"), list(handle.node_infos.values())).is_skip


def test_first_pod_of_a_group_matching_its_own_term():
    """No pod matches anywhere and the pod matches its own affinity term: it may go to any
    node carrying the key; a node without the key is refused."""
    nodes = [node1(), MakeNode().Name("machine2").Obj()]
    pod = with_terms(POD_LABEL, affinity=[term(IN_SEC, key="region")])
    got = filter_one(pod, [], nodes)
    assert got["machine1"].is_success
    assert (got["machine2"].code, got["machine2"].reasons) == (fw.UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,))


def test_namespace_selector_counts_pods_of_selected_namespaces():
    pod = with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region", namespace_selector={"matchLabels": {"team": "a"}})])
    existing = [plain(POD_LABEL, "machine1", namespace="team-a")]
    labels = {"team-a": {"team": "a"}, "team-b": {"team": "b"}}
    assert filter_one(pod, existing, namespace_labels=labels)["machine1"].is_success
    existing_b = [plain(POD_LABEL, "machine1", namespace="team-b")]
    assert filter_one(pod, existing_b, namespace_labels=labels)["machine1"].code == fw.UNRESOLVABLE
    # an empty namespaceSelector selects every namespace
    every = with_terms(POD_LABEL2, affinity=[term(IN_SEC, key="region", namespace_selector={})])
    assert filter_one(every, existing_b, namespace_labels=labels)["machine1"].is_success


def test_add_and_remove_pod():
    nodes = [node1(), MakeNode().Name("machine2").Label("region", "r2").Label("zone", "z21").Obj()]
    pod = with_terms(POD_LABEL2, anti=[term(IN_SEC, key="zone")])
    plugin, handle = setup([], nodes)
    cs = CycleState()
    assert plugin.pre_filter(cs, pod, list(handle.node_infos.values())).is_success
    infos = handle.node_infos
    assert plugin.filter(cs, pod, infos["machine1"]).is_success
    victim = plain(POD_LABEL, "machine1")
    clone = cs.clone()
    plugin.add_pod(clone, pod, victim, infos["machine1"])
    assert plugin.filter(clone, pod, infos["machine1"]).reasons == (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,)
    assert plugin.filter(clone, pod, infos["machine2"]).is_success
    assert plugin.filter(cs, pod, infos["machine1"]).is_success
    plugin.remove_pod(clone, pod, victim, infos["machine1"])
    assert plugin.filter(clone, pod, infos["machine1"]).is_success
    # an existing pod's anti-affinity added by AddPod
    guard = with_terms({}, "machine2", anti=[term(expr("security", "Exists"), key="region")], name="g")
    plugin.add_pod(clone, pod, guard, infos["machine2"])
    assert plugin.filter(clone, pod, infos["machine2"]).reasons == (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,)


def test_binding_updates_the_next_cycle():
    nodes = [node1(), MakeNode().Name("machine2").Label("region", "r2").Label("zone", "z21").Obj()]
    pod = with_terms(POD_LABEL, anti=[term(IN_SEC, key="zone")])
    plugin, handle = setup([], nodes)
    all_nodes = list(handle.node_infos.values())
    cs = CycleState()
    plugin.pre_filter(cs, pod, all_nodes)
    assert plugin.filter(cs, pod, handle.node_infos["machine1"]).is_success
    handle.node_infos["machine1"].add_pod(plain(POD_LABEL, "machine1", name="bound"))
    cs = CycleState()
    plugin.pre_filter(cs, pod, all_nodes)
    assert plugin.filter(cs, pod, handle.node_infos["machine1"]).code == fw.UNSCHEDULABLE
    assert plugin.filter(cs, pod, handle.node_infos["machine2"]).is_success


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
