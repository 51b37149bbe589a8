"""OpenShift 3.11's sample scheduler policies (the policy file's examples and its use cases), as data.

Each is the Policy file as the documentation prints it, already loaded (what `yaml.safe_load` gives).
The documentation truncates its use-case samples with `...` ("the list of predicates and priority
functions is truncated to include only the ones that pertain to the use case"); the
entries kept here are exactly the ones it shows, so loading one gives a policy with only
those (plus the mandatory CheckNodeCondition).
"""

from __future__ import annotations

from typing import Any

from scheduling.engine.scheduler.policy import DEFAULT_POLICY_DOC

SAMPLE_POLICIES: dict[str, dict[str, Any]] = {
    # the default scheduler configuration file.
    "default": DEFAULT_POLICY_DOC,
    # "Sample modified scheduler configuration file".
    "modified": {
        "kind": "Policy",
        "version": "v1",
        "predicates": [
            {"name": "PodFitsResources"},
            {"name": "NoDiskConflict"},
            {"name": "MatchNodeSelector"},
            {"name": "HostName"},
            {"argument": {"serviceAffinity": {"labels": ["region"]}}, "name": "Region"},
        ],
        "priorities": [
            {"name": "LeastRequestedPriority", "weight": 1},
            {"name": "BalancedResourceAllocation", "weight": 1},
            {"name": "ServiceSpreadingPriority", "weight": 1},
            {"argument": {"serviceAntiAffinity": {"label": "zone"}}, "name": "Zone", "weight": 2},
        ],
    },
    # a use case: three topological levels, region (affinity) zone (affinity) rack (anti-affinity).
    "region-zone-affinity-rack-spread": {
        "kind": "Policy",
        "version": "v1",
        "predicates": [
            {"name": "RegionZoneAffinity", "argument": {"serviceAffinity": {"labels": ["region", "zone"]}}},
        ],
        "priorities": [
            {"name": "RackSpread", "weight": 1, "argument": {"serviceAntiAffinity": {"label": "rack"}}},
        ],
    },
    # a use case: city (affinity) building (anti-affinity) room (anti-affinity).
    "city-building-room": {
        "kind": "Policy",
        "version": "v1",
        "predicates": [
            {"name": "CityAffinity", "argument": {"serviceAffinity": {"labels": ["city"]}}},
        ],
        "priorities": [
            {"name": "BuildingSpread", "weight": 1, "argument": {"serviceAntiAffinity": {"label": "building"}}},
            {"name": "RoomSpread", "weight": 1, "argument": {"serviceAntiAffinity": {"label": "room"}}},
        ],
    },
    # a use case: only nodes with the 'region' label, prefer nodes with the 'zone' label.
    "require-region-zone-preferred": {
        "kind": "Policy",
        "version": "v1",
        "predicates": [
            {"name": "RequireRegion", "argument": {"labelsPresence": {"labels": ["region"], "presence": True}}},
        ],
        "priorities": [
            {"name": "ZonePreferred", "weight": 1, "argument": {"labelPreference": {"label": "zone", "presence": True}}},
        ],
    },
    # a use case: static and configurable predicates and priorities combined.
    "combined": {
        "kind": "Policy",
        "version": "v1",
        "predicates": [
            {"name": "RegionAffinity", "argument": {"serviceAffinity": {"labels": ["region"]}}},
            {"name": "RequireRegion", "argument": {"labelsPresence": {"labels": ["region"], "presence": True}}},
            {"name": "BuildingNodesAvoid", "argument": {"labelsPresence": {"labels": ["building"], "presence": False}}},
            {"name": "PodFitsPorts"},
            {"name": "MatchNodeSelector"},
        ],
        "priorities": [
            {"name": "ZoneSpread", "weight": 2, "argument": {"serviceAntiAffinity": {"label": "zone"}}},
            {"name": "ZonePreferred", "weight": 1, "argument": {"labelPreference": {"label": "zone", "presence": True}}},
            {"name": "ServiceSpreadingPriority", "weight": 1},
        ],
    },
}
