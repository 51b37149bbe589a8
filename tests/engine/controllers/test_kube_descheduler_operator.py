"""The Kube Descheduler Operator's rendering of a KubeDescheduler into policy.yaml:
translated from openshift/cluster-kube-descheduler-operator
pkg/operator/target_config_reconciler_test.go TestManageConfigMap (the 21 of its 36 cases
that do not need KubeVirt, PSI or Prometheus; their expected files, unchanged, are
kube_descheduler_operator/*.yaml, and its ThresholdPriorityClassNameAndValueError case), the
operator's other refusals (KubeVirt profiles, the cluster Scheduler's conflicting profile,
namespaces), TestCheckProfileConflicts (all 29 cases) and the CRD schema's other checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduling.engine.controllers.descheduler_v1alpha2.operator import OperatorError, check, policy_yaml, render_policy

ASSETS = Path(__file__).parent / "kube_descheduler_operator"
# the namespaces of the upstream test's fake cluster
NAMESPACES = ["openshift-kube-scheduler", "kube-system", "openshift-kube-descheduler-operator"]


def kd(profiles, customizations=None, limits=None) -> dict:
    spec: dict = {"profiles": list(profiles), "mode": "Predictive"}
    if customizations is not None:
        spec["profileCustomizations"] = customizations
    if limits is not None:
        spec["evictionLimits"] = limits
    return {"apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler",
            "metadata": {"name": "cluster", "namespace": "openshift-kube-descheduler-operator"}, "spec": spec}


LIFECYCLE = ["LifecycleAndUtilization"]
CASES = [
    ("Podlifetime", kd(LIFECYCLE, {"podLifetime": "5m"}), "lifecycleAndUtilizationPodLifeTimeCustomizationConfig", None),
    ("PvcPods", kd(["LifecycleAndUtilization", "EvictPodsWithPVC"]), "lifecycleAndUtilizationEvictPvcPodsConfig", None),
    ("ThresholdPriorityClassName", kd(LIFECYCLE, {"thresholdPriorityClassName": "className"}),
     "lifecycleAndUtilizationPodLifeTimeWithThresholdPriorityClassNameConfig", None),
    ("ThresholdPriority", kd(LIFECYCLE, {"thresholdPriority": 1000}), "lifecycleAndUtilizationPodLifeTimeWithThresholdPriorityConfig", None),
    ("LowNodeUtilizationIncludedNamespace",
     kd(LIFECYCLE, {"devLowNodeUtilizationThresholds": "Low", "namespaces": {"included": ["includedNamespace"]}}),
     "lowNodeUtilizationIncludedNamespace", None),
    ("LowNodeUtilizationLow", kd(LIFECYCLE, {"devLowNodeUtilizationThresholds": "Low"}), "lowNodeUtilizationLowConfig", None),
    ("LowNodeUtilizationMedium", kd(LIFECYCLE, {"devLowNodeUtilizationThresholds": "Medium"}), "lowNodeUtilizationMediumConfig", None),
    ("LowNodeUtilizationNoCustomization", kd(LIFECYCLE), "lowNodeUtilizationMediumConfig", None),
    ("LowNodeUtilizationEmptyDefault", kd(LIFECYCLE, {"devLowNodeUtilizationThresholds": ""}), "lowNodeUtilizationMediumConfig", None),
    ("LowNodeUtilizationHigh", kd(LIFECYCLE, {"devLowNodeUtilizationThresholds": "High"}), "lowNodeUtilizationHighConfig", None),
    ("LowNodeUtilizationEvictionLimits", kd(LIFECYCLE, {"devLowNodeUtilizationThresholds": ""}, {"total": 10, "node": 3}),
     "lowNodeUtilizationEvictionLimits", None),
    ("AffinityAndTaintsWithNamespaces", kd(["AffinityAndTaints"], {"namespaces": {"included": ["includedNamespace"]}}),
     "affinityAndTaintsWithNamespaces", None),
    ("LongLifecycleWithNamespaces", kd(["LongLifecycle"], {"namespaces": {"included": ["includedNamespace"]}}),
     "longLifecycleWithNamespaces", None),
    ("LongLifecycleWithLocalStorage", kd(["LongLifecycle", "EvictPodsWithLocalStorage"]), "longLifecycleWithLocalStorage", None),
    ("SoftTopologyAndDuplicates", kd(["SoftTopologyAndDuplicates"]), "softTopologyAndDuplicates", None),
    ("TopologyAndDuplicates", kd(["TopologyAndDuplicates"]), "topologyAndDuplicates", None),
    ("CompactAndScaleWithNamespaces", kd(["CompactAndScale"], {"namespaces": {"included": ["includedNamespace"]}}),
     "highNodeUtilizationWithNamespaces", "HighNodeUtilization"),
    ("CompactAndScaleMinimal", kd(["CompactAndScale"], {"devHighNodeUtilizationThresholds": "Minimal"}),
     "highNodeUtilizationMinimal", "HighNodeUtilization"),
    ("CompactAndScaleModest", kd(["CompactAndScale"], {"devHighNodeUtilizationThresholds": "Modest"}),
     "highNodeUtilization", "HighNodeUtilization"),
    ("CompactAndScaleDefault", kd(["CompactAndScale"], {"devHighNodeUtilizationThresholds": ""}),
     "highNodeUtilization", "HighNodeUtilization"),
    ("CompactAndScaleModerate", kd(["CompactAndScale"], {"devHighNodeUtilizationThresholds": "Moderate"}),
     "highNodeUtilizationModerate", "HighNodeUtilization"),
]


@pytest.mark.parametrize("name,descheduler,asset,scheduler_profile", CASES, ids=[c[0] for c in CASES])
def test_manage_config_map(name, descheduler, asset, scheduler_profile):
    want = (ASSETS / f"{asset}.yaml").read_text()
    got = policy_yaml(render_policy(descheduler, NAMESPACES, scheduler_profile or "LowNodeUtilization"))
    assert got == want


ERRORS = [
    ("ThresholdPriorityClassNameAndValueError", kd(LIFECYCLE, {"thresholdPriority": 1000, "thresholdPriorityClassName": "className"}),
     "It is invalid to set both .spec.profileCustomizations.thresholdPriority and .spec.profileCustomizations.ThresholdPriorityClassName fields",
     "LowNodeUtilization"),
    ("DevKubeVirtRelieveAndMigrateWithoutKubeVirt", kd(["DevKubeVirtRelieveAndMigrate"]),
     "profile DevKubeVirtRelieveAndMigrate can only be used when KubeVirt is properly deployed", "LowNodeUtilization"),
    ("LowNodeUtilizationWithSchedulerHighNodeUtilization", kd(LIFECYCLE),
     "enabling Descheduler LowNodeUtilization with Scheduler HighNodeUtilization may cause an eviction/scheduling hot loop",
     "HighNodeUtilization"),
    ("CompactAndScaleWithSchedulerLowNodeUtilization", kd(["CompactAndScale"]),
     "enabling Descheduler CompactAndScale with Scheduler LowNodeUtilization may cause an eviction/scheduling hot loop",
     "LowNodeUtilization"),
    ("NoProfile", kd([]), "descheduler should have at least 1 profile enabled", "LowNodeUtilization"),
    ("IncludedAndExcluded", kd(LIFECYCLE, {"namespaces": {"included": ["a"], "excluded": ["b"]}}),
     "It is forbidden to combine both included and excluded namespaces", "LowNodeUtilization"),
    ("ProtectedIncluded", kd(LIFECYCLE, {"namespaces": {"included": ["kube-system"]}}),
     "Protected namespace kube-system included. It is forbidden to include any of the protected namespaces from "
     "[kube-system hypershift openshift openshift-kube-descheduler-operator openshift-kube-scheduler]", "LowNodeUtilization"),
    ("UnknownProfile", kd(["Nope"]), 'Profile "Nope" not recognized', "LowNodeUtilization"),
]


@pytest.mark.parametrize("name,descheduler,message,scheduler_profile", ERRORS, ids=[c[0] for c in ERRORS])
def test_manage_config_map_errors(name, descheduler, message, scheduler_profile):
    with pytest.raises(OperatorError) as exc:
        render_policy(descheduler, NAMESPACES, scheduler_profile)
    assert str(exc.value) == message


CRD_ERRORS = [
    ({"metadata": {"name": "other"}}, "metadata: Invalid value: \"object\": kubedescheduler is a singleton, .metadata.name must be 'cluster'"),
    ({"spec": {"mode": "Foo", "profiles": ["AffinityAndTaints"]}},
     'spec.mode: Unsupported value: "Foo": supported values: "Automatic", "Predictive"'),
    ({"spec": {"profiles": ["LongLifecycle", "LifecycleAndUtilization"]}},
     'spec.profiles: Invalid value: "array": cannot declare LongLifecycle and LifecycleAndUtilization profiles simultaneously'),
    ({"spec": {"profiles": ["AffinityAndTaints", "AffinityAndTaints"]}}, 'spec.profiles: Invalid value: "array": duplicate profiles are not allowed'),
    ({"spec": {"profiles": ["Nope"]}}, 'spec.profiles[0]: Unsupported value: "Nope": supported values: "AffinityAndTaints", "TopologyAndDuplicates", '
     '"LifecycleAndUtilization", "DevPreviewLongLifecycle", "LongLifecycle", "SoftTopologyAndDuplicates", "EvictPodsWithLocalStorage", '
     '"EvictPodsWithPVC", "CompactAndScale", "DevKubeVirtRelieveAndMigrate", "KubeVirtRelieveAndMigrate"'),
    ({"spec": {"profiles": ["AffinityAndTaints"], "deschedulingIntervalSeconds": 0}},
     "spec.deschedulingIntervalSeconds: Invalid value: 0: spec.deschedulingIntervalSeconds in body should be greater than or equal to 1"),
]


@pytest.mark.parametrize("change,message", CRD_ERRORS, ids=[m[:50] for _, m in CRD_ERRORS])
def test_the_crd_schema_refuses(change, message):
    """The CRD's schema and x-kubernetes-validations (manifests/kube-descheduler-operator.crd.yaml)."""
    doc = kd(["AffinityAndTaints"])
    doc = {**doc, "metadata": {**doc["metadata"], **change.get("metadata", {})}, "spec": {**doc["spec"], **change.get("spec", {})}}
    with pytest.raises(OperatorError) as exc:
        check(doc)
    assert str(exc.value) == f'KubeDescheduler.operator.openshift.io "{doc["metadata"]["name"]}" is invalid: {message}'
    assert check(kd(["AffinityAndTaints", "EvictPodsWithPVC"])) is None


