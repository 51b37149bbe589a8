"""The apps group (and extensions/v1beta1): ReplicaSet, Deployment, StatefulSet and
DaemonSet (pkg/apis/apps/validation, pkg/apis/extensions/validation).
"""

from __future__ import annotations


from scheduling.engine.api.validation.field import (
    Errors,
    GoValue,
    as_int,
    child_path,
    dict_at,
    forbidden,
    get_at,
    go_int_or_string,
    go_label_selector,
    go_pointer,
    go_quote,
    invalid,
    is_valid_percent,
    key_path,
    list_at,
    name_is_dns_subdomain,
    not_supported,
    required_value,
    str_at,
)
from scheduling.engine.api.validation.common import (
    label_selector_as_selector,
    parse_resource,
    selector_mismatch,
    template_restart_and_deadline,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_nonnegative,
    validate_object_meta,
    validate_pod_template_spec,
    workload_selector,
)


def _validate_selector_and_template(doc: dict, kind_word: str, errs: Errors) -> None:
    """The selector/template part shared by Deployment and ReplicaSet."""
    spec = dict_at(doc, "spec")
    selector = workload_selector(doc)
    if selector is None:
        errs.append(required_value("spec.selector"))
    else:
        validate_label_selector(selector, "spec.selector", errs)
        if not dict_at(selector, "matchLabels") and not list_at(selector, "matchExpressions"):
            detail = f"empty selector is invalid for {kind_word}"
            errs.append(invalid("spec.selector", go_label_selector(selector), detail))
    converted = label_selector_as_selector(selector)
    if converted is None:
        errs.append(invalid("spec.selector", go_label_selector(selector), "invalid label selector"))
        return
    template = dict_at(spec, "template")
    labels = get_at(dict_at(template, "metadata"), "labels")
    if not converted.empty() and not converted.matches(labels if isinstance(labels, dict) else {}):
        errs.append(selector_mismatch(template))
    validate_pod_template_spec(template, "spec.template", errs)
    template_restart_and_deadline(template, "spec.template", errs)


def _int_or_percent_value(value: object) -> int:
    if isinstance(value, str):
        if not is_valid_percent(value):
            return int(value[:-1])
        return int(value) if value.isdigit() else 0
    return as_int(value)


