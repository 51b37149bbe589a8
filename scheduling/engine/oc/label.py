"""`oc label` and `oc annotate` (kubectl's pkg/cmd/label, pkg/cmd/annotate) on every
simulated kind: `TYPE NAME...`, `TYPE/NAME`, `-l`, `--all`, `--overwrite`, `--list`,
`--dry-run`, `-o name|json`, `--resource-version` (the patch's precondition: the API
server's Conflict when the object is at another version). Without it the write is a
patch: the store retries it on a fresh read when the object moved (oc_cli)."""

from __future__ import annotations

import copy
import json
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.validation import InvalidError, is_valid_label_value, validate
from scheduling.engine.store import Store

from .core import (ALL, DRY_RUN, OUTPUT, OVERWRITE, SELECTOR, Flag, OcError, OcResult, Resource, dry_run_strategy, finish,
                   meta, not_found, parse_flags, resource_or_error)
from .selectors import parse_selector
from .taint import check_output, print_obj

LIST = Flag("list", "bool", "", False)
RESOURCE_VERSION = Flag("resource-version", "string", "", "")
FLAGS = (OVERWRITE, ALL, SELECTOR, DRY_RUN, OUTPUT, LIST, RESOURCE_VERSION)


def conflict(r: Resource, name: str) -> OcError:
    """The API server's 409 for a write whose resourceVersion is not the object's."""
    return OcError(f'Error from server (Conflict): Operation cannot be fulfilled on {r.resource_string} "{name}": '
                   "the object has been modified; please apply your changes to the latest version and try again", raw=True)


def _chosen(store: Store, resources: Sequence[str], namespace: str, flags) -> list[tuple[Resource, str, str]]:
    """The targets; with --resource-version (sent in the patch as a precondition) only one."""
    chosen = targets(store, resources, namespace, flags.all, flags.selector)
    if flags.resource_version and len(chosen) > 1:
        raise OcError("--resource-version may only be used with a single resource")
    return chosen


def _precondition_fails(doc: Mapping[str, Any], flags) -> bool:
    return bool(flags.resource_version) and str(meta(doc).get("resourceVersion") or "") != flags.resource_version


