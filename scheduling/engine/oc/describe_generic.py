"""`oc describe` of the custom resources (ClusterVersion, ClusterOperator, MachineConfigPool,
MachineConfig, Machine, MachineSet, MachineHealthCheck, KubeDescheduler): kubectl's
genericDescriber (pkg/describe/describe.go), which has no describer of its own for them.

    Name:, Namespace:, Labels and Annotations (multiline), then printUnstructuredContent of
    the object as the API returns it (fields sorted, maps and lists nested two spaces deeper,
    list items one after another), skipping metadata.managedFields/name/namespace/labels/
    annotations, its field names made labels by smartLabelFor (fatih/camelcase's split,
    acronyms API/URL/UID/GUID upper-cased, a run of capitals merged with the word after it,
    lower-case words titled); then the Events."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from scheduling.engine.store import Store

from .output import api_document

SKIP = (".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations")
ACRONYMS = ("API", "URL", "UID", "GUID")
GENERIC_KINDS = ("ClusterVersion", "ClusterOperator", "MachineConfigPool", "MachineConfig", "Machine", "MachineSet",
                 "MachineHealthCheck", "KubeDescheduler")


def _class(ch: str) -> int:
    if ch.islower():
        return 1
    if ch.isupper():
        return 2
    if ch.isdigit():
        return 3
    return 4


def camel_split(text: str) -> list[str]:
    """github.com/fatih/camelcase Split: runs of one character class; an upper-case run
    followed by a lower-case one gives its last letter to the lower-case run."""
    runs: list[list[str]] = []
    last = 0
    for ch in text:
        c = _class(ch)
        if runs and c == last:
            runs[-1].append(ch)
        else:
            runs.append([ch])
        last = c
    for i in range(len(runs) - 1):
        if runs[i] and runs[i][0].isupper() and runs[i + 1] and runs[i + 1][0].islower():
            runs[i + 1] = [runs[i][-1]] + runs[i + 1]
            runs[i] = runs[i][:-1]
    return ["".join(r) for r in runs if r]


def smart_label(field: str) -> str:
    """smartLabelFor."""
    if any(not ch.isalpha() and ch != "-" for ch in field):
        return field
    parts = camel_split(field)
    merged: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if i < len(parts) - 1:
            nxt = parts[i + 1]
            if len(part) >= 2 and all(not c.isalpha() or c.isupper() for c in part) and nxt and nxt[0].isupper():
                merged.append(part + nxt)
                i += 2
                continue
        merged.append(part)
        i += 1
    out = []
    for part in merged:
        if part == "_":
            continue
        if part.upper() in ACRONYMS:
            part = part.upper()
        elif part.lower() == part:
            part = part[:1].upper() + part[1:]
        out.append(part)
    return " ".join(out)


def go_value(value: Any) -> str:
    """fmt's %v of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e21 else json.dumps(value)
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_value(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def print_unstructured(w, level: int, content: Mapping[str, Any], prefix: str = "", skip: tuple[str, ...] = SKIP) -> None:
    """printUnstructuredContent."""
    for field in sorted(content):
        value = content[field]
        expr = f"{prefix}.{field}"
        if expr in skip:
            continue
        if isinstance(value, dict):
            w.write(level, f"{smart_label(field)}:\n")
            print_unstructured(w, level + 1, value, expr, skip)
        elif isinstance(value, list):
            w.write(level, f"{smart_label(field)}:\n")
            for child in value:
                if isinstance(child, dict):
                    print_unstructured(w, level + 1, child, expr, skip)
                else:
                    w.write(level + 1, f"{go_value(child)}\n")
        else:
            w.write(level, f"{smart_label(field)}:\t{go_value(value)}\n")


def describe(store: Store, doc: Mapping[str, Any], now: float, w: Any, map_lines: Callable[..., None],
             events: Callable[..., None]) -> str:
    """genericDescriber.Describe, with the events of the object; `w` (kubectl's PrefixWriter),
    `map_lines` (printLabelsMultiline) and `events` (DescribeEvents) are the ones the other
    describers of scheduling.engine.oc.describe use, handed over by it."""
    api = api_document(doc)
    metadata = api.get("metadata") or {}
    w.write(0, f"Name:\t{metadata.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{metadata.get('namespace') or ''}\n")
    map_lines(w, "Labels", metadata.get("labels"))
    map_lines(w, "Annotations", metadata.get("annotations"))
    print_unstructured(w, 0, api)
    events(w, store, api.get("kind") or "", metadata.get("namespace") or "", metadata.get("name") or "", now)
    return w.render()
