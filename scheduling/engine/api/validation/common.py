"""The validators every group shares (metadata, labels, selectors, taints, tolerations,
resources, affinity) and pod specs and pod templates.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from scheduling.engine.api import quantity, selectors
from scheduling.engine.api.validation.field import (
    Errors,
    FieldError,
    GoValue,
    IS_NEGATIVE_ERROR_MSG,
    as_int,
    as_str,
    byte_len,
    child_path,
    dict_at,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    duplicate,
    forbidden,
    get_at,
    go_string_map,
    go_taint,
    go_toleration,
    inclusive_range_error,
    index_path,
    invalid,
    is_valid_port_name,
    is_valid_port_num,
    json_excerpt,
    key_path,
    label_value_errors,
    list_at,
    name_is_dns_subdomain,
    not_supported,
    qualified_name_errors,
    required_value,
    str_at,
    too_long,
)


# ==========================================================================
# 6. Shared validators
# ==========================================================================


def _validate_label_name(name: str, path: str, errs: Errors) -> None:
    """``ValidateLabelName``: one error per message."""
    for msg in qualified_name_errors(name):
        errs.append(invalid(path, name, msg))


def validate_labels(labels: dict, path: str, errs: Errors) -> None:
    """``ValidateLabels``: both key and value errors are reported at the map's
    path (``metadata.labels``), not at the key."""
    for key, value in labels.items():
        _validate_label_name(key, path, errs)
        for msg in label_value_errors(as_str(value)):
            errs.append(invalid(path, as_str(value), msg))


_TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)


def validate_annotations(annotations: dict, path: str, errs: Errors) -> None:
    total = 0
    for key, value in annotations.items():
        # Upstream checks strings.ToLower(key), so "Example.COM/x" passes there. Departure
        # (a stricter check than upstream's): the prefix must be a DNS-1123 subdomain as written (lowercase); the
        # name part is still checked lower-cased.
        prefix, slash, name = key.rpartition("/")
        for msg in qualified_name_errors(prefix + slash + name.lower()):
            errs.append(invalid(path, key, msg))
        total += byte_len(key) + byte_len(as_str(value))
    if total > _TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, "", _TOTAL_ANNOTATION_SIZE_LIMIT))


NameFn = Callable[[str, bool], list]


def validate_object_meta(meta: dict, namespaced: bool, name_fn: NameFn, errs: Errors, path: str = "metadata") -> None:
    """``ValidateObjectMeta`` for a create.

    The namespace is only checked when the document sets it: the API server
    fills a missing one from the request and clears it on cluster-scoped kinds.
    With ``generateName`` and no name the server invents a name (random
    suffix) before validating; we check only ``generateName`` then.
    """
    name = str_at(meta, "name")
    generate_name = str_at(meta, "generateName")
    if generate_name:
        for msg in name_fn(generate_name, True):
            errs.append(invalid(child_path(path, "generateName"), generate_name, msg))
    if not name:
        if not generate_name:
            errs.append(required_value(child_path(path, "name"), "name or generateName is required"))
    else:
        for msg in name_fn(name, False):
            errs.append(invalid(child_path(path, "name"), name, msg))
    namespace = str_at(meta, "namespace")
    if namespaced and namespace:
        for msg in dns1123_label_errors(namespace):
            errs.append(invalid(child_path(path, "namespace"), namespace, msg))
    generation = get_at(meta, "generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid(child_path(path, "generation"), generation, IS_NEGATIVE_ERROR_MSG))
    validate_labels(dict_at(meta, "labels"), child_path(path, "labels"), errs)
    validate_annotations(dict_at(meta, "annotations"), child_path(path, "annotations"), errs)


def validate_nonnegative(value: object, path: str, errs: Errors) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        errs.append(invalid(path, value, IS_NEGATIVE_ERROR_MSG))


# --- label selectors -------------------------------------------------------

_EXISTS_VALUES_FORBIDDEN = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"


def validate_label_selector(selector: object, path: str, errs: Errors) -> None:
    """``metav1validation.ValidateLabelSelector``."""
    if not isinstance(selector, dict):
        return
    validate_labels(dict_at(selector, "matchLabels"), child_path(path, "matchLabels"), errs)
    for i, expr in enumerate(list_at(selector, "matchExpressions")):
        expr_path = index_path(child_path(path, "matchExpressions"), i)
        operator = str_at(expr, "operator")
        values = list_at(expr, "values")
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(
                    required_value(child_path(expr_path, "values"), "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(child_path(expr_path, "values"), _EXISTS_VALUES_FORBIDDEN))
        else:
            errs.append(invalid(child_path(expr_path, "operator"), operator, "not a valid selector operator"))
        _validate_label_name(str_at(expr, "key"), child_path(expr_path, "key"), errs)


def label_selector_as_selector(selector: object) -> selectors.Selector | None:
    """``metav1.LabelSelectorAsSelector`` of a document's selector, built by the one matcher
    (engine.api.selectors); None when Go returns an error."""
    if not isinstance(selector, dict):
        return selectors.NOTHING  # nil selector selects nothing
    match_labels = [(key, as_str(value)) for key, value in dict_at(selector, "matchLabels").items()]
    exprs = [
        (str_at(expr, "key"), str_at(expr, "operator"), tuple(as_str(v) for v in list_at(expr, "values")))
        for expr in list_at(selector, "matchExpressions")
    ]
    try:
        return selectors.label_selector_as_selector(match_labels, exprs)
    except selectors.SelectorError:
        return None


def set_as_selector(selector: dict) -> selectors.Selector:
    """``labels.Set(m).AsSelector()``: an invalid entry makes the whole selector
    empty (which then matches everything)."""
    return selectors.selector_from_set({key: as_str(value) for key, value in selector.items()})


# --- taints and tolerations ------------------------------------------------

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def validate_taint_effect_into(effect: str, allow_empty: bool, path: str, errs: Errors) -> None:
    if not allow_empty and not effect:
        errs.append(required_value(path))
        return
    if effect not in TAINT_EFFECTS:
        # NoScheduleNoAdmit exists upstream only as a commented-out TODO.
        errs.append(not_supported(path, effect, TAINT_EFFECTS))


def validate_taints_into(taints: list, path: str, errs: Errors) -> None:
    """``validateNodeTaints``."""
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        idx_path = index_path(path, i)
        key, value, effect = str_at(taint, "key"), str_at(taint, "value"), str_at(taint, "effect")
        _validate_label_name(key, child_path(idx_path, "key"), errs)
        value_errs = label_value_errors(value)
        if value_errs:
            errs.append(invalid(child_path(idx_path, "value"), value, ";".join(value_errs)))
        validate_taint_effect_into(effect, False, child_path(idx_path, "effect"), errs)
        if key in seen.get(effect, ()):
            errs.append(duplicate(idx_path, go_taint(taint), "taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)


def validate_tolerations_into(tolerations: list, path: str, errs: Errors) -> None:
    """``ValidateTolerations``."""
    for i, toleration in enumerate(tolerations):
        idx_path = index_path(path, i)
        key, operator = str_at(toleration, "key"), str_at(toleration, "operator")
        value, effect = str_at(toleration, "value"), str_at(toleration, "effect")
        if key:
            _validate_label_name(key, child_path(idx_path, "key"), errs)
        # an empty key with Exists (and no value) is the "tolerate everything" toleration
        if not key and operator != "Exists":
            errs.append(
                invalid(
                    child_path(idx_path, "operator"),
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if get_at(toleration, "tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(
                invalid(
                    child_path(idx_path, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"
                )
            )
        if operator in ("Equal", ""):  # an empty operator means Equal
            value_errs = label_value_errors(value)
            if value_errs:
                # Reported on .operator, not .value — as upstream does.
                errs.append(invalid(child_path(idx_path, "operator"), value, ";".join(value_errs)))
        elif operator == "Exists":
            if value:
                # Upstream passes the whole toleration as the bad value.
                errs.append(
                    invalid(
                        child_path(idx_path, "operator"),
                        go_toleration(toleration),
                        "value must be empty when `operator` is 'Exists'",
                    )
                )
        else:
            errs.append(not_supported(child_path(idx_path, "operator"), operator, ("Equal", "Exists")))
        if effect:  # an empty effect matches all effects
            validate_taint_effect_into(effect, True, child_path(idx_path, "effect"), errs)


# --- resources ---------------------------------------------------------------

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended_resource(name: str) -> bool:
    """Anything fully qualified outside kubernetes.io, e.g. ``nvidia.com/gpu``."""
    if _is_native_resource(name) or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or _is_extended_resource(name)


def _overcommit_allowed(name: str) -> bool:
    """Extended resources and hugepages need requests == limits."""
    return _is_native_resource(name) and not is_hugepages(name)


def _validate_resource_name(name: str, path: str, errs: Errors) -> bool:
    """``validateResourceName``; returns False when it reported something."""
    msgs = qualified_name_errors(name)
    for msg in msgs:
        errs.append(invalid(path, name, msg))
    if msgs:
        return False
    standard = name in _STANDARD_RESOURCES or is_hugepages(name) or name.startswith("requests.hugepages-")
    if "/" not in name and not standard:
        errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
        return False
    return True


def _validate_container_resource_name(name: str, path: str, errs: Errors) -> None:
    _validate_resource_name(name, path, errs)
    if len(name.split("/")) == 1:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native_resource(name) and not _is_extended_resource(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))


def parse_resource(raw: object, path: str, errs: Errors) -> quantity.Quantity | None:
    """Decode a ResourceList entry and round it up to milli, as defaulting does.

    Departure (see module docstring): a malformed quantity is reported here as
    an Invalid value rather than as upstream's whole-request decode error.
    """
    try:
        q, too_large = _rounded_up(raw)
    except quantity.QuantityError as exc:
        bad = raw if isinstance(raw, (str, int, float, bool)) else GoValue(json_excerpt(raw))
        errs.append(invalid(path, bad, exc.message))
        return None
    if too_large:
        # Departure: Go keeps such a decimal quantity but its MilliValue() overflows int64;
        # the scheduler counts in milli-units, so it is refused here.
        errs.append(invalid(path, raw, QUANTITY_TOO_LARGE_MSG))
        return None
    return q


def _rounded_up(raw: object) -> tuple[quantity.Quantity, bool]:
    """(quantity.parse(raw).round_up(-3), whether it is beyond MAX_QUANTITY), remembered per
    spelling (a file's thousands of pods ask for the same few amounts). Raises QuantityError."""
    hit = _ROUNDED.get(raw) if type(raw) is str else None
    if hit is None:
        q = quantity.parse(raw).round_up(-3)
        hit = (q, abs(q.value) > MAX_QUANTITY)
        if type(raw) is str:
            if len(_ROUNDED) >= _ROUNDED_MAX:
                _ROUNDED.clear()
            _ROUNDED[raw] = hit
    return hit


_ROUNDED: dict[str, tuple[quantity.Quantity, bool]] = {}
_ROUNDED_MAX = 4096

MAX_QUANTITY = Fraction(2**63 - 1, 1000)  # the largest quantity whose MilliValue() fits an int64
QUANTITY_TOO_LARGE_MSG = "must be no more than 9223372036854775807m (the scheduler counts in 64-bit milli-units)"


def validate_quantity_value(name: str, q: quantity.Quantity, path: str, errs: Errors) -> None:
    """``ValidateResourceQuantityValue``."""
    if q.value < 0:
        errs.append(invalid(path, q.string(), IS_NEGATIVE_ERROR_MSG))
    if _is_integer_resource(name) and q.milli_value() % 1000 != 0:
        # Go passes the Quantity itself, which prints as a %#v dump.
        errs.append(invalid(path, GoValue(q.go_repr()), "must be an integer"))


def _validate_resource_requirements(resources: dict, path: str, errs: Errors) -> None:
    """``ValidateResourceRequirements`` (limits first, then requests)."""
    lim_path, req_path = child_path(path, "limits"), child_path(path, "requests")
    raw_limits = dict_at(resources, "limits")
    limits: dict[str, quantity.Quantity] = {}
    lim_cpu_mem = req_cpu_mem = lim_huge = req_huge = False
    for name, raw in raw_limits.items():
        fld = key_path(lim_path, name)
        _validate_container_resource_name(name, fld, errs)
        q = parse_resource(raw, fld, errs)
        if q is None:
            continue
        limits[name] = q
        validate_quantity_value(name, q, fld, errs)
        lim_huge = lim_huge or is_hugepages(name)
        lim_cpu_mem = lim_cpu_mem or name in ("cpu", "memory")
    for name, raw in dict_at(resources, "requests").items():
        fld = key_path(req_path, name)
        _validate_container_resource_name(name, fld, errs)
        q = parse_resource(raw, fld, errs)
        if q is None:
            continue
        validate_quantity_value(name, q, fld, errs)
        limit = limits.get(name)
        if limit is not None:
            # non-overcommitable resources (extended, hugepages) need requests == limits
            if q.value != limit.value and not _overcommit_allowed(name):
                errs.append(invalid(req_path, q.string(), f"must be equal to {name} limit"))
            elif q.value > limit.value:
                errs.append(invalid(req_path, q.string(), f"must be less than or equal to {name} limit"))
        elif name not in raw_limits and not _overcommit_allowed(name):
            errs.append(required_value(lim_path, "Limit must be set for non overcommitable resources"))
        req_huge = req_huge or is_hugepages(name)
        req_cpu_mem = req_cpu_mem or name in ("cpu", "memory")
    if not lim_cpu_mem and not req_cpu_mem and (req_huge or lim_huge):
        errs.append(forbidden(path, "HugePages require cpu or memory"))


# --- affinity ----------------------------------------------------------------


def _validate_node_selector_requirement(req: dict, path: str, errs: Errors) -> None:
    operator = str_at(req, "operator")
    values = list_at(req, "values")
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(required_value(child_path(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(child_path(path, "values"), _EXISTS_VALUES_FORBIDDEN))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                required_value(child_path(path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
            )
    else:
        errs.append(invalid(child_path(path, "operator"), operator, "not a valid selector operator"))
    _validate_label_name(str_at(req, "key"), child_path(path, "key"), errs)


def _validate_node_field_selector_requirement(req: dict, path: str, errs: Errors) -> None:
    """matchFields (new in 1.11): only ``metadata.name`` In/NotIn one node name."""
    operator = str_at(req, "operator")
    values = list_at(req, "values")
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required_value(
                    child_path(path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    else:
        errs.append(invalid(child_path(path, "operator"), operator, "not a valid selector operator"))
    key = str_at(req, "key")
    if key != "metadata.name":
        errs.append(invalid(child_path(path, "key"), key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            for msg in name_is_dns_subdomain(as_str(value), False):
                errs.append(invalid(index_path(child_path(path, "values"), i), as_str(value), msg))


def _validate_node_selector_term(term: dict, path: str, errs: Errors) -> None:
    # No "must have at least one node selector requirement" check: 1.11 dropped
    # it (kubernetes#62448), an empty term simply matches no node.
    for j, req in enumerate(list_at(term, "matchExpressions")):
        _validate_node_selector_requirement(req, index_path(child_path(path, "matchExpressions"), j), errs)
    for j, req in enumerate(list_at(term, "matchFields")):
        _validate_node_field_selector_requirement(req, index_path(child_path(path, "matchFields"), j), errs)


def validate_node_selector(selector: dict, path: str, errs: Errors) -> None:
    terms_path = child_path(path, "nodeSelectorTerms")
    terms = list_at(selector, "nodeSelectorTerms")
    if not terms:
        errs.append(required_value(terms_path, "must have at least one node selector term"))
        return
    for i, term in enumerate(terms):
        _validate_node_selector_term(term, index_path(terms_path, i), errs)


def _validate_weight(weight: object, path: str, errs: Errors) -> None:
    weight = as_int(weight)
    if weight <= 0 or weight > 100:
        errs.append(invalid(path, weight, "must be in the range 1-100"))


def _validate_pod_affinity_term(term: dict, path: str, errs: Errors) -> None:
    # Upstream validates the label selector under a ".matchExpressions" child,
    # so errors read "...[0].matchExpressions.matchExpressions[0].operator".
    validate_label_selector(get_at(term, "labelSelector"), child_path(path, "matchExpressions"), errs)
    for name in list_at(term, "namespaces"):
        for msg in dns1123_label_errors(as_str(name)):
            errs.append(invalid(child_path(path, "namespace"), as_str(name), msg))
    topology_key = str_at(term, "topologyKey")
    if not topology_key:
        errs.append(required_value(child_path(path, "topologyKey"), "can not be empty"))
    _validate_label_name(topology_key, child_path(path, "topologyKey"), errs)


def _validate_pod_affinity(affinity: dict, path: str, errs: Errors) -> None:
    required_path = child_path(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(list_at(affinity, "requiredDuringSchedulingIgnoredDuringExecution")):
        _validate_pod_affinity_term(term, index_path(required_path, i), errs)
    preferred_path = child_path(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(list_at(affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
        _validate_weight(get_at(weighted, "weight", 0), child_path(index_path(preferred_path, i), "weight"), errs)
        _validate_pod_affinity_term(
            dict_at(weighted, "podAffinityTerm"), child_path(index_path(preferred_path, i), "podAffinityTerm"), errs
        )


def _validate_affinity(affinity: dict, path: str, errs: Errors) -> None:
    node_affinity = get_at(affinity, "nodeAffinity")
    if isinstance(node_affinity, dict):
        na_path = child_path(path, "nodeAffinity")
        required = get_at(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            validate_node_selector(required, child_path(na_path, "requiredDuringSchedulingIgnoredDuringExecution"), errs)
        preferred_path = child_path(na_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(list_at(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")):
            _validate_weight(get_at(term, "weight", 0), child_path(index_path(preferred_path, i), "weight"), errs)
            term_path = index_path(preferred_path, i)
            _validate_node_selector_term(dict_at(term, "preference"), child_path(term_path, "preference"), errs)
    for name in ("podAffinity", "podAntiAffinity"):
        pod_affinity = get_at(affinity, name)
        if isinstance(pod_affinity, dict):
            _validate_pod_affinity(pod_affinity, child_path(path, name), errs)


# ==========================================================================
# 7. Pods and pod templates
# ==========================================================================

SUPPORTED_PROTOCOLS = ("TCP", "UDP")  # SCTP arrived in 1.12
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_MAX_INT32 = 2**31 - 1


def _validate_container_ports(ports: list, path: str, errs: Errors) -> None:
    names: set[str] = set()
    for i, port in enumerate(ports):
        idx_path = index_path(path, i)
        name = str_at(port, "name")
        if name:
            msgs = is_valid_port_name(name)
            for msg in msgs:
                errs.append(invalid(child_path(idx_path, "name"), name, msg))
            if not msgs:
                if name in names:
                    errs.append(duplicate(child_path(idx_path, "name"), name))
                else:
                    names.add(name)
        container_port = as_int(get_at(port, "containerPort", 0))
        if container_port == 0:
            errs.append(required_value(child_path(idx_path, "containerPort")))
        else:
            for msg in is_valid_port_num(container_port):
                errs.append(invalid(child_path(idx_path, "containerPort"), container_port, msg))
        host_port = as_int(get_at(port, "hostPort", 0))
        if host_port != 0:
            for msg in is_valid_port_num(host_port):
                errs.append(invalid(child_path(idx_path, "hostPort"), host_port, msg))
        protocol = str_at(port, "protocol")  # "" is defaulted to TCP
        if protocol and protocol not in SUPPORTED_PROTOCOLS:
            errs.append(not_supported(child_path(idx_path, "protocol"), protocol, SUPPORTED_PROTOCOLS))


def _check_host_port_conflicts(containers: list, path: str, errs: Errors) -> None:
    seen: set[str] = set()
    for ci, container in enumerate(containers):
        for pi, port in enumerate(list_at(container, "ports")):
            host_port = as_int(get_at(port, "hostPort", 0))
            if host_port == 0:
                continue
            key = f"{str_at(port, 'protocol') or 'TCP'}/{str_at(port, 'hostIP')}/{host_port}"
            if key in seen:
                errs.append(duplicate(child_path(index_path(child_path(index_path(path, ci), "ports"), pi), "hostPort"), key))
            else:
                seen.add(key)


def _validate_containers(containers: list, is_init: bool, path: str, errs: Errors) -> None:
    if not containers:
        errs.append(required_value(path))
        return
    names: set[str] = set()
    for i, container in enumerate(containers):
        idx_path = index_path(path, i)
        name_path = child_path(idx_path, "name")
        name = str_at(container, "name")
        if not name:
            errs.append(required_value(name_path))
        else:
            for msg in dns1123_label_errors(name):
                errs.append(invalid(name_path, name, msg))
        if name in names:
            errs.append(duplicate(name_path, name))
        else:
            names.add(name)
        if not str_at(container, "image"):
            errs.append(required_value(child_path(idx_path, "image")))
        policy = str_at(container, "terminationMessagePolicy")
        if policy and policy not in ("File", "FallbackToLogsOnError"):
            errs.append(
                invalid(
                    child_path(idx_path, "terminationMessagePolicy"), policy, "must be 'File' or 'FallbackToLogsOnError'"
                )
            )
        _validate_container_ports(list_at(container, "ports"), child_path(idx_path, "ports"), errs)
        pull = str_at(container, "imagePullPolicy")
        if pull and pull not in _PULL_POLICIES:
            errs.append(not_supported(child_path(idx_path, "imagePullPolicy"), pull, _PULL_POLICIES))
        _validate_resource_requirements(dict_at(container, "resources"), child_path(idx_path, "resources"), errs)
    if is_init:
        # init containers run one after the other, so only conflicts within one count
        for i, container in enumerate(containers):
            _check_host_port_conflicts([container], path, errs)
    else:
        _check_host_port_conflicts(containers, path, errs)


def _validate_init_containers(init: list, containers: list, path: str, errs: Errors) -> None:
    if init:
        _validate_containers(init, True, path, errs)
    names = {str_at(c, "name") for c in containers}
    for i, container in enumerate(init):
        name = str_at(container, "name")
        if name in names:
            errs.append(duplicate(child_path(index_path(path, i), "name"), name))
        if name:
            names.add(name)


def validate_pod_spec(spec: dict, path: str, errs: Errors) -> None:
    """``ValidatePodSpec`` (the parts that matter for scheduling), upstream order."""
    containers = list_at(spec, "containers")
    containers_path = child_path(path, "containers")
    _validate_containers(containers, False, containers_path, errs)
    _validate_init_containers(list_at(spec, "initContainers"), containers, child_path(path, "initContainers"), errs)
    restart = str_at(spec, "restartPolicy")
    if restart and restart not in _RESTART_POLICIES:
        errs.append(not_supported(child_path(path, "restartPolicy"), restart, _RESTART_POLICIES))
    dns = str_at(spec, "dnsPolicy")
    if dns and dns not in _DNS_POLICIES:
        errs.append(not_supported(child_path(path, "dnsPolicy"), dns, _DNS_POLICIES))
    validate_labels(dict_at(spec, "nodeSelector"), child_path(path, "nodeSelector"), errs)
    if get_at(spec, "hostNetwork") is True:
        # a missing hostPort is defaulted to the containerPort
        for i, container in enumerate(containers):
            for j, port in enumerate(list_at(container, "ports")):
                container_port = as_int(get_at(port, "containerPort", 0))
                host_port = as_int(get_at(port, "hostPort", container_port))
                if host_port != container_port:
                    errs.append(
                        invalid(
                            child_path(index_path(child_path(index_path(containers_path, i), "ports"), j), "containerPort"),
                            container_port,
                            "must match `hostPort` when `hostNetwork` is true",
                        )
                    )
    affinity = get_at(spec, "affinity")
    if isinstance(affinity, dict):
        _validate_affinity(affinity, child_path(path, "affinity"), errs)
    for field, name_fn in (("serviceAccountName", name_is_dns_subdomain), ("nodeName", name_is_dns_subdomain)):
        value = str_at(spec, field)
        if value:
            for msg in name_fn(value, False):
                errs.append(invalid(child_path(path, field), value, msg))
    deadline = get_at(spec, "activeDeadlineSeconds")
    if deadline is not None and not 1 <= as_int(deadline) <= _MAX_INT32:
        errs.append(
            invalid(child_path(path, "activeDeadlineSeconds"), as_int(deadline), inclusive_range_error(1, _MAX_INT32))
        )
    for field in ("hostname", "subdomain"):
        value = str_at(spec, field)
        if value:
            for msg in dns1123_label_errors(value):
                errs.append(invalid(child_path(path, field), value, msg))
    tolerations = list_at(spec, "tolerations")
    if tolerations:
        validate_tolerations_into(tolerations, child_path(path, "tolerations"), errs)
    priority_class = str_at(spec, "priorityClassName")
    if priority_class:
        for msg in dns1123_subdomain_errors(priority_class):
            errs.append(invalid(child_path(path, "priorityClassName"), priority_class, msg))
    # schedulerName is defaulted ("default-scheduler") and not validated in 1.11;
    # spec.priority is checked by the Priority admission plugin, not here.


def validate_pod_template_spec(template: dict, path: str, errs: Errors) -> None:
    """``ValidatePodTemplateSpec``: note labels are reported at ``<path>.labels``
    (e.g. ``spec.template.labels``), not ``.metadata.labels``."""
    meta = dict_at(template, "metadata")
    validate_labels(dict_at(meta, "labels"), child_path(path, "labels"), errs)
    validate_annotations(dict_at(meta, "annotations"), child_path(path, "annotations"), errs)
    validate_pod_spec(dict_at(template, "spec"), child_path(path, "spec"), errs)


def template_restart_and_deadline(template: dict, path: str, errs: Errors) -> None:
    spec = dict_at(template, "spec")
    restart = str_at(spec, "restartPolicy") or "Always"
    if restart != "Always":
        errs.append(not_supported(child_path(path, "spec.restartPolicy"), restart, ("Always",)))
    deadline = get_at(spec, "activeDeadlineSeconds")
    if deadline is not None:
        errs.append(invalid(child_path(path, "spec.activeDeadlineSeconds"), as_int(deadline), "must not be specified"))


def selector_mismatch(template: dict) -> FieldError:
    """The template labels print as a Go map dump (``map[string]string(nil)`` when absent)."""
    labels = get_at(dict_at(template, "metadata"), "labels")
    value = GoValue(go_string_map(labels if isinstance(labels, dict) else None))
    return invalid("spec.template.metadata.labels", value, "`selector` does not match template `labels`")


def _defaults_selector_from_template(api_version: str) -> bool:
    """extensions/v1beta1 and apps/v1beta1 default a missing selector to the
    template's labels; apps/v1beta2 and apps/v1 require it."""
    return api_version.startswith("extensions/") or api_version == "apps/v1beta1"


def workload_selector(doc: dict) -> object:
    spec = dict_at(doc, "spec")
    selector = get_at(spec, "selector")
    if selector is None and _defaults_selector_from_template(str_at(doc, "apiVersion")):
        labels = get_at(dict_at(dict_at(spec, "template"), "metadata"), "labels")
        if isinstance(labels, dict) and labels:
            return {"matchLabels": labels}
    return selector