def validate_deployment(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    validate_nonnegative(get_at(spec, "replicas"), "spec.replicas", errs)
    _validate_selector_and_template(doc, "deployment", errs)
    strategy = dict_at(spec, "strategy")
    strategy_type = str_at(strategy, "type") or "RollingUpdate"
    rolling = get_at(strategy, "rollingUpdate")
    if strategy_type == "Recreate":
        if rolling is not None:
            detail = "may not be specified when strategy `type` is 'Recreate'"
            errs.append(forbidden("spec.strategy.rollingUpdate", detail))
    elif strategy_type == "RollingUpdate":
        rolling = rolling if isinstance(rolling, dict) else {}
        max_unavailable = get_at(rolling, "maxUnavailable", "25%")
        max_surge = get_at(rolling, "maxSurge", "25%")
        path = "spec.strategy.rollingUpdate"
        validate_positive_int_or_percent(max_unavailable, child_path(path, "maxUnavailable"), errs)
        validate_positive_int_or_percent(max_surge, child_path(path, "maxSurge"), errs)
        if _int_or_percent_value(max_unavailable) == 0 and _int_or_percent_value(max_surge) == 0:
            bad = go_int_or_string(max_unavailable)
            errs.append(invalid(child_path(path, "maxUnavailable"), bad, "may not be 0 when `maxSurge` is 0"))
        not_more_than_100_percent(max_unavailable, child_path(path, "maxUnavailable"), errs)
    else:
        errs.append(
            not_supported(
                "spec.strategy",
                GoValue(
                    f"apps.DeploymentStrategy{{Type:{go_quote(strategy_type)}, "
                    f"RollingUpdate:{go_pointer('apps.RollingUpdateDeployment', rolling is not None)}}}"
                ),
                ("Recreate", "RollingUpdate"),
            )
        )
    validate_nonnegative(get_at(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    validate_nonnegative(get_at(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit", errs)
    deadline = get_at(spec, "progressDeadlineSeconds")
    if deadline is not None:
        validate_nonnegative(deadline, "spec.progressDeadlineSeconds", errs)
        if as_int(deadline) <= as_int(get_at(spec, "minReadySeconds", 0)):
            detail = "must be greater than minReadySeconds"
            errs.append(invalid("spec.progressDeadlineSeconds", as_int(deadline), detail))


def validate_positive_int_or_percent(value: object, path: str, errs: Errors) -> None:
    if isinstance(value, str):
        for msg in is_valid_percent(value):
            errs.append(invalid(path, go_int_or_string(value), msg))
    else:
        validate_nonnegative(as_int(value), path, errs)


def not_more_than_100_percent(value: object, path: str, errs: Errors) -> None:
    if isinstance(value, str) and not is_valid_percent(value) and int(value[:-1]) > 100:
        errs.append(invalid(path, go_int_or_string(value), "must not be greater than 100%"))


def validate_replica_set(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    validate_nonnegative(get_at(spec, "replicas"), "spec.replicas", errs)
    validate_nonnegative(get_at(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    # sic: upstream says "deployment" in the ReplicaSet message too
    _validate_selector_and_template(doc, "deployment", errs)


def validate_stateful_set(doc: dict, errs: Errors) -> None:
    """``ValidateStatefulSetSpec``; in 1.11 the pod template's spec is not validated
    (we check only that its quantities parse and fit)."""
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    policy = str_at(spec, "podManagementPolicy")
    if policy and policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = dict_at(spec, "updateStrategy")
    strategy_type = str_at(strategy, "type")
    rolling = get_at(strategy, "rollingUpdate")
    if strategy_type == "OnDelete" and rolling is not None:
        errs.append(
            invalid(
                "spec.updateStrategy.rollingUpdate",
                GoValue(f"apps.RollingUpdateStatefulSetStrategy{{Partition:{as_int(get_at(rolling, 'partition', 0))}}}"),
                "only allowed for updateStrategy 'RollingUpdate'",
            )
        )
    elif strategy_type == "RollingUpdate" and isinstance(rolling, dict):
        validate_nonnegative(get_at(rolling, "partition"), "spec.updateStrategy.rollingUpdate.partition", errs)
    elif strategy_type and strategy_type not in ("OnDelete", "RollingUpdate"):
        errs.append(
            invalid(
                "spec.updateStrategy",
                GoValue(
                    f"apps.StatefulSetUpdateStrategy{{Type:{go_quote(strategy_type)}, "
                    f"RollingUpdate:{go_pointer('apps.RollingUpdateStatefulSetStrategy', rolling is not None)}}}"
                ),
                "must be 'RollingUpdate' or 'OnDelete'",
            )
        )
    validate_nonnegative(get_at(spec, "replicas"), "spec.replicas", errs)
    selector = workload_selector(doc)
    if selector is None:
        errs.append(required_value("spec.selector"))
    else:
        validate_label_selector(selector, "spec.selector", errs)
        if not dict_at(selector, "matchLabels") and not list_at(selector, "matchExpressions"):
            detail = "empty selector is invalid for statefulset"
            errs.append(invalid("spec.selector", go_label_selector(selector), detail))
    template = dict_at(spec, "template")
    converted = label_selector_as_selector(selector)
    if converted is None:
        errs.append(invalid("spec.selector", go_label_selector(selector), ""))
    else:
        labels = get_at(dict_at(template, "metadata"), "labels")
        if not converted.empty() and not converted.matches(labels if isinstance(labels, dict) else {}):
            errs.append(selector_mismatch(template))
        meta = dict_at(template, "metadata")
        validate_labels(dict_at(meta, "labels"), "spec.template.labels", errs)
        validate_annotations(dict_at(meta, "annotations"), "spec.template.annotations", errs)
    # Departure from 1.11: the template's quantities must parse and fit, because the
    # simulator's controller creates pods from the template without another check.
    tspec = dict_at(template, "spec")
    for group in ("initContainers", "containers"):
        for i, container in enumerate(list_at(tspec, group)):
            resources = dict_at(container, "resources")
            for section in ("limits", "requests"):
                for name, raw in dict_at(resources, section).items():
                    parse_resource(raw, key_path(f"spec.template.spec.{group}[{i}].resources.{section}", name), errs)
    template_restart_and_deadline(template, "spec.template", errs)


def validate_daemon_set(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    selector = workload_selector(doc)
    validate_label_selector(selector, "spec.selector", errs)
    template = dict_at(spec, "template")
    converted = label_selector_as_selector(selector)
    labels = get_at(dict_at(template, "metadata"), "labels")
    # a DaemonSet checks the match even for a nil selector (which matches nothing)
    if converted is not None and not converted.matches(labels if isinstance(labels, dict) else {}):
        errs.append(selector_mismatch(template))
    if isinstance(selector, dict) and not dict_at(selector, "matchLabels") and not list_at(selector, "matchExpressions"):
        errs.append(invalid("spec.selector", go_label_selector(selector), "empty selector is invalid for daemonset"))
    validate_pod_template_spec(template, "spec.template", errs)
    template_restart_and_deadline(template, "spec.template", errs)
    validate_nonnegative(get_at(spec, "minReadySeconds"), "spec.minReadySeconds", errs)
    validate_nonnegative(get_at(spec, "templateGeneration"), "spec.templateGeneration", errs)
    strategy = dict_at(spec, "updateStrategy")
    strategy_type = str_at(strategy, "type")
    rolling = get_at(strategy, "rollingUpdate")
    if strategy_type == "RollingUpdate" and isinstance(rolling, dict):
        max_unavailable = get_at(rolling, "maxUnavailable", 1)
        path = "spec.updateStrategy.rollingUpdate.maxUnavailable"
        validate_positive_int_or_percent(max_unavailable, path, errs)
        if _int_or_percent_value(max_unavailable) == 0:
            errs.append(invalid(path, go_int_or_string(max_unavailable), "cannot be 0"))
        not_more_than_100_percent(max_unavailable, path, errs)
    elif strategy_type and strategy_type not in ("RollingUpdate", "OnDelete"):
        errs.append(
            not_supported(
                "spec.updateStrategy",
                GoValue(
                    f"apps.DaemonSetUpdateStrategy{{Type:{go_quote(strategy_type)}, "
                    f"RollingUpdate:{go_pointer('apps.RollingUpdateDaemonSet', rolling is not None)}}}"
                ),
                ("RollingUpdate", "OnDelete"),
            )
        )
    validate_nonnegative(get_at(spec, "revisionHistoryLimit"), "spec.revisionHistoryLimit", errs)
