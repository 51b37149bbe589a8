import pytest

from scheduling.engine.scheduler.priorities.inter_pod_affinity import new_inter_pod_affinity_priority
from scheduling.engine.scheduler.priorities.normalize import PriorityError
from tests.engine.builders import cluster, cycle, node, pod

HOST = "kubernetes.io/hostname"
ZONE = "zone"


def term(labels, topology_key, namespaces=None, selector=None):
    t = {"labelSelector": selector if selector is not None else {"matchLabels": labels}, "topologyKey": topology_key}
    if namespaces is not None:
        t["namespaces"] = namespaces
    return t


def weighted(weight, t):
    return {"weight": weight, "podAffinityTerm": t}


def affinity(preferred=(), anti=(), required=(), required_anti=()):
    doc = {}
    if preferred or required:
        doc["podAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": list(preferred),
            "requiredDuringSchedulingIgnoredDuringExecution": list(required),
        }
    if anti or required_anti:
        doc["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": list(anti),
            "requiredDuringSchedulingIgnoredDuringExecution": list(required_anti),
        }
    return doc


def n(name, zone):
    return node(name, labels={HOST: name, ZONE: zone})


NODES = [n("n1", "a"), n("n2", "a"), n("n3", "b")]
DB = {"app": "db"}
WEB = {"app": "web"}


def db(name, node_name, **kw):
    return pod(name, labels=DB, node_name=node_name, **kw)


@pytest.mark.parametrize(
    "incoming_affinity, existing, expected",
    [
        pytest.param(None, [db("d1", "n1")], [0, 0, 0], id="no affinity anywhere scores zero"),
        pytest.param(
            affinity(preferred=[weighted(5, term(DB, ZONE))]),
            [db("d1", "n1")],
            # zone a gets +5: counts 5, 5, 0; min 0 max 5 -> 10, 10, 0
            [10, 10, 0],
            id="preferred affinity favours the nodes of the matching pod's topology",
        ),
        pytest.param(
            affinity(preferred=[weighted(5, term(DB, ZONE))]),
            [db("d1", "n1"), db("d2", "n1"), db("d3", "n3")],
            # each matching pod adds the weight: a 10, b 5; 10*(10/10), 10*(5/10) = 5
            [10, 10, 5],
            id="every matching pod adds the weight",
        ),
        pytest.param(
            affinity(anti=[weighted(5, term(DB, HOST))]),
            [db("d1", "n1")],
            # counts -5, 0, 0; normalisation from zero: min -5, max 0 -> 10*(0/5) = 0, 10*(5/5) = 10, 10
            [0, 10, 10],
            id="preferred anti-affinity gives negative counts normalised from zero",
        ),
        pytest.param(
            affinity(preferred=[weighted(3, term(DB, HOST))], anti=[weighted(2, term(WEB, HOST))]),
            [db("d1", "n1"), pod("w1", labels=WEB, node_name="n2")],
            # counts 3, -2, 0; min -2 max 3 -> 10*(5/5) = 10, 10*(0/5) = 0, 10*(2/5) = 4.0 -> 4
            [10, 0, 4],
            id="a node with count zero lands between negative and positive counts",
        ),
        pytest.param(
            affinity(preferred=[weighted(2, term(DB, HOST))]),
            [db("d1", "n1"), db("d2", "n1"), db("d3", "n2")],
            # counts 4, 2, 0; min stays 0 -> 10, 10*(2/4) = 5, 0
            [10, 5, 0],
            id="the minimum starts at zero, not at the lowest count",
        ),
        pytest.param(
            affinity(preferred=[weighted(5, term(DB, ZONE, namespaces=["other"]))]),
            [db("d1", "n1"), db("d2", "n3", namespace="other")],
            # only the pod in "other" matches: zone b +5 -> 0, 0, 10
            [0, 0, 10],
            id="the term's namespaces restrict the pods it matches",
        ),
        pytest.param(
            affinity(preferred=[weighted(5, term(DB, ""))]),
            [db("d1", "n1")],
            # an empty topology key matches no node pair
            [0, 0, 0],
            id="an empty topology key gives nothing",
        ),
        pytest.param(
            affinity(preferred=[weighted(5, term(None, HOST, selector={}))]),
            [pod("x", labels={"any": "thing"}, node_name="n2")],
            # an empty selector matches every pod of the namespace: n2 +5
            [0, 10, 0],
            id="an empty label selector matches every pod",
        ),
    ],
)
def test_incoming_pod_terms(incoming_affinity, existing, expected):
    incoming = pod("p", labels=WEB, affinity=incoming_affinity)
    ctx, infos = cycle(incoming, cluster(NODES, existing))
    assert new_inter_pod_affinity_priority(1)(incoming, ctx, infos) == expected


