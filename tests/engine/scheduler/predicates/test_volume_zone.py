"""NoVolumeZoneConflict: the zone/region labels of bound PVs against the node's."""

import pytest

from scheduling.engine.scheduler.predicates.volume_zone import no_volume_zone_conflict
from tests.engine.builders import cluster, evaluate, node, pod, pv, pvc, storage_class, with_volumes

CONFLICT = ("node(s) had no available volume zone",)
ZONE = "failure-domain.beta.kubernetes.io/zone"
REGION = "failure-domain.beta.kubernetes.io/region"

NODES = [
    node("a", labels={ZONE: "us-east-1a", REGION: "us-east-1"}),
    node("b", labels={ZONE: "us-east-1b", REGION: "us-east-1"}),
    node("zone-only", labels={ZONE: "us-east-1a"}),
    node("plain"),
]
OBJECTS = dict(
    persistent_volume_claims=[
        pvc("in-a", volume_name="pv-a"),
        pvc("in-a-or-b", volume_name="pv-ab"),
        pvc("in-region", volume_name="pv-region"),
        pvc("anywhere", volume_name="pv-any"),
        pvc("bad-label", volume_name="pv-bad"),
        pvc("late", storage_class="wait"),
        pvc("unbound", storage_class="now"),
    ],
    persistent_volumes=[
        pv("pv-a", labels={ZONE: "us-east-1a", REGION: "us-east-1"}),
        pv("pv-ab", labels={ZONE: "us-east-1a__us-east-1b"}),
        pv("pv-region", labels={REGION: "us-east-1"}),
        pv("pv-any"),
        pv("pv-bad", labels={ZONE: "us-east-1a__"}),
    ],
    storage_classes=[storage_class("wait", "WaitForFirstConsumer"), storage_class("now")],
)

CASES = [
    pytest.param("in-a", {"a": (), "b": CONFLICT, "zone-only": CONFLICT, "plain": ()}, id="a PV in one zone fits that zone, and nodes without zone labels"),
    pytest.param("in-a-or-b", {"a": (), "b": (), "zone-only": (), "plain": ()}, id="a multi-zone label value is a set of zones"),
    pytest.param("in-region", {"a": (), "b": (), "zone-only": CONFLICT, "plain": ()}, id="a region label needs the node's region"),
    pytest.param("anywhere", {"a": (), "b": (), "zone-only": (), "plain": ()}, id="a PV without zone labels fits everywhere"),
    pytest.param("bad-label", {"a": (), "b": (), "zone-only": (), "plain": ()}, id="an unparsable zone label is ignored"),
    pytest.param("late", {"a": (), "b": (), "zone-only": (), "plain": ()}, id="an unbound PVC of a WaitForFirstConsumer class is skipped"),
    pytest.param(
        "unbound", {n: ('PersistentVolumeClaim is not bound: "unbound"',) for n in ("a", "b", "zone-only")} | {"plain": ()},
        id="any other unbound PVC is a 1.11 predicate error on zoned nodes",
    ),
]


@pytest.mark.parametrize("claim, expected", CASES)
def test_no_volume_zone_conflict(claim, expected):
    incoming = with_volumes(pod("p"), {"name": "data", "persistentVolumeClaim": {"claimName": claim}})
    assert evaluate(no_volume_zone_conflict, incoming, cluster(NODES, **OBJECTS)) == expected
