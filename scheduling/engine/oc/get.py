"""`oc get` (kubectl pkg/cmd/get): tables from the printers the kinds table (engine.api.kinds) names,
`-o wide|yaml|json|name`, the template formats of engine.oc.formats (`jsonpath=`,
`jsonpath-as-json=`, `custom-columns=`, `go-template=`), `--sort-by`, `--show-labels`,
`-L`, `--no-headers`, `--show-kind`, `-n`, `-A`, `-l`, `--field-selector`. Lists come in the
API server's order (namespace, then name) unless sorted."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

from scheduling.engine.api.defaults import KINDS
from scheduling.engine.api.kinds import resolve
from scheduling.engine.store import Store

from . import events as ev
from .core import BY_KIND, OUTPUT, SELECTOR, Flag, OcError, OcResult, Resource, meta, not_found, parse_flags, split_type_names
from . import formats, namespaces
from .session import SESSION
from .output import api_document, human_duration, json_text, tabwriter, yaml_text
from .printers import generic
from .selectors import parse_field_selector, parse_selector

FLAGS = (
    OUTPUT, SELECTOR,
    Flag("all-namespaces", "bool", "A", False),
    Flag("field-selector", "string", "", ""),
    Flag("show-labels", "bool", "", False),
    Flag("no-headers", "bool", "", False),
    Flag("show-kind", "bool", "", False),
    Flag("label-columns", "strings", "L", ()),
    Flag("sort-by", "string", "", ""),
    Flag("ignore-not-found", "bool", "", False),
    Flag("chunk-size", "int", "", 500),
    Flag("watch", "bool", "w", False),
    Flag("watch-only", "bool", "", False),
)
WATCH_STEP = 1.0  # simulated seconds between two looks of `oc get -w`
ALL_TYPES = ("Pod", "Service", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "CronJob", "Job", "ReplicationController")
OUTPUTS = ("custom-columns", "custom-columns-file", "go-template", "go-template-file", "json", "jsonpath", "jsonpath-as-json",
           "jsonpath-file", "name", "template", "templatefile", "wide", "yaml")


def printer_for(kind: str) -> Callable[..., tuple[list[str], list[list[str]]]]:
    """The kind's table printer named in the kinds table (engine.api.kinds), or NAME AGE."""
    entry = BY_KIND.get(kind)
    if entry is None or entry.printer is None:
        return generic
    return resolve(entry.printer)


def list_document(items: Sequence[Mapping[str, Any]]) -> dict:
    return {"apiVersion": "v1", "items": list(items), "kind": "List", "metadata": {"resourceVersion": ""}}


def _sort_key(doc: Mapping[str, Any]) -> tuple[str, str]:
    return (meta(doc).get("namespace") or "", meta(doc).get("name") or "")


