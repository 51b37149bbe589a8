"""`oc` commands against the simulated cluster: `oc adm taint`, `oc adm cordon`,
`oc adm uncordon` and `oc label`, with kubectl's messages (reference kube-conventions
§2.1-2.2; `oc adm taint/cordon/uncordon` are kubectl's commands renamed, so the usage
suffix reads `See 'oc adm taint -h' for help and examples`). `kubectl taint|cordon|
uncordon|label` are accepted too and print kubectl's name.

`run(store, command, now)` parses and executes one command line against the documents
of `store` (read only) and returns `OcResult(stdout, stderr, exit_code, actions)`; the
caller applies the actions (SetTaints, SetUnschedulable, SetLabel). Nothing is applied
on a dry run or an error.

Syntax and behaviour follow current kubectl (pkg/cmd/taint, pkg/cmd/drain, pkg/cmd/label),
which the seeds' `oc` (OpenShift 4) prints: `node/<name> tainted`, `KEY:EFFECT` taints,
`--dry-run=client|server`. kubectl 1.11 differed (`node "n1" tainted`, no `KEY:EFFECT`).
Output formats: the name printer (default) and `-o name`; `-o json` prints the object;
YAML output is not available in the engine (it has no YAML library).
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from . import actions as A
from .defaults import apply_defaults
from .objects import Taint
from .store import Store, meta
from .validation import InvalidError, is_qualified_name, is_valid_label_value, validate

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


@dataclass
class OcResult:
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    actions: list = field(default_factory=list)


class OcError(Exception):
    """A command error: `message` is kubectl's text (printed `error: <message>`; usage
    errors add the `See '<cmd> -h' for help and examples` line). parse_taint(s) and
    parse_labels raise it too, so a form field can show the same words."""

    def __init__(self, message: str, usage: bool = False, raw: bool = False):
        super().__init__(message)
        self.message = message
        self.usage = usage
        self.raw = raw  # printed as is (Error from server ..., The Node "x" is invalid: ...)


# --- command line --------------------------------------------------------------------------------------


@dataclass
class _Flags:
    overwrite: bool = False
    all: bool = False
    selector: str = ""
    selector_set: bool = False
    dry_run: str = "none"
    output: str = ""
    namespace: str = "default"
    list: bool = False
    help: bool = False


_BOOL_FLAGS = {"overwrite", "all", "list", "help"}
_VALUE_FLAGS = {"selector", "output", "namespace", "dry-run"}
_SHORT = {"l": "selector", "o": "output", "n": "namespace", "h": "help"}


def _parse_flags(args: Sequence[str], allowed: set[str]) -> tuple[list[str], _Flags]:
    """pflag-style parsing, flags interspersed with arguments; `--` ends flags."""
    flags = _Flags()
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional.extend(args[i:])
            break
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[2:].partition("=")
            if name not in allowed:
                raise OcError(f"unknown flag: --{name}", usage=True)
            if name in _BOOL_FLAGS:
                if eq:
                    if value.lower() not in ("true", "false", "1", "0", "t", "f"):
                        raise OcError(f'invalid argument "{value}" for "--{name}" flag: strconv.ParseBool: parsing "{value}": invalid syntax', usage=True)
                    _set(flags, name, value.lower() in ("true", "1", "t"))
                else:
                    _set(flags, name, True)
            elif name == "dry-run":
                _set(flags, name, value if eq else "unchanged")
            else:
                if not eq:
                    if i >= len(args):
                        raise OcError(f"flag needs an argument: --{name}", usage=True)
                    value = args[i]
                    i += 1
                _set(flags, name, value)
        elif arg.startswith("-") and len(arg) > 1:
            short = arg[1]
            name = _SHORT.get(short)
            if name is None or name not in allowed:
                raise OcError(f"unknown shorthand flag: '{short}' in {arg}", usage=True)
            if name in _BOOL_FLAGS:
                _set(flags, name, True)
            else:
                value = arg[2:]
                if value.startswith("="):
                    value = value[1:]
                if not value:
                    if i >= len(args):
                        raise OcError(f"flag needs an argument: '{short}' in -{short}", usage=True)
                    value = args[i]
                    i += 1
                _set(flags, name, value)
        else:
            positional.append(arg)
    return positional, flags


def _set(flags: _Flags, name: str, value: Any) -> None:
    if name == "selector":
        flags.selector, flags.selector_set = value, True
    elif name == "dry-run":
        flags.dry_run = value
    else:
        setattr(flags, name.replace("-", "_"), value)


def _dry_run(value: str) -> str:
    """GetDryRunStrategy: none, client or server (a bare --dry-run means client)."""
    if value in ("none", "false", ""):
        return "none"
    if value in ("client", "true", "unchanged"):
        return "client"
    if value == "server":
        return "server"
    raise OcError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')


def _suffix(dry_run: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")


# --- label selectors (labels.Parse, the common forms) ------------------------------------------------------

_SET_RE = re.compile(r"^\s*(!?)\s*([^\s!=,()]+)\s*(?:(==|=|!=)\s*([^\s,()]*)|\s+(in|notin)\s*\(([^)]*)\))?\s*$")


def parse_selector(text: str) -> Callable[[Mapping[str, str]], bool]:
    """A label selector such as `a=b,c!=d,e,!f,g in (x,y)` as a predicate over labels."""
    reqs: list[Callable[[Mapping[str, str]], bool]] = []
    parts = re.split(r",(?![^()]*\))", text) if text.strip() else []
    for part in parts:
        m = _SET_RE.match(part)
        if not m:
            raise OcError(f"unable to parse requirement: {part!r}")
        neg, key, op, value, set_op, values = m.groups()
        if neg and (op or set_op):
            raise OcError(f"unable to parse requirement: {part!r}")
        if neg:
            reqs.append(lambda labels, k=key: k not in labels)
        elif op in ("=", "=="):
            reqs.append(lambda labels, k=key, v=value: labels.get(k) == v)
        elif op == "!=":
            reqs.append(lambda labels, k=key, v=value: labels.get(k) != v)
        elif set_op:
            vals = {v.strip() for v in values.split(",") if v.strip()}
            if set_op == "in":
                reqs.append(lambda labels, k=key, vs=vals: k in labels and labels[k] in vs)
            else:
                reqs.append(lambda labels, k=key, vs=vals: k not in labels or labels[k] not in vs)
        else:
            reqs.append(lambda labels, k=key: k in labels)
    return lambda labels: all(r(labels) for r in reqs)


# --- taints (pkg/util/taints, kubectl taint) -------------------------------------------------------------------


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


# --- shared output --------------------------------------------------------------------------------------------


def _node_names(store: Store) -> list[str]:
    return [meta(n).get("name") or "" for n in store.list("Node")]


def _json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=4) + "\n"


def _print(out: list[str], doc: Mapping[str, Any], kind: str, name: str, operation: str, flags: _Flags) -> None:
    if flags.output == "name":
        out.append(f"{kind}/{name}\n")
    elif flags.output == "json":
        out.append(_json(doc))
    else:
        out.append(f"{kind}/{name} {operation}{_suffix(flags.dry_run)}\n")


def _check_output(flags: _Flags) -> None:
    if flags.output not in ("", "name", "json"):
        allowed = "json, name"
        raise OcError(f'unable to match a printer suitable for the output format "{flags.output}", allowed formats are: {allowed}')


def _not_found(kind_plural: str, name: str) -> OcError:
    return OcError(f'Error from server (NotFound): {kind_plural} "{name}" not found', raw=True)


def _format_errors(errors: Sequence[OcError]) -> str:
    """checkErr: one error -> `error: <msg>` (raw ones as is); several -> one per line."""
    if len(errors) == 1:
        e = errors[0]
        return (e.message if e.raw else _error_line(e.message)) + "\n"
    return "".join(e.message + "\n" for e in errors)


def _error_line(message: str) -> str:
    return message if message.startswith("error: ") else f"error: {message}"


# --- oc adm taint -------------------------------------------------------------------------------------------------


def _taint(store: Store, args: Sequence[str], cmd: str, now: float) -> OcResult:
    positional, flags = _parse_flags(args, {"overwrite", "all", "selector", "dry-run", "output", "help"})
    if flags.help:
        return OcResult(stdout=TAINT_HELP.replace("kubectl taint", cmd))
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
    if len(resources) < 1:
        raise OcError("one or more resources must be specified as <resource> <name>")
    if len(taint_args) < 1:
        raise OcError("at least one taint update is required")
    try:
        to_add, to_remove = parse_taints(taint_args)
    except OcError as exc:
        raise OcError(exc.message, usage=True) from None
    dry_run = _dry_run(flags.dry_run)
    flags.dry_run = dry_run
    # Validate (usage errors)
    resource_type = resources[0].lower()
    if resource_type not in ("node", "nodes", "no"):
        if resource_type in _KNOWN_TYPES:
            raise OcError(f"invalid resource type {resource_type}, only node types are supported", usage=True)
        raise OcError(f'the server doesn\'t have a resource type "{resource_type}"', usage=True)
    conflicts = [f"{r.key}={r.effect}" for a in to_add for r in to_remove if a.key == r.key and (not r.effect or a.effect == r.effect)]
    if conflicts:
        raise OcError(f"can not both modify and remove the following taint(s) in the same command: {', '.join(conflicts)}", usage=True)
    if flags.all and flags.selector:
        raise OcError("setting 'all' parameter with a non empty selector is prohibited", usage=True)
    if not flags.all and not flags.selector and len(resources) < 2:
        raise OcError("at least one resource name must be specified since 'all' parameter is not set", usage=True)
    _check_output(flags)

    names, errors = _select_nodes(store, resources[1:], flags)
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
        if dry_run == "none":
            actions.append(A.SetTaints(name, tuple(new_taints)))
        _print(out, updated, "node", name, operation, flags)
    return _finish(out, errors, actions)


_KNOWN_TYPES = {"pod", "pods", "po", "deployment", "deployments", "deploy", "replicaset", "replicasets", "rs",
                "service", "services", "svc", "namespace", "namespaces", "ns", "daemonset", "daemonsets", "ds",
                "statefulset", "statefulsets", "sts", "replicationcontroller", "replicationcontrollers", "rc"}


def _select_nodes(store: Store, names: Sequence[str], flags: _Flags) -> tuple[list[str], list[OcError]]:
    """The nodes a command acts on: --all, -l, or the names given (missing ones are errors)."""
    if flags.all or flags.selector:
        match = parse_selector(flags.selector) if flags.selector else (lambda labels: True)
        chosen = [meta(n).get("name") or "" for n in store.list("Node") if match((meta(n).get("labels") or {}))]
        return sorted(chosen), []
    found: list[str] = []
    errors: list[OcError] = []
    for name in names:
        if store.get("Node", "", name) is None:
            errors.append(_not_found("nodes", name))
        else:
            found.append(name)
    return found, errors


def _finish(out: list[str], errors: list[OcError], actions: list) -> OcResult:
    if errors:
        return OcResult("".join(out), _format_errors(errors), 1, actions)
    return OcResult("".join(out), "", 0, actions)


# --- oc adm cordon / uncordon -----------------------------------------------------------------------------------------


def _cordon(store: Store, args: Sequence[str], cmd: str, desired: bool) -> OcResult:
    positional, flags = _parse_flags(args, {"selector", "dry-run", "help", "output"})
    verb = "cordon" if desired else "uncordon"
    if flags.help:
        return OcResult(stdout=(CORDON_HELP if desired else UNCORDON_HELP).replace("kubectl", cmd.rsplit(" ", 1)[0]))
    if not positional and not flags.selector_set:
        raise OcError(f"USAGE: {verb} NODE [flags]", usage=True)
    if positional and flags.selector:
        raise OcError("error: cannot specify both a node name and a --selector option", usage=True)
    flags.dry_run = _dry_run(flags.dry_run)
    _check_output(flags)
    if flags.selector:
        names, _ = _select_nodes(store, (), flags)
    else:
        names = []
        for name in positional:
            if name.startswith("node/") or name.startswith("nodes/"):
                name = name.split("/", 1)[1]
            if store.get("Node", "", name) is None:
                raise _not_found("nodes", name)
            names.append(name)
    out: list[str] = []
    actions: list = []
    for name in names:
        node = store.get("Node", "", name)
        current = bool((node.get("spec") or {}).get("unschedulable"))
        if current == desired:
            operation = f"already {verb}ed"
        else:
            operation = f"{verb}ed"
            if flags.dry_run == "none":
                actions.append(A.SetUnschedulable(name, desired))
        updated = copy.deepcopy(node)
        if desired:
            updated.setdefault("spec", {})["unschedulable"] = True
        else:
            updated.setdefault("spec", {}).pop("unschedulable", None)
        _print(out, updated, "node", name, operation, flags)
    return OcResult("".join(out), "", 0, actions)


# --- oc label ---------------------------------------------------------------------------------------------------------------


_LABEL_TYPES = {"node": ("Node", "nodes", "node"), "nodes": ("Node", "nodes", "node"), "no": ("Node", "nodes", "node"),
                "pod": ("Pod", "pods", "pod"), "pods": ("Pod", "pods", "pod"), "po": ("Pod", "pods", "pod")}


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


def _go_json_len(doc: Mapping[str, Any]) -> int:
    return len(json.dumps(doc, separators=(",", ":"), sort_keys=True))


def _label(store: Store, args: Sequence[str], cmd: str) -> OcResult:
    positional, flags = _parse_flags(args, {"overwrite", "all", "selector", "dry-run", "output", "namespace", "list", "help"})
    if flags.help:
        return OcResult(stdout=LABEL_HELP.replace("kubectl label", cmd))
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
            raise OcError(f"all resources must be specified before label changes: {s}")
    new_labels, remove = parse_labels(pairs)
    if flags.all and flags.selector:
        raise OcError("cannot set --all and --selector at the same time")
    if not resources:
        raise OcError("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    if not new_labels and not remove and not flags.list:
        raise OcError("at least one label update is required")
    flags.dry_run = _dry_run(flags.dry_run)
    _check_output(flags)
    if "/" in resources[0]:
        items = []
        for r in resources:
            t, _, n = r.partition("/")
            items.append((t.lower(), n))
    else:
        t = resources[0].lower()
        items = [(t, n) for n in resources[1:]]
        if t not in _LABEL_TYPES:
            raise OcError(f'the server doesn\'t have a resource type "{t}"')
        if not items and not flags.all and not flags.selector:
            raise OcError("resource(s) were provided, but no name was specified")
        if flags.all or flags.selector:
            kind = _LABEL_TYPES[t][0]
            match = parse_selector(flags.selector) if flags.selector else (lambda labels: True)
            docs = [d for d in store.list(kind) if match(meta(d).get("labels") or {})
                    and (kind == "Node" or (meta(d).get("namespace") or "default") == flags.namespace)]
            items = [(t, meta(d).get("name") or "") for d in sorted(docs, key=lambda d: meta(d).get("name") or "")]
    errors: list[OcError] = []
    targets: list[tuple[str, str, str]] = []  # (type word, kind, name)
    for t, n in items:
        if t not in _LABEL_TYPES:
            raise OcError(f'the server doesn\'t have a resource type "{t}"')
        targets.append((t, _LABEL_TYPES[t][0], n))
    out: list[str] = []
    actions: list = []
    for t, kind, name in targets:
        ns = "" if kind == "Node" else flags.namespace
        doc = store.get(kind, ns, name)
        _, plural, singular = _LABEL_TYPES[t]
        if doc is None:
            errors.append(_not_found(plural, name))
            continue
        current = dict(meta(doc).get("labels") or {})
        if flags.list:
            for k in sorted(current):
                out.append(f"{k}={current[k]}\n")
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
        updated = copy.deepcopy(doc)
        labels = {**current, **new_labels}
        for k in remove:
            labels.pop(k, None)
        if labels:
            updated.setdefault("metadata", {})["labels"] = labels
        else:
            updated.setdefault("metadata", {}).pop("labels", None)
        problems = validate(apply_defaults(updated)) if kind in ("Node", "Pod") else []
        problems = [p for p in problems if p.field.startswith("metadata.labels")]
        if problems:
            errors.append(OcError(InvalidError(kind, name, problems).cli_message(), raw=True))
            continue
        if updated == doc:
            operation = "not labeled"
        else:
            operation = "labeled"
            if not flags.overwrite and _go_json_len(updated) < _go_json_len(doc):
                operation = "unlabeled"
        if flags.dry_run == "none":
            for k, v in new_labels.items():
                if current.get(k) != v:
                    actions.append(A.SetLabel(kind, ns, name, k, v))
            for k in remove:
                if k in current:
                    actions.append(A.SetLabel(kind, ns, name, k, None))
        _print(out, updated, singular, name, operation, flags)
    return _finish(out, errors, actions)


# --- entry point ------------------------------------------------------------------------------------------------------------


def run(store: Store, command: str | Sequence[str], now: float = 0.0) -> OcResult:
    """Run one `oc` (or `kubectl`) command line against `store`."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError as exc:
        return OcResult(stderr=f"error: {exc}\n", exit_code=1)
    if not argv or argv[0] not in ("oc", "kubectl"):
        return OcResult(stderr=f"error: the simulator runs oc commands only: {' '.join(argv)}\n", exit_code=1)
    tool = argv[0]
    rest = argv[1:]
    if tool == "oc" and rest[:1] == ["adm"]:
        sub = rest[1:2]
        args = rest[2:]
        path = f"oc adm {sub[0]}" if sub else "oc adm"
    else:
        sub = rest[:1]
        args = rest[1:]
        path = f"{tool} {sub[0]}" if sub else tool
    name = sub[0] if sub else ""
    handlers: dict[str, Callable[[], OcResult]] = {}
    adm = tool == "kubectl" or rest[:1] == ["adm"]
    if adm:
        handlers["taint"] = lambda: _taint(store, args, path, now)
        handlers["cordon"] = lambda: _cordon(store, args, path, True)
        handlers["uncordon"] = lambda: _cordon(store, args, path, False)
    if tool == "kubectl" or not adm:
        handlers["label"] = lambda: _label(store, args, path)
    handler = handlers.get(name)
    if handler is None:
        supported = "oc adm taint, oc adm cordon, oc adm uncordon, oc label"
        return OcResult(stderr=f'error: unknown command "{" ".join(argv[1:3])}": the simulator supports {supported}\n', exit_code=1)
    try:
        return handler()
    except OcError as exc:
        if exc.raw:
            return OcResult(stderr=exc.message + "\n", exit_code=1)
        text = _error_line(exc.message)
        if exc.usage:
            text += f"\nSee '{path} -h' for help and examples"
        return OcResult(stderr=text + "\n", exit_code=1)


# --- help texts -------------------------------------------------------------------------------------------------------------------

TAINT_HELP = """Update the taints on one or more nodes.

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

CORDON_HELP = """Mark node as unschedulable.

Examples:
  # Mark node "foo" as unschedulable
  kubectl cordon foo

Options:
    --dry-run='none': Must be "none", "server", or "client".
    -l, --selector='': Selector (label query) to filter on

Usage:
  kubectl cordon NODE [options]
"""

UNCORDON_HELP = """Mark node as schedulable.

Examples:
  # Mark node "foo" as schedulable
  kubectl uncordon foo

Options:
    --dry-run='none': Must be "none", "server", or "client".
    -l, --selector='': Selector (label query) to filter on

Usage:
  kubectl uncordon NODE [options]
"""

LABEL_HELP = """Update the labels on a resource.

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
