"""The scheduler Policy file: parsing, the default policy, evaluation order and errors."""

from __future__ import annotations

import copy

import pytest

from scheduling.engine.scheduler import registry
from scheduling.engine.scheduler.policy import DEFAULT_POLICY_DOC, PolicyError, default_policy, load_policy


def policy_doc(predicates=None, priorities=None, **extra) -> dict:
    doc = {"apiVersion": "v1", "kind": "Policy", **extra}
    if predicates is not None:
        doc["predicates"] = predicates
    if priorities is not None:
        doc["priorities"] = priorities
    return doc


def test_the_default_policy_is_the_seeds_default_file_in_1_11_evaluation_order():
    policy = default_policy()
    # Ordering(): CheckNodeCondition (mandatory), GeneralPredicates, ..., the user-named
    # serviceAffinity entry "Region" in the CheckServiceAffinity slot, ..., MatchInterPodAffinity.
    assert policy.predicate_names == (
        "CheckNodeCondition",
        "GeneralPredicates",
        "NoDiskConflict",
        "PodToleratesNodeTaints",
        "Region",
        "MaxEBSVolumeCount",
        "MaxGCEPDVolumeCount",
        "MaxAzureDiskVolumeCount",
        "NoVolumeZoneConflict",
        "MatchInterPodAffinity",
    )
    assert [(p.name, p.weight) for p in policy.priorities] == [
        ("SelectorSpreadPriority", 1),
        ("InterPodAffinityPriority", 1),
        ("LeastRequestedPriority", 1),
        ("BalancedResourceAllocation", 1),
        ("NodePreferAvoidPodsPriority", 10000),
        ("NodeAffinityPriority", 1),
        ("TaintTolerationPriority", 1),
        ("Zone", 2),
    ]
    assert policy.hard_pod_affinity_symmetric_weight == 1
    assert policy.always_check_all_predicates is False
    assert load_policy(None) is policy


@pytest.mark.parametrize(
    "header",
    [
        pytest.param({"apiVersion": "v1", "kind": "Policy"}, id="the JSON header with apiVersion"),
        pytest.param({"version": "v1", "kind": "Policy"}, id="the YAML header with version"),
    ],
)
def test_both_header_spellings_load(header):
    policy = load_policy({**header, "predicates": [{"name": "HostName"}], "priorities": []})
    assert policy.predicate_names == ("CheckNodeCondition", "HostName")


def test_a_policy_replaces_the_default_completely():
    policy = load_policy(policy_doc([{"name": "PodFitsResources"}], [{"name": "LeastRequestedPriority", "weight": 3}]))
    assert policy.predicate_names == ("CheckNodeCondition", "PodFitsResources")
    assert [(p.name, p.weight) for p in policy.priorities] == [("LeastRequestedPriority", 3)]


def test_missing_lists_mean_the_default_ones_and_empty_lists_mean_none():
    missing = load_policy(policy_doc())
    assert missing.predicate_names == default_policy().predicate_names
    assert missing.priority_names == default_policy().priority_names
    empty = load_policy(policy_doc([], []))
    assert empty.predicate_names == ("CheckNodeCondition",)  # mandatory in 1.11
    assert empty.priorities == ()


def test_configurable_predicates_run_in_the_slot_of_their_type_in_policy_order():
    policy = load_policy(
        policy_doc(
            [
                {"name": "MatchInterPodAffinity"},
                {"name": "ZoneAffinity", "argument": {"serviceAffinity": {"labels": ["zone"]}}},
                {"name": "RackPresent", "argument": {"labelsPresence": {"labels": ["rack"], "presence": True}}},
                {"name": "RegionAffinity", "argument": {"serviceAffinity": {"labels": ["region"]}}},
                {"name": "PodToleratesNodeTaints"},
                {"name": "BuildingAbsent", "argument": {"labelsPresence": {"labels": ["building"], "presence": False}}},
            ],
            [],
        )
    )
    assert [(p.name, p.slot) for p in policy.predicates] == [
        ("CheckNodeCondition", "CheckNodeCondition"),
        ("PodToleratesNodeTaints", "PodToleratesNodeTaints"),
        ("RackPresent", "CheckNodeLabelPresence"),
        ("BuildingAbsent", "CheckNodeLabelPresence"),
        ("ZoneAffinity", "CheckServiceAffinity"),
        ("RegionAffinity", "CheckServiceAffinity"),
        ("MatchInterPodAffinity", "MatchInterPodAffinity"),
    ]