def _labels_text(doc: Mapping[str, Any]) -> str:
    labels = meta(doc).get("labels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"


EVENT_NAMES = ("events", "event", "ev")
EVENT_RESOURCE = "/v1, Resource=events"


def _events(store: Store, positional: Sequence[str], flags, fmt: str, template: str, now: float) -> OcResult:
    """`oc get events [NAME...]`: the Events (engine.oc.events) oldest first, in every output
    format: printEvent's table (`-o wide` adds SUBOBJECT SOURCE ... FIRST SEEN COUNT NAME),
    the Event documents (`-o json|yaml|jsonpath`: a List, or the one Event named),
    `event/<name>` (`-o name`)."""
    first, _, named = positional[0].partition("/")
    names = ([named] if named else []) + list(positional[1:])
    namespace = flags.namespace or "default"
    all_ns = flags.all_namespaces
    chosen = [e for e in ev.folded(store.events) if all_ns or e.event_namespace == namespace]
    docs = [(e, ev.document(store, e)) for e in chosen]
    if flags.field_selector:
        match = parse_field_selector(flags.field_selector, "Event", EVENT_RESOURCE, flags.selector)
        docs = [(e, d) for e, d in docs if match(ev.selectable_fields(d))]
    if flags.selector:  # the Events the simulator makes carry no labels
        label_match = parse_selector(flags.selector)
        docs = [(e, d) for e, d in docs if label_match(meta(d).get("labels") or {})]
    errors: list[str] = []
    if names:
        by_name = {meta(d).get("name"): (e, d) for e, d in docs}
        found = []
        for name in names:
            if name in by_name:
                found.append(by_name[name])
            else:
                errors.append(f'Error from server (NotFound): events "{name}" not found\n')
        docs = found
    if flags.sort_by:
        order = formats.sort_items([d for _, d in docs], flags.sort_by)
        by_id = {id(d): (e, d) for e, d in docs}
        docs = [by_id[id(d)] for d in order]
    result = OcResult(stderr="".join(errors), exit_code=1 if errors else 0)
    template_printer = formats.printer(fmt, template, flags.no_headers)
    if fmt in ("yaml", "json") or template_printer is not None:
        shown = [d for _, d in docs]
        if names and len(names) == 1:
            if not shown:
                return result
            obj = shown[0]
        else:
            obj = list_document(shown)
        if template_printer is not None:
            result.stdout = template_printer(obj)
        else:
            result.stdout = yaml_text(obj) if fmt == "yaml" else json_text(obj)
        return result
    if fmt == "name":
        result.stdout = "".join(f"event/{meta(d).get('name')}\n" for _, d in docs)
        return result
    wide = fmt == "wide"
    rows = []
    for e, d in docs:
        row = ev.row(store, e, now, wide)
        if all_ns:
            row.insert(0, meta(d).get("namespace") or "default")
        rows.append(row)
    if not rows:
        if not errors:
            result.stderr = "No resources found\n" if all_ns else f"No resources found in {namespace} namespace.\n"
        return result
    headers = list(ev.WIDE_HEADERS if wide else ev.HEADERS)
    if all_ns:
        headers.insert(0, "NAMESPACE")
    result.stdout = tabwriter(rows if flags.no_headers else [headers, *rows])
    return result


def _gvr(resource: Resource) -> str:
    """schema.GroupVersionResource's String(): `/v1, Resource=pods`, `apps/v1, Resource=deployments`."""
    api_version = KINDS[resource.kind].api_versions[0] if resource.kind in KINDS else "v1"
    group_version = api_version if "/" in api_version else "/" + api_version
    return f"{group_version}, Resource={resource.plural}"


def _check_output_format(output: str, fmt: str, template: str) -> None:
    """Refuse an -o oc does not know, one the simulator does not print, and a jsonpath
    without its template."""
    if fmt and fmt not in OUTPUTS:
        raise OcError(f'unable to match a printer suitable for the output format "{output}", allowed formats are: '
                      + ",".join(OUTPUTS))
    if fmt in ("custom-columns-file", "go-template-file", "templatefile", "jsonpath-file"):
        raise OcError(f"the simulator reads no files: give the template itself (-o {fmt.replace('-file', '').replace('file', '')}=...)")
    formats.printer(fmt, template)  # a template that does not parse is refused before anything is read


def _selected_objects(store: Store, pairs, flags, namespace: str, all_ns: bool, live: bool = False
                      ) -> tuple[list[tuple[Resource, list[dict]]], list[OcError]]:
    """The objects each (resource, name) names, filtered by the label and field selectors,
    grouped by resource in the order asked; a NotFound error per missing name. On a running
    cluster (`live`) the namespaces include those the API server always has
    (engine.oc.namespaces)."""
    label_match = parse_selector(flags.selector) if flags.selector else None
    field_matches: dict[str, Callable] = {}
    errors: list[OcError] = []
    groups: list[tuple[Resource, list[dict]]] = []
    for resource, name in pairs:
        if name is not None:
            ns = "" if not resource.namespaced else namespace
            doc = namespaces.get(store, name) if live and resource.kind == "Namespace" else store.get(resource.kind, ns, name)
            if doc is None:
                errors.append(not_found(resource, name))
                continue
            docs = [doc]
        else:
            listed = namespaces.all_namespaces(store) if live and resource.kind == "Namespace" else store.list(resource.kind)
            docs = [d for d in listed
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
    return groups, errors


def run(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    live = SESSION in (files or {})
    output = flags.output
    fmt, _, template = output.partition("=")
    _check_output_format(output, fmt, template)
    if not positional:
        raise OcError('You must specify the type of resource to get. Use "oc api-resources" for a complete list of supported '
                      "resources.\n\nerror: Required resource not specified.\nUse \"oc explain <resource>\" for a detailed "
                      "description of that resource (e.g. oc explain pods).\nSee 'oc get -h' for help and examples", raw=True)
    if positional[0].partition("/")[0].lower() in EVENT_NAMES:
        return _events(store, positional, flags, fmt, template, now)
    if positional == ["all"]:
        pairs: list[tuple[Resource, str | None]] = [(BY_KIND[kind], None) for kind in ALL_TYPES]
    else:
        pairs = split_type_names(positional)
    all_ns = flags.all_namespaces
    namespace = flags.namespace or "default"
    groups, errors = _selected_objects(store, pairs, flags, namespace, all_ns, live)
    if flags.sort_by:
        _sort_groups(groups, flags.sort_by)
    if flags.ignore_not_found:
        errors = [e for e in errors if "(NotFound)" not in e.message]
    named = any(n is not None for _, n in pairs)
    watching = flags.watch or flags.watch_only
    if watching:
        kinds = {r.kind for r, _ in pairs}
        if len(kinds) > 1:
            raise OcError(f"watch is only supported on individual resources and resource collections, but {len(kinds)} "
                          "resources were found")
        if fmt not in ("", "wide"):
            raise OcError(f"the simulator follows tables only: -w with -o {fmt} is not supported")
    out = "" if flags.watch_only else _render(groups, fmt, template, flags, now, all_ns, single=len(pairs) == 1 and named)
    stderr_lines: list[str] = []
    total = sum(len(docs) for _, docs in groups)
    if total == 0 and not errors and fmt in ("", "wide"):
        namespaced = any(r.namespaced for r, _ in groups)
        if namespaced and not all_ns:
            stderr_lines.append(f"No resources found in {namespace} namespace.\n")
        else:
            stderr_lines.append("No resources found\n")
    if watching:
        stderr_lines = []  # kubectl waits for objects instead of saying there are none
    result = OcResult(out, "".join(stderr_lines))
    if errors:
        result.stderr += "".join(e.message + "\n" for e in errors)
        result.exit_code = 1
    if watching and not errors:
        headers, rows = _watch_rows(groups, fmt == "wide", now, all_ns)
        result.pending = {"watch": "get", "headers": headers, "rows": rows, "next_due": now + WATCH_STEP,
                          "args": list(args), "live": live, "printed": bool(out) or flags.watch_only}
    return result


def _fingerprint(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, default=str)


def _watch_rows(groups, wide: bool, now: float, all_ns: bool) -> tuple[list[str], dict[str, list]]:
    """The table's headers and, per object, [fingerprint, row] (what `-w` compares)."""
    headers: list[str] = []
    rows: dict[str, list] = {}
    for resource, docs in groups:
        h, table = printer_for(resource.kind)(docs, now, wide)
        headers = (["NAMESPACE"] if all_ns and resource.namespaced else []) + h
        for doc, row in zip(docs, table):
            if all_ns and resource.namespaced:
                row = [meta(doc).get("namespace") or "default", *row]
            key = f"{resource.kind}/{meta(doc).get('namespace') or ''}/{meta(doc).get('name') or ''}"
            rows[key] = [_fingerprint(doc), row]
    return headers, rows


def resume_watch(store: Store, pending: Mapping[str, Any], now: float) -> OcResult:
    """One more look of `oc get -w`: a row for each object that changed, appeared or went
    (its last row), laid out under the first table's header as kubectl's watch prints them."""
    positional, flags = parse_flags(pending["args"], FLAGS)
    pairs = split_type_names(positional) if positional != ["all"] else [(BY_KIND[k], None) for k in ALL_TYPES]
    groups, _ = _selected_objects(store, pairs, flags, flags.namespace or "default", flags.all_namespaces,
                                  bool(pending.get("live")))
    if flags.sort_by:
        _sort_groups(groups, flags.sort_by)
    headers, rows = _watch_rows(groups, flags.output == "wide", now, flags.all_namespaces)
    headers = headers or list(pending.get("headers") or [])
    before: dict[str, list] = dict(pending.get("rows") or {})
    changed = [row for key, (mark, row) in rows.items() if key not in before or before[key][0] != mark]
    for key, (mark, _) in before.items():
        if key not in rows:  # it went: its last state, printed now (kubectl's DELETED event)
            doc = json.loads(mark)
            row = printer_for(key.partition("/")[0])([doc], now, flags.output == "wide")[1][0]
            if flags.all_namespaces and BY_KIND[key.partition("/")[0]].namespaced:
                row = [meta(doc).get("namespace") or "default", *row]
            changed.append(row)
    out = ""
    printed = bool(pending.get("printed"))
    for row in changed:
        table = tabwriter([headers, row])
        lines = table.splitlines(keepends=True)
        out += table if not printed and not flags.no_headers else lines[-1]
        printed = True
    return OcResult(stdout=out, pending={**pending, "headers": headers, "rows": rows, "next_due": now + WATCH_STEP,
                                         "printed": printed})


def _sort_groups(groups: list[tuple[Resource, list[dict]]], field: str) -> None:
    """--sort-by: kubectl sorts what it prints (the items of each kind); a path no object has
    is an error."""
    everything = [d for _, ds in groups for d in ds]
    if everything:
        expression = formats.relaxed_jsonpath(field)
        root = formats.jp.parse(expression)
        if not any(formats.jp.find_results(root, api_document(d))[0] for d in everything):
            raise OcError(f'couldn\'t find any field with path "{expression}" in the list of objects')
    for i, (resource, ds) in enumerate(groups):
        shown = [api_document(d) for d in ds]
        order = formats.sort_items(shown, field)
        index = {id(x): d for x, d in zip(shown, ds)}
        groups[i] = (resource, [index[id(x)] for x in order])


def _render(groups: list[tuple[Resource, list[dict]]], fmt: str, template: str, flags, now: float, all_ns: bool,
            single: bool) -> str:
    docs = [d for _, ds in groups for d in ds]
    template_printer = formats.printer(fmt, template, flags.no_headers)
    if fmt in ("yaml", "json") or template_printer is not None:
        shown = [api_document(d) for d in docs]
        if single and not shown:  # the one object named is not found: only the error (kubectl's singleItemImplied)
            return ""
        obj = shown[0] if single and len(shown) == 1 else list_document(shown)
        if template_printer is not None:
            return template_printer(obj)
        if fmt == "yaml":
            return yaml_text(obj)
        return json_text(obj)
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


run.uses_files = True
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
