"""`oc patch` (kubectl pkg/cmd/patch): `TYPE NAME -p PATCH [--type strategic|merge|json]`,
printing `<kind>.<group>/<name> patched` or `... patched (no change)`.

A merge patch is RFC 7386's JSON merge patch (objects merged key by key, null removes a key,
anything else replaces); a strategic merge patch is accepted for the built-in kinds and read
as a merge patch (the maps the simulator's commands patch, a ConfigMap's data, a spec's
fields, merge the same way; lists are replaced); custom resources (the OpenShift kinds) refuse
it as their API server does (UnsupportedMediaType). A JSON patch (RFC 6902) applies its
add / remove / replace operations. The patch is read as JSON (kubectl also takes YAML)."""

from __future__ import annotations

import copy
import json
from typing import Any, Sequence

from scheduling.engine import actions as A
from scheduling.engine.store import Store

from .core import DRY_RUN, OUTPUT, Flag, OcError, OcResult, dry_run_strategy, finish, meta, not_found, parse_flags
from .label import targets
from .taint import print_obj

FLAGS = (DRY_RUN, OUTPUT, Flag("patch", "string", "p", ""), Flag("type", "string", "", "strategic"),
         Flag("patch-file", "string", "", ""), Flag("local", "bool", "", False))
CUSTOM_RESOURCE_GROUPS = ".openshift.io"  # the simulator's custom resources are OpenShift's CRDs
UNSUPPORTED = ("Error from server (UnsupportedMediaType): the body of the request was in an unknown format - accepted media "
               "types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 MergePatch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise OcError(f'add operation does not apply: doc is missing path: "{path}": missing value')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json_patch(doc: Any, ops: Any) -> Any:
    """RFC 6902 add / remove / replace (the operations a user types); errors worded as
    evanphx/json-patch words them."""
    if not isinstance(ops, list):
        raise OcError("unable to parse the patch: json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    out = copy.deepcopy(doc)
    for op in ops:
        kind, path = (op or {}).get("op"), (op or {}).get("path", "")
        parts = _pointer(path)
        parent = out
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent.get(p) if isinstance(parent, dict) else None
            if parent is None:
                raise OcError(f'{kind} operation does not apply: doc is missing path: "{path}": missing value')
        last = parts[-1] if parts else ""
        if kind == "add":
            if isinstance(parent, list):
                parent.insert(len(parent) if last == "-" else int(last), op.get("value"))
            else:
                parent[last] = op.get("value")
        elif kind in ("remove", "replace"):
            missing = (last not in parent) if isinstance(parent, dict) else not (last.isdigit() and int(last) < len(parent))
            if missing:
                raise OcError(f'{kind} operation does not apply: doc is missing key: {path}: missing value' if kind == "replace"
                              else f"unable to remove nonexistent key: {last}: missing value")
            if kind == "remove":
                del parent[int(last) if isinstance(parent, list) else last]
            else:
                parent[int(last) if isinstance(parent, list) else last] = op.get("value")
        else:
            raise OcError(f"Unexpected kind: {kind}")
    return out


def run(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS + (Flag("namespace", "string", "n", ""),))
    if not positional:
        raise OcError("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n"
                      "   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'", usage=True)
    if not flags.patch:
        raise OcError("must specify -p to patch", usage=True)
    if flags.type not in ("json", "merge", "strategic"):
        raise OcError(f"--type must be one of [json merge strategic], not \"{flags.type}\"", usage=True)
    try:
        patch = json.loads(flags.patch)
    except ValueError as exc:  # kubectl also reads YAML here (yaml.ToJSON); the simulator reads JSON only
        raise OcError(f"unable to parse \"{flags.patch}\": {exc}") from exc
    dry_run = dry_run_strategy(flags.dry_run)
    chosen = targets(store, positional, flags.namespace or "default", False, "")
    out: list[str] = []
    errors: list[OcError] = []
    actions: list = []
    for r, ns, name in chosen:
        doc = store.get(r.kind, ns, name)
        if doc is None:
            errors.append(not_found(r, name))
            continue
        group = (doc.get("apiVersion") or "v1").rpartition("/")[0]
        if flags.type == "strategic" and group.endswith(CUSTOM_RESOURCE_GROUPS):
            errors.append(OcError(UNSUPPORTED, raw=True))
            continue
        if flags.type == "json":
            new = json_patch(doc, patch)
        else:
            new = merge_patch(doc, patch)
        for key in ("kind", "apiVersion"):
            new[key] = doc.get(key)
        new["metadata"] = {**(new.get("metadata") or {}), "name": meta(doc).get("name"), **({"namespace": ns} if ns else {})}
        changed = new != doc
        if changed:
            actions.append(A.ReplaceObject(new, keep_status="status" not in (patch if isinstance(patch, dict) else {})))
        out.append(print_obj(new, r, meta(doc).get("name") or name, "patched" if changed else "patched (no change)",
                             flags.output, dry_run))
    return finish(out, errors, actions, dry_run)


run.help_text = """Update fields of a resource using strategic merge patch, a JSON merge patch, or a JSON patch.

 JSON and YAML formats are accepted.

Examples:
  # Partially update a node using a strategic merge patch, specifying the patch as JSON
  kubectl patch node k8s-node-1 -p '{"spec":{"unschedulable":true}}'

  # Update a container's image using a JSON patch with positional arrays
  kubectl patch pod valid-pod --type='json' -p='[{"op": "replace", "path": "/spec/containers/0/image", "value":"new image"}]'

Usage:
  kubectl patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [options]
"""