def parse_labels(specs: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """parseLabels: (labels to set, keys to remove)."""
    labels: dict[str, str] = {}
    remove: list[str] = []
    for spec in specs:
        if "=" in spec:
            parts = spec.split("=")
            if len(parts) != 2:
                raise OcError(f"invalid label spec: {spec}")
            errs = is_valid_label_value(parts[1])
            if errs:
                raise OcError(f"invalid label value: {json.dumps(spec)}: {';'.join(errs)}")
            labels[parts[0]] = parts[1]
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            raise OcError(f"unknown label spec: {spec}")
    for key in remove:
        if key in labels:
            raise OcError("can not both modify and remove a label in the same command")
    return labels, remove


def parse_pairs(specs: Sequence[str], pair_type: str) -> tuple[dict[str, str], list[str]]:
    """cmdutil.ParsePairs (annotations): KEY=VALUE (value may hold '=') or KEY-."""
    new: dict[str, str] = {}
    remove: list[str] = []
    invalid: list[str] = []
    for spec in specs:
        if "=" in spec:
            key, _, value = spec.partition("=")
            if not key:
                invalid.append(spec)
                continue
            new[key] = value
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            invalid.append(spec)
    if invalid:
        raise OcError(f"invalid {pair_type} format: {', '.join(invalid)}")
    return new, remove


def _go_json_len(doc: Mapping[str, Any]) -> int:
    return len(json.dumps(doc, separators=(",", ":"), sort_keys=True))


def _split(positional: Sequence[str], what: str) -> tuple[list[str], list[str]]:
    resources: list[str] = []
    pairs: list[str] = []
    found = False
    for s in positional:
        non_resource = ("=" in s and not s.startswith("=")) or (s.endswith("-") and s != "-")
        if non_resource:
            found = True
            pairs.append(s)
        elif not found:
            resources.append(s)
        else:
            raise OcError(f"all resources must be specified before {what} changes: {s}")
    return resources, pairs


def targets(store: Store, resources: Sequence[str], namespace: str, all_objects: bool, selector: str,
            ) -> list[tuple[Resource, str, str]]:
    """(resource, namespace, name) for `TYPE NAME...`, `TYPE/NAME...`, or `TYPE -l|--all`."""
    ns_of = lambda r: namespace if r.namespaced else ""  # noqa: E731
    if "/" in resources[0]:
        out = []
        for word in resources:
            t, _, n = word.partition("/")
            r = resource_or_error(t.lower())
            out.append((r, ns_of(r), n))
        return out
    r = resource_or_error(resources[0].lower())
    names = resources[1:]
    if not names and not all_objects and not selector:
        raise OcError("resource(s) were provided, but no name was specified")
    if all_objects or selector:
        match = parse_selector(selector) if selector else (lambda labels: True)
        docs = [d for d in store.list(r.kind) if match(meta(d).get("labels") or {})
                and (not r.namespaced or (meta(d).get("namespace") or "default") == namespace)]
        return [(r, ns_of(r), meta(d).get("name") or "") for d in sorted(docs, key=lambda d: meta(d).get("name") or "")]
    return [(r, ns_of(r), n) for n in names]


def _edited(doc, r, ns: str, name: str, field: str, current: dict, new: dict, remove, action, actions: list, errors: list):
    """`doc` with its metadata.<field> map (labels or annotations) set to `current` plus `new`
    minus `remove`, as the API server would take it; the actions that write the change are
    added to `actions`. None (and the API server's error in `errors`) when it is invalid."""
    updated = copy.deepcopy(doc)
    values = {**current, **new}
    for k in remove:
        values.pop(k, None)
    if values:
        updated.setdefault("metadata", {})[field] = values
    else:
        updated.setdefault("metadata", {}).pop(field, None)
    problems = [p for p in validate(apply_defaults(updated)) if p.field.startswith(f"metadata.{field}")]
    if problems:
        errors.append(OcError(InvalidError(r.kind, name, problems).cli_message(), raw=True))
        return None
    actions.extend(action(r.kind, ns, name, k, v) for k, v in new.items() if current.get(k) != v)
    actions.extend(action(r.kind, ns, name, k, None) for k in remove if k in current)
    return updated


def label(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    resources, pairs = _split(positional, "label")
    new_labels, remove = parse_labels(pairs)
    if flags.all and flags.selector:
        raise OcError("cannot set --all and --selector at the same time")
    if not resources:
        raise OcError("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    if not new_labels and not remove and not flags.list:
        raise OcError("at least one label update is required")
    dry_run = dry_run_strategy(flags.dry_run)
    check_output(flags.output)
    namespace = flags.namespace or "default"
    errors: list[OcError] = []
    out: list[str] = []
    actions: list = []
    for r, ns, name in _chosen(store, resources, namespace, flags):
        doc = store.get(r.kind, ns, name)
        if doc is None:
            errors.append(not_found(r, name))
            continue
        if _precondition_fails(doc, flags):
            errors.append(conflict(r, name))
            continue
        current = dict(meta(doc).get("labels") or {})
        if flags.list:
            out.extend(f"{k}={current[k]}\n" for k in sorted(current))
            continue
        if not flags.overwrite:
            clashes = [f"'{k}' already has a value ({current[k]}), and --overwrite is false"
                       for k, v in new_labels.items() if k in current and current[k] != v]
            if clashes:
                errors.extend(OcError(c, raw=len(clashes) > 1) for c in clashes)
                continue
        for k in remove:
            if k not in current:
                out.append(f'label "{k}" not found.\n')
        updated = _edited(doc, r, ns, name, "labels", current, new_labels, remove, A.SetLabel, actions, errors)
        if updated is None:
            continue
        if updated == doc:
            operation = "not labeled"
        else:
            operation = "labeled"
            if not flags.overwrite and _go_json_len(updated) < _go_json_len(doc):
                operation = "unlabeled"
        out.append(print_obj(updated, r, name, operation, flags.output, dry_run))
    return finish(out, errors, actions, dry_run)


def annotate(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    resources, pairs = _split(positional, "annotation")
    if flags.list and flags.output:
        raise OcError("--list and --output may not be specified together")
    if flags.all and flags.selector:
        raise OcError("cannot set --all and --selector at the same time")
    if not resources:
        raise OcError("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    new, remove = parse_pairs(pairs, "annotation")
    if not new and not remove and not flags.list:
        raise OcError("at least one annotation update is required")
    both = [k for k in remove if k in new]
    if both:
        raise OcError(f"can not both modify and remove the following annotation(s) in the same command: {', '.join(both)}")
    dry_run = dry_run_strategy(flags.dry_run)
    check_output(flags.output)
    namespace = flags.namespace or "default"
    errors: list[OcError] = []
    out: list[str] = []
    actions: list = []
    for r, ns, name in _chosen(store, resources, namespace, flags):
        doc = store.get(r.kind, ns, name)
        if doc is None:
            errors.append(not_found(r, name))
            continue
        if _precondition_fails(doc, flags):
            errors.append(conflict(r, name))
            continue
        current = dict(meta(doc).get("annotations") or {})
        if flags.list:
            out.extend(f"{k}={current[k]}\n" for k in sorted(current))
            continue
        if not flags.overwrite:
            clashes = [f"'{k}' already has a value ({current[k]})" for k, v in new.items() if k in current and current[k] != v]
            if clashes:
                errors.append(OcError("--overwrite is false but found the following declared annotation(s): " + "; ".join(clashes)))
                continue
        updated = _edited(doc, r, ns, name, "annotations", current, new, remove, A.SetAnnotation, actions, errors)
        if updated is None:
            continue
        out.append(print_obj(updated, r, name, "annotated", flags.output, dry_run))
    return finish(out, errors, actions, dry_run)


label.help_text = """Update the labels on a resource.

  *  A label key and value must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to 63 characters each.
  *  Optionally, the key can begin with a DNS subdomain prefix and a single '/', like example.com/my-app.
  *  If --overwrite is true, then existing labels can be overwritten, otherwise attempting to overwrite a label will result in an error.

Examples:
  # Update node 'foo' with the label 'disktype' and the value 'ssd'
  kubectl label nodes foo disktype=ssd

  # Update node 'foo' with the label 'disktype' and the value 'hdd', overwriting any existing value
  kubectl label --overwrite nodes foo disktype=hdd

  # Remove a label named 'disktype' from node 'foo' if it exists
  kubectl label nodes foo disktype-

Usage:
  kubectl label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] [options]
"""

annotate.help_text = """Update the annotations on one or more resources.

Examples:
  # Update pod 'foo' with the annotation 'description' and the value 'my frontend'
  kubectl annotate pods foo description='my frontend'

  # Remove an annotation named 'description' from pod 'foo'
  kubectl annotate pods foo description-

Usage:
  kubectl annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] [options]
"""