@pytest.mark.parametrize(
    "existing, hard_weight, expected",
    [
        pytest.param(
            [db("d1", "n1", affinity=affinity(required=[term(WEB, ZONE)]))],
            1,
            # the existing pod's required affinity matches the incoming pod: zone a +1 -> 10, 10, 0
            [10, 10, 0],
            id="an existing pod's required affinity counts with the hard weight",
        ),
        pytest.param(
            [db("d1", "n1", affinity=affinity(required=[term(WEB, ZONE)]))],
            0,
            [0, 0, 0],
            id="hard weight zero disables the required terms",
        ),
        pytest.param(
            [
                db("d1", "n1", affinity=affinity(required=[term(WEB, ZONE)])),
                db("d2", "n3", affinity=affinity(preferred=[weighted(3, term(WEB, ZONE))])),
            ],
            5,
            # zone a +5 (hard weight), zone b +3 (preferred): 10, 10, 10*(3/5) = 6.0 -> 6
            [10, 10, 6],
            id="the hard weight is what the required term adds",
        ),
        pytest.param(
            [
                db("d1", "n1", affinity=affinity(required=[term(WEB, ZONE)])),
                db("d2", "n3", affinity=affinity(preferred=[weighted(3, term(WEB, ZONE))])),
            ],
            1,
            # zone a +1, zone b +3: 10*(1/3) = 3.33 -> 3, 3, 10
            [3, 3, 10],
            id="the default hard weight is one",
        ),
        pytest.param(
            [db("d1", "n1", affinity=affinity(required_anti=[term(WEB, HOST)]))],
            1,
            # 1.11 does not count existing pods' required anti-affinity in the priority
            [0, 0, 0],
            id="existing pods' required anti-affinity is not counted",
        ),
        pytest.param(
            [db("d1", "n1", affinity=affinity(anti=[weighted(4, term(WEB, HOST))]))],
            1,
            # symmetric preferred anti-affinity: n1 -4 -> 0, 10, 10
            [0, 10, 10],
            id="an existing pod's preferred anti-affinity subtracts its weight",
        ),
        pytest.param(
            [db("d1", "n1", namespace="other", affinity=affinity(preferred=[weighted(4, term(WEB, HOST))]))],
            1,
            # the term has no namespaces: it means the existing pod's namespace "other", the incoming pod is in default
            [0, 0, 0],
            id="an existing pod's term defaults to its own namespace",
        ),
    ],
)
def test_existing_pods_terms(existing, hard_weight, expected):
    incoming = pod("p", labels=WEB)
    ctx, infos = cycle(incoming, cluster(NODES, existing))
    assert new_inter_pod_affinity_priority(hard_weight)(incoming, ctx, infos) == expected


def test_pods_on_nodes_that_did_not_pass_the_filters_still_count():
    incoming = pod("p", labels=WEB, affinity=affinity(preferred=[weighted(5, term(DB, ZONE))]))
    ctx, infos = cycle(incoming, cluster(NODES, [db("d1", "n1")]))
    # only n2 and n3 are candidates; the db pod on n1 puts zone a (n2) at 5 -> 10, 0
    assert new_inter_pod_affinity_priority(1)(incoming, ctx, infos[1:]) == [10, 0]


def test_an_invalid_selector_fails_the_priority():
    bad = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["not valid!"]}]}
    incoming = pod("p", labels=WEB, affinity=affinity(preferred=[weighted(1, term(None, HOST, selector=bad))]))
    ctx, infos = cycle(incoming, cluster(NODES, [db("d1", "n1")]))
    with pytest.raises(PriorityError, match="invalid label value"):
        new_inter_pod_affinity_priority(1)(incoming, ctx, infos)
