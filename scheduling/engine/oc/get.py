"""`oc get` (kubectl pkg/cmd/get): tables from the printers of engine.oc.resources,
`-o wide|yaml|json|name|jsonpath=...`, `--show-labels`, `-n`, `-A`, `-l`,
`--field-selector`. Lists come in the API server's order (namespace, then name)."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, Sequence

from scheduling.engine.api.defaults import KINDS
from scheduling.engine.store import Store

from .core import BY_KIND, OUTPUT, SELECTOR, Flag, OcError, OcResult, Resource, meta, not_found, parse_flags, split_type_names
from .output import api_document, human_duration, json_text, jsonpath, tabwriter, yaml_text
from .printers import generic
from .resources import PRINTERS
from .selectors import parse_field_selector, parse_selector

FLAGS = (
    OUTPUT, SELECTOR,
    Flag("all-namespaces", "bool", "A", False),
    Flag("field-selector", "string", "", ""),
    Flag("show-labels", "bool", "", False),
    Flag("no-headers", "bool", "", False),
    Flag("show-kind", "bool", "", False),
    Flag("label-columns", "strings", "L", ()),
)
ALL_TYPES = ("Pod", "Service", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")
OUTPUTS = ("custom-columns", "custom-columns-file", "go-template", "go-template-file", "json", "jsonpath", "jsonpath-as-json",
           "jsonpath-file", "name", "template", "templatefile", "wide", "yaml")


def printer_for(kind: str) -> Callable[..., tuple[list[str], list[list[str]]]]:
    """The kind's table printer from the PRINTERS table (dotted path), or NAME AGE."""
    path = PRINTERS.get(kind, ((), None))[1]
    if path is None:
        return generic
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def list_document(items: Sequence[Mapping[str, Any]]) -> dict:
    return {"apiVersion": "v1", "items": list(items), "kind": "List", "metadata": {"resourceVersion": ""}}


def _sort_key(doc: Mapping[str, Any]) -> tuple[str, str]:
    return (meta(doc).get("namespace") or "", meta(doc).get("name") or "")