def test_podfitsports_is_an_alias_checked_in_the_podfitshostports_slot_once():
    alias = load_policy(policy_doc([{"name": "MatchNodeSelector"}, {"name": "PodFitsPorts"}], []))
    assert [(p.name, p.slot) for p in alias.predicates] == [
        ("CheckNodeCondition", "CheckNodeCondition"),
        ("PodFitsPorts", "PodFitsHostPorts"),
        ("MatchNodeSelector", "MatchNodeSelector"),
    ]
    both = load_policy(policy_doc([{"name": "PodFitsHostPorts"}, {"name": "PodFitsPorts"}], []))
    assert both.predicate_names == ("CheckNodeCondition", "PodFitsHostPorts")


def test_the_seeds_static_names_for_label_presence_and_service_affinity_are_accepted():
    policy = load_policy(policy_doc([{"name": "CheckNodeLabelPresence"}, {"name": "checkServiceAffinity"}], []))
    assert [(p.name, p.slot) for p in policy.predicates] == [
        ("CheckNodeCondition", "CheckNodeCondition"),
        ("CheckNodeLabelPresence", "CheckNodeLabelPresence"),
        ("checkServiceAffinity", "CheckServiceAffinity"),
    ]


def test_configurable_priorities_keep_their_user_names_and_weights():
    policy = load_policy(
        policy_doc(
            [],
            [
                {"name": "RackSpread", "weight": 1, "argument": {"serviceAntiAffinity": {"label": "rack"}}},
                {"name": "ZonePreferred", "weight": 4, "argument": {"labelPreference": {"label": "zone", "presence": True}}},
                {"name": "EqualPriority", "weight": 2},
            ],
        )
    )
    assert [(p.name, p.weight) for p in policy.priorities] == [("RackSpread", 1), ("ZonePreferred", 4), ("EqualPriority", 2)]


@pytest.mark.parametrize(
    "value, expected",
    [
        pytest.param(None, 1, id="an absent hardPodAffinitySymmetricWeight is the default 1"),
        pytest.param(0, 1, id="0 also means the default, as 1.11 only overrides the flag when non-zero"),
        pytest.param(5, 5, id="a value in 1..100 is used"),
        pytest.param(100, 100, id="100 is the upper bound"),
    ],
)
def test_hard_pod_affinity_symmetric_weight(value, expected):
    extra = {} if value is None else {"hardPodAffinitySymmetricWeight": value}
    assert load_policy(policy_doc([], [], **extra)).hard_pod_affinity_symmetric_weight == expected


def test_always_check_all_predicates_and_disable_preemption_are_read():
    policy = load_policy(policy_doc([], [], alwaysCheckAllPredicates=True, disablePreemption=True))
    assert policy.always_check_all_predicates is True
    assert policy.disable_preemption is True


def test_the_scheduler_name_defaults_to_the_default_scheduler():
    assert load_policy(policy_doc([], [])).scheduler_name == "default-scheduler"
    assert load_policy(policy_doc([], [], schedulerName="custom-scheduler")).scheduler_name == "custom-scheduler"


def test_the_default_policy_document_is_not_changed_by_loading_it():
    before = copy.deepcopy(DEFAULT_POLICY_DOC)
    load_policy(DEFAULT_POLICY_DOC)
    assert DEFAULT_POLICY_DOC == before


def test_every_registered_name_loads_on_its_own():
    for name in registry.PREDICATES:
        assert name in load_policy(policy_doc([{"name": name}], [])).predicate_names
    for name, (_, weight) in registry.PRIORITIES.items():
        assert load_policy(policy_doc([], [{"name": name, "weight": weight}])).priority_names == (name,)


