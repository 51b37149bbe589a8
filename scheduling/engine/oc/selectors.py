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


_FIELDS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "metadata.name": lambda d: str((d.get("metadata") or {}).get("name") or ""),
    "metadata.namespace": lambda d: str((d.get("metadata") or {}).get("namespace") or ""),
    "spec.nodeName": lambda d: str((d.get("spec") or {}).get("nodeName") or ""),
    "spec.schedulerName": lambda d: str((d.get("spec") or {}).get("schedulerName") or ""),
    "status.phase": lambda d: str((d.get("status") or {}).get("phase") or ""),
    "spec.unschedulable": lambda d: "true" if (d.get("spec") or {}).get("unschedulable") else "false",
}


def parse_field_selector(text: str, kind: str) -> Callable[[Mapping[str, Any]], bool]:
    """`spec.nodeName=node1,status.phase!=Running` as a predicate over documents."""
    reqs: list[Callable[[Mapping[str, Any]], bool]] = []
    for part in (p for p in text.split(",") if p.strip()):
        m = re.fullmatch(r"\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*", part)
        if not m:
            raise OcError(f'invalid selector: \'{text}\'; can\'t understand \'{part}\'')
        field, op, value = m.groups()
        getter = _FIELDS.get(field)
        if getter is None:
            raise OcError(f'Error from server (BadRequest): Unable to find "/v1, Resource={kind.lower()}s" that match '
                          f'label selector "", field selector "{text}": "{field}" is not a known field selector: only '
                          f'"metadata.name", "metadata.namespace"', raw=True)
        if op == "!=":
            reqs.append(lambda d, g=getter, v=value: g(d) != v)
        else:
            reqs.append(lambda d, g=getter, v=value: g(d) == v)
    return lambda doc: all(r(doc) for r in reqs)