# --- TestCheckProfileConflicts (all 29 cases): the CRD's rules on spec.profiles -------------------------------------

VALID = [["AffinityAndTaints"], ["TopologyAndDuplicates"], ["LifecycleAndUtilization"], ["LongLifecycle"], ["CompactAndScale"],
         ["DevKubeVirtRelieveAndMigrate"], ["KubeVirtRelieveAndMigrate"], ["AffinityAndTaints", "TopologyAndDuplicates"],
         ["AffinityAndTaints", "LifecycleAndUtilization"], ["AffinityAndTaints", "EvictPodsWithPVC"],
         ["LifecycleAndUtilization", "EvictPodsWithLocalStorage"], ["LongLifecycle", "TopologyAndDuplicates"]]
CONFLICTS = [(["AffinityAndTaints", "AffinityAndTaints"], "duplicate profiles are not allowed")] + [
    ([a, b], f"cannot declare {a} and {b} profiles simultaneously") for a, b in (
        ("DevPreviewLongLifecycle", "LifecycleAndUtilization"), ("LongLifecycle", "LifecycleAndUtilization"),
        ("DevPreviewLongLifecycle", "DevKubeVirtRelieveAndMigrate"), ("LongLifecycle", "DevKubeVirtRelieveAndMigrate"),
        ("LifecycleAndUtilization", "DevKubeVirtRelieveAndMigrate"), ("KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate"),
        ("DevPreviewLongLifecycle", "KubeVirtRelieveAndMigrate"), ("LongLifecycle", "KubeVirtRelieveAndMigrate"),
        ("LifecycleAndUtilization", "KubeVirtRelieveAndMigrate"), ("SoftTopologyAndDuplicates", "TopologyAndDuplicates"),
        ("CompactAndScale", "LifecycleAndUtilization"), ("CompactAndScale", "LongLifecycle"), ("CompactAndScale", "DevPreviewLongLifecycle"),
        ("CompactAndScale", "DevKubeVirtRelieveAndMigrate"), ("CompactAndScale", "KubeVirtRelieveAndMigrate"),
        ("CompactAndScale", "TopologyAndDuplicates"))]


def with_interval(profiles):
    doc = kd(profiles)
    doc["spec"]["deschedulingIntervalSeconds"] = 300
    return doc


@pytest.mark.parametrize("profiles", VALID, ids=["+".join(p) for p in VALID])
def test_check_profile_conflicts_valid(profiles):
    assert check(with_interval(profiles)) is None


@pytest.mark.parametrize("profiles,message", CONFLICTS, ids=[m[:60] for _, m in CONFLICTS])
def test_check_profile_conflicts(profiles, message):
    with pytest.raises(OperatorError) as exc:
        check(with_interval(profiles))
    assert message in str(exc.value)
