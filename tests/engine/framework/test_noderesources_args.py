"""NodeResourcesFitArgs and NodeResourcesBalancedAllocationArgs validation, translated from
upstream's validation_pluginargs_test.go: TestValidateFitArgs,
TestValidateRequestedToCapacityRatioScoringStrategy, TestValidateLeastAllocatedScoringStrategy,
TestValidateNodeResourcesBalancedAllocationArgs. The plugins take v1 args, defaulted before
validation: a weight of 0 (unset) becomes 1, so upstream's internal-config cases with weight 0
do not apply."""

import pytest

from scheduling.engine.framework.interface import ArgsError
from scheduling.engine.framework.plugins.noderesources import BalancedAllocation, Fit
from tests.engine.framework.plugin_builders import handle

DEFAULT_STRATEGY = {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}

FIT_ARGS = [
    ("IgnoredResources: too long value", {"ignoredResources": ["longvalue" + "a" * 64]},
     "name part must be no more than 63 characters"),
    ("IgnoredResources: name is empty", {"ignoredResources": ["example.com/"]}, "name part must be non-empty"),
    ("IgnoredResources: name has too many slash", {"ignoredResources": ["example.com/aaa/bbb"]},
     "a qualified name must consist of alphanumeric characters"),
    ("IgnoredResources: valid args", {"ignoredResources": ["example.com"]}, None),
    ("IgnoredResourceGroups: valid args ", {"ignoredResourceGroups": ["example.com"]}, None),
    ("IgnoredResourceGroups: illegal args", {"ignoredResourceGroups": ["example.com/"]}, "name part must be non-empty"),
    ("IgnoredResourceGroups: name is too long", {"ignoredResourceGroups": ["a" * 64]},
     "name part must be no more than 63 characters"),
    ("IgnoredResourceGroups: name cannot be contain slash", {"ignoredResourceGroups": ["example.com/aa"]},
     "resource group name can't contain '/'"),
]


@pytest.mark.parametrize("name,args,expect", FIT_ARGS, ids=[c[0] for c in FIT_ARGS])
def test_validate_fit_args(name, args, expect):
    args = {**args, "scoringStrategy": DEFAULT_STRATEGY}
    if expect is None:
        Fit(args, handle())
        return
    with pytest.raises(ArgsError) as e:
        Fit(args, handle())
    assert expect in str(e.value)


def test_scoring_strategy_type_is_unsupported():
    with pytest.raises(ArgsError) as e:
        Fit({"scoringStrategy": {"type": "Invalid"}}, handle())
    assert 'scoringStrategy.type: Unsupported value: "Invalid"' in str(e.value)


DEFAULT_SHAPE = [{"utilization": 30, "score": 3}]
RTCR_ARGS = [
    ("no shapes", None, None, ["scoringStrategy.shape: Required value: at least one point must be specified"]),
    ("weight greater than max", [{"name": "cpu", "weight": 101}], DEFAULT_SHAPE,
     ["scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"]),
    ("valid shapes", None, DEFAULT_SHAPE, []),
    ("utilization less than min", None, [{"utilization": -1, "score": 3}],
     ["scoringStrategy.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]"]),
    ("utilization greater than max", None, [{"utilization": 101, "score": 3}],
     ["scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"]),
    ("duplicated utilization values", None, [{"utilization": 10, "score": 3}, {"utilization": 10, "score": 3}],
     ["scoringStrategy.shape[1].utilization: Invalid value: 10: utilization values must be sorted in increasing order"]),
    ("increasing utilization values", None,
     [{"utilization": 10, "score": 3}, {"utilization": 20, "score": 3}, {"utilization": 30, "score": 3}], []),
    ("non-increasing utilization values", None,
     [{"utilization": 10, "score": 3}, {"utilization": 20, "score": 3}, {"utilization": 15, "score": 3}],
     ["scoringStrategy.shape[2].utilization: Invalid value: 15: utilization values must be sorted in increasing order"]),
    ("score less than min", None, [{"utilization": 10, "score": -1}],
     ["scoringStrategy.shape[0].score: Invalid value: -1: not in valid range [0, 10]"]),
    ("score greater than max", None, [{"utilization": 10, "score": 11}],
     ["scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]"]),
]


@pytest.mark.parametrize("name,resources,shape,errors", RTCR_ARGS, ids=[c[0] for c in RTCR_ARGS])
def test_validate_requested_to_capacity_ratio(name, resources, shape, errors):
    strategy = {"type": "RequestedToCapacityRatio"}
    if resources:
        strategy["resources"] = resources
    if shape is not None:
        strategy["requestedToCapacityRatio"] = {"shape": shape}
    if not errors:
        Fit({"scoringStrategy": strategy}, handle())
        return
    with pytest.raises(ArgsError) as e:
        Fit({"scoringStrategy": strategy}, handle())
    assert str(e.value) == (errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")


@pytest.mark.parametrize("name,resources,errors", [
    ("multi valid resources", [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 10}], None),
    ("weight greater than max", [{"name": "cpu", "weight": 101}],
     "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"),
    ("multi invalid resources", [{"name": "cpu", "weight": -1}, {"name": "memory", "weight": 101}],
     "[scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of cpu not in valid range (0, 100], "
     "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory not in valid range (0, 100]]"),
])
@pytest.mark.parametrize("kind", ["LeastAllocated", "MostAllocated"])
def test_validate_allocated_scoring_strategy(kind, name, resources, errors):
    args = {"scoringStrategy": {"type": kind, "resources": resources}}
    if errors is None:
        Fit(args, handle())
        return
    with pytest.raises(ArgsError) as e:
        Fit(args, handle())
    assert str(e.value) == errors


@pytest.mark.parametrize("name,resources,errors", [
    ("valid config", [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}], None),
    ("invalid config", [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
     "resources[0].weight: Invalid value: 2: must be 1"),
    ("repeated resources", [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
     'resources[1].name: Duplicate value: "cpu"'),
])
def test_validate_balanced_allocation_args(name, resources, errors):
    if errors is None:
        BalancedAllocation({"resources": resources}, handle())
        return
    with pytest.raises(ArgsError) as e:
        BalancedAllocation({"resources": resources}, handle())
    assert str(e.value) == errors
