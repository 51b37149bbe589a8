"""`oc create -f`, `oc apply -f`, `oc replace -f` (kubectl pkg/cmd/create, apply,
replace) with the documents of the files (parsed by the caller): `pod/web created`,
`pod/web configured|unchanged`, `pod/web replaced`, and the API server's errors
(validation, AlreadyExists, NotFound) as kubectl prints them."""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.validation import decode_and_validate, invalid_error
from scheduling.engine.store import Store, time_value

from .core import BY_KIND, DRY_RUN, FILENAME, OUTPUT, OcError, OcResult, dry_run_strategy, finish, meta, parse_flags
from . import namespaces
from .session import SESSION
from .taint import print_obj

FLAGS = (FILENAME, DRY_RUN, OUTPUT, )
APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def source_name(filename: str) -> str:
    """The source kubectl names in its errors: the file, or "STDIN" for `-f -`."""
    return "STDIN" if filename == "-" else filename


def _documents(flags, files: Mapping[str, Sequence[Mapping[str, Any]]] | None, verb: str) -> list[tuple[str, dict]]:
    """The documents of every -f FILE, in order. A file the caller did not read (the
    console has no files; `-` is stdin, which may be empty) is kubectl's FileVisitor error
    `the path "X" does not exist`; no object at all is `no objects passed to <verb>`."""
    if not flags.filename:
        raise OcError("must specify one of -f and -k", usage=True)
    docs = []
    for f in flags.filename:
        if f != "-" and f not in (files or {}):
            raise OcError(f'the path "{f}" does not exist')
        for doc in (files or {}).get(f, ()):
            if not isinstance(doc, Mapping):
                continue
            docs.append((source_name(f), copy.deepcopy(dict(doc))))
    if not docs:
        raise OcError("no objects passed to " + verb)
    return docs


def _merge(old: Any, new: Any) -> Any:
    """A JSON merge patch of the given fields onto the stored object (what apply changes
    for fields the file names; lists are replaced)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        merged = dict(old)
        for k, v in new.items():
            merged[k] = _merge(old.get(k), v) if k in old else copy.deepcopy(v)
        return merged
    return copy.deepcopy(new)


def _run(store: Store, args: Sequence[str], now: float, files, verb: str) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    dry_run = dry_run_strategy(flags.dry_run)
    namespace = flags.namespace or "default"
    out: list[str] = []
    errors: list[OcError] = []
    actions: list = []
    for source, doc in _documents(flags, files, verb):
        kind = doc.get("kind") or ""
        r = BY_KIND.get(kind)
        name = meta(doc).get("name") or ""
        if r is None:
            errors.append(OcError(f'resource mapping not found for name: "{name}" namespace: "" from "{source}": no matches for kind '
                                  f'"{kind}" in version "{doc.get("apiVersion")}"\nensure CRDs are installed first', raw=True))
            continue
        if r.namespaced:
            doc.setdefault("metadata", {}).setdefault("namespace", namespace)
        ns = (meta(doc).get("namespace") or "default") if r.namespaced else ""
        current = (namespaces.get(store, name) if kind == "Namespace" and SESSION in (files or {})  # a running cluster's
                   else store.get(kind, ns, name))
        # as the API server judges it: a custom resource (the OpenShift kinds) by its CRD's schema
        _, problems = decode_and_validate(doc, r.namespaced)
        if problems:
            errors.append(OcError(invalid_error(doc, problems).cli_message(), raw=True))
            continue
        gerund = {"create": "creating", "apply": "creating" if current is None else "patching", "replace": "replacing"}[verb]
        if verb == "create" and current is not None:
            errors.append(OcError(f'Error from server (AlreadyExists): error when {gerund} "{source}": {r.resource_string} "{name}" '
                                  "already exists", raw=True))
            continue
        if verb == "replace" and current is None:
            errors.append(OcError(f'Error from server (NotFound): error when {gerund} "{source}": {r.resource_string} "{name}" '
                                  "not found", raw=True))
            continue
        if current is None:
            created = apply_defaults(doc)
            # the API server stamps every object it creates (not only pods)
            if created.setdefault("metadata", {}).get("creationTimestamp") is None:
                created["metadata"]["creationTimestamp"] = time_value(now)
            actions.append(A.CreateObject(created))
            operation = "created"
            shown = created
        elif verb == "apply":
            merged = _merge(current, {k: v for k, v in doc.items() if k != "status"})
            operation = "unchanged" if merged == current else "configured"
            if operation == "configured":
                actions.append(A.ReplaceObject(merged, keep_status=True))
            shown = merged
        else:
            replaced = apply_defaults(doc)
            actions.append(A.ReplaceObject(replaced, keep_status="status" not in doc))
            operation = "replaced"
            shown = replaced
        out.append(print_obj(shown, r, name, operation, flags.output, dry_run))
    return finish(out, errors, actions, dry_run)


def create(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    return _run(store, args, now, files, "create")


def apply(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    return _run(store, args, now, files, "apply")


def replace(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    return _run(store, args, now, files, "replace")


for _f in (create, apply, replace):
    _f.uses_files = True
