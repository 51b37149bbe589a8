"""`oc scale` (kubectl pkg/cmd/scale): `deployment.apps/web scaled`. `--current-replicas` and
`--resource-version` are preconditions checked on the object read (ScalePrecondition); the
write is retried on a fresh read when the object moved meanwhile (oc_cli), as kubectl's
scaler retries a conflict."""

from __future__ import annotations

from typing import Sequence

from scheduling.engine import actions as A
from scheduling.engine.store import Store

from .core import ALL, DRY_RUN, OUTPUT, SELECTOR, Flag, OcError, OcResult, dry_run_strategy, finish, meta, not_found, parse_flags
from .label import targets
from .taint import print_obj

FLAGS = (ALL, SELECTOR, DRY_RUN, OUTPUT, Flag("replicas", "int", "", -1), Flag("current-replicas", "int", "", -1),
         Flag("resource-version", "string", "", ""), Flag("timeout", "duration", "", 0.0))
SCALABLE = frozenset({"Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "MachineSet"})


def run(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    if flags.replicas < 0:
        raise OcError("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
    if flags.current_replicas < -1:
        raise OcError("The --current-replicas must specify an integer of -1 or greater")
    if not positional:
        raise OcError("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n"
                      "   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
    dry_run = dry_run_strategy(flags.dry_run)
    chosen = targets(store, positional, flags.namespace or "default", flags.all, flags.selector)
    if not chosen:
        raise OcError("no objects passed to scale")
    out: list[str] = []
    errors: list[OcError] = []
    actions: list = []
    for r, ns, name in chosen:
        doc = store.get(r.kind, ns, name)
        if doc is None:
            errors.append(not_found(r, name))
            continue
        if r.kind not in SCALABLE:
            errors.append(OcError("Error from server (NotFound): the server could not find the requested resource", raw=True))
            continue
        current = int((doc.get("spec") or {}).get("replicas", 1) or 0)
        if flags.current_replicas != -1 and flags.current_replicas != current:
            errors.append(OcError(f"Expected replicas to be {flags.current_replicas}, was {current}"))
            continue
        version = str(meta(doc).get("resourceVersion") or "")
        if flags.resource_version and flags.resource_version != version:  # ScalePrecondition.validate
            errors.append(OcError(f"Expected resource version to be {flags.resource_version}, was {version}"))
            continue
        actions.append(A.SetReplicas(r.kind, ns, name, flags.replicas))
        updated = {**doc, "spec": {**(doc.get("spec") or {}), "replicas": flags.replicas}}
        out.append(print_obj(updated, r, meta(doc).get("name") or name, "scaled", flags.output, dry_run))
    return finish(out, errors, actions, dry_run)


run.help_text = """Set a new size for a deployment, replica set, replication controller, or stateful set.

Examples:
  # Scale a replica set named 'foo' to 3
  kubectl scale --replicas=3 rs/foo

  # Scale a resource identified by type and name specified in "foo.yaml" to 3
  kubectl scale --replicas=3 -f foo.yaml

Usage:
  kubectl scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME) [options]
"""