@pytest.mark.parametrize(
    "doc, message",
    [
        pytest.param(
            policy_doc([{"name": "NoSuchPredicate"}], []),
            'Invalid configuration: Predicate type not found for "NoSuchPredicate"',
            id="an unknown predicate name",
        ),
        pytest.param(
            policy_doc([], [{"name": "NoSuchPriority", "weight": 1}]),
            'Invalid configuration: Priority type not found for "NoSuchPriority"',
            id="an unknown priority name",
        ),
        pytest.param(
            policy_doc([{"name": "Region"}], []),
            'Invalid configuration: Predicate type not found for "Region"',
            id="a user-named predicate without its argument",
        ),
        pytest.param(
            policy_doc([], [{"name": "Zone", "weight": 2}]),
            'Invalid configuration: Priority type not found for "Zone"',
            id="a user-named priority without its argument",
        ),
        pytest.param(
            policy_doc([], [{"name": "LeastRequestedPriority"}]),
            'priority "LeastRequestedPriority": a weight is required to be specified and cannot be 0 or negative',
            id="a priority without weight",
        ),
        pytest.param(
            policy_doc([], [{"name": "LeastRequestedPriority", "weight": 0}]),
            "Priority LeastRequestedPriority should have a positive weight applied to it or it has overflown",
            id="a priority with weight 0",
        ),
        pytest.param(
            policy_doc([], [{"name": "LeastRequestedPriority", "weight": -3}]),
            "Priority LeastRequestedPriority should have a positive weight applied to it or it has overflown",
            id="a priority with a negative weight",
        ),
        pytest.param(
            policy_doc([], [{"name": "LeastRequestedPriority", "weight": "1"}]),
            "weight must be a positive integer, not '1'",
            id="a priority with a string weight",
        ),
        pytest.param(
            policy_doc([{"name": "HostName"}, {"name": "HostName"}], []),
            'predicates[1]: Duplicate value: "HostName": predicate names must be unique',
            id="a predicate named twice",
        ),
        pytest.param(
            policy_doc([], [{"name": "EqualPriority", "weight": 1}, {"name": "EqualPriority", "weight": 2}]),
            'priorities[1]: Duplicate value: "EqualPriority": priority names must be unique',
            id="a priority named twice",
        ),
        pytest.param(
            policy_doc([{"name": "Region", "argument": {"serviceAffinity": {"labels": "region"}}}], []),
            'predicate "Region": argument.serviceAffinity.labels must be a list of label names',
            id="serviceAffinity labels given as a string",
        ),
        pytest.param(
            policy_doc([{"name": "Region", "argument": {"serviceAffinity": {}}}], []),
            'predicate "Region": argument.serviceAffinity.labels: Required value',
            id="serviceAffinity without labels",
        ),
        pytest.param(
            policy_doc([], [{"name": "RackSpread", "weight": 1, "argument": {"serviceAntiAffinity": {"label": ["rack"]}}}]),
            'priority "RackSpread": argument.serviceAntiAffinity.label must be a label name (a string)',
            id="serviceAntiAffinity label given as a list",
        ),
        pytest.param(
            policy_doc([{"name": "R", "argument": {"labelsPresence": {"labels": ["r"], "presence": "yes"}}}], []),
            'predicate "R": argument.labelsPresence.presence must be true or false',
            id="labelsPresence presence that is not a boolean",
        ),
        pytest.param(
            policy_doc(
                [{"name": "R", "argument": {"serviceAffinity": {"labels": ["r"]}, "labelsPresence": {"labels": ["r"]}}}], []
            ),
            'predicate "R": exactly 1 predicate argument is required (serviceAffinity or labelsPresence), got 2',
            id="a predicate with two arguments",
        ),
        pytest.param(
            policy_doc([{"name": "R", "argument": {}}], []),
            'predicate "R": exactly 1 predicate argument is required (serviceAffinity or labelsPresence), got 0',
            id="a predicate with an empty argument",
        ),
        pytest.param(
            policy_doc([], [{"name": "P", "weight": 1, "argument": {"serviceAffinity": {"labels": ["r"]}}}]),
            "priority \"P\": unknown argument 'serviceAffinity'",
            id="a priority with a predicate's argument",
        ),
        pytest.param(
            policy_doc([], [], hardPodAffinitySymmetricWeight=101),
            "hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid range 0-100",
            id="hardPodAffinitySymmetricWeight above 100",
        ),
        pytest.param(
            policy_doc([], [], hardPodAffinitySymmetricWeight=-1),
            "hardPodAffinitySymmetricWeight: Invalid value: -1: not in valid range 0-100",
            id="a negative hardPodAffinitySymmetricWeight",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "Pod"},
            "kind: Unsupported value: 'Pod'",
            id="a document of another kind",
        ),
        pytest.param(
            {"apiVersion": "v2", "kind": "Policy"},
            "apiVersion: Unsupported value: 'v2'",
            id="an unknown version",
        ),
        pytest.param(
            {"kind": "Policy", "predicates": []},
            "apiVersion: Required value",
            id="no version at all",
        ),
        pytest.param(
            policy_doc({"name": "HostName"}, []),
            "predicates: must be a list",
            id="predicates that are not a list",
        ),
        pytest.param(
            policy_doc([{"argument": {}}], []),
            "predicates[0].name: Required value",
            id="a predicate without a name",
        ),
        pytest.param(
            policy_doc([], [], schedulerName=""),
            "schedulerName: Invalid value: '': must be a non-empty string",
            id="an empty scheduler name",
        ),
        pytest.param(
            policy_doc([], [], alwaysCheckAllPredicates="yes"),
            "alwaysCheckAllPredicates: Invalid value: 'yes': must be true or false",
            id="alwaysCheckAllPredicates that is not a boolean",
        ),
    ],
)
def test_bad_policies_are_refused_with_a_message_naming_the_entry(doc, message):
    with pytest.raises(PolicyError) as exc:
        load_policy(doc)
    assert message in str(exc.value)
