"""Every predicate and priority the scheduler Policy can name, as literal dicts.

The names are the ones the Policy file uses (OpenShift 3.11's lists of predicates and priorities) and the ones
kube-scheduler 1.11 registers (pkg/scheduler/algorithmprovider/defaults/defaults.go,
pkg/scheduler/factory/plugins.go). No auto-discovery: adding a predicate or a priority is

1. write its module under engine/predicates/ or engine/priorities/ (one function, its
   reason strings), with its table-driven test;
2. add one line to PREDICATES (and its slot to PREDICATE_ORDERING when it is new to the
   1.11 ordering) or to PRIORITIES, with its default weight;
3. if it takes an argument in the Policy file, add a factory to CONFIGURABLE_PREDICATES or
   CONFIGURABLE_PRIORITIES keyed by the argument's name, with an argument parser in
   engine/scheduler/policy.py;
4. optionally make it fast: beside the function, `fn.static_key(pod)` (the result depends
   only on the node and on what the key names of the pod), `fn.mask(pod, ctx, cache)` (a
   predicate on every node at once) or `fn.vector(pod, ctx, cache, idx)` (a priority's
   scores as an array); see engine/scheduler/cache.py, and add a case to
   tests/engine/scheduler/test_scheduler_equivalence.py (the fast path must equal the plain one).

A predicate is `fn(pod, ctx, info) -> tuple[str, ...]` (the Kubernetes failure reasons,
empty when the pod fits); a priority is `fn(pod, ctx, infos) -> list[int]` (raw 0..10 per
node). Weights are applied by the scheduler.
"""

from __future__ import annotations

from typing import Callable, Sequence

from scheduling.engine.scheduler.predicates import (
    disk_conflict,
    general,
    host_name,
    host_ports,
    inter_pod_affinity,
    label_presence,
    node_condition,
    node_selector,
    resources,
    service_affinity,
    taints,
    volume_binding,
    volume_count,
    volume_zone,
)
from scheduling.engine.scheduler.priorities import (
    balanced_resource_allocation,
    equal,
    image_locality,
    inter_pod_affinity as inter_pod_affinity_priority,
    least_requested,
    most_requested,
    node_affinity,
    node_label,
    node_prefer_avoid_pods,
    selector_spreading,
    service_anti_affinity,
    taint_toleration,
)

Predicate = Callable[..., tuple]  # (pod, ctx, info) -> tuple[str, ...]
Priority = Callable[..., list]  # (pod, ctx, infos) -> list[int]

# --- predicates ---------------------------------------------------------------------------

# The 1.11 evaluation order (`predicates.Ordering()`, predicates.go v1.11.0, without the
# CheckNodeUnschedulable / MaxCSIVolumeCount / CheckNodePIDPressure entries later releases
# added). A node is checked against the policy's predicates in this order; with
# alwaysCheckAllPredicates false, the first failing predicate ends the check of that node.
PREDICATE_ORDERING: tuple[str, ...] = (
    "CheckNodeCondition",
    "GeneralPredicates",
    "HostName",
    "PodFitsHostPorts",
    "MatchNodeSelector",
    "PodFitsResources",
    "NoDiskConflict",
    "PodToleratesNodeTaints",
    "PodToleratesNodeNoExecuteTaints",
    "CheckNodeLabelPresence",
    "CheckServiceAffinity",
    "MaxEBSVolumeCount",
    "MaxGCEPDVolumeCount",
    "MaxAzureDiskVolumeCount",
    "CheckVolumeBinding",
    "NoVolumeZoneConflict",
    "CheckNodeMemoryPressure",
    "CheckNodeDiskPressure",
    "MatchInterPodAffinity",
)

# Static predicates: the name as written in the Policy file -> the function.
PREDICATES: dict[str, Predicate] = {
    "CheckNodeCondition": node_condition.check_node_condition,
    "GeneralPredicates": general.general_predicates,
    "HostName": host_name.pod_fits_host,
    "PodFitsHostPorts": host_ports.pod_fits_host_ports,
    # "PodFitsPorts has been replaced by PodFitsHostPorts for better user understanding.
    # For backwards compatibility with 1.0, PodFitsPorts is registered as well." (defaults.go)
    "PodFitsPorts": host_ports.pod_fits_host_ports,
    "MatchNodeSelector": node_selector.pod_match_node_selector,
    "PodFitsResources": resources.pod_fits_resources,
    "NoDiskConflict": disk_conflict.no_disk_conflict,
    "PodToleratesNodeTaints": taints.pod_tolerates_node_taints,
    "PodToleratesNodeNoExecuteTaints": taints.pod_tolerates_node_no_execute_taints,
    # OpenShift 3.11's documentation lists these two among the static predicates ({"name": "CheckNodeLabelPresence"},
    # {"name": "checkServiceAffinity"}). Without an argument they have no labels to check,
    # so they admit every node (1.11 itself refuses them without an argument).
    "CheckNodeLabelPresence": label_presence.new_node_label_predicate((), True),
    "checkServiceAffinity": service_affinity.new_service_affinity_predicate(()),
    "CheckServiceAffinity": service_affinity.new_service_affinity_predicate(()),  # later releases' spelling
    "MaxEBSVolumeCount": volume_count.max_ebs_volume_count,
    "MaxGCEPDVolumeCount": volume_count.max_gce_pd_volume_count,
    "MaxAzureDiskVolumeCount": volume_count.max_azure_disk_volume_count,
    "CheckVolumeBinding": volume_binding.check_volume_binding,
    "NoVolumeZoneConflict": volume_zone.no_volume_zone_conflict,
    "CheckNodeMemoryPressure": node_condition.check_node_memory_pressure,
    "CheckNodeDiskPressure": node_condition.check_node_disk_pressure,
    "MatchInterPodAffinity": inter_pod_affinity.match_inter_pod_affinity,
}

