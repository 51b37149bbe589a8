"""Label selectors (through engine.api.selectors) and the field selectors `oc get`
supports (`metadata.name`, `metadata.namespace`, `spec.nodeName`, `status.phase`)."""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from scheduling.engine.api import selectors

from .core import OcError

def parse_selector(text: str) -> Callable[[Mapping[str, str]], bool]:
    """A label selector such as `a=b,c!=d,e,!f,g in (x,y)` as a predicate over labels
    (the engine's one parser, apimachinery's labels.Parse)."""
    try:
        return selectors.parse(text).matches
    except selectors.SelectorError as exc:
        raise OcError(str(exc)) from None


def _field(doc: Mapping[str, Any], path: str) -> str:
    value: Any = doc
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if isinstance(value, bool) or path in BOOL_FIELDS:
        return "true" if value else "false"
    return "" if value is None else str(value)


BOOL_FIELDS = frozenset({"spec.unschedulable", "spec.hostNetwork"})
# The field labels the API server converts for each kind (kubernetes pkg/apis/core/v1/conversion.go,
# "field label not supported: <label>" otherwise); the other kinds take only the object meta
# ones (runtime.DefaultMetaV1FieldSelectorConversion, "<label> is not a known field selector").
FIELD_LABELS: dict[str, frozenset[str]] = {
    "Pod": frozenset({"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                      "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}),
    "Node": frozenset({"metadata.name", "spec.unschedulable"}),
    "Event": frozenset({"metadata.name", "metadata.namespace", "involvedObject.kind", "involvedObject.namespace",
                        "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion",
                        "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent",
                        "source", "type"}),
}
META_FIELDS = frozenset({"metadata.name", "metadata.namespace"})


def parse_field_selector(text: str, kind: str, resource: str = "", label_selector: str = "") -> Callable[[Mapping[str, Any]], bool]:
    """`spec.nodeName=node1,status.phase!=Running` as a predicate over documents; a field the
    API server does not convert for the kind is its BadRequest, as kubectl words it
    (cli-runtime resource.Selector: `Unable to find "<gvr>" that match label selector ...`)."""
    reqs: list[Callable[[Mapping[str, Any]], bool]] = []
    for part in (p for p in text.split(",") if p.strip()):
        m = re.fullmatch(r"\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*", part)
        if not m:
            raise OcError(f'invalid selector: \'{text}\'; can\'t understand \'{part}\'')
        field, op, value = m.groups()
        if field == "spec.host" and kind == "Pod":
            field = "spec.nodeName"  # kept for old v1 clients
        supported = FIELD_LABELS.get(kind, META_FIELDS)
        if field not in supported:
            reason = (f"field label not supported: {field}" if kind in FIELD_LABELS
                      else f'"{field}" is not a known field selector: only "metadata.name", "metadata.namespace"')
            raise OcError(f'Error from server (BadRequest): Unable to find "{resource or kind.lower() + "s"}" that match label '
                          f'selector "{label_selector}", field selector "{text}": {reason}', raw=True)
        if op == "!=":
            reqs.append(lambda d, f=field, v=value: _field(d, f) != v)
        else:
            reqs.append(lambda d, f=field, v=value: _field(d, f) == v)
    return lambda doc: all(r(doc) for r in reqs)
