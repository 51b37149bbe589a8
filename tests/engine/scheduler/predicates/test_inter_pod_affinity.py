"""MatchInterPodAffinity: existing pods' anti-affinity, then the pod's own affinity and anti-affinity."""

import pytest

from scheduling.engine.scheduler.predicates.inter_pod_affinity import (
    match_inter_pod_affinity,
    nodes_have_same_topology_key,
    pod_matches_term,
)
from scheduling.engine.api.objects import PodAffinityTerm
from tests.engine.builders import cluster, cycle, evaluate, node, pod

GENERIC = "node(s) didn't match pod affinity/anti-affinity"
AFFINITY = (GENERIC, "node(s) didn't match pod affinity rules")
ANTI_AFFINITY = (GENERIC, "node(s) didn't match pod anti-affinity rules")
EXISTING_ANTI_AFFINITY = (GENERIC, "node(s) didn't satisfy existing pods anti-affinity rules")

HOSTNAME = "kubernetes.io/hostname"
ZONE = "failure-domain.beta.kubernetes.io/zone"


def term(key, *values, topology=HOSTNAME, operator="In", namespaces=None):
    t = {"labelSelector": {"matchExpressions": [{"key": key, "operator": operator, "values": list(values)}]}, "topologyKey": topology}
    if namespaces is not None:
        t["namespaces"] = list(namespaces)
    return t


def affinity(*terms):
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def anti_affinity(*terms):
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def hosts(*names, zones=None):
    zones = zones or {}
    return [node(n, labels={HOSTNAME: n, **({ZONE: zones[n]} if n in zones else {})}) for n in names]


# OpenShift 3.11's pod affinity example: team4 (label team: "4") runs; team4a requires team In ["4"] on the same host.
TEAM4 = pod("team4", labels={"team": "4"}, node_name="node1")
TEAM4A = pod("team4a", affinity=affinity(term("team", "4")))
# The anti-affinity example: pod-s1 (security: s1) runs; pod-s2 requires anti-affinity to security In [s1].
POD_S1 = pod("pod-s1", labels={"security": "s1"}, node_name="node1")
POD_S2_ANTI = pod("pod-s2", affinity=anti_affinity(term("security", "s1")))
# The affinity example with no match: pod-s2 requires affinity to security In [s2]; no pod has that label.
POD_S2_AFFINITY = pod("pod-s2", affinity=affinity(term("security", "s2")))