def _labels_text(doc: Mapping[str, Any]) -> str:
    labels = meta(doc).get("labels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"


EVENT_NAMES = ("events", "event", "ev")


def _event_fields(e: Any) -> dict:
    """The fields an Event's field selector reads (kubernetes pkg/registry/core/event ToSelectableFields)."""
    return {"metadata": {"namespace": e.namespace or "default"},
            "involvedObject": {"kind": e.kind, "namespace": e.namespace, "name": e.name},
            "reason": e.reason, "type": e.type, "source": e.source or "", "reportingComponent": e.source or ""}


def _events(store: Store, positional: Sequence[str], flags, now: float) -> OcResult:
    """`oc get events`: LAST SEEN TYPE REASON OBJECT MESSAGE, oldest first (the events
    the store keeps: engine RecordEvents, or stored ones with counts)."""
    namespace = flags.namespace or "default"
    rows = []
    events = sorted(store.events, key=lambda e: float(getattr(e, "last_time", e.time)))
    if flags.field_selector:
        match = parse_field_selector(flags.field_selector, "Event", "/v1, Resource=events", flags.selector)
        events = [e for e in events if match(_event_fields(e))]
    for e in events:
        if not flags.all_namespaces and (e.namespace or "default") != namespace and e.namespace:
            continue
        if not flags.all_namespaces and not e.namespace and namespace != "default":
            continue
        last = float(getattr(e, "last_time", e.time))
        row = [human_duration(now - last), e.type, e.reason, f"{e.kind.lower()}/{e.name}", e.message.strip().replace("\n", " ")]
        if flags.all_namespaces:
            row.insert(0, e.namespace or "default")
        rows.append(row)
    if not rows:
        return OcResult(stderr="No resources found\n" if flags.all_namespaces else f"No resources found in {namespace} namespace.\n")
    headers = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    if flags.all_namespaces:
        headers.insert(0, "NAMESPACE")
    return OcResult(tabwriter([headers, *rows]))


def _gvr(resource: Resource) -> str:
    """schema.GroupVersionResource's String(): `/v1, Resource=pods`, `apps/v1, Resource=deployments`."""
    api_version = KINDS[resource.kind].api_versions[0] if resource.kind in KINDS else "v1"
    group_version = api_version if "/" in api_version else "/" + api_version
    return f"{group_version}, Resource={resource.plural}"


def run(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    output = flags.output
    fmt, _, template = output.partition("=")
    if fmt and fmt not in OUTPUTS:
        raise OcError(f'unable to match a printer suitable for the output format "{output}", allowed formats are: '
                      + ",".join(OUTPUTS))
    if fmt in ("custom-columns", "custom-columns-file", "go-template", "go-template-file", "template", "templatefile",
               "jsonpath-file", "jsonpath-as-json"):
        raise OcError(f"the simulator does not support -o {fmt}")
    if fmt == "jsonpath" and not template:
        raise OcError("template format specified but no template given")
    if not positional:
        raise OcError('You must specify the type of resource to get. Use "oc api-resources" for a complete list of supported '
                      "resources.\n\nerror: Required resource not specified.\nUse \"oc explain <resource>\" for a detailed "
                      "description of that resource (e.g. oc explain pods).\nSee 'oc get -h' for help and examples", raw=True)
    if positional[0].lower() in EVENT_NAMES:
        return _events(store, positional, flags, now)
    if positional == ["all"]:
        pairs: list[tuple[Resource, str | None]] = [(BY_KIND[kind], None) for kind in ALL_TYPES]
    else:
        pairs = split_type_names(positional)
    all_ns = flags.all_namespaces
    namespace = flags.namespace or "default"
    label_match = parse_selector(flags.selector) if flags.selector else None
    field_matches: dict[str, Callable] = {}

    errors: list[OcError] = []
    groups: list[tuple[Resource, list[dict]]] = []
    named = any(n is not None for _, n in pairs)
    for resource, name in pairs:
        if name is not None:
            ns = "" if not resource.namespaced else namespace
            doc = store.get(resource.kind, ns, name)
            if doc is None:
                errors.append(not_found(resource, name))
                continue
            docs = [doc]
        else:
            docs = [d for d in store.list(resource.kind)
                    if all_ns or not resource.namespaced or (meta(d).get("namespace") or "default") == namespace]
            docs.sort(key=_sort_key)
        if label_match is not None:
            docs = [d for d in docs if label_match(meta(d).get("labels") or {})]
        if flags.field_selector:
            match = field_matches.setdefault(resource.kind, parse_field_selector(
                flags.field_selector, resource.kind, _gvr(resource), flags.selector))
            docs = [d for d in docs if match(d)]
        if groups and groups[-1][0] is resource:
            groups[-1][1].extend(docs)
        else:
            groups.append((resource, docs))

    out = _render(groups, fmt, template, flags, now, all_ns, single=len(pairs) == 1 and named)
    stderr_lines: list[str] = []
    total = sum(len(docs) for _, docs in groups)
    if total == 0 and not errors and fmt in ("", "wide"):
        namespaced = any(r.namespaced for r, _ in groups)
        if namespaced and not all_ns:
            stderr_lines.append(f"No resources found in {namespace} namespace.\n")
        else:
            stderr_lines.append("No resources found\n")
    result = OcResult(out, "".join(stderr_lines))
    if errors:
        result.stderr += "".join(e.message + "\n" for e in errors)
        result.exit_code = 1
    return result


def _render(groups: list[tuple[Resource, list[dict]]], fmt: str, template: str, flags, now: float, all_ns: bool,
            single: bool) -> str:
    docs = [d for _, ds in groups for d in ds]
    if fmt in ("yaml", "json", "jsonpath"):
        shown = [api_document(d) for d in docs]
        obj = shown[0] if single and len(shown) == 1 else list_document(shown)
        if fmt == "yaml":
            return yaml_text(obj)
        if fmt == "json":
            return json_text(obj)
        return jsonpath(template, obj)
    if fmt == "name":
        return "".join(f"{r.kind_string}/{meta(d).get('name')}\n" for r, ds in groups for d in ds)
    blocks: list[str] = []
    several = len([g for g in groups if g[1]]) > 1 or flags.show_kind
    for resource, ds in groups:
        if not ds:
            continue
        headers, rows = printer_for(resource.kind)(ds, now, fmt == "wide")
        if several:
            rows = [[f"{resource.kind_string}/{r[0]}", *r[1:]] for r in rows]
        for label in flags.label_columns:
            for key in label.split(","):
                headers.append(key.rpartition("/")[2].upper())
                for row, d in zip(rows, ds):
                    row.append((meta(d).get("labels") or {}).get(key, ""))
        if flags.show_labels:
            headers.append("LABELS")
            for row, d in zip(rows, ds):
                row.append(_labels_text(d))
        if all_ns and resource.namespaced:
            headers = ["NAMESPACE", *headers]
            rows = [[meta(d).get("namespace") or "default", *row] for row, d in zip(rows, ds)]
        table = rows if flags.no_headers else [headers, *rows]
        blocks.append(tabwriter(table))
    return "\n".join(blocks)


run.help_text = """Display one or many resources.

 Prints a table of the most important information about the specified resources. You can filter the list using a label selector and the --selector flag. If the desired resource type is namespaced you will only see results in the current namespace if you don't specify any namespace.

Examples:
  # List all pods in ps output format
  kubectl get pods

  # List all pods in ps output format with more information (such as node name)
  kubectl get pods -o wide

  # List a single pod in JSON output format
  kubectl get -o json pod web-pod-13je7

  # List all nodes with their labels
  kubectl get nodes --show-labels

Usage:
  kubectl get [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags] [options]
"""