# The ordering slot of each static name (the name itself unless it is an alias).
PREDICATE_SLOTS: dict[str, str] = {
    **{name: name for name in PREDICATES},
    "PodFitsPorts": "PodFitsHostPorts",
    "checkServiceAffinity": "CheckServiceAffinity",
}

# Predicates 1.11 always runs, whatever the policy says (RegisterMandatoryFitPredicate in
# defaults.go; PodToleratesNodeTaints becomes mandatory only with the TaintNodesByCondition
# feature gate, alpha and off in 1.11).
MANDATORY_PREDICATES: tuple[str, ...] = ("CheckNodeCondition",)

# Configurable predicates, keyed by the argument that identifies their type. A user-named
# entry ("Region", "RequireRegion", ...) is evaluated in the slot of its type, in policy
# order among entries of that type. (1.11.0 registers them under the user's name, which is
# not in Ordering(), so it never runs them; later releases fixed that. The documentation describes
# them working, so we run them.)
CONFIGURABLE_PREDICATES: dict[str, tuple[Callable[..., Predicate], str]] = {
    # serviceAffinity: {labels: [...]}
    "serviceAffinity": (service_affinity.new_service_affinity_predicate, "CheckServiceAffinity"),
    # labelsPresence: {labels: [...], presence: bool}
    "labelsPresence": (label_presence.new_node_label_predicate, "CheckNodeLabelPresence"),
}

# --- priorities -----------------------------------------------------------------------------

DEFAULT_HARD_POD_AFFINITY_SYMMETRIC_WEIGHT = 1  # v1.DefaultHardPodAffinitySymmetricWeight

# Static priorities: name -> (function, default weight). InterPodAffinityPriority depends on
# the policy's hardPodAffinitySymmetricWeight; the entry here uses the default weight and
# engine.scheduler.policy rebuilds it with `inter_pod_affinity_priority_for(weight)` otherwise.
PRIORITIES: dict[str, tuple[Priority, int]] = {
    "SelectorSpreadPriority": (selector_spreading.selector_spread_priority, 1),
    "ServiceSpreadingPriority": (selector_spreading.service_spreading_priority, 1),
    "InterPodAffinityPriority": (
        inter_pod_affinity_priority.new_inter_pod_affinity_priority(DEFAULT_HARD_POD_AFFINITY_SYMMETRIC_WEIGHT),
        1,
    ),
    "LeastRequestedPriority": (least_requested.least_requested_priority, 1),
    "MostRequestedPriority": (most_requested.most_requested_priority, 1),
    "BalancedResourceAllocation": (balanced_resource_allocation.balanced_resource_allocation, 1),
    "NodePreferAvoidPodsPriority": (node_prefer_avoid_pods.node_prefer_avoid_pods_priority, 10000),
    "NodeAffinityPriority": (node_affinity.node_affinity_priority, 1),
    "TaintTolerationPriority": (taint_toleration.taint_toleration_priority, 1),
    "ImageLocalityPriority": (image_locality.image_locality_priority, 1),
    "EqualPriority": (equal.equal_priority, 1),
}


def inter_pod_affinity_priority_for(hard_pod_affinity_symmetric_weight: int) -> Priority:
    """InterPodAffinityPriority with the policy's hardPodAffinitySymmetricWeight."""
    if hard_pod_affinity_symmetric_weight == DEFAULT_HARD_POD_AFFINITY_SYMMETRIC_WEIGHT:
        return PRIORITIES["InterPodAffinityPriority"][0]
    return inter_pod_affinity_priority.new_inter_pod_affinity_priority(hard_pod_affinity_symmetric_weight)


# Configurable priorities, keyed by the argument that identifies their type.
CONFIGURABLE_PRIORITIES: dict[str, Callable[..., Priority]] = {
    # serviceAntiAffinity: {label: "..."}
    "serviceAntiAffinity": service_anti_affinity.new_service_anti_affinity_priority,
    # labelPreference: {label: "...", presence: bool}
    "labelPreference": node_label.new_node_label_priority,
}

# When a policy lists no priority at all, 1.11 scores every feasible node 1 with
# EqualPriorityMap (PrioritizeNodes: "If no priority configs are provided, then the
# EqualPriority function is applied").
IMPLICIT_PRIORITY = "EqualPriority"


def predicate_names() -> Sequence[str]:
    return tuple(PREDICATES)


def priority_names() -> Sequence[str]:
    return tuple(PRIORITIES)
