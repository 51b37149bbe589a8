"""`oc delete` (kubectl pkg/cmd/delete): `pod "web" deleted from default namespace`,
`node "n1" deleted`; workloads take their pods with them (background propagation,
engine.controllers.garbage_collector.cascade_delete); pods terminate gracefully."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.controllers.garbage_collector import cascade_delete
from scheduling.engine.store import Store, namespace_of

from .core import (ALL, DRY_RUN, FILENAME, OUTPUT, SELECTOR, BY_KIND, Flag, OcError, OcResult, dry_run_strategy, finish, meta,
                   not_found, parse_flags)
from .label import targets

FLAGS = (ALL, SELECTOR, DRY_RUN, OUTPUT, FILENAME, Flag("grace-period", "int", "", -1), Flag("now", "bool", "", False),
         Flag("force", "bool", "", False), Flag("wait", "bool", "", True), Flag("ignore-not-found", "bool", "", False),
         Flag("cascade", "string", "", "background"), Flag("timeout", "duration", "", 0.0))
FORCE_WARNING = ("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. "
                 "The resource may continue to run on the cluster indefinitely.\n")
NO_RESOURCES = ("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n"
                "   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")


def run(store: Store, args: Sequence[str], now: float = 0.0, *, files: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
        ) -> OcResult:
    positional, flags = parse_flags(args, FLAGS)
    dry_run = dry_run_strategy(flags.dry_run)
    grace = flags.grace_period
    if flags.now:
        if grace != -1:
            raise OcError("--now and --grace-period cannot be specified together")
        grace = 1
    if flags.force and grace == -1:
        grace = 0
    if grace == 0 and not flags.force:
        grace = 1  # kubectl: --grace-period=0 without --force means 1
    namespace = flags.namespace or "default"
    chosen: list[tuple[Any, str, str]] = []
    if flags.filename:
        for f in flags.filename:
            for doc in (files or {}).get(f, ()):
                r = BY_KIND.get(doc.get("kind") or "")
                if r is None:
                    raise OcError(f'resource mapping not found for name: "{meta(doc).get("name")}" namespace: "" from "{f}": '
                                  f'no matches for kind "{doc.get("kind")}"')
                ns = (meta(doc).get("namespace") or namespace) if r.namespaced else ""
                chosen.append((r, ns, meta(doc).get("name") or ""))
    elif positional:
        chosen = targets(store, positional, namespace, flags.all, flags.selector)
        if not chosen and (flags.all or flags.selector):
            r = targets(store, positional[:1] + ["x"], namespace, False, "")[0][0]
            return OcResult(stderr=f"No resources found in {namespace} namespace.\n" if r.namespaced else "No resources found\n")
    else:
        raise OcError(NO_RESOURCES, usage=True)
    out: list[str] = []
    errors: list[OcError] = []
    actions: list = []
    stderr = FORCE_WARNING if grace == 0 and flags.force else ""
    for r, ns, name in chosen:
        doc = store.get(r.kind, ns, name)
        if doc is None:
            if not flags.ignore_not_found:
                errors.append(not_found(r, name))
            continue
        if r.kind == "Pod":
            if grace == 0:
                actions.append(A.DeleteObject("Pod", ns, name))
            else:
                seconds = grace if grace > 0 else int((doc.get("spec") or {}).get("terminationGracePeriodSeconds", 30) or 0)
                actions.append(A.SetPodDeletion(ns, name, now, seconds, "Deleted"))
        else:
            actions.extend(cascade_delete(store, r.kind, namespace_of(doc), name, now))
        if flags.output == "name":
            out.append(f"{r.kind_string}/{name}\n")
            continue
        operation = "force deleted" if grace == 0 else "deleted"
        if r.namespaced:
            operation += f" from {ns} namespace"
        operation += {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")
        out.append(f'{r.kind_string} "{name}" {operation}\n')
    result = finish(out, errors, actions, dry_run)
    result.stderr = stderr + result.stderr
    return result


run.uses_files = True
run.help_text = """Delete resources by file names, stdin, resources and names, or by resources and label selector.

Examples:
  # Delete a pod with minimal delay
  kubectl delete pod foo --now

  # Delete pods and services with label name=myLabel
  kubectl delete pods,services -l name=myLabel

Usage:
  kubectl delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)]) [options]
"""
