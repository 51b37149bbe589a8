"""The OpenShift kinds (machine.openshift.io, config.openshift.io, machineconfiguration.openshift.io)
are custom resources: the API server checks them against their CRD's OpenAPI schema, not with
Go types. This is the part of those schemas (openshift/api, the types the CRDs are generated
from) that covers every field the engine reads, with the server's messages::

    spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"

As for a structural schema, a null in a field that is not nullable is pruned (as if absent)
and fields the schema does not list are kept as they are (the engine does not read them).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from scheduling.engine.api.validation.field import Errors, FieldError, invalid, not_supported, required_value

# A schema node: "string" | "integer" | "boolean" | "int-or-string" | "object" (any object)
# | "time" (a date-time string, or clusterui's seconds on the simulated clock)
# | ("object", {field: node}) | ("map", node) | ("array", node)
_STR_MAP = ("map", "string")
_LABEL_SELECTOR = ("object", {
    "matchLabels": _STR_MAP,
    "matchExpressions": ("array", ("object", {"key": "string", "operator": "string", "values": ("array", "string")})),
})
_HOOKS = ("array", ("object", {"name": "string", "owner": "string"}))
_MACHINE_SPEC = ("object", {
    "metadata": ("object", {"labels": _STR_MAP, "annotations": _STR_MAP, "name": "string", "namespace": "string"}),
    "lifecycleHooks": ("object", {"preDrain": _HOOKS, "preTerminate": _HOOKS}),
    "taints": ("array", ("object", {"key": "string", "value": "string", "effect": "string", "timeAdded": "string"})),
    "providerSpec": ("object", {"value": "object"}),
    "providerID": "string",
    "authoritativeAPI": "string",
})
_MACHINE_STATUS = ("object", {
    "nodeRef": ("object", {"kind": "string", "name": "string", "namespace": "string", "uid": "string"}),
    "phase": "string",
    "errorReason": "string",
    "errorMessage": "string",
    "providerStatus": "object",
    "addresses": ("array", ("object", {"type": "string", "address": "string"})),
})
_TEMPLATE = ("object", {
    "metadata": ("object", {"labels": _STR_MAP, "annotations": _STR_MAP}),
    "spec": _MACHINE_SPEC,
})
SCHEMAS: dict[str, dict] = {
    "Machine": {"spec": _MACHINE_SPEC, "status": _MACHINE_STATUS},
    "MachineSet": {
        "spec": ("object", {
            "replicas": "integer",
            "minReadySeconds": "integer",
            "deletePolicy": "string",
            "selector": _LABEL_SELECTOR,
            "template": _TEMPLATE,
        }),
        "status": ("object", {
            "replicas": "integer", "fullyLabeledReplicas": "integer", "readyReplicas": "integer",
            "availableReplicas": "integer", "observedGeneration": "integer",
        }),
    },
    "MachineHealthCheck": {
        "spec": ("object", {
            "selector": _LABEL_SELECTOR,
            "unhealthyConditions": ("array", ("object", {"type": "string", "status": "string", "timeout": "string"})),
            "maxUnhealthy": "int-or-string",
            "nodeStartupTimeout": "string",
            "remediationTemplate": "object",
        }),
        "status": ("object", {"expectedMachines": "integer", "currentHealthy": "integer", "remediationsAllowed": "integer"}),
    },
}


_CONDITIONS = ("array", ("object", {
    "type": "string", "status": "string", "lastTransitionTime": "time", "reason": "string", "message": "string",
}))
_RELEASE = ("object", {"version": "string", "image": "string", "url": "string", "channels": ("array", "string")})
_POOL_CONFIGURATION = ("object", {
    "name": "string", "source": ("array", ("object", {"apiVersion": "string", "kind": "string", "name": "string"})),
})
SCHEMAS.update({
    "ClusterVersion": {
        "spec": ("object", {
            "clusterID": "string", "channel": "string", "upstream": "string",
            "desiredUpdate": ("object", {"version": "string", "image": "string", "force": "boolean", "architecture": "string"}),
            "overrides": ("array", ("object", {"kind": "string", "group": "string", "namespace": "string", "name": "string",
                                               "unmanaged": "boolean"})),
        }),
        "status": ("object", {
            "desired": _RELEASE,
            "history": ("array", ("object", {"state": "string", "startedTime": "time", "completionTime": "time",
                                             "version": "string", "image": "string", "verified": "boolean"})),
            "observedGeneration": "integer", "versionHash": "string", "conditions": _CONDITIONS,
            "availableUpdates": ("array", _RELEASE),
            "conditionalUpdates": ("array", ("object", {"release": _RELEASE, "conditions": _CONDITIONS})),
        }),
    },
    "ClusterOperator": {
        "status": ("object", {
            "conditions": _CONDITIONS,
            "versions": ("array", ("object", {"name": "string", "version": "string"})),
        }),
    },
    "MachineConfigPool": {
        "spec": ("object", {
            "machineConfigSelector": _LABEL_SELECTOR, "nodeSelector": _LABEL_SELECTOR, "paused": "boolean",
            "maxUnavailable": "int-or-string", "configuration": _POOL_CONFIGURATION,
        }),
        "status": ("object", {
            "observedGeneration": "integer", "machineCount": "integer", "updatedMachineCount": "integer",
            "readyMachineCount": "integer", "unavailableMachineCount": "integer", "degradedMachineCount": "integer",
            "configuration": _POOL_CONFIGURATION, "conditions": _CONDITIONS,
        }),
    },
    "MachineConfig": {
        "spec": ("object", {
            "config": "object", "osImageURL": "string", "kernelType": "string", "fips": "boolean",
            "kernelArguments": ("array", "string"), "extensions": ("array", "string"),
        }),
    },
})


# The Kube Descheduler Operator's KubeDescheduler (operator.openshift.io/v1; openshift/cluster-kube-
# descheduler-operator, manifests/kube-descheduler-operator.crd.yaml): its schema's types, then
# its enums, minimum, maxItems and x-kubernetes-validations (kube_descheduler_rules).
SCHEMAS["KubeDescheduler"] = {
    "spec": ("object", {
        "deschedulingIntervalSeconds": "integer", "mode": "string", "profiles": ("array", "string"),
        "managementState": "string", "logLevel": "string", "operatorLogLevel": "string",
        "evictionLimits": ("object", {"total": "integer", "node": "integer"}),
        "profileCustomizations": ("object", {
            "podLifetime": "string", "thresholdPriority": "integer", "thresholdPriorityClassName": "string",
            "namespaces": ("object", {"included": ("array", "string"), "excluded": ("array", "string")}),
            "devLowNodeUtilizationThresholds": "string", "devHighNodeUtilizationThresholds": "string",
            "devEnableEvictionsInBackground": "boolean", "devEnableSoftTainter": "boolean",
            "devDeviationThresholds": "string", "devActualUtilizationProfile": "string",
        }),
    }),
    "status": ("object", {"conditions": _CONDITIONS, "observedGeneration": "integer", "readyReplicas": "integer",
                          "generations": ("array", "object")}),
}
KUBE_DESCHEDULER_NAME = "cluster"
KUBE_DESCHEDULER_MODES = ("Automatic", "Predictive")
KUBE_DESCHEDULER_PROFILES = (
    "AffinityAndTaints", "TopologyAndDuplicates", "LifecycleAndUtilization", "DevPreviewLongLifecycle", "LongLifecycle",
    "SoftTopologyAndDuplicates", "EvictPodsWithLocalStorage", "EvictPodsWithPVC", "CompactAndScale",
    "DevKubeVirtRelieveAndMigrate", "KubeVirtRelieveAndMigrate")
# the x-kubernetes-validations on spec.profiles: (a, b) may not be declared together
KUBE_DESCHEDULER_EXCLUSIVE = (
    ("DevPreviewLongLifecycle", "LifecycleAndUtilization"), ("LongLifecycle", "LifecycleAndUtilization"),
    ("DevPreviewLongLifecycle", "DevKubeVirtRelieveAndMigrate"), ("LongLifecycle", "DevKubeVirtRelieveAndMigrate"),
    ("LifecycleAndUtilization", "DevKubeVirtRelieveAndMigrate"), ("KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate"),
    ("DevPreviewLongLifecycle", "KubeVirtRelieveAndMigrate"), ("LongLifecycle", "KubeVirtRelieveAndMigrate"),
    ("LifecycleAndUtilization", "KubeVirtRelieveAndMigrate"), ("SoftTopologyAndDuplicates", "TopologyAndDuplicates"),
    ("CompactAndScale", "LifecycleAndUtilization"), ("CompactAndScale", "LongLifecycle"),
    ("CompactAndScale", "DevPreviewLongLifecycle"), ("CompactAndScale", "DevKubeVirtRelieveAndMigrate"),
    ("CompactAndScale", "KubeVirtRelieveAndMigrate"), ("CompactAndScale", "TopologyAndDuplicates"))


def kube_descheduler_rules(doc: Mapping[str, Any], errs: Errors) -> None:
    """The KubeDescheduler CRD's checks beyond types, worded as the API server words them:
    the singleton rule (`.metadata.name` must be `cluster`), `spec` required, the enums of
    `spec.mode` and `spec.profiles`, `deschedulingIntervalSeconds` >= 1, at most 11
    profiles, no duplicates, and the pairs of profiles that may not be declared together."""
    if (doc.get("metadata") or {}).get("name") != KUBE_DESCHEDULER_NAME:
        errs.append(invalid("metadata", "object", "kubedescheduler is a singleton, .metadata.name must be 'cluster'"))
    spec = doc.get("spec")
    if not isinstance(spec, Mapping):
        errs.append(required_value("spec"))
        return
    mode = spec.get("mode")
    if isinstance(mode, str) and mode not in KUBE_DESCHEDULER_MODES:
        errs.append(not_supported("spec.mode", mode, KUBE_DESCHEDULER_MODES))
    interval = spec.get("deschedulingIntervalSeconds")
    if isinstance(interval, int) and not isinstance(interval, bool) and interval < 1:
        errs.append(invalid("spec.deschedulingIntervalSeconds", interval,
                            "spec.deschedulingIntervalSeconds in body should be greater than or equal to 1"))
    profiles = spec.get("profiles") or []
    if not isinstance(profiles, list):
        return
    for i, p in enumerate(profiles):
        if p not in KUBE_DESCHEDULER_PROFILES:
            errs.append(not_supported(f"spec.profiles[{i}]", p, KUBE_DESCHEDULER_PROFILES))
    if len(profiles) > 11:
        errs.append(FieldError("Too many", "spec.profiles", len(profiles), "must have at most 11 items"))
    if len(set(map(str, profiles))) != len(profiles):
        errs.append(invalid("spec.profiles", "array", "duplicate profiles are not allowed"))
    for a, b in KUBE_DESCHEDULER_EXCLUSIVE:
        if a in profiles and b in profiles:
            errs.append(invalid("spec.profiles", "array", f"cannot declare {a} and {b} profiles simultaneously"))


# kind -> the CRD's rules beyond its schema's types (enums, minimums, x-kubernetes-validations)
RULES: dict[str, Callable[[Mapping[str, Any], Errors], None]] = {"KubeDescheduler": kube_descheduler_rules}


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _wants(node) -> str:
    if isinstance(node, tuple):
        return "object" if node[0] in ("object", "map") else "array"
    return {"int-or-string": "integer,string", "time": "string,integer,number"}.get(node, node)


def _walk(value, node, path: str, errs: Errors):
    """`value` with the nulls of object fields pruned; a wrong type appended to `errs`."""
    got, want = _json_type(value), _wants(node)
    if got not in want.split(","):
        shown = "string" if node == "time" else want  # date-time strings (clusterui also takes seconds)
        errs.append(invalid(path, got, f'{path} in body must be of type {shown}: "{got}"'))
        return value
    if not isinstance(node, tuple):
        return value
    shape, inner = node
    if shape == "object":
        return {
            key: (_walk(item, inner[key], f"{path}.{key}", errs) if key in inner else item)
            for key, item in value.items() if item is not None
        }
    if shape == "map":
        return {key: _walk(item, inner, f"{path}.{key}", errs) for key, item in value.items()}
    return [_walk(item, inner, f"{path}[{i}]", errs) for i, item in enumerate(value)]


def check_custom_resource(doc: dict, errs: Errors) -> dict:
    """The document as the server keeps it (nulls pruned); type errors in `errs`."""
    fields = SCHEMAS.get(doc.get("kind"))
    if fields is None:
        return doc
    out = dict(doc)
    for key, node in fields.items():
        if key in doc:
            if doc[key] is None:
                del out[key]
            else:
                out[key] = _walk(doc[key], node, key, errs)
    rules = RULES.get(doc.get("kind"))
    if rules is not None:
        rules(out, errs)
    return out
