"""`oc adm taint` (kubectl taint): parseTaint,
ReorganizeTaints and the command. Success output is the name printer
(`node/n1 tainted|untainted|modified`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api.objects import Taint
from scheduling.engine.api.validation import is_qualified_name, is_valid_label_value
from scheduling.engine.store import Store

from .core import (ALL, DRY_RUN, OUTPUT, OVERWRITE, SELECTOR, TAINT_EFFECTS, BY_KIND, OcError, OcResult, dry_run_strategy,
                   find_resource, finish, name_line, not_found, parse_flags)
from .output import api_document, json_text
from .selectors import parse_selector

FLAGS = (OVERWRITE, ALL, SELECTOR, DRY_RUN, OUTPUT)
NODE = BY_KIND["Node"]


@dataclass(frozen=True)
class TaintSpec:
    key: str
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        return str(Taint(self.key, self.value, self.effect))  # Taint.ToString()

    def go_value(self) -> str:
        """How `%v` prints a v1.Taint value: {key value effect <nil>}."""
        return f"{{{self.key} {self.value} {self.effect} <nil>}}"

    def to_doc(self) -> dict:
        doc = {"key": self.key, "effect": self.effect}
        if self.value:
            doc["value"] = self.value
        return doc


def _validate_effect(effect: str) -> None:
    if effect not in TAINT_EFFECTS:
        raise OcError(f"invalid taint effect: {effect}, unsupported taint effect")


def parse_taint(spec: str) -> TaintSpec:
    """parseTaint: `<key>=<value>:<effect>`, `<key>:<effect>` or `<key>`."""
    parts = spec.split(":")
    value = effect = ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        _validate_effect(effect)
        kv = parts[0].split("=")
        if len(kv) > 2:
            raise OcError(f"invalid taint spec: {spec}")
        key = kv[0]
        if len(kv) == 2:
            value = kv[1]
            errs = is_valid_label_value(value)
            if errs:
                raise OcError(f"invalid taint spec: {spec}, {'; '.join(errs)}")
    else:
        raise OcError(f"invalid taint spec: {spec}")
    errs = is_qualified_name(key)
    if errs:
        raise OcError(f"invalid taint spec: {spec}, {'; '.join(errs)}")
    return TaintSpec(key, value, effect)


def parse_taints(specs: Sequence[str]) -> tuple[list[TaintSpec], list[TaintSpec]]:
    """ParseTaints: (taints to add, taints to remove); raises on a bad spec."""
    add: list[TaintSpec] = []
    remove: list[TaintSpec] = []
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        if spec.endswith("-"):
            t = parse_taint(spec[:-1])
            remove.append(TaintSpec(t.key, "", t.effect))
            continue
        t = parse_taint(spec)
        if not t.effect:
            raise OcError(f"invalid taint spec: {spec}")
        if (t.effect, t.key) in seen:
            raise OcError(f"duplicated taints with the same key and effect: {t.go_value()}")
        seen.add((t.effect, t.key))
        add.append(t)
    return add, remove


def _match(a: Mapping[str, Any], key: str, effect: str) -> bool:
    return a.get("key") == key and (a.get("effect") or "") == effect


def reorganize_taints(old: Sequence[Mapping[str, Any]], overwrite: bool, add: Sequence[TaintSpec],
                      remove: Sequence[TaintSpec]) -> tuple[str, list[dict], list[str]]:
    """ReorganizeTaints: (operation, new taints, errors). The new taints come first, then
    the old ones they do not replace."""
    new = [t.to_doc() for t in add]
    for o in old:
        if not any(_match(o, n["key"], n["effect"]) for n in new):
            new.append(dict(o))
    added = len(old) != len(new)
    errors: list[str] = []
    deleted = False
    for r in remove:
        before = len(new)
        if r.effect:
            new = [t for t in new if not _match(t, r.key, r.effect)]
        else:
            new = [t for t in new if t.get("key") != r.key]
        deleted = len(new) != before
        if not deleted:
            errors.append(f'taint "{r}" not found')
    if (added and deleted) or overwrite:
        op = "modified"
    elif added:
        op = "tainted"
    else:
        op = "untainted"
    return op, new, errors




def _resources_then_taints(positional: Sequence[str]) -> tuple[list[str], list[str]]:
    """The arguments split as kubectl taint splits them: resources first, then taint
    changes (KEY=VAL:EFFECT, KEY:EFFECT, KEY-); a resource after a taint is an error."""
    resources: list[str] = []
    taint_args: list[str] = []
    met = False
    for s in positional:
        is_taint = "=" in s or ":" in s or s.endswith("-")
        if is_taint:
            met = True
            taint_args.append(s)
        elif not met:
            resources.append(s)
        else:
            raise OcError(f"all resources must be specified before taint changes: {s}")
    return resources, taint_args


def run(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    resources, taint_args = _resources_then_taints(positional)
    if len(resources) < 1:
        raise OcError("one or more resources must be specified as <resource> <name>")
    if len(taint_args) < 1:
        raise OcError("at least one taint update is required")
    try:
        to_add, to_remove = parse_taints(taint_args)
    except OcError as exc:
        raise OcError(exc.message, usage=True) from None
    dry_run = dry_run_strategy(flags.dry_run)
    # Validate (usage errors)
    if "/" in resources[0]:
        resource_type, _, first = resources[0].partition("/")
        resources = [resource_type, first, *(r.partition("/")[2] for r in resources[1:])]
    resource_type = resources[0].lower()
    if find_resource(resource_type) is not NODE:
        if find_resource(resource_type) is not None:
            raise OcError(f"invalid resource type {resource_type}, only node types are supported", usage=True)
        raise OcError(f'the server doesn\'t have a resource type "{resource_type}"', usage=True)
    conflicts = [f"{r.key}={r.effect}" for a in to_add for r in to_remove if a.key == r.key and (not r.effect or a.effect == r.effect)]
    if conflicts:
        raise OcError(f"can not both modify and remove the following taint(s) in the same command: {', '.join(conflicts)}", usage=True)
    if flags.all and flags.selector:
        raise OcError("setting 'all' parameter with a non empty selector is prohibited", usage=True)
    if not flags.all and not flags.selector and len(resources) < 2:
        raise OcError("at least one resource name must be specified since 'all' parameter is not set", usage=True)
    check_output(flags.output)

    names, errors = select_nodes(store, resources[1:], flags.all, flags.selector)
    out: list[str] = []
    actions: list = []
    for name in names:
        node = store.get("Node", "", name)
        taints = list((node.get("spec") or {}).get("taints") or [])
        if not flags.overwrite:
            exists = [t.key for t in to_add for o in taints if o.get("key") == t.key and (o.get("effect") or "") == t.effect]
            if exists:
                errors.append(OcError(f"node {name} already has {','.join(exists)} taint(s) with same effect(s) and --overwrite is false"))
                continue
        operation, new_taints, errs = reorganize_taints(taints, flags.overwrite, to_add, to_remove)
        if errs:
            if len(errs) == 1:
                errors.append(OcError(errs[0]))
            else:
                errors.extend(OcError(e, raw=True) for e in errs)
            continue
        updated = copy.deepcopy(node)
        updated.setdefault("spec", {})["taints"] = new_taints
        actions.append(A.SetTaints(name, tuple(new_taints)))
        out.append(print_obj(updated, NODE, name, operation, flags.output, dry_run))
    return finish(out, errors, actions, dry_run)


def check_output(output: str) -> None:
    if output not in ("", "name", "json"):
        raise OcError(f'unable to match a printer suitable for the output format "{output}", allowed formats are: json, name')


def print_obj(doc: Mapping[str, Any], resource, name: str, operation: str, output: str, dry_run: str) -> str:
    if output == "name":
        return name_line(resource, name)
    if output == "json":
        return json_text(api_document(doc))
    return name_line(resource, name, operation, dry_run)


def select_nodes(store: Store, names: Sequence[str], all_nodes: bool, selector: str) -> tuple[list[str], list[OcError]]:
    """The nodes a command acts on: --all, -l, or the names given (missing ones are errors)."""
    if all_nodes or selector:
        match = parse_selector(selector) if selector else (lambda labels: True)
        chosen = [(n.get("metadata") or {}).get("name") or "" for n in store.list("Node")
                  if match(((n.get("metadata") or {}).get("labels") or {}))]
        return sorted(chosen), []
    found: list[str] = []
    errors: list[OcError] = []
    for name in names:
        if store.get("Node", "", name) is None:
            errors.append(not_found(NODE, name))
        else:
            found.append(name)
    return found, errors


HELP = """Update the taints on one or more nodes.

  *  A taint consists of a key, value, and effect. As an argument here, it is expressed as key=value:effect.
  *  The key must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to 253 characters.
  *  Optionally, the key can begin with a DNS subdomain prefix and a single '/', like example.com/my-app.
  *  The value is optional. If given, it must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to 63 characters.
  *  The effect must be NoSchedule, PreferNoSchedule or NoExecute.
  *  Currently taint can only apply to node.

Examples:
  # Update node 'foo' with a taint with key 'dedicated' and value 'special-user' and effect 'NoSchedule'
  # If a taint with that key and effect already exists, its value is replaced as specified
  kubectl taint nodes foo dedicated=special-user:NoSchedule

  # Remove from node 'foo' the taint with key 'dedicated' and effect 'NoSchedule' if one exists
  kubectl taint nodes foo dedicated:NoSchedule-

  # Remove from node 'foo' all the taints with key 'dedicated'
  kubectl taint nodes foo dedicated-

  # Add a taint with key 'dedicated' on nodes having label myLabel=X
  kubectl taint node -l myLabel=X  dedicated=foo:PreferNoSchedule

  # Add to node 'foo' a taint with key 'bar' and no value
  kubectl taint nodes foo bar:NoSchedule

Options:
    --all=false: Select all nodes in the cluster
    --dry-run='none': Must be "none", "server", or "client".
    -o, --output='': Output format. One of: name|json.
    --overwrite=false: If true, allow taints to be overwritten, otherwise reject taint updates that overwrite existing taints.
    -l, --selector='': Selector (label query) to filter on, supports '=', '==', and '!='.

Usage:
  kubectl taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N [options]
"""

run.help_text = HELP
