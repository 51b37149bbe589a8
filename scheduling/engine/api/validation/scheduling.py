"""The scheduling.k8s.io group: PriorityClass (pkg/apis/scheduling/validation).
"""

from __future__ import annotations


from scheduling.engine.api.validation.field import (
    Errors,
    as_int,
    dict_at,
    forbidden,
    get_at,
    name_is_dns_subdomain,
    str_at,
)
from scheduling.engine.api.validation.common import (
    validate_object_meta,
)


SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": SYSTEM_CRITICAL_PRIORITY + 1000,
    "system-cluster-critical": SYSTEM_CRITICAL_PRIORITY,
}


def validate_priority_class(doc: dict, errs: Errors) -> None:
    """``ValidatePriorityClass``.  A missing ``value`` decodes as 0 and is not an error."""
    validate_object_meta(dict_at(doc, "metadata"), False, name_is_dns_subdomain, errs)
    name = str_at(dict_at(doc, "metadata"), "name")
    value = as_int(get_at(doc, "value", 0))
    global_default = get_at(doc, "globalDefault") is True
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        problem = None
        if name not in SYSTEM_PRIORITY_CLASSES:
            problem = f"{name} is not a known system priority class"
        elif value != SYSTEM_PRIORITY_CLASSES[name]:
            problem = f"value of {name} PriorityClass must be {SYSTEM_PRIORITY_CLASSES[name]}"
        elif global_default:
            problem = f"globalDefault of {name} PriorityClass must be false"
        if problem:
            errs.append(
                forbidden(
                    "metadata.name",
                    f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use "
                    f"only. error: {problem}",
                )
            )
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        errs.append(forbidden("value", detail))