CASES = [
    pytest.param(
        hosts("node1", "node2"), [TEAM4], TEAM4A, {"node1": (), "node2": AFFINITY},
        id="pod affinity: team4a is scheduled on the node of team4",
    ),
    pytest.param(
        hosts("node1", "node2"), [POD_S1], POD_S2_ANTI, {"node1": ANTI_AFFINITY, "node2": ()},
        id="pod anti-affinity: pod-s2 cannot go to the node of pod-s1",
    ),
    pytest.param(
        hosts("node1", "node2"), [POD_S1], POD_S2_AFFINITY, {"node1": AFFINITY, "node2": AFFINITY},
        id="pod affinity with no matching labels: pod-s2 stays pending",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("pod-s2", affinity=anti_affinity(term("security", "s1")), node_name="node1")],
        pod("pod-s1", labels={"security": "s1"}), {"node1": EXISTING_ANTI_AFFINITY, "node2": ()},
        id="an existing pod's anti-affinity keeps a matching pod off its node (symmetry)",
    ),
    pytest.param(
        hosts("node1", "node2"), [], pod("web-1", labels={"app": "web"}, affinity=affinity(term("app", "web"))),
        {"node1": (), "node2": ()},
        id="the first pod of a group matching its own affinity fits anywhere",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("web-0", labels={"app": "web"}, node_name="node1")],
        pod("web-1", labels={"app": "web"}, affinity=affinity(term("app", "web"))),
        {"node1": (), "node2": AFFINITY},
        id="once a pod of the group runs, the next one must join it",
    ),
    pytest.param(
        hosts("n1", "n2", "n3", zones={"n1": "a", "n2": "a", "n3": "b"}),
        [pod("s1", labels={"security": "S1"}, node_name="n1")],
        pod("p", affinity=affinity(term("security", "S1", topology=ZONE))),
        {"n1": (), "n2": (), "n3": AFFINITY},
        id="zone topology: any node of the zone of a matching pod fits",
    ),
    pytest.param(
        hosts("n1", "n2", "n3", zones={"n1": "a", "n2": "a"}),
        [pod("s1", labels={"security": "S1"}, node_name="n1")],
        pod("p", affinity=anti_affinity(term("security", "S1", topology=ZONE))),
        {"n1": ANTI_AFFINITY, "n2": ANTI_AFFINITY, "n3": ()},
        id="zone anti-affinity excludes the whole zone, a node without the label is outside it",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("t", namespace="other", labels={"team": "4"}, node_name="node1")], TEAM4A,
        {"node1": AFFINITY, "node2": AFFINITY},
        id="term namespaces default to the pod's own namespace",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("t", namespace="other", labels={"team": "4"}, node_name="node1")],
        pod("team4a", affinity=affinity(term("team", "4", namespaces=["other"]))),
        {"node1": (), "node2": AFFINITY},
        id="term namespaces can name another namespace",
    ),
    pytest.param(
        hosts("node1", "node2"),
        [pod("x", labels={"app": "a"}, node_name="node1"), pod("y", labels={"tier": "t"}, node_name="node1")],
        pod("p", affinity=affinity(term("app", "a"), term("tier", "t"))),
        {"node1": AFFINITY, "node2": AFFINITY},
        id="1.11: one existing pod must match all the affinity terms",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("xy", labels={"app": "a", "tier": "t"}, node_name="node1")],
        pod("p", affinity=affinity(term("app", "a"), term("tier", "t"))),
        {"node1": (), "node2": AFFINITY},
        id="a pod matching all the affinity terms satisfies them",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("x", labels={"app": "a"}, node_name="node1")],
        pod("p", affinity=anti_affinity(term("app", "a"), term("tier", "t"))),
        {"node1": (), "node2": ()},
        id="1.11: anti-affinity terms only repel a pod matching all of them",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("xy", labels={"app": "a", "tier": "t"}, node_name="node1")],
        pod("p", affinity=anti_affinity(term("app", "a"), term("tier", "t"))),
        {"node1": ANTI_AFFINITY, "node2": ()},
        id="a pod matching all the anti-affinity terms repels",
    ),
    pytest.param(
        hosts("node1", "node2"), [POD_S1],
        pod("p", affinity={**affinity(term("security", "s1")), **anti_affinity(term("security", "s1"))}),
        {"node1": ANTI_AFFINITY, "node2": AFFINITY},
        id="affinity is checked before anti-affinity",
    ),
    pytest.param(
        [node("node1"), *hosts("node2")], [pod("team4", labels={"team": "4"}, node_name="node1")], TEAM4A,
        {"node1": AFFINITY, "node2": AFFINITY},
        id="a node without the topology label shares no topology, not even with itself",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("e", affinity=anti_affinity(term("security", "s1", topology="")), node_name="node1")],
        pod("pod-s1", labels={"security": "s1"}), {"node1": EXISTING_ANTI_AFFINITY, "node2": EXISTING_ANTI_AFFINITY},
        id="an existing matching anti-affinity term with an empty topologyKey is an error on every node",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("e", affinity=anti_affinity(term("security", "s1", topology="")), node_name="node1")],
        pod("other", labels={"security": "s2"}), {"node1": (), "node2": ()},
        id="an existing anti-affinity term with an empty topologyKey that does not match the pod is harmless",
    ),
    pytest.param(
        hosts("node1", "node2"), [POD_S1], pod("p", affinity=anti_affinity(term("security", "s1", topology=""))),
        {"node1": ANTI_AFFINITY, "node2": ANTI_AFFINITY},
        id="the pod's own anti-affinity term with an empty topologyKey matching a pod is an error",
    ),
    pytest.param(
        hosts("node1", "node2"), [POD_S1], pod("p", affinity=affinity(term("security", "s1", topology=""))),
        {"node1": AFFINITY, "node2": AFFINITY},
        id="the pod's own affinity term with an empty topologyKey never matches",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("e", affinity=anti_affinity(term("security", "bad value!")), node_name="node1")],
        pod("p"), {"node1": EXISTING_ANTI_AFFINITY, "node2": EXISTING_ANTI_AFFINITY},
        id="an existing pod's unbuildable anti-affinity selector fails every node",
    ),
    pytest.param(
        hosts("node1", "node2"), [pod("old", labels={"security": "s1"}, node_name="node1", deletion_timestamp=5.0)], POD_S2_ANTI,
        {"node1": ANTI_AFFINITY, "node2": ()},
        id="terminating pods still count",
    ),
]


@pytest.mark.parametrize("nodes, existing, incoming, expected", CASES)
def test_match_inter_pod_affinity(nodes, existing, incoming, expected):
    assert evaluate(match_inter_pod_affinity, incoming, cluster(nodes, existing)) == expected


def test_the_checked_node_info_is_read_as_given():
    """Preemption evaluates a NodeInfo with victims removed: the removed pod no longer counts."""
    existing = pod("pod-s2", affinity=anti_affinity(term("security", "s1")), node_name="node1")
    incoming = pod("pod-s1", labels={"security": "s1"})
    ctx, infos = cycle(incoming, cluster(hosts("node1", "node2"), [existing]))
    assert match_inter_pod_affinity(incoming, ctx, infos[0]) == EXISTING_ANTI_AFFINITY
    without_victim = infos[0].clone()
    without_victim.remove_pod(existing)
    assert match_inter_pod_affinity(incoming, ctx, without_victim) == ()


def test_pods_added_to_the_checked_node_info_count():
    """A nominated pod added to a NodeInfo is seen by the affinity check of that node."""
    ctx, infos = cycle(TEAM4A, cluster(hosts("node1", "node2")))
    assert match_inter_pod_affinity(TEAM4A, ctx, infos[1]) == AFFINITY
    with_team4 = infos[1].clone()
    with_team4.add_pod(pod("team4", labels={"team": "4"}, node_name="node2"))
    assert match_inter_pod_affinity(TEAM4A, ctx, with_team4) == ()


def test_reusable_helpers():
    t = PodAffinityTerm.from_doc(term("team", "4"))
    assert pod_matches_term(pod("a", labels={"team": "4"}), pod("owner"), t) is True
    assert pod_matches_term(pod("a", namespace="x", labels={"team": "4"}), pod("owner"), t) is False
    n1, n2, bare = node("n1", labels={"z": "a"}), node("n2", labels={"z": "a"}), node("n3")
    assert nodes_have_same_topology_key(n1, n2, "z") is True
    assert nodes_have_same_topology_key(n1, bare, "z") is False
    assert nodes_have_same_topology_key(n1, n2, "") is False
