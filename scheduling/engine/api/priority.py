"""Pod priority: the Priority admission plugin (plugin/pkg/admission/priority, 1.11).

A pod's priority is `spec.priority` when given (the simulate contract: "used as is"), otherwise the value
of its `priorityClassName` (the two system classes first, then the PriorityClass objects),
otherwise the value of the globalDefault class (the lowest one if several claim it, as
`getDefaultPriorityClass` does), otherwise 0. An unknown class name is rejected the way the
API server rejects the pod: `pods "<name>" is forbidden: no PriorityClass with name <x> was
found`.

Pods in kube-system with the `scheduler.alpha.kubernetes.io/critical-pod` annotation and no
class get system-cluster-critical (the OpenShift 3.11 priority documentation: "existing pods with the
scheduler.alpha.kubernetes.io/critical-pod annotation are automatically converted").

Works on documents (before `Pod.from_doc`), because an absent `spec.priority` and an
explicit 0 differ here.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scheduling.engine.api.objects import SYSTEM_PRIORITY_CLASSES, PriorityClass

DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
CRITICAL_POD_ANNOTATION = "scheduler.alpha.kubernetes.io/critical-pod"
SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"


class AdmissionError(ValueError):
    """An admission plugin rejected an object; str() is the API server's message."""


def default_priority(classes: Iterable[PriorityClass]) -> int:
    default: PriorityClass | None = None
    for pc in classes:
        if pc.global_default and (default is None or pc.value < default.value):
            default = pc
    return default.value if default is not None else DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS


def resolve_priority(pod_doc: Mapping[str, Any], classes: Iterable[PriorityClass]) -> int:
    """The priority the admission plugin gives this pod document."""
    spec = pod_doc.get("spec") or {}
    if spec.get("priority") is not None:
        return int(spec["priority"])
    classes = list(classes)
    name = _class_name(pod_doc)
    if not name:
        return default_priority(classes)
    for pc in SYSTEM_PRIORITY_CLASSES:
        if pc.name == name:
            return pc.value
    for pc in classes:
        if pc.name == name:
            return pc.value
    pod_name = (pod_doc.get("metadata") or {}).get("name") or ""
    raise AdmissionError(f'pods "{pod_name}" is forbidden: no PriorityClass with name {name} was found')


def _class_name(pod_doc: Mapping[str, Any]) -> str:
    spec = pod_doc.get("spec") or {}
    name = spec.get("priorityClassName") or ""
    meta = pod_doc.get("metadata") or {}
    if not name and meta.get("namespace") == "kube-system" and CRITICAL_POD_ANNOTATION in (meta.get("annotations") or {}):
        name = SYSTEM_CLUSTER_CRITICAL
    return name


def priority_admission(doc: Mapping[str, Any], classes: Iterable[PriorityClass]) -> dict:
    """Admit a Pod document: a copy with `spec.priority` (and the critical-pod class) set.

    Other kinds are returned unchanged (as a copy). Only spec fields are set: the document
    and its spec are copied, what is under them shared (admission.admit copies the whole
    document once)."""
    out = dict(doc)
    if "spec" in out:
        out["spec"] = dict(out["spec"] or {})
    if out.get("kind") != "Pod":
        return out
    priority = resolve_priority(out, classes)
    spec = out.setdefault("spec", {})
    name = _class_name(out)
    if name and not spec.get("priorityClassName"):
        spec["priorityClassName"] = name
    spec["priority"] = priority
    return out
