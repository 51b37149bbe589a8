"""OpenShift 3.11's sample scheduler policies load and behave as the documentation describes."""

from __future__ import annotations

import random

import pytest

from scheduling.engine.scheduler.policy import load_policy
from scheduling.engine.scheduler.sample_policies import SAMPLE_POLICIES
from scheduling.engine.scheduler.scheduler import schedule
from tests.engine.builders import cluster, node, pod, service

SERVICE_AFFINITY = "node(s) didn't match service affinity"
LABELS = "node(s) didn't have the requested labels"
PORTS = "node(s) didn't have free ports for the requested pod ports"


def run(sample, nodes, pods=(), incoming=None, services=()):
    state = cluster(nodes, pods, services=list(services))
    incoming = incoming or pod("web-new", labels={"app": "web"})
    return schedule(incoming, state, state.node_infos(), load_policy(SAMPLE_POLICIES[sample]), random.Random(0))


@pytest.mark.parametrize(
    "sample, predicates, priorities",
    [
        pytest.param(
            "default",
            ("CheckNodeCondition", "GeneralPredicates", "NoDiskConflict", "PodToleratesNodeTaints", "Region",
             "MaxEBSVolumeCount", "MaxGCEPDVolumeCount", "MaxAzureDiskVolumeCount", "NoVolumeZoneConflict",
             "MatchInterPodAffinity"),
            ("SelectorSpreadPriority", "InterPodAffinityPriority", "LeastRequestedPriority", "BalancedResourceAllocation",
             "NodePreferAvoidPodsPriority", "NodeAffinityPriority", "TaintTolerationPriority", "Zone"),
            id="the default policy file",
        ),
        pytest.param(
            "modified",
            ("CheckNodeCondition", "HostName", "MatchNodeSelector", "PodFitsResources", "NoDiskConflict", "Region"),
            ("LeastRequestedPriority", "BalancedResourceAllocation", "ServiceSpreadingPriority", "Zone"),
            id="the modified policy file with the version header",
        ),
        pytest.param(
            "region-zone-affinity-rack-spread", ("CheckNodeCondition", "RegionZoneAffinity"), ("RackSpread",),
            id="region and zone affinity with rack spread",
        ),
        pytest.param(
            "city-building-room", ("CheckNodeCondition", "CityAffinity"), ("BuildingSpread", "RoomSpread"),
            id="city affinity with building and room spread",
        ),
        pytest.param(
            "require-region-zone-preferred", ("CheckNodeCondition", "RequireRegion"), ("ZonePreferred",),
            id="require region prefer zone",
        ),
        pytest.param(
            "combined",
            ("CheckNodeCondition", "PodFitsPorts", "MatchNodeSelector", "RequireRegion", "BuildingNodesAvoid",
             "RegionAffinity"),
            ("ZoneSpread", "ZonePreferred", "ServiceSpreadingPriority"),
            id="static and configurable combined",
        ),
    ],
)
def test_each_sample_policy_loads(sample, predicates, priorities):
    policy = load_policy(SAMPLE_POLICIES[sample])
    assert policy.predicate_names == predicates
    assert policy.priority_names == priorities


def test_region_zone_affinity_keeps_a_service_in_its_first_pods_region_and_zone_and_rack_spread_spreads_it():
    nodes = [
        node("n1", labels={"region": "r1", "zone": "z1", "rack": "a"}),
        node("n2", labels={"region": "r1", "zone": "z1", "rack": "b"}),
        node("n3", labels={"region": "r1", "zone": "z2", "rack": "c"}),
        node("n4", labels={"region": "r2", "zone": "z3", "rack": "d"}),
    ]
    result = run(
        "region-zone-affinity-rack-spread",
        nodes,
        [pod("web-0", labels={"app": "web"}, node_name="n2")],
        services=[service("web", {"app": "web"})],
    )
    assert result.filters == {"n1": (), "n2": (), "n3": (SERVICE_AFFINITY,), "n4": (SERVICE_AFFINITY,)}
    # RackSpread: 1 service pod, in rack b -> rack a 10*(1-0)/1 = 10, rack b 10*(1-1)/1 = 0.
    assert result.scores == {"n1": {"RackSpread": 10, "total": 10}, "n2": {"RackSpread": 0, "total": 0}}
    assert result.node == "n1"


