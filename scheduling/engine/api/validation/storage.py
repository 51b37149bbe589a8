"""The storage.k8s.io group: StorageClass (pkg/apis/storage/validation).
"""

from __future__ import annotations


from scheduling.engine.api.validation.field import (
    Errors,
    as_str,
    byte_len,
    dict_at,
    invalid,
    name_is_dns_subdomain,
    not_supported,
    qualified_name_errors,
    required_value,
    str_at,
    too_long,
)
from scheduling.engine.api.validation.common import (
    validate_object_meta,
)


def validate_storage_class(doc: dict, errs: Errors) -> None:
    validate_object_meta(dict_at(doc, "metadata"), False, name_is_dns_subdomain, errs)
    provisioner = str_at(doc, "provisioner")
    if not provisioner:
        errs.append(required_value("provisioner"))
    else:
        for msg in qualified_name_errors(provisioner.lower()):
            errs.append(invalid("provisioner", provisioner, msg))
    parameters = dict_at(doc, "parameters")
    if len(parameters) > 512:
        errs.append(too_long("parameters", "Provisioner Parameters exceeded max allowed", 512))
    else:
        total = 0
        for key, value in parameters.items():
            if not key:
                errs.append(invalid("parameters", key, "field can not be empty."))
            total += byte_len(key) + byte_len(as_str(value))
        if total > 256 * (1 << 10):
            errs.append(too_long("parameters", "", 256 * (1 << 10)))
    policy = str_at(doc, "reclaimPolicy")
    if policy and policy not in ("Delete", "Retain"):
        errs.append(not_supported("reclaimPolicy", policy, ("Delete", "Retain")))
    mode = str_at(doc, "volumeBindingMode")
    if mode and mode not in ("Immediate", "WaitForFirstConsumer"):
        errs.append(not_supported("volumeBindingMode", mode, ("Immediate", "WaitForFirstConsumer")))
