"""The policy group: PodDisruptionBudget (pkg/apis/policy/validation).
"""

from __future__ import annotations


from scheduling.engine.api.validation.field import (
    Errors,
    GoValue,
    dict_at,
    get_at,
    go_pointer,
    invalid,
    name_is_path_segment,
)
from scheduling.engine.api.validation.common import (
    validate_label_selector,
    validate_object_meta,
)
from scheduling.engine.api.validation.apps import (
    not_more_than_100_percent,
    validate_positive_int_or_percent,
)


def validate_pod_disruption_budget(doc: dict, errs: Errors) -> None:
    """``ValidatePodDisruptionBudget``.  In 1.11 it does not validate ObjectMeta;
    the generic registry then checks it with path-segment name rules only."""
    spec = dict_at(doc, "spec")
    min_available = get_at(spec, "minAvailable")
    max_unavailable = get_at(spec, "maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        errs.append(
            invalid(
                "spec",
                GoValue(
                    "policy.PodDisruptionBudgetSpec{"
                    f"MinAvailable:{go_pointer('intstr.IntOrString', True)}, "
                    f"Selector:{go_pointer('v1.LabelSelector', get_at(spec, 'selector') is not None)}, "
                    f"MaxUnavailable:{go_pointer('intstr.IntOrString', True)}}}"
                ),
                "minAvailable and maxUnavailable cannot be both set",
            )
        )
    for field, value in (("minAvailable", min_available), ("maxUnavailable", max_unavailable)):
        if value is not None:
            validate_positive_int_or_percent(value, f"spec.{field}", errs)
            not_more_than_100_percent(value, f"spec.{field}", errs)
    validate_label_selector(get_at(spec, "selector"), "spec.selector", errs)
    if not errs:
        validate_object_meta(dict_at(doc, "metadata"), True, name_is_path_segment, errs)