def test_the_first_pod_of_a_service_may_go_anywhere():
    nodes = [node("n1", labels={"region": "r1", "zone": "z1"}), node("n2", labels={"region": "r2", "zone": "z2"})]
    result = run("region-zone-affinity-rack-spread", nodes, services=[service("web", {"app": "web"})])
    assert result.feasible == ["n1", "n2"]


def test_city_affinity_with_building_and_room_spread():
    nodes = [
        node("n1", labels={"city": "paris", "building": "b1", "room": "r1"}),
        node("n2", labels={"city": "paris", "building": "b1", "room": "r2"}),
        node("n3", labels={"city": "paris", "building": "b2", "room": "r3"}),
        node("n4", labels={"city": "london", "building": "b3", "room": "r4"}),
    ]
    result = run(
        "city-building-room",
        nodes,
        [pod("web-0", labels={"app": "web"}, node_name="n1")],
        services=[service("web", {"app": "web"})],
    )
    assert result.filters["n4"] == (SERVICE_AFFINITY,)
    # BuildingSpread: b1 holds the service's only pod -> n1, n2 0; n3 10.
    # RoomSpread: r1 holds it -> n1 0; n2, n3 10.
    assert result.scores == {
        "n1": {"BuildingSpread": 0, "RoomSpread": 0, "total": 0},
        "n2": {"BuildingSpread": 0, "RoomSpread": 10, "total": 10},
        "n3": {"BuildingSpread": 10, "RoomSpread": 10, "total": 20},
    }
    assert result.node == "n3"


def test_require_region_and_prefer_zone():
    nodes = [
        node("n1", labels={"region": "r1"}),
        node("n2", labels={"region": "r1", "zone": "z1"}),
        node("n3"),
    ]
    result = run("require-region-zone-preferred", nodes)
    assert result.filters == {"n1": (), "n2": (), "n3": (LABELS,)}
    assert result.scores == {"n1": {"ZonePreferred": 0, "total": 0}, "n2": {"ZonePreferred": 10, "total": 10}}
    assert result.node == "n2"


def test_the_combined_policy():
    nodes = [
        node("n1", labels={"region": "r1", "zone": "z1"}),
        node("n2", labels={"region": "r1", "zone": "z2"}),
        node("n3", labels={"region": "r1", "zone": "z2", "building": "b1"}),
        node("n4"),
        node("n5", labels={"region": "r2", "zone": "z3"}),
    ]
    existing = pod("web-0", labels={"app": "web"}, node_name="n1")
    result = run("combined", nodes, [existing], services=[service("web", {"app": "web"})])
    assert result.filters == {
        "n1": (),
        "n2": (),
        "n3": (LABELS,),  # BuildingNodesAvoid
        "n4": (LABELS,),  # RequireRegion
        "n5": (SERVICE_AFFINITY,),  # RegionAffinity: the service's first pod is in r1
    }
    # ZoneSpread (x2): the service's pod is in z1 -> n1 0, n2 10.
    # ZonePreferred: both have a zone -> 10.
    # ServiceSpreadingPriority: n1 holds 1 of max 1 -> 10*(1-1)/1 = 0; n2 10 (no zone labels it knows).
    assert result.scores == {
        "n1": {"ZoneSpread": 0, "ZonePreferred": 10, "ServiceSpreadingPriority": 0, "total": 10},
        "n2": {"ZoneSpread": 10, "ZonePreferred": 10, "ServiceSpreadingPriority": 10, "total": 40},
    }
    assert result.node == "n2"


def test_the_combined_policy_checks_host_ports_under_the_old_name():
    port = [{"name": "c", "image": "i", "ports": [{"containerPort": 80, "hostPort": 8080}]}]
    nodes = [node("n1", labels={"region": "r1", "zone": "z1"}), node("n2", labels={"region": "r1", "zone": "z2"})]
    existing = pod("other", containers=port, node_name="n1")
    result = run("combined", nodes, [existing], incoming=pod("web-new", containers=port))
    assert result.filters == {"n1": (PORTS,), "n2": ()}
    assert result.node == "n2"
