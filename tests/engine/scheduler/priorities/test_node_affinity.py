import pytest

from scheduling.engine.scheduler.priorities.node_affinity import node_affinity_priority
from scheduling.engine.scheduler.priorities.normalize import PriorityError
from tests.engine.builders import cluster, cycle, node, pod


def preferred(*terms):
    """terms: (weight, matchExpressions) or (weight, preference document)."""
    out = []
    for weight, pref in terms:
        preference = pref if isinstance(pref, dict) else {"matchExpressions": pref}
        out.append({"weight": weight, "preference": preference})
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": out}}


ZONE_A = [{"key": "zone", "operator": "In", "values": ["a"]}]
SSD = [{"key": "disk", "operator": "Exists"}]
NODES = [node("n1", labels={"zone": "a"}), node("n2", labels={"zone": "a", "disk": "ssd", "cores": "8"}), node("n3")]


@pytest.mark.parametrize(
    "affinity, expected",
    [
        pytest.param(None, [0, 0, 0], id="a pod without affinity scores zero everywhere"),
        # counts 2, 2+5 = 7, 0; max 7: 10*2/7 = 2, 10, 0
        pytest.param(preferred((2, ZONE_A), (5, SSD)), [2, 10, 0], id="matching terms add their weights and the best node gets ten"),
        pytest.param(preferred((0, ZONE_A)), [0, 0, 0], id="a term with weight zero is skipped"),
        pytest.param(preferred((3, [])), [0, 0, 0], id="an empty matchExpressions matches nothing"),
        pytest.param(
            preferred((3, {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]})),
            [0, 0, 0],
            id="matchFields are not read",
        ),
        pytest.param(
            preferred((4, [{"key": "cores", "operator": "Gt", "values": ["4"]}]), (1, [{"key": "zone", "operator": "NotIn", "values": ["a"]}])),
            # n1: NotIn a fails -> 0; n2: Gt 4 -> 4; n3: NotIn matches a missing label -> 1; max 4: 0, 10, 10*1/4 = 2
            [0, 10, 2],
            id="Gt and NotIn requirements",
        ),
    ],
)
def test_node_affinity_priority(affinity, expected):
    incoming = pod("p", affinity=affinity)
    ctx, infos = cycle(incoming, cluster(NODES))
    assert node_affinity_priority(incoming, ctx, infos) == expected


def test_a_value_that_is_not_a_label_value_fails_the_priority():
    incoming = pod("p", affinity=preferred((1, [{"key": "zone", "operator": "In", "values": ["___@#$%^"]}])))
    ctx, infos = cycle(incoming, cluster(NODES))
    with pytest.raises(PriorityError, match="invalid label value"):
        node_affinity_priority(incoming, ctx, infos)
